// The independent check of benches/package-scripts.sh: acorn (bundled with node, reached with
// --expose-internals) parses every `.js` file under ORIGINAL and its copy under REWRITTEN, as a
// script or else as a module, and compares the two trees with positions removed and each
// literal's `raw` text kept (so `0.50` and `0.5` differ). Exits 1 when any copy differs.
// Usage: node --expose-internals benches/package-scripts.js ORIGINAL REWRITTEN
'use strict';
const acorn = require('internal/deps/acorn/acorn/dist/acorn');
const fs = require('fs');
const path = require('path');

const [original, rewritten] = process.argv.slice(2);
const positions = new Set(['start', 'end', 'loc', 'range']);
const tree = (ast) => JSON.stringify(ast, (k, v) => (positions.has(k) ? undefined : v));
const parse = (text, sourceType) => {
  try {
    return acorn.parse(text, { ecmaVersion: 'latest', sourceType, allowHashBang: true });
  } catch (e) {
    return null;
  }
};
const files = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
  const p = path.join(dir, e.name);
  return e.isDirectory() ? files(p) : e.name.endsWith('.js') ? [p] : [];
});

const counts = { same: 0, unchanged: 0, differ: 0, unreadable: 0 };
for (const file of files(original)) {
  const before = fs.readFileSync(file, 'utf8');
  const after = fs.readFileSync(path.join(rewritten, path.relative(original, file)), 'utf8');
  if (before === after) {
    counts.unchanged++;
    continue;
  }
  const goal = ['script', 'module'].find((g) => parse(before, g));
  if (!goal) {
    counts.unreadable++;
    continue;
  }
  const copy = parse(after, goal);
  if (copy && tree(copy) === tree(parse(before, goal))) {
    counts.same++;
  } else {
    counts.differ++;
    console.log(`DIFFERS as a ${goal}: ${file}`);
  }
}
console.log(`acorn: ${JSON.stringify(counts)} (unchanged: the copy is the original's bytes; unreadable: acorn reads neither goal)`);
process.exit(counts.differ ? 1 : 0);
