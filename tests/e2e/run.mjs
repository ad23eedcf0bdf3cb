// Runs every tests/e2e/*.e2e.mjs against the built bundle. Usage: node tests/e2e/run.mjs DIST_DIR
// (E2E_ONLY=wire runs only the files whose name contains "wire"; E2E_TEST=text only the tests
// whose name contains that text).
// Each test module exports `tests`: an array of { name, timeoutMs, run(page, baseUrl) }.
// Every test gets a fresh browser context; console errors and page errors fail the test.
import { readdirSync } from "node:fs";
import { launchBrowser, outPath, serveDir, within } from "./harness.mjs";

const dist = process.argv[2] ?? "dist";
const here = new URL(".", import.meta.url).pathname;
const files = readdirSync(here).filter((f) => f.endsWith(".e2e.mjs") && f.includes(process.env.E2E_ONLY ?? "")).sort();
const server = await serveDir(dist);
const browser = await within(60_000, "launch chromium", launchBrowser());
let failed = 0;
let passed = 0;
try {
  for (const file of files) {
    const { tests } = await import(new URL(file, import.meta.url));
    for (const t of tests) {
      // E2E_TEST=text runs only the tests whose name contains it.
      if (!t.name.includes(process.env.E2E_TEST ?? "")) continue;
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
      const page = await context.newPage();
      const errors = [];
      page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
      page.on("console", (m) => { if (m.type() === "error") errors.push(`console.error: ${m.text()}`); });
      const started = Date.now();
      try {
        await within(t.timeoutMs ?? 60_000, `${file}: ${t.name}`, t.run(page, server.url));
        if (errors.length && !t.allowConsoleErrors) throw new Error(errors.join("\n"));
        passed++;
        console.log(`ok   ${file}: ${t.name} (${Date.now() - started} ms)`);
      } catch (e) {
        failed++;
        console.log(`FAIL ${file}: ${t.name}\n     ${String(e.stack ?? e).split("\n").join("\n     ")}`);
        // What the page showed when the test gave up: the first thing to look at.
        const shot = await outPath(`FAILED-${file.replace(".e2e.mjs", "")}-${failed}.png`);
        if (await within(10_000, "failure screenshot", page.screenshot({ path: shot, fullPage: true })).then(() => true, () => false)) {
          console.log(`     the page at failure: ${shot}`);
        }
      } finally {
        await within(10_000, "close context", context.close()).catch(() => {});
      }
    }
  }
} finally {
  await within(10_000, "close browser", browser.close()).catch(() => {});
  await server.close();
}
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
