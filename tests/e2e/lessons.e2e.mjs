// Lessons, the console and the controls, as a learner uses them.
import { readFileSync } from "node:fs";
import { expect, outPath } from "./harness.mjs";

// A lesson's file, as the engine reads it.
const lessonFile = (id) => JSON.parse(readFileSync(new URL(`../../crates/scenario/lessons/${id}.json`, import.meta.url)));
// rss-basics' tick in seconds (a "step" runs one tick).
const rssTickS = lessonFile("rss-basics").sim.tick_ns / 1e9;

const text = (page, id) => page.getByTestId(id).textContent();
const waitText = (page, id, pred, arg) =>
  page.waitForFunction(
    ([id, src, arg]) => {
      const el = document.querySelector(`[data-testid="${id}"]`);
      return el && new Function("t", "arg", `return (${src})(t, arg)`)(el.textContent, arg);
    },
    [id, pred.toString(), arg],
  );

async function type(page, line) {
  const input = page.getByTestId("console-input");
  await input.fill(line);
  await input.press("Enter");
}

export const tests = [
  {
    name: "console: ethtool -x prints the table; -X equal 3 empties rx-3 and meets the rss-basics goal",
    timeoutMs: 90_000,
    async run(page, base) {
      await page.goto(`${base}?lesson=rss-basics`);
      await page.getByTestId("console-input").waitFor();
      await type(page, "ethtool -x eth0");
      await waitText(page, "console-output", (t) => t.includes("RX flow hash indirection table for eth0"));
      await page.getByTestId("speed").selectOption({ label: "10×" });
      await type(page, "ethtool -X eth0 equal 3");
      await page.getByTestId("lesson-goal-met").waitFor({ timeout: 60_000 });
      // Up recalls the last command.
      await page.getByTestId("console-input").press("ArrowUp");
      expect((await page.getByTestId("console-input").inputValue()) === "ethtool -X eth0 equal 3", "history recall");
      // A bad command shows the tool's error and changes nothing visible.
      await type(page, "ethtool -X eth0 equal 99");
      await waitText(page, "console-output", (t) => /equal 99|out of range|Invalid|cannot/i.test(t));
      await page.screenshot({ path: await outPath("lesson-rss.png"), fullPage: true });
    },
  },
  {
    name: "driver select applies `nic driver ice` on arfs-collision; metrics are plain integers",
    timeoutMs: 120_000,
    async run(page, base) {
      // Display frames (requestAnimationFrame) while seed 000's host runs at full speed.
      await page.addInitScript(() => {
        window.__gaps = [];
        let last = performance.now();
        const tick = (t) => { window.__gaps.push(t - last); last = t; requestAnimationFrame(tick); };
        requestAnimationFrame(tick);
      });
      await page.goto(`${base}?lesson=arfs-collision`);
      await page.getByTestId("driver-select").waitFor();
      expect((await page.getByTestId("driver-select").inputValue()) === "ice-hash-match", "lesson starts on the old driver");
      await page.getByTestId("speed").selectOption({ label: "max" });
      await waitText(page, "metric-arfs-update", (t) => Number(t) > 0);
      await page.getByTestId("driver-select").selectOption("ice");
      await waitText(page, "console-output", (t) => t.includes("nic driver ice"));
      for (const id of ["metric-local", "metric-remote", "metric-arfs-update", "flow-count"]) {
        expect(/^\d+$/.test((await text(page, id)).trim()), `${id} is a plain integer`);
      }
      expect(Number(await text(page, "flow-count")) > 16000, "seed 000's 16,384 flows");
      await page.getByTestId("lesson-goal-met").waitFor({ timeout: 90_000 });
      // The engine runs in the worker: the page's frames only draw.
      const gaps = await page.evaluate(() => window.__gaps.slice(5).sort((a, b) => a - b));
      const g = (p) => gaps[Math.min(gaps.length - 1, Math.floor(p * gaps.length))];
      console.log(`     16,384 flows at full speed: ${gaps.length} display frames, interval p50 ${g(0.5)?.toFixed(1)} ms, p95 ${g(0.95)?.toFixed(1)} ms (printed, not asserted)`);
      // The filter table is virtualised: thousands of filters, a few dozen rows in the DOM,
      // and scrolling to the end renders the last ones (paused, so the table holds still).
      await page.getByTestId("pause").click();
      const caption = await page.locator('[data-testid="arfs-table"] caption').textContent();
      const live = Number(caption.match(/(\d+) live/)[1]);
      const inDom = await page.locator('[data-testid="arfs-table"] tbody tr:not(.pad)').count();
      expect(live > 10000 && inDom < 100, `virtualised: ${live} filters, ${inDom} rows in the DOM`);
      await page.locator(".table-wrap", { has: page.getByTestId("arfs-table") }).evaluate((el) => { el.scrollTop = el.scrollHeight; el.dispatchEvent(new Event("scroll")); });
      await page.waitForFunction((n) => [...document.querySelectorAll('[data-testid="arfs-table"] tbody tr[aria-rowindex]')].some((tr) => Number(tr.getAttribute("aria-rowindex")) === n + 1), live);
      console.log(`     aRFS table: ${live} live filters, ${inDom} rows in the DOM`);
      await page.screenshot({ path: await outPath("lesson-arfs.png"), fullPage: true });
    },
  },
  {
    name: "migrate a thread with the keyboard form, add random flows, switch lessons",
    timeoutMs: 60_000,
    async run(page, base) {
      await page.goto(base);
      await page.getByTestId("migrate-thread-select").waitFor();
      // Paused, ten ticks at a time: how many packets each tick processes on their reader's
      // CPU, before and after moving thread 0 (rss-basics has no RFS, so it matters where the
      // reader is).
      await page.getByTestId("pause").click();
      const split = async () => {
        const read = async () => [Number(await text(page, "metric-local")), Number(await text(page, "metric-remote"))];
        const [l0, r0] = await read();
        const t0 = parseFloat(await text(page, "sim-time"));
        const ticks = 10;
        for (let i = 0; i < ticks; i++) await page.getByTestId("step").click();
        await page.waitForFunction((t) => Math.abs(parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) - t) < 1e-6, t0 + ticks * rssTickS);
        const [l1, r1] = await read();
        return [l1 - l0, r1 - r0];
      };
      const before = await split();
      await page.getByTestId("migrate-thread-select").selectOption("0");
      await page.getByTestId("migrate-cpu-select").selectOption("2");
      await page.getByTestId("migrate-submit").click();
      await waitText(page, "console-output", (t) => t.includes("thread migrate 0 2"));
      await page.locator('[data-testid="cpu-2"] [data-testid="thread-0"]').waitFor();
      const after = await split();
      expect(before[0] + before[1] > 0 && after[0] + after[1] > 0, `packets flowed: ${before} / ${after}`);
      expect(before[0] !== after[0] && before[1] !== after[1], `local/remote per 10 ticks changed with the migration: ${before} -> ${after}`);
      // A thousand random flows, in one command.
      const count = Number(await text(page, "flow-count"));
      await page.getByTestId("random-flow-count").selectOption("1000");
      await page.getByTestId("add-random-flows").click();
      await waitText(page, "flow-count", (t, n) => Number(t) === n + 1000, count);
      await waitText(page, "console-output", (t) => t.includes("flow random 1000"));
      await page.getByTestId("lesson-select").selectOption("tc-bypass");
      await waitText(page, "tc-counters", (t) => t.includes("legacy"));
      expect(page.url().includes("lesson=tc-bypass"), "the URL names the lesson");
      await page.getByTestId("chart-cpu").waitFor();
      await page.getByTestId("chart-arfs").waitFor();
      await page.getByTestId("chart-locality").waitFor();
    },
  },
  {
    name: "an unknown ?lesson= shows the error banner and a usable default page",
    timeoutMs: 30_000,
    async run(page, base) {
      await page.goto(`${base}?lesson=nope`);
      await page.getByTestId("error-banner").waitFor();
      expect((await text(page, "error-banner")).includes("nope"), "banner names the bad value");
      expect((await page.getByTestId("lesson-select").inputValue()) === "rss-basics", "default lesson opened");
      const t0 = await text(page, "sim-time");
      await waitText(page, "sim-time", (t, t0) => t !== t0, t0);
    },
  },
];

