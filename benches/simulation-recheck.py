#!/usr/bin/env python3
# The simulator's error at any build, without measuring again: simulates every lossless row of
# docs/simulation-rows.md (benches/simulation.sh's validation) with each webdiet binary given
# (`audit --link …` simulates only) and sets it against that table's measured column: MAPE,
# rows beyond 10 %, the worst rows, and which rows two binaries simulate differently. A model
# change is checked in about a minute per binary; the measured column stays that of the
# validation run the docs name.
#
#   benches/simulation-recheck.py [WEBDIET_BINARY …]   (default: target/release/webdiet)
import json, os, re, shutil, statistics, subprocess, sys, tempfile
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SH = os.path.join(os.environ.get('WEBDIET_SHARED', os.path.join(ROOT, '..', 'shared')), 'corpora')
pages = [('microscape', os.path.join(ROOT, 'corpus/microscape'), 'index.html'),
         ('spacejam', f'{SH}/spacejam', 'index.html'),
         ('libwww-screenshots', f'{SH}/libwww-docs', 'WinCom/ScreenShots.html'),
         ('libwww-windll', f'{SH}/libwww-docs', 'Library/User/Platform/WinDLL.html')]
links = 'lan-1997,wan-1997,Cable,DSL,3G,4G,spdy-dsl,loss=0,spdy-cable,loss=0'
measured = {}
for line in open(os.path.join(ROOT, 'docs/simulation-rows.md')):
    f = [c.strip() for c in line.split('|')]
    if len(f) < 9 or not f[7] or f[1] in ('Page', '---'):
        continue
    m = re.match(r'([\d,.]+)', f[6])
    if not m or '(' not in f[6] or 'seeds' in f[6]:
        continue
    measured[(f[1], f[3], f[4], f[5], f[2])] = float(m.group(1).replace(',', ''))
bins = sys.argv[1:] or [os.path.join(ROOT, 'target/release/webdiet')]
work = tempfile.mkdtemp(prefix='simulation-recheck-')
sims = [{} for _ in bins]
for label, d, page in pages:
    for i, b in enumerate(bins):
        out = os.path.join(work, f'{i}-{label}')
        subprocess.run([b, 'audit', d, '--page', page, '--out', out, '--link', links],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        rep = json.load(open(f'{out}/report.json'))
        for r in rep['replay']:
            st = r.get('simulated_time')
            if not st:
                continue
            sims[i][(label, r['site'], r['mode'], r['test'], r['link']['name'])] = st['complete_ms']['median']
for b, sim in zip(bins, sims):
    errs = []
    worst = []
    for k, m in measured.items():
        if k in sim:
            e = (sim[k] - m) / m
            errs.append(abs(e))
            worst.append((abs(e), e, k, m, sim[k]))
    worst.sort(reverse=True)
    nonlan = [w[0] for w in worst if w[2][4] != 'lan-1997']
    print(f'{b}: {len(errs)} lossless rows, MAPE {100*statistics.mean(errs):.2f}%, off lan-1997 MAPE {100*statistics.mean(nonlan):.2f}% over {len(nonlan)}; beyond 10%: {sum(e>0.1 for e in errs)}, {sum(e>0.1 for e in nonlan)} of them off lan-1997')
    for w in worst[:12]:
        print(f'   {100*w[1]:+7.1f}%  {w[2]}  measured {w[3]:.0f} sim {w[4]:.0f}')
if len(bins) == 2:
    a, b = sims
    diff = [(k, a[k], b[k]) for k in a if k in b and abs(a[k] - b[k]) > 0.5]
    print(f'{len(diff)} rows differ between the binaries')
    for k, x, y in sorted(diff, key=lambda t: -abs(t[2]-t[1]))[:25]:
        m = measured.get(k)
        print(f'   {k}: {x:.0f} -> {y:.0f}  measured {m}')
shutil.rmtree(work)
