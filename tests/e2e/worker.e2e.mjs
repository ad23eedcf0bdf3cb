// The simulation runs in a Web Worker: the worker path end to end (a console round trip,
// a step back), and the speed benchmarks of issue 16, printed side by side with the native CLI
// on the same machine (benchmarks, not timed assertions: CI machines vary; what is asserted is
// that the page and the CLI reach the same digest).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { expect, outPath } from "./harness.mjs";

const text = (page, id) => page.getByTestId(id).textContent();
const simTime = (page) => page.evaluate(() => parseFloat(document.querySelector('[data-testid="sim-time"]').textContent));
const cli = process.env.STEERLAB_CLI ?? new URL("../../target/release/steerlab", import.meta.url).pathname;

/** The native CLI's run of a lesson: wall ms and digest. */
function nativeOnce(lesson) {
  const t0 = performance.now();
  const out = execFileSync(cli, ["run", lesson, "--json"], { encoding: "utf8", maxBuffer: 64 << 20 });
  return { ms: performance.now() - t0, digest: JSON.parse(out).digest };
}

/**
 * Runs `a` and `b` alternately, `times` each, and returns the fastest run of each. This VM's
 * speed varies by tens of percent from minute to minute, and a slow spell weighs more on the
 * page (its worker and its main thread want both cores) than on the CLI (one): alternating
 * puts both sides through the same spells, and the fastest run is each one's time on a quiet
 * machine, which is what issue 34's bars are about.
 */
async function bestAlternately(a, b, times = 3) {
  let ra, rb;
  for (let i = 0; i < times; i++) {
    const x = await a();
    if (!ra || x.ms < ra.ms) ra = x;
    const y = await b();
    if (!rb || y.ms < rb.ms) rb = y;
  }
  return [ra, rb];
}

/** Display-frame intervals (requestAnimationFrame), collected from before the page loads. */
async function recordFrames(page) {
  await page.addInitScript(() => {
    window.__gaps = [];
    let last = performance.now();
    const tick = (t) => { window.__gaps.push(t - last); last = t; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  });
}
async function frameStats(page) {
  const gaps = await page.evaluate(() => window.__gaps.slice(5).sort((a, b) => a - b));
  const q = (p) => gaps[Math.min(gaps.length - 1, Math.floor(p * gaps.length))] ?? NaN;
  return { n: gaps.length, p50: q(0.5), p95: q(0.95) };
}

/**
 * Runs a lesson to its end in the page ("Run to end"); wall ms from the click to the end,
 * timed by the page's own clock: from the click's event to the first display frame that
 * shows the end (ends paused at the scenario's length: Play enabled again). Timed from
 * outside, the figure also held Playwright's wait before it clicks and up to 50 ms of
 * polling, about 0.1 s, a tenth of rfs-thread-churn's native run.
 */
async function runToEnd(page, base, lesson) {
  await page.goto(`${base}?lesson=${lesson}`);
  await page.getByTestId("run-to-end").waitFor();
  await page.getByTestId("pause").click();
  await page.getByTestId("reset").click();
  await page.waitForFunction(() => parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) === 0);
  await page.evaluate(() => {
    window.__run = {};
    const ended = () => !document.querySelector('[data-testid="play"]').disabled
      && document.querySelector('[data-testid="progress"]').value === 1000;
    const watch = (t) => {
      if (ended()) window.__run.end = t;
      else requestAnimationFrame(watch);
    };
    // On the document, so that a re-render of the button cannot lose the listener.
    const clicked = (e) => {
      if (!e.target.closest?.('[data-testid="run-to-end"]')) return;
      document.removeEventListener("click", clicked, true);
      window.__run.start = e.timeStamp;
      requestAnimationFrame(watch);
    };
    document.addEventListener("click", clicked, true);
  });
  await page.getByTestId("run-to-end").click();
  await page.waitForFunction(() => window.__run.end !== undefined, null, { timeout: 240_000, polling: 100 });
  const run = await page.evaluate(() => window.__run);
  return { ms: run.end - run.start, digest: await text(page, "digest") };
}

/**
 * Run in a page before its own scripts: `window.__restored` is the time (the page's clock,
 * from navigation) of the first display frame after a link's restore has landed (its progress
 * shown, then gone, with the transport back). Timed from outside by waiting for the progress
 * to detach, the figure held Playwright's polling, which backs off to every 500 ms: 0.3 s more
 * on average than the page's own clock in a restore of seed 000's 180 s link.
 */
function watchRestore() {
  let seen = false;
  const watch = (t) => {
    const progress = document.querySelector('[data-testid="restore-progress"]');
    seen ||= progress !== null;
    if (seen && !progress && document.querySelector('[data-testid="play"]')) window.__restored = t;
    else requestAnimationFrame(watch);
  };
  requestAnimationFrame(watch);
}

/** A link opened in a new page: wall ms from the call that navigates to the first frame that
 * shows the restored state (the page's clock starts at navigation, `timeOrigin`; Date.now()
 * just before it), and the restored digest. */
