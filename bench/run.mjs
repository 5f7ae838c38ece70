// `npm run bench`: runs every compiled out/bench/*.bench.js (each exports `run()` returning rows)
// and prints one table. Exits 0: targets are reported, never asserted.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = path.resolve('out/bench');
const only = process.argv[2];
const rows = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith('.bench.js')).sort()) {
  if (only && !file.includes(only)) continue;
  const mod = await import(pathToFileURL(path.join(dir, file)).href);
  const run = mod.run ?? mod.default?.run;
  try {
    for (const row of await run()) rows.push({ bench: file.replace('.bench.js', ''), ...row });
  } catch (err) {
    rows.push({ bench: file.replace('.bench.js', ''), name: 'error', value: String(err?.message ?? err), unit: '', target: '' });
  }
}
const cols = ['bench', 'name', 'value', 'unit', 'target', 'met'];
const text = rows.map((r) => cols.map((c) => (r[c] === undefined ? '' : String(r[c]))));
const widths = cols.map((c, i) => Math.max(c.length, ...text.map((t) => t[i].length)));
const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join(' | ');
console.log(line(cols));
console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
for (const t of text) console.log(line(t));
