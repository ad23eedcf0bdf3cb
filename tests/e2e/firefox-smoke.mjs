// The smoke run in Firefox ESR (Debian's firefox-esr, driven over WebDriver BiDi by
// puppeteer-core; scripts/setup.sh installs both): a course may use any browser. Each lesson
// loads, plays and answers its console; an embed on another origin is driven and reports.
// Usage: node tests/e2e/firefox-smoke.mjs DIST_DIR
import { createServer } from "node:http";
import puppeteer from "puppeteer-core";
import { expect, serveDir, within } from "./harness.mjs";
import { LESSONS } from "./lesson-files.mjs";

const dist = process.argv[2] ?? "dist";
const FIREFOX = process.env.FIREFOX ?? "/usr/bin/firefox-esr";
const server = await serveDir(dist);
const browser = await within(60_000, "launch Firefox ESR", puppeteer.launch({ browser: "firefox", executablePath: FIREFOX, headless: true, protocol: "webDriverBiDi" }));
let failed = 0;

async function check(name, f) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const started = Date.now();
  try {
    await within(90_000, name, f(page));
    if (errors.length) throw new Error(errors.join("\n"));
    console.log(`ok   firefox: ${name} (${Date.now() - started} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL firefox: ${name}\n     ${String(e.stack ?? e).split("\n").join("\n     ")}`);
  } finally {
    await page.close().catch(() => {});
  }
}

const simTime = (page) => page.$eval('[data-testid="sim-time"]', (e) => parseFloat(e.textContent));

try {
  for (const lesson of LESSONS) {
    await check(`lesson ${lesson} loads, plays and answers its console`, async (page) => {
      await page.goto(`${server.url}?lesson=${lesson}`);
      await page.waitForSelector('[data-testid="sim-time"]');
      await page.waitForFunction(() => parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) > 0.3, { timeout: 60_000 });
      const t0 = await simTime(page);
      await page.type('[data-testid="console-input"]', "ethtool -l eth0\n");
      await page.waitForFunction(() => document.querySelector('[data-testid="console-output"]').textContent.includes("Channel parameters for eth0"), { timeout: 30_000 });
      await page.waitForFunction((t) => parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) > t, { timeout: 30_000 }, t0);
      expect((await page.$$('[data-testid="lesson-evidence"]')).length === 1, "the evidence strip");
    });
  }
  await check("an embed on another origin is driven and reports", async (page) => {
    const course = createServer((req, res) => res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html>
<iframe id="lab" style="width:100%;height:600px" src="${server.url}?lesson=tc-bypass&embed=1&origin=ORIGIN"></iframe>
<script>window.heard = []; addEventListener("message", (e) => {
  window.heard.push(e.data);
  if (e.data.type === "steerlab:ready") document.getElementById("lab").contentWindow.postMessage({ type: "steerlab:command", command: "tc counting usesw" }, "${new URL(server.url).origin}");
});</script>`.replace("ORIGIN", encodeURIComponent(`http://127.0.0.1:${course.address().port}`))));
    await new Promise((ok) => course.listen(0, "127.0.0.1", ok));
    try {
      await page.goto(`http://127.0.0.1:${course.address().port}/`);
      await page.waitForFunction(() => window.heard.some((m) => m.type === "steerlab:ready"), { timeout: 60_000 });
      await page.waitForFunction(() => window.heard.some((m) => m.type === "steerlab:event" && m.kind === "command" && m.detail.command === "tc counting usesw"), { timeout: 30_000 });
      await page.waitForFunction(() => window.heard.some((m) => m.type === "steerlab:event" && m.kind === "goal-met"), { timeout: 60_000 });
    } finally {
      course.closeAllConnections();
      await new Promise((ok) => course.close(ok));
    }
  });
} finally {
  await within(10_000, "close Firefox", browser.close()).catch(() => {});
  await server.close();
}
console.log(`firefox: ${LESSONS.length + 1 - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