async function restoreOnce(context, href) {
  const other = await context.newPage();
  await other.addInitScript(watchRestore);
  const r0 = Date.now();
  await other.goto(href);
  await other.waitForFunction(() => window.__restored !== undefined, null, { timeout: 240_000, polling: 100 });
  const { origin, end } = await other.evaluate(() => ({ origin: performance.timeOrigin, end: window.__restored }));
  const digest = await text(other, "digest");
  await other.close();
  return { ms: origin + end - r0, digest };
}

export const tests = [
  {
    name: "the worker path: the page starts a worker; a console round trip; going back restores the exact state; Back goes a second back",
    timeoutMs: 60_000,
    async run(page, base) {
      await page.goto(`${base}?lesson=rss-basics`);
      await page.getByTestId("sim-time").first().waitFor(); // the page (not the first screen)
      expect(page.workers().length === 1, `one simulation worker (${page.workers().length})`);
      await page.getByTestId("console-input").fill("ethtool -l eth0");
      await page.getByTestId("console-input").press("Enter");
      await page.getByTestId("console-output").filter({ hasText: "Channel parameters for eth0" }).waitFor();
      // The share link is a real permalink while time runs, too.
      expect((await page.getByTestId("share-link").getAttribute("href")).includes("#s=1."), "a permalink while playing");
      // Two seconds in, so that Back has a second to go back.
      await page.waitForFunction(() => parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) >= 2);
      await page.getByTestId("pause").click();
      await page.waitForFunction(() => !document.querySelector('[data-testid="play"]').disabled);
      // The timeline goes to a moment (its steps are 100 ms): snapshot and replay give the
      // exact state there, however often one comes back to it.
      const seek = (ms) => page.getByTestId("timeline").evaluate((el, ms) => { el.value = String(ms); el.dispatchEvent(new Event("change", { bubbles: true })); }, ms);
      const t = Math.floor(parseFloat(await text(page, "sim-time")) * 10) * 100;
      await seek(t);
      await page.waitForFunction((t) => document.querySelector('[data-testid="sim-time"]').textContent === `${(t / 1000).toFixed(3)}s`, t);
      const before = [await text(page, "sim-time"), await text(page, "digest")];
      for (let i = 0; i < 3; i++) await page.getByTestId("step").click();
      await page.waitForFunction((t) => document.querySelector('[data-testid="sim-time"]').textContent !== t, before[0]);
      await seek(t);
      await page.waitForFunction((t) => document.querySelector('[data-testid="sim-time"]').textContent === t, before[0]);
      expect((await text(page, "digest")) === before[1], "going back restores the exact state (same digest)");
      // Back goes a second back, paused.
      await page.getByTestId("step-back").click();
      await page.waitForFunction((t) => Math.abs(parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) - (t - 1)) < 1e-6, parseFloat(before[0]));
      // A run's length is a suggestion: Run to end stops there with a quiet note; Play goes on.
      await page.getByTestId("run-to-end").click();
      await page.getByTestId("run-ended").waitFor({ timeout: 30_000 });
      const length = JSON.parse(readFileSync(new URL("../../crates/scenario/lessons/rss-basics.json", import.meta.url))).sim.duration_ms;
      expect((await text(page, "sim-time")) === `${(length / 1000).toFixed(3)}s`, `stopped at the length (${await text(page, "sim-time")})`);
      await page.getByTestId("play").click();
      await page.waitForFunction((s) => parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) > s, length / 1000);
    },
  },
  {
    name: "a link to a lesson other than the default: the worker asks for both lessons' texts at once, and restores the link's state",
    timeoutMs: 60_000,
    async run(page, base) {
      await page.goto(`${base}?lesson=xps-pick-tx`);
      await page.waitForFunction(() => parseFloat(document.querySelector('[data-testid="sim-time"]')?.textContent) >= 1);
      await page.getByTestId("pause").click();
      await page.waitForFunction(() => !document.querySelector('[data-testid="play"]').disabled);
      const href = await page.getByTestId("share-link").getAttribute("href");
      const digest = await text(page, "digest");
      await page.goto("about:blank");
      // The worker needs the link's lesson and the default one (its fallback). The first
      // request is held until the second comes (3 s at most): asked one after the other,
      // the second would wait for the first, a round trip each on a real network.
      const other = await page.context().newPage();
      const asked = [];
      let held = true;
      let release = () => {};
      const released = new Promise((done) => { release = done; });
      let together = false;
      await other.route("**/lessons/*.json", async (route) => {
        asked.push(route.request().url().split("/").pop());
        if (asked.length === 1) {
          await Promise.race([released, new Promise((done) => setTimeout(done, 3000))]);
          held = false;
        } else {
          together ||= held;
          release();
        }
        await route.continue();
      });
      await other.goto(href);
      await other.waitForFunction(() => document.querySelector('[data-testid="play"]') && !document.querySelector('[data-testid="restore-progress"]'));
      expect(asked.length === 2 && asked.includes("xps-pick-tx.json") && asked.includes("rss-basics.json"), `both lessons asked for (${asked.join(", ")})`);
      expect(together, "the second lesson was asked for while the first was still on its way");
      expect((await text(other, "digest")) === digest, "the link's state restored (same digest)");
      await other.close();
    },
  },
  {
    name: "benchmarks: run to end and restore vs the native CLI, frames at 144 CPUs, time to interactive",
    timeoutMs: 600_000,
    async run(page, base) {
      expect(existsSync(cli), `the native CLI is built (${cli}; scripts/test.sh builds it)`);
      // Interactive: from navigation to the first view with Pause usable.
      const t0 = Date.now();
      await page.goto(`${base}?lesson=rss-basics`);
      await page.waitForFunction(() => document.querySelector('[data-testid="pause"]') && !document.querySelector('[data-testid="pause"]').disabled, null, { polling: 10 });
      console.log(`     interactive ${Date.now() - t0} ms after navigation (target ≤ 1500 ms)`);

      // Frames while seed 000's host (144 CPUs, 16,384 flows) runs at full speed, in a page as
      // a learner opens it. Measured first: measured after the 180 s runs and the restore
      // below, the same host dropped 5-8 % of its frames in some runs.
      await recordFrames(page);
      await page.goto(`${base}?lesson=arfs-collision`);
      await page.getByTestId("speed").selectOption({ label: "max" });
      await page.waitForFunction(() => parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) >= 1);
      // The steady state: the frames of page load and of the host's first views are not in it.
      // Five seconds, or less if the host is two thirds of the way to its 180 s stop: a fast
      // machine reached the stop within the five seconds, the run ended, and Pause (rightly
      // disabled then) could not be clicked.
      await page.evaluate(() => { window.__gaps = []; });
      const w0 = Date.now();
      await page.waitForFunction((t0) => Date.now() - t0 >= 5000 || parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) >= 120, w0, { polling: 50, timeout: 10_000 });
      const f = await frameStats(page);
      const windowS = ((Date.now() - w0) / 1000).toFixed(1);
      expect(f.n >= 60, `enough frames to measure (${f.n} in ${windowS} s)`);
      // At full speed the bars jump to each view (a running width transition lays the page
      // out every frame, time the worker's core shares on a two-core machine); paused, they
      // transition again.
      const barTransition = () => page.evaluate(() => getComputedStyle(document.querySelector(".locality .local")).transitionDuration);
      const fastBars = await barTransition();
      expect(fastBars === "0s" && await page.locator("main.full-speed").count() === 1, `bars do not transition at full speed (${fastBars})`);
      // Pause acts at once: the worker takes it between two slices of engine work.
      const p0 = Date.now();
      await page.getByTestId("pause").click();
      await page.waitForFunction(() => !document.querySelector('[data-testid="play"]').disabled, null, { polling: "raf" });
      const pauseMs = Date.now() - p0;
      console.log(`     Pause during a full-speed run of 144 CPUs: paused on screen after ${pauseMs} ms`);
      expect(pauseMs < 2000, `Pause acts (${pauseMs} ms)`);
      const pausedBars = await barTransition();
      expect(pausedBars === "0.2s" && await page.locator("main.full-speed").count() === 0, `bars transition when paused (${pausedBars})`);
      console.log(`     144 CPUs at full speed: ${f.n} display frames, interval p50 ${f.p50.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms (target p95 ≤ 20 ms); sim ${await simTime(page)} s, frames over ${windowS} s`);
      await page.screenshot({ path: await outPath("arfs-worker.png") });

      // The engine alone in a Chromium worker against native (medians of five pairs).
      const engineAlone = { "rfs-thread-churn": "1.18", "arfs-collision": "1.19" };
      for (const lesson of ["rfs-thread-churn", "arfs-collision"]) {
        const [n, w] = await bestAlternately(() => nativeOnce(lesson), () => runToEnd(page, base, lesson));
        console.log(`     ${lesson}: run to end in the page ${(w.ms / 1000).toFixed(2)} s, native CLI ${(n.ms / 1000).toFixed(2)} s (each the fastest of three, run alternately): ${(w.ms / n.ms).toFixed(2)}× (issue 34: ≤ 1.3×; the engine alone, scripts/bench-wasm-engine.sh: about ${engineAlone[lesson]}×)`);
        expect(w.digest === n.digest, `${lesson}: the page's run gives the native digest (${w.digest} vs ${n.digest})`);
        if (lesson === "arfs-collision") {
          // The state at 180 s as a link, restored in a new page.
          const href = await page.getByTestId("share-link").getAttribute("href");
          expect(href.includes("#s=1."), "a permalink of the end state");
          // The first page lets its worker (and its 180 s of state) go, as a learner who
          // follows a link in the same tab would.
          await page.goto("about:blank");
          const restore = async () => {
            const r = await restoreOnce(page.context(), href);
            expect(r.digest === n.digest, `the restored state has the native digest (${r.digest} vs ${n.digest})`);
            return r;
          };
          const [n2, r] = await bestAlternately(() => nativeOnce(lesson), restore);
          console.log(`     restore of the 180 s link ${(r.ms / 1000).toFixed(2)} s, native CLI ${(n2.ms / 1000).toFixed(2)} s (each the fastest of three, run alternately; the restore from its navigation): ${(r.ms / n2.ms).toFixed(2)}× native (target ≤ 1.5×)`);
        }
      }
    },
  },
];