tests.push({
  name: "A/B compare: the same lesson on two hosts, one transport, drivers and consoles separate",
  timeoutMs: 60_000,
  async run(page, base) {
    await page.goto(`${base}?view=compare&lesson=rss-basics`);
    await page.getByTestId("compare-a").waitFor();
    await page.getByTestId("compare-b").waitFor();
    const b = page.getByTestId("compare-b");
    await b.getByTestId("driver-select").selectOption("mlx5");
    expect((await page.getByTestId("compare-a").getByTestId("driver-select").inputValue()) === "generic", "host A keeps its driver");
    const t0 = await page.getByTestId("sim-time").textContent();
    await page.waitForFunction((t) => document.querySelector('[data-testid="sim-time"]').textContent !== t, t0);
    // Each host has its own console: empty rx-3 on B only, and B's queue 3 stops growing.
    const input = page.getByTestId("console-b-input");
    await input.fill("ethtool -X eth0 equal 3");
    await input.press("Enter");
    await page.getByTestId("console-b-output").filter({ hasText: "ethtool -X eth0 equal 3" }).waitFor();
    const rx3 = async (side) => Number((await page.getByTestId(`compare-${side}`).getByTestId("rxq-3").getAttribute("aria-label")).match(/(\d+) packets/)[1]);
    const [a0, b0] = [await rx3("a"), await rx3("b")];
    await page.waitForTimeout(1500);
    const [a1, b1] = [await rx3("a"), await rx3("b")];
    expect(a1 > a0, `host A's rx-3 still receives (${a0} -> ${a1})`);
    expect(b1 === b0, `host B's rx-3 receives nothing after equal 3 (${b0} -> ${b1})`);
    expect((await page.getByTestId("console-a-output").textContent()).trim() === "", "host A's console is untouched");
    // Small hosts show their packets on the wire, one view per host.
    expect((await page.getByTestId("wire").count()) === 2, "a wire view per host");
    await page.getByTestId("pause").click();
    await page.screenshot({ path: await outPath("compare.png"), fullPage: true });
  },
});

