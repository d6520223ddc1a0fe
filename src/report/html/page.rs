//! The fixed parts of the HTML report: the "Method" section, the style sheet and the table
//! sorting script (all inline, so the file works offline).

use std::fmt::Write;

use crate::report::format::html as esc;
use crate::report::model::Report;

/// How the figures were measured, in words, with this report's MSS, runs and rules.
pub fn method(report: &Report) -> String {
    let runs = report.replay.first().map_or(0, |r| r.runs);
    let mss = report.replay.first().map_or(1460, |r| r.mss);
    let mut out = String::from("<h2>Method</h2><div class=\"method\">");
    let _ = write!(
        out,
        "<p>Each site version is served by webdiet's embedded server and fetched by its client in four \
         protocol modes, as in the 1997 W3C study: HTTP/1.0 with one connection per request, \
         HTTP/1.1 persistent connections, pipelining, and pipelining with deflate. The <em>first</em> \
         test starts with an empty cache; <em>validate</em> revalidates every resource.</p>\
         <p>Packets are counted by the kernel (<code>TCP_INFO</code> on both sockets) inside a private \
         network namespace whose loopback has an Ethernet-like MTU of 1500 bytes, so segments carry at \
         most {mss} bytes (MSS). The counters are read just before the client sends its FIN: following the paper, nothing \
         from the client's FIN on is counted. \
         {}</p>\
         <p><strong>Overhead</strong> = 100 × (1 − bytes / (bytes + 40 × packets)): the share of what \
         went over the wire that was TCP/IP headers (40 bytes per packet). The <strong>minimum \
         packets</strong> is the physical minimum for the same connections and bytes per connection \
         (three-way handshake, data in full-size segments, one acknowledgement per two segments, and \
         the server's FIN when it closes first); <strong>efficiency</strong> = \
         minimum / measured.</p>\
         {}",
        report
            .replay_method
            .as_ref()
            .map(|m| format!("Segmentation here: {}.", esc(m)))
            .unwrap_or_default(),
        if runs > 0 {
            format!(
                "<p>Figures are medians over {runs} run(s) per cell; ranges show the smallest and \
                 largest run.</p>"
            )
        } else {
            String::new()
        }
    );
    if let Some(c) = &report.compression {
        let _ = write!(
            out,
            "<p>Deflate estimates compress each text file with zlib; a file is worth compressing when \
             it {}.</p>",
            esc(&c.rule)
        );
    }
    let _ = write!(
        out,
        "<p>Written by {} {}, report schema version {}.</p></div>",
        esc(&report.tool.name),
        esc(&report.tool.version),
        report.schema_version
    );
    out
}

/// The page style: system fonts only, no web fonts.
pub const STYLE: &str = "\
:root{--fg:#1d232a;--muted:#5b6670;--line:#dde3e8;--bg:#ffffff;--soft:#f4f6f8}\
*{box-sizing:border-box}\
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif}\
main{max-width:1100px;margin:0 auto;padding:24px 20px 48px}\
h1{font-size:26px;margin:0 0 4px}h2{font-size:20px;margin:36px 0 10px;border-bottom:2px solid var(--line);padding-bottom:4px}\
h3{font-size:16px;margin:24px 0 8px}.sub{color:var(--muted);margin:0 0 20px;word-break:break-all}\
.cards{display:flex;flex-wrap:wrap;gap:12px}\
.card{flex:1 1 170px;background:var(--soft);border-radius:8px;padding:12px 14px}\
.card .label{color:var(--muted);font-size:13px}.card .value{font-size:18px;font-weight:600;white-space:nowrap}\
.card .detail{color:var(--muted);font-size:13px}\
figure.chart{margin:18px 0}figure.chart.wide{overflow-x:auto}figcaption{font-weight:600;margin-bottom:6px}\
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:0 32px}\
svg{font-size:12px}svg.bars{display:block;width:100%;max-width:600px;height:auto}\
svg text{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;fill:var(--fg)}svg .axis{fill:var(--muted)}\
svg text.inside{fill:#ffffff}\
svg .grid{stroke:var(--line);stroke-width:1}svg .baseline{stroke:var(--muted);stroke-width:1}\
.lead{background:var(--soft);border-radius:8px;padding:10px 16px;margin:8px 0}.lead li{margin:4px 0}\
.verdict-pass{color:#1e7a34;font-weight:700}.verdict-fail{color:#b52a26;font-weight:700}\
.evidence{margin-top:48px}@media (max-width:600px){main{padding:14px 12px 32px}h1{font-size:21px}}\
.note{color:var(--muted);font-style:italic}\
.scroll{overflow-x:auto}\
table{border-collapse:collapse;width:100%;font-size:13px;margin:8px 0}\
th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}\
th{background:var(--soft);cursor:pointer;user-select:none;white-space:nowrap}\
th[aria-sort=ascending]::after{content:' ▲'}th[aria-sort=descending]::after{content:' ▼'}\
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
tfoot td{font-weight:600}td.ok{color:#1e7a34}td.kept{color:var(--muted)}td.fail{color:#b52a26;font-weight:700}td.warn{color:#9a5b00;font-weight:700}\
td{white-space:nowrap}td.wrap{white-space:normal;overflow-wrap:anywhere;min-width:11em}code{background:var(--soft);padding:0 3px;border-radius:3px}\
#replay-runs{font-size:12px}#replay-runs th,#replay-runs td{padding:4px 5px}#replay-runs th{white-space:normal;vertical-align:bottom}\
footer{margin-top:40px;color:var(--muted);font-size:13px}";

/// Click a header to sort by it (numbers by their `data-v` key), again to reverse; footers stay.
pub const SCRIPT: &str = "\
(function(){function key(td){var v=td.getAttribute('data-v');\
if(v!==null&&v!==''&&!isNaN(v))return parseFloat(v);return td.textContent.trim();}\
document.querySelectorAll('table.sortable th').forEach(function(th){\
th.addEventListener('click',function(){var t=th.closest('table'),b=t.tBodies[0],\
i=Array.prototype.indexOf.call(th.parentNode.children,th),\
asc=th.getAttribute('aria-sort')!=='ascending';\
t.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});\
th.setAttribute('aria-sort',asc?'ascending':'descending');\
var rows=Array.prototype.slice.call(b.rows);rows.sort(function(x,y){\
var p=key(x.cells[i]),q=key(y.cells[i]);\
var r=(typeof p==='number'&&typeof q==='number')?p-q:String(p).localeCompare(String(q));\
return asc?r:-r;});rows.forEach(function(r){b.appendChild(r);});});});})();";
