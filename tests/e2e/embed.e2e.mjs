// Permalinks and embedding: a link restores the exact state; a damaged link falls back;
// the example page's two embeds keep their own state and one is driven by postMessage.
import { createServer } from "node:http";
import { expect, outPath } from "./harness.mjs";

const text = (page, id) => page.getByTestId(id).textContent();

export const tests = [
  {
    name: "a permalink round-trips the exact state (same digest after reload)",
    timeoutMs: 60_000,
    async run(page, base) {
      await page.goto(`${base}?lesson=rss-basics`);
      await page.getByTestId("sim-time").first().waitFor(); // the page (not the first screen)
      await page.getByTestId("console-input").fill("ethtool -X eth0 weight 1 1 2");
      await page.getByTestId("console-input").press("Enter");
      await page.waitForFunction(() => parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) > 0.5);
      await page.getByTestId("pause").click();
      // The worker answers the pause with a view of the paused state (Play enabled again).
      await page.waitForFunction(() => !document.querySelector('[data-testid="play"]').disabled);
      const href = await page.getByTestId("share-link").getAttribute("href");
      const digest = await text(page, "digest");
      const time = await text(page, "sim-time");
      expect(href.includes("#s=1."), `versioned permalink: ${href.slice(0, 60)}`);
      const other = await page.context().newPage();
      await other.goto(href);
      await other.getByTestId("digest").waitFor();
      // The worker replays the link a slice at a time, then stops, paused, at its time.
      await other.waitForFunction((t) => !document.querySelector('[data-testid="restore-progress"]')
        && document.querySelector('[data-testid="sim-time"]').textContent === t, time);
      expect((await text(other, "digest")) === digest, "same digest after reload");
      expect((await other.getByTestId("error-banner").count()) === 0, "no error");
      await other.close();
    },
  },
  {
    name: "a long state's link restores in the worker: the page keeps drawing, then opens paused on the same digest",
    timeoutMs: 120_000,
    async run(page, base) {
      await page.goto(`${base}?lesson=arfs-collision`);
      await page.getByTestId("speed").selectOption({ label: "max" });
      await page.waitForFunction(() => parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) >= 3.0, null, { timeout: 60_000 });
      await page.getByTestId("pause").click();
      await page.waitForFunction(() => !document.querySelector('[data-testid="play"]').disabled);
      const href = await page.getByTestId("share-link").getAttribute("href");
      const digest = await text(page, "digest");
      const other = await page.context().newPage();
      // Frame gaps while restoring: the page must stay responsive.
      await other.addInitScript(() => {
        window.__gaps = [];
        let last = performance.now();
        const tick = (t) => { window.__gaps.push(t - last); last = t; requestAnimationFrame(tick); };
        requestAnimationFrame(tick);
      });
      await other.goto(href);
      await other.getByTestId("restore-progress").waitFor();
      await other.getByTestId("restore-progress").waitFor({ state: "detached", timeout: 90_000 });
      expect((await text(other, "digest")) === digest, "same digest after the restore");
      expect((await other.getByTestId("play").isEnabled()), "opens paused");
      const gaps = await other.evaluate(() => window.__gaps.slice(5).sort((a, b) => a - b));
      const p95 = gaps[Math.floor(gaps.length * 0.95)];
      console.log(`     restore: ${gaps.length} frames, frame gap p95 ${p95.toFixed(1)} ms, max ${gaps[gaps.length - 1].toFixed(1)} ms`);
      expect(gaps[gaps.length - 1] < 1000, `no frame blocked for a second (max gap ${gaps[gaps.length - 1]} ms)`);
      await other.close();
    },
  },
  {
    name: "a damaged link shows the error banner and a usable default page",
    timeoutMs: 30_000,
    async run(page, base) {
      await page.goto(`${base}#s=1.this-is-not-a-state`);
      await page.getByTestId("error-banner").waitFor();
      expect((await text(page, "error-banner")).includes("damaged"), "says the link is damaged");
      await page.getByTestId("flow-count").waitFor();
      const t0 = await text(page, "sim-time");
      await page.waitForFunction((t) => document.querySelector('[data-testid="sim-time"]').textContent !== t, t0);
    },
  },
  {
    name: "a click-to-start embed asks for the engine's module only when the learner starts it",
    async run(page, base) {
      const asked = [];
      page.on("request", (r) => asked.push(new URL(r.url()).pathname));
      const worker = () => asked.filter((p) => /^\/steerlab-worker-[0-9a-f]+_bg\.wasm$/.test(p));
      await page.goto(`${base}?lesson=tc-bypass&embed=1&start=click`);
      await page.getByTestId("embed-start").waitFor();
      await page.waitForTimeout(500);
      expect(worker().length === 0, `no engine before the click (asked for: ${asked.join(", ")})`);
      await page.getByTestId("embed-start").click();
      await page.getByTestId("console-input").fill("ethtool -l eth0");
      await page.getByTestId("console-input").press("Enter");
      await page.getByTestId("console-output").filter({ hasText: "Channel parameters for eth0" }).waitFor();
      expect(worker().length === 1, `the engine's module once, after the click (${worker().join(", ")})`);
    },
  },
  {
    name: "the example page: two embeds, one driven by buttons, click-to-start, errors answered",
    timeoutMs: 90_000,
    async run(page, base) {
      await page.goto(`${base}embed-example.html`);
      const rss = page.frameLocator("#rss");
      const tc = page.frameLocator("#tc");
      await rss.getByTestId("console-output").waitFor();
      await rss.getByTestId("open-full").waitFor();
      expect((await rss.locator("h1").count()) === 0, "no page chrome in embed mode");
      await tc.getByTestId("embed-start").waitFor();
      expect((await tc.getByTestId("console-input").count()) === 0, "click-to-start embed stays light");
      await page.waitForFunction(() => (window.steerlabMessages || []).some((m) => m.from === "rss" && m.data.type === "steerlab:ready"));
      await page.click("#equal3");
      await rss.getByTestId("console-output").filter({ hasText: "ethtool -X eth0 equal 3" }).waitFor();
      await page.waitForFunction(() => (window.steerlabMessages || []).some((m) => m.data.type === "steerlab:event" && m.data.kind === "command"));
      // The other embed never saw that command: separate state.
      await tc.getByTestId("embed-start").click();
      await tc.getByTestId("console-output").waitFor();
      expect(!(await tc.getByTestId("console-output").textContent()).includes("equal 3"), "embeds do not share state");
      // A malformed message is answered with an error event, not ignored silently.
      await page.evaluate(() => document.getElementById("rss").contentWindow.postMessage({ type: "steerlab:nope" }, location.origin));
      await page.waitForFunction(() => (window.steerlabMessages || []).some((m) => m.data.kind === "error"));
      await page.click("#state");
      await page.waitForFunction(() => (window.steerlabMessages || []).some((m) => m.data.type === "steerlab:state" && m.data.digest));
      await page.waitForFunction(() => (window.steerlabMessages || []).some((m) => m.data.type === "steerlab:resize"));
      await page.screenshot({ path: await outPath("embed-example.png"), fullPage: true });
    },
  },
];