// Every lesson, opened by URL, reaches its goal by its guided step (typed in the console).
const plans = [
  ["rss-basics", "ethtool -X eth0 equal 3"],
  ["arfs-collision", "nic driver ice"],
  ["tc-bypass", "tc counting usesw"],
  ["rfs-thread-churn", "rfs record cpuset"],
  ["xps-pick-tx", "echo 40 > /sys/class/net/eth0/queues/tx-2/xps_cpus"],
  ["xdp-kfunc-cost", "xdp strategy inline"],
];
for (const [lesson, command] of plans) {
  tests.push({
    name: `lesson ${lesson}: the guided step meets the goal`,
    timeoutMs: 120_000,
    async run(page, base) {
      await page.goto(`${base}?lesson=${lesson}`);
      await page.getByTestId("console-input").waitFor();
      expect((await page.getByTestId("lesson-select").inputValue()) === lesson, "the URL opened the lesson");
      // Every guided step outlines the element its lesson file names, and it is on the page.
      const highlight = lessonFile(lesson).lesson.highlight;
      const steps = await page.locator("ol.steps li").count();
      for (let i = 0; i < steps; i++) {
        await page.waitForFunction((n) => document.querySelector("ol.steps li.current") === document.querySelectorAll("ol.steps li")[n], i);
        await page.waitForFunction((id) => {
          const rule = document.querySelector('style[data-testid="step-highlight"]');
          const target = document.querySelector(`[data-testid="${id}"]`);
          return rule?.dataset.target === id && target !== null && getComputedStyle(target).outlineStyle === "dashed";
        }, highlight[i], { timeout: 5_000 })
          .catch(() => { throw new Error(`step ${i + 1} of ${lesson} outlines nothing on the page`); });
        if (i + 1 < steps) await page.getByTestId("lesson-next").click();
      }
      await page.getByTestId("speed").selectOption({ label: lesson === "arfs-collision" ? "max" : "1×" });
      // The first screen shows the problem: the goal is not met before the change.
      await page.waitForFunction(() => parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) >= 1.0);
      expect((await page.getByTestId("lesson-goal-met").count()) === 0, "goal not met before the change");
      await page.getByTestId("console-input").fill(command);
      await page.getByTestId("console-input").press("Enter");
      await page.getByTestId("lesson-goal-met").waitFor({ timeout: 100_000 });
      expect(!(await page.getByTestId("console-output").textContent()).includes("not found"), "the command ran");
    },
  });
}

