// The first screen (issue 32, web/boot.js): the lesson's text and a console in plain HTML
// before the page's module has run, answered by the worker the first screen started; then the
// page takes over that worker, with the early command in its console, in the same place.
import { expect } from "./harness.mjs";

/** Holds the module's download for `ms`: a slow connection, without throttling the rest. */
async function slowModule(page, ms) {
  await page.route(/_bg\.wasm$/, async (route) => {
    await new Promise((ok) => setTimeout(ok, ms));
    await route.continue();
  });
}

export const tests = [
  {
    name: "first screen: the lesson's text before the module; its console answers; the page takes over with the line in its console",
    timeoutMs: 60_000,
    async run(page, base) {
      await slowModule(page, 2500);
      await page.goto(`${base}?lesson=arfs-collision`);
      const title = page.locator("#first-screen #lesson-title");
      await title.waitFor({ timeout: 2000 });
      expect((await title.textContent()) === "aRFS: when the driver matches filters by hash only", `the first screen names the lesson: ${await title.textContent()}`);
      const goal = await page.locator("#first-screen .goal").textContent();
      expect(goal.startsWith("Goal: Stop the aRFS update storm"), `the goal: ${goal}`);
      const step = await page.locator("#first-screen .step-text").textContent();
      expect(step.includes("16,384 flows") && step.includes("…") && !step.includes("{{"), `the first step, its engine figures elided: ${step}`);
      expect((await page.getByTestId("play").count()) === 0, "the page's controls are not there yet");

      // Typed before the module has come: answered once it has, in the first screen.
      const input = page.locator("#first-screen [data-testid=console-input]");
      await input.fill("ethtool -l eth0");
      await input.press("Enter");
      await page.waitForFunction(() => performance.getEntriesByName("steerlab:first-answer").length > 0, null, { timeout: 30_000 });

      // The page adopts the worker: one session, the early command and its answer in the
      // page's console; the first screen is gone; the lesson's title is where it was.
      await page.getByTestId("sim-time").waitFor();
      await page.locator("#first-screen").waitFor({ state: "detached" });
      const out = await page.getByTestId("console-output").textContent();
      expect(out.includes("# ethtool -l eth0") && out.includes("Combined:\t144"), `the page's console holds the early answer: ${out.slice(0, 200)}`);
      expect((await page.locator("#lesson-title").textContent()) === "aRFS: when the driver matches filters by hash only", "the page's lesson is the first screen's");
      const workers = page.workers().length;
      expect(workers === 1, `one simulation worker (the first screen's, adopted), not ${workers}`);
    },
  },
  {
    name: "first screen: a browser without WebAssembly SIMD is told what the sandbox needs, and still reads the lesson",
    timeoutMs: 60_000,
    async run(page, base) {
      // As in a browser before Chrome 91, Firefox 89 or Safari 16.4: boot.js's probe fails.
      await page.addInitScript(() => {
        WebAssembly.validate = () => false;
      });
      // No module is asked for: none could compile (web/preload.js probes before it preloads).
      const wasm = [];
      page.on("request", (r) => { if (r.url().endsWith(".wasm")) wasm.push(r.url()); });
      await page.goto(`${base}?lesson=tc-bypass`);
      const notice = page.getByTestId("unsupported");
      await notice.waitFor({ timeout: 5000 });
      const said = await notice.textContent();
      expect(said.includes("WebAssembly SIMD") && said.includes("Safari 16.4"), `the notice says what is needed: ${said}`);
      expect((await page.locator("#first-screen #lesson-title").textContent()).startsWith("tc:"), "the lesson's text is still there");
      await page.waitForTimeout(1500);
      expect((await page.getByTestId("play").count()) === 0, "the page does not start a module that cannot compile");
      for (const p of ["?view=compare&lesson=tc-bypass", "?embed=1&lesson=rss-basics#s=x"]) {
        await page.goto(`${base}${p}`);
        await page.getByTestId("unsupported").waitFor({ timeout: 5000 });
      }
      expect(wasm.length === 0, `no WebAssembly module downloaded (${wasm.join(", ")})`);
    },
  },
  {
    name: "first screen: none for the compare view or an unknown lesson; the page opens them itself",
    timeoutMs: 60_000,
    async run(page, base) {
      await page.goto(`${base}?view=compare&lesson=tc-bypass`);
      await page.getByTestId("sim-time").first().waitFor();
      expect((await page.locator("#first-screen *").count()) === 0, "no first screen in the compare view");
      await page.goto(`${base}?lesson=no-such-lesson`);
      await page.getByTestId("error-banner").waitFor();
      expect((await page.locator("#first-screen *").count()) === 0, "no first screen for an unknown lesson");
    },
  },
];