// A course page on another origin, as a trainer writes it (the README's snippet): it waits
// for steerlab:ready, hears every learning moment, and sizes its iframe from steerlab:resize.
// The course page is served by a server of its own, on another port: another origin (a page
// the browser did not fetch from the local network may not frame it: Chromium's local
// network access checks).
async function coursePages(pages) {
  const server = createServer((req, res) => {
    const body = pages(req.url);
    res.writeHead(body ? 200 : 404, { "content-type": "text/html; charset=utf-8" }).end(body ?? "not found");
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((ok) => { server.close(ok); server.closeAllConnections(); }) };
}
const coursePage = (src) => `<!doctype html><html><body style="margin:0">
<h1>Net 342: receive steering</h1>
<iframe id="lab" src="${src}" title="steerlab" style="width:100%;height:640px;border:0"></iframe>
<script>
  window.heard = [];
  const frame = document.getElementById("lab");
  addEventListener("message", (e) => {
    if (e.source !== frame.contentWindow) return;
    window.heard.push(e.data);
    if (e.data.type === "steerlab:resize") frame.style.height = (e.data.height + 4) + "px";
  });
</script></body></html>`;

tests.push({
  name: "a course page on another origin hears each step, the answer, the goal met and lost, the score; its iframe follows the content both ways",
  timeoutMs: 120_000,
  async run(page, base) {
    let src = "";
    const course = await coursePages(() => coursePage(src));
    src = `${base}?lesson=tc-bypass&embed=1&origin=${encodeURIComponent(course.origin)}`;
    await page.goto(`${course.origin}/net342/`);
    const heard = (pred) => page.waitForFunction(`window.heard.some(${pred})`, null, { timeout: 60_000 });
    const lab = page.frameLocator("#lab");
    await heard(`(m) => m.type === "steerlab:ready"`);
    await lab.getByTestId("lesson-next").click();
    await lab.getByTestId("lesson-next").click();
    await heard(`(m) => m.kind === "step" && m.detail.step === 3`);
    await lab.getByTestId("lesson-predict-choice").first().click();
    await lab.getByTestId("console-input").fill("tc counting usesw");
    await lab.getByTestId("console-input").press("Enter");
    await heard(`(m) => m.kind === "lesson-complete"`);
    await heard(`(m) => m.kind === "predict"`);
    const events = await page.evaluate(() => window.heard.filter((m) => m.type === "steerlab:event" && m.kind !== "command"));
    const kinds = events.map((m) => m.kind);
    for (const k of ["step", "predict", "goal-met", "lesson-complete"]) expect(kinds.includes(k), `heard ${k}: ${kinds}`);
    const predict = events.find((m) => m.kind === "predict").detail;
    expect(predict.choice === 1 && predict.right === true, `the answer and whether it was right: ${JSON.stringify(predict)}`);
    const score = events.find((m) => m.kind === "lesson-complete").detail.score;
    expect(score.points === 100 && score.form === "guided" && score.right === 1, `the score: ${JSON.stringify(score)}`);
    // The trainer's page undoes the goal through the API: goal-lost names the command.
    await page.evaluate((origin) => document.getElementById("lab").contentWindow.postMessage({ type: "steerlab:command", command: "tc counting legacy" }, origin), new URL(base).origin);
    await heard(`(m) => m.kind === "goal-lost" && m.detail.undone_by === "tc counting legacy"`);
    // The iframe follows the content: taller with the ending, shorter on a smaller host.
    const tall = await page.evaluate(() => document.getElementById("lab").getBoundingClientRect().height);
    await page.evaluate((origin) => document.getElementById("lab").contentWindow.postMessage({ type: "steerlab:load", scenario: { schema: 1, id: "tiny", host: { cpus: 2 }, nic: { rx_queues: 2 } } }, origin), new URL(base).origin);
    await page.waitForFunction((t) => document.getElementById("lab").getBoundingClientRect().height < t - 50, tall, { timeout: 30_000 })
      .catch(async () => { throw new Error(`the iframe did not shrink from ${tall} px: ${await page.evaluate(() => document.getElementById("lab").style.height)}`); });
    // And it settles: no growth by its own +4 px every 250 ms. The new host's page may take
    // a few frames to lay out (a loaded machine shrank it twice), so it is first given up to
    // 10 s to hold one height for 500 ms; a height that keeps growing never does.
    const height = () => page.evaluate(() => document.getElementById("lab").getBoundingClientRect().height);
    for (let i = 0, last = -1; i < 20; i++) {
      const h = await height();
      if (h === last) break;
      last = h;
      await page.waitForTimeout(500);
    }
    const h1 = await height();
    await page.waitForTimeout(1500);
    const h2 = await height();
    expect(Math.abs(h2 - h1) < 1, `the iframe's height settles (${h1} -> ${h2})`);
    await course.close();
  },
});

tests.push({
  name: "a hint in the challenge form, and the compare view embedded, reach the course page",
  timeoutMs: 90_000,
  async run(page, base) {
    let origin = "";
    const course = await coursePages((url) => coursePage(url.includes("compare")
      ? `${base}?view=compare&lesson=tc-bypass&embed=1&origin=${encodeURIComponent(origin)}`
      : `${base}?lesson=rss-basics&mode=challenge&embed=1&origin=${encodeURIComponent(origin)}`));
    origin = course.origin;
    const COURSE = course.origin;
    await page.goto(`${COURSE}/challenge/`);
    await page.waitForFunction(() => window.heard.some((m) => m.type === "steerlab:ready"));
    await page.frameLocator("#lab").getByTestId("lesson-hint").click();
    await page.waitForFunction(() => window.heard.some((m) => m.kind === "hint" && m.detail.hints === 1));
    await page.goto(`${COURSE}/compare/`);
    await page.waitForFunction(() => window.heard.some((m) => m.type === "steerlab:ready"));
    await page.evaluate((origin) => document.getElementById("lab").contentWindow.postMessage({ type: "steerlab:command", command: "tc counting usesw" }, origin), new URL(base).origin);
    await page.waitForFunction(() => window.heard.some((m) => m.kind === "goal-met" && m.detail.host === "a"), null, { timeout: 60_000 });
    await course.close();
  },
});

tests.push({
  name: "a restored link says time is paused there and how to go on",
  timeoutMs: 60_000,
  async run(page, base) {
    await page.goto(`${base}?lesson=rss-basics`);
    await page.getByTestId("sim-time").first().waitFor();
    await page.waitForFunction(() => parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) > 0.5);
    await page.getByTestId("pause").click();
    await page.waitForFunction(() => !document.querySelector('[data-testid="play"]').disabled);
    const href = await page.getByTestId("share-link").getAttribute("href");
    await page.goto("about:blank");
    await page.goto(href);
    await page.getByTestId("restored-paused").waitFor();
    expect(/paused/.test(await page.getByTestId("restored-paused").textContent()), "says paused");
    await page.getByTestId("play").click();
    await page.getByTestId("restored-paused").waitFor({ state: "detached" });
  },
});