tests.push({
  name: "feature switches echo their commands; scenario download and validated upload; run to the end",
  timeoutMs: 60_000,
  async run(page, base) {
    await page.goto(`${base}?lesson=rfs-thread-churn`);
    await page.getByTestId("feature-ntuple").waitFor();
    await page.getByTestId("feature-ntuple").uncheck();
    await page.getByTestId("console-output").filter({ hasText: "ethtool -K eth0 ntuple off" }).waitFor();
    await page.getByTestId("feature-sock-entries").selectOption("4096");
    await page.getByTestId("console-output").filter({ hasText: "sysctl -w net.core.rps_sock_flow_entries=4096" }).waitFor();
    const href = await page.getByTestId("scenario-download").getAttribute("href");
    const json = JSON.parse(decodeURIComponent(href.slice(href.indexOf(",") + 1)));
    expect(json.id === "rfs-thread-churn" && json.schema === 1, "the download is the scenario");
    // A damaged upload is refused with the field named; the page keeps running the lesson.
    await page.getByTestId("scenario-upload").setInputFiles({ name: "bad.json", mimeType: "application/json", buffer: Buffer.from('{"schema":1,"id":"x","nic":{"drvier":"ice"}}') });
    await page.getByTestId("error-banner").filter({ hasText: "nic.drvier" }).waitFor();
    expect((await page.getByTestId("lesson-select").inputValue()) === "rfs-thread-churn", "state unchanged");
    json.id = "uploaded";
    await page.getByTestId("scenario-upload").setInputFiles({ name: "ok.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(json)) });
    await page.waitForFunction(() => !document.querySelector('[data-testid="error-banner"]'));
    await page.getByTestId("run-to-end").click();
    await page.getByTestId("eta").waitFor();
    await page.getByTestId("pause").click();
  },
});

tests.push({
  name: "thread policy, RFS tables and XPS map panels",
  timeoutMs: 60_000,
  async run(page, base) {
    await page.goto(`${base}?lesson=xps-pick-tx`);
    await page.getByTestId("xps-map").waitFor();
    expect((await page.getByTestId("xps-map").textContent()).includes("tx-3"), "one row per TX queue");
    await page.getByTestId("console-input").fill("echo 40 > /sys/class/net/eth0/queues/tx-2/xps_cpus");
    await page.getByTestId("console-input").press("Enter");
    // The mask 0x40 lists CPU 6 only: tx-2's map is now CPU 6 (as cat tx-2/xps_cpus would say).
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="xps-map"] tbody tr')]
      .some((tr) => tr.cells[0].textContent === "tx-2" && tr.cells[1].textContent === "6"));
    await page.goto(`${base}?lesson=rfs-thread-churn`);
    await page.getByTestId("rfs-tables").waitFor();
    await page.waitForFunction(() => /of \d+ entries hold/.test(document.querySelector('[data-testid="rfs-tables"]').textContent));
    await page.getByTestId("migrate-thread-select").selectOption("0");
    await page.getByTestId("thread-policy-select").selectOption({ label: "pinned to its CPU" });
    await page.getByTestId("thread-policy-submit").click();
    await page.getByTestId("console-output").filter({ hasText: "thread policy 0 pin" }).waitFor();
  },
});

tests.push({
  name: "frame times with 1,024 animated flows (printed, not asserted)",
  timeoutMs: 60_000,
  async run(page, base) {
    await page.goto(`${base}?lesson=rss-basics`);
    const href = await page.getByTestId("scenario-download").getAttribute("href");
    const sc = JSON.parse(decodeURIComponent(href.slice(href.indexOf(",") + 1)));
    sc.id = "flows-1024";
    sc.flows = [{ count: 1024, proto: "tcp", src: "10.0.0.1", dst: "192.168.0.1", random: true, rate_pps: 500, bytes: 1500, readers_per_flow: 1 }];
    await page.getByTestId("scenario-upload").setInputFiles({ name: "f.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(sc)) });
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="flow-count"]').textContent) > 1000);
    const deltas = await page.evaluate(() => new Promise((done) => {
      const out = []; let last = performance.now(); const end = last + 3000;
      const tick = (t) => { out.push(t - last); last = t; if (t < end) requestAnimationFrame(tick); else done(out); };
      requestAnimationFrame(tick);
    }));
    deltas.sort((a, b) => a - b);
    const q = (p) => deltas[Math.min(deltas.length - 1, Math.floor(p * deltas.length))].toFixed(1);
    console.log(`     1,024 flows: ${deltas.length} frames in 3 s, frame interval p50 ${q(0.5)} ms, p95 ${q(0.95)} ms`);
    expect(deltas.length > 30, "the page keeps drawing");
  },
});
