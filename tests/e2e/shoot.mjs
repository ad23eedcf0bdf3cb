// Screenshots for looking at the page (not a test): node tests/e2e/shoot.mjs DIST OUT_DIR [lesson...]
// Each lesson's first screen at 1440×900 and 800×900 after 3 simulated seconds.
import { launchBrowser, serveDir } from "./harness.mjs";
import { LESSONS } from "./lesson-files.mjs";
const [dist = "dist", out = "/tmp/shots", ...ids] = process.argv.slice(2);
const lessons = ids.length ? ids : LESSONS;
const server = await serveDir(dist);
const browser = await launchBrowser();
for (const id of lessons) {
  for (const [w, h] of [[1440, 900], [800, 900]]) {
    const page = await browser.newPage({ viewport: { width: w, height: h } });
    page.on("pageerror", (e) => console.log(`pageerror ${id}: ${e.message}`));
    await page.goto(`${server.url}?lesson=${id}${process.env.QUERY ?? ""}`);
    await page.getByTestId("sim-time").first().waitFor(); // the page (not the first screen)
    await page.waitForFunction(() => parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) >= Number(3), null, { timeout: 60000 }).catch(() => {});
    await page.screenshot({ path: `${out}/${id}-${w}.png` });
    await page.close();
  }
}
await browser.close();
await server.close();
