// The SCORM 1.2 package (scripts/scorm.sh) played in a test LMS whose run-time is scorm-again
// (npm, pinned): a learner who meets the goal sets cmi.core.lesson_status "passed" with the
// score; reopening the package resumes the state saved in cmi.suspend_data.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, serveDir } from "./harness.mjs";

const dist = resolve(process.argv[2] ?? "dist");
const root = new URL("../../", import.meta.url).pathname;

/** The test LMS: scorm-again's SCORM 1.2 API as window.API (with the data of an earlier
 * attempt, if the test saved one in sessionStorage), the package's launch.html in a frame. */
const LMS = `<!doctype html><html><head><meta charset="utf-8"><title>test LMS</title>
<link rel="icon" href="data:,"><script src="scorm12.js"></script></head><body style="margin:0">
<h1 style="font:16px sans-serif;margin:4px">Test LMS</h1>
<iframe id="sco" style="width:100%;height:900px;border:0" title="lesson"></iframe>
<script>
  window.API = new Scorm12API({ logLevel: 5 });
  const saved = sessionStorage.getItem("cmi");
  if (saved) window.API.loadFromJSON(JSON.parse(saved));
  window.lmsCmi = () => window.API.renderCMIToJSONObject();
  document.getElementById("sco").src = "launch.html";
</script></body></html>`;

export const tests = [
  {
    name: "SCORM 1.2: the package in an LMS (scorm-again) reports passed with the score, and resumes the saved state",
    timeoutMs: 120_000,
    async run(page) {
      const work = mkdtempSync(join(tmpdir(), "steerlab-scorm-"));
      const zip = join(work, "tc-bypass.zip");
      execFileSync("bash", [join(root, "scripts/scorm.sh"), "tc-bypass", zip], { env: { ...process.env, DIST: dist }, stdio: "pipe" });
      const pkg = join(work, "pkg");
      execFileSync("python3", ["-m", "zipfile", "-e", zip, pkg]);
      const manifest = readFileSync(join(pkg, "imsmanifest.xml"), "utf8");
      expect(manifest.includes("<schemaversion>1.2</schemaversion>") && manifest.includes('href="launch.html"'), "a SCORM 1.2 manifest launching launch.html");
      copyFileSync(join(root, "node_modules/scorm-again/dist/scorm12.js"), join(pkg, "scorm12.js"));
      writeFileSync(join(pkg, "lms.html"), LMS);
      const server = await serveDir(pkg);
      try {
        await page.goto(`${server.url}lms.html`);
        const lab = page.frameLocator("#sco").frameLocator("#lab");
        await lab.getByTestId("lesson-next").waitFor({ timeout: 30_000 });
        const status = () => page.evaluate(() => window.API.LMSGetValue("cmi.core.lesson_status"));
        await page.waitForFunction(() => window.API.LMSGetValue("cmi.core.lesson_status") === "incomplete");
        // The learner: Next to the key step, a prediction, the fix, at once (often in the
        // lesson's first simulated second: the question is then judged against what the host
        // did until the fix, teach.rs `figure_before`).
        await lab.getByTestId("lesson-next").click();
        await lab.getByTestId("lesson-next").click();
        await lab.getByTestId("lesson-predict-choice").first().click();
        await lab.getByTestId("console-input").fill("tc counting usesw");
        await lab.getByTestId("console-input").press("Enter");
        await page.waitForFunction(() => window.API.LMSGetValue("cmi.core.lesson_status") === "passed", null, { timeout: 60_000 })
          .catch(async () => { throw new Error(`status ${await status()}`); });
        const raw = await page.evaluate(() => window.API.LMSGetValue("cmi.core.score.raw"));
        expect(raw === "100", `the score reaches the LMS: ${raw}`);
        await page.waitForFunction(() => window.API.LMSGetValue("cmi.suspend_data").startsWith("s="));
        const suspend = await page.evaluate(() => window.API.LMSGetValue("cmi.suspend_data"));
        // Reopened: the LMS hands back what it stored, and the learner is where they left.
        const cmi = await page.evaluate(() => JSON.stringify(window.lmsCmi()));
        await page.evaluate((c) => sessionStorage.setItem("cmi", c), cmi);
        await page.reload();
        const again = page.frameLocator("#sco").frameLocator("#lab");
        await again.getByTestId("restored-paused").waitFor({ timeout: 60_000 });
        const src = await page.frameLocator("#sco").locator("#lab").getAttribute("src");
        expect(src.endsWith(`#${suspend}`), `resumed from cmi.suspend_data: ${src.slice(-60)}`);
        expect((await status()) === "passed", "still passed");
      } finally {
        await server.close();
      }
    },
  },
];
