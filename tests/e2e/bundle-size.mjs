// Prints the gzipped size of the release wasm bundle and fails if it exceeds the budget.
// Usage: node tests/e2e/bundle-size.mjs DIST_DIR
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/**
 * Budget for the gzipped .wasm. Issue 2 set 250 KB when the page was one chart and a form
 * (104 KB then). With the six lessons, the full console (every ethtool/sysctl/sysfs/tc/ip
 * form and its errors), scenario parsing, permalinks (deflate) and every panel, the bundle is
 * 318 KB (twiggy, pre-opt shares: yew 16 %, core fmt 9 %, page 9 %, scenario 7 %, console 5 %,
 * data 8 %). The budget was re-based at 340 KB so that growth still fails loudly; getting back
 * towards 250 KB is open work (see the closing note of the session that raised it).
 *
 * Then 348 KB (bundle 344.8 KB, 347.1 KB with the cost-per-packet chart and measureText text
 * metrics; the scenario download now gives the loaded text, which removed its serialiser): the wire view (packets drawn flow by flow on a canvas,
 * ~9 KB raw, drawn with the 2D context rather than plotters to keep it small), a console per
 * host in the compare view, and permalinks restored a slice per frame (+~6 KB gzipped in all);
 * charts now share one f64 × f64 plotters instantiation for bars and lines (−1.9 KB gzipped).
 * Then 352 KB (bundle 348.7 KB): `flow random N` and its count select (the "add 1,000
 * random flows" in one replayable command). Largest items now (twiggy, raw): rodata 121 KB
 * (lessons, cost sources, the tools' texts), console 62 KB, permalinks (deflate both ways)
 * 26 KB, scenario parsing 25 KB, the page's own html 24 KB; yew is about 190 KB.
 * Now 348.8 KB: the line charts draw their own legend instead of plotters' series labels
 * (−2 KB gzipped), which gave room back for the next feature.
 */
const BUDGET_BYTES = 352 * 1024;

const dist = process.argv[2] ?? "dist";
const wasm = readdirSync(dist).filter((f) => f.endsWith(".wasm"));
if (wasm.length !== 1) {
  console.error(`bundle-size: expected one .wasm in ${dist}, found ${wasm.length}`);
  process.exit(1);
}
const raw = readFileSync(join(dist, wasm[0]));
const gz = gzipSync(raw, { level: 9 }).length;
const kb = (n) => (n / 1024).toFixed(1);
console.log(`bundle-size: ${wasm[0]} ${kb(raw.length)} KB raw, ${kb(gz)} KB gzipped (budget ${kb(BUDGET_BYTES)} KB)`);
if (gz > BUDGET_BYTES) {
  console.error(`bundle-size: over budget by ${kb(gz - BUDGET_BYTES)} KB`);
  process.exit(1);
}
