// scripts/bench-wasm-engine.sh's runner: the module of crates/wasm-bench in a module worker of
// headless Chromium (the page's engine, without the page), and the native CLI, alternately.
// Usage: node scripts/bench-wasm-engine.mjs DIR CLI LESSON RUNS
import { execFileSync } from "node:child_process";
import { launchBrowser, serveDir } from "../tests/e2e/harness.mjs";

const [dir, cli, lesson, runs] = process.argv.slice(2);
const { url, close } = await serveDir(dir);
const browser = await launchBrowser();
const page = await browser.newPage();
await page.goto(`${url}steerlab_wasm_bench.js`);

/** One run in a fresh worker (a fresh module, as a learner's page compiles it): ms and digest. */
const wasmOnce = () => page.evaluate(async ({ glue, lesson }) => {
  const src = `import init, { run_lesson } from "${glue}";
    await init();
    const t0 = performance.now();
    const digest = run_lesson(${JSON.stringify(lesson)}, 0);
    postMessage({ ms: performance.now() - t0, digest });`;
  const w = new Worker(URL.createObjectURL(new Blob([src], { type: "text/javascript" })), { type: "module" });
  try {
    return await new Promise((ok, fail) => { w.onmessage = (e) => ok(e.data); w.onerror = (e) => fail(new Error(e.message)); });
  } finally {
    w.terminate();
  }
}, { glue: `${url}steerlab_wasm_bench.js`, lesson });

/** One native run: wall ms (process start and the lesson's build included) and digest. */
function nativeOnce() {
  const t0 = performance.now();
  const out = execFileSync(cli, ["run", lesson, "--json"], { encoding: "utf8", maxBuffer: 64 << 20 });
  return { ms: performance.now() - t0, digest: JSON.parse(out).digest };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const wasm = [], native = [], ratios = [];
for (let i = 0; i < Number(runs); i++) {
  const n = nativeOnce();
  const w = await wasmOnce();
  if (w.digest !== n.digest) throw new Error(`digests differ: wasm ${w.digest}, native ${n.digest}`);
  wasm.push(w.ms); native.push(n.ms); ratios.push(w.ms / n.ms);
  console.log(`run ${i + 1}: wasm ${(w.ms / 1000).toFixed(2)} s, native ${(n.ms / 1000).toFixed(2)} s: ${(w.ms / n.ms).toFixed(2)}x (digest ${n.digest})`);
}
console.log(`${lesson}: the engine alone in a Chromium worker ${(median(wasm) / 1000).toFixed(2)} s, native ${(median(native) / 1000).toFixed(2)} s; median ratio of the pairs ${median(ratios).toFixed(2)}x (same digests)`);
await browser.close();
await close();
