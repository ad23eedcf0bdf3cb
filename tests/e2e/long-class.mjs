// A long class in a real browser (not part of CI: scripts/long-class.sh runs it): a lesson
// played at the fastest speed for MINUTES real minutes (default 10), with a learner's command
// and a step back every so often; every 30 s it prints simulated time, the browser's resident
// memory (all its processes, `ps`) and the page's frame rate. Fails if resident memory at the
// end is more than 25 % above what it was after the first third (memory must stay flat).
// Usage: node tests/e2e/long-class.mjs DIST [LESSON] [MINUTES]
import { execSync } from "node:child_process";
import { launchBrowser, serveDir } from "./harness.mjs";

const [dist = "dist", lesson = "rss-basics", minutes = "10"] = process.argv.slice(2);
const server = await serveDir(dist);
const browser = await launchBrowser();
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
const rssKb = () => execSync("ps -C chromium -o rss= || true").toString().split(/\s+/).filter(Boolean).reduce((a, b) => a + Number(b), 0);
await page.goto(`${server.url}?lesson=${lesson}`);
await page.getByTestId("sim-time").first().waitFor(); // the page (not the first screen)
await page.getByTestId("speed").selectOption({ label: "max" });
const end = Date.now() + Number(minutes) * 60_000;
const third = Date.now() + Number(minutes) * 20_000;
let atThird = null;
let last = 0;
for (let i = 0; Date.now() < end; i++) {
  await page.waitForTimeout(10_000);
  const input = page.getByTestId("console-input");
  await input.fill(i % 2 ? "ethtool -X eth0 default" : "ethtool -X eth0 equal 3");
  await input.press("Enter");
  if (i % 3 === 2) {
    await page.getByTestId("step-back").click();
    await page.getByTestId("play").click();
  }
  if (Date.now() - last >= 30_000) {
    last = Date.now();
    const frames = await page.evaluate(() => new Promise((done) => { let n = 0; const t0 = performance.now();
      const f = () => { n++; if (performance.now() - t0 < 1000) requestAnimationFrame(f); else done(n); }; requestAnimationFrame(f); }));
    const rss = rssKb();
    console.log(`long-class: t = ${await page.getByTestId("sim-time").textContent()}, browser resident ${(rss / 1024).toFixed(0)} MB, ${frames} frames/s`);
    if (atThird === null && Date.now() > third) atThird = rss;
  }
}
const rss = rssKb();
await browser.close();
await server.close();
if (atThird !== null && rss > atThird * 1.25) {
  console.error(`long-class: resident memory grew from ${atThird} KB to ${rss} KB`);
  process.exit(1);
}
console.log(`long-class: resident memory flat (${atThird} KB after the first third, ${rss} KB at the end)`);
