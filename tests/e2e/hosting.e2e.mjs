// The same dist/ wherever a course puts it (issue 49): under a sub-path of a site, where every
// asset, the worker, the lessons and the embed example are found relative to the page; opened
// from a file, where the page says why it cannot run and the one command that serves it; and
// with a file missing, where the page names it instead of "Starting…" for ever.
import { resolve } from "node:path";
import { expect, serveDir } from "./harness.mjs";

const dist = resolve(process.argv[2] ?? "dist");

/** Runs `f(url)` with dist/ served as `options` say, then closes the server. */
async function served(options, f) {
  const server = await serveDir(dist, options);
  try {
    return await f(server.url);
  } finally {
    await server.close();
  }
}

export const tests = [
  {
    name: "hosting: under a course's sub-path (/courses/net342/steerlab/) a lesson plays, its console answers, the compare view and the embed example work",
    timeoutMs: 90_000,
    async run(page) {
      await served({ prefix: "/courses/net342/steerlab/" }, async (base) => {
        const outside = [];
        page.on("request", (r) => { if (!r.url().startsWith(base) && r.url().startsWith("http")) outside.push(r.url()); });
        await page.goto(`${base}?lesson=tc-bypass`);
        await page.getByTestId("sim-time").first().waitFor();
        await page.waitForFunction(() => parseFloat(document.querySelector('[data-testid="sim-time"]').textContent) > 0.5);
        const input = page.getByTestId("console-input");
        await input.fill("tc -s filter show dev eth0 ingress");
        await input.press("Enter");
        await page.getByTestId("console-output").filter({ hasText: "skip_sw" }).waitFor();
        expect(outside.length === 0, `every request stays under the sub-path: ${outside.slice(0, 3)}`);
        // Another lesson's text, fetched by the worker from under the sub-path.
        await page.getByTestId("lesson-select").selectOption("xdp-kfunc-cost");
        await page.getByTestId("xdp-cost").waitFor();
        await page.goto(`${base}?view=compare&lesson=rss-basics`);
        await page.getByTestId("console-b-output").waitFor();
        await page.goto(`${base}embed-example.html`);
        const frame = page.frameLocator("iframe#rss");
        await frame.getByTestId("sim-time").first().waitFor({ timeout: 30_000 });
        expect((await page.getByTestId("load-error").count()) === 0, "no load error");
      });
    },
  },
  {
    name: "hosting: opened from a file, the page says it must be served and how",
    timeoutMs: 30_000,
    async run(page) {
      await page.goto(`file://${dist}/index.html?lesson=rss-basics`);
      const note = page.getByTestId("file-notice");
      await note.waitFor();
      const text = await note.textContent();
      expect(/file:\/\//.test(text) && /python3 -m http\.server/.test(text), `the notice says why and how: ${text}`);
      expect((await page.getByTestId("loading").count()) === 0, "no \"Starting the simulation…\" left waiting");
    },
    // The browser itself refuses a few file:// loads on the way (the favicon, the preload).
    allowConsoleErrors: true,
  },
  {
    name: "hosting: a module the host does not serve is named on the page",
    timeoutMs: 30_000,
    async run(page) {
      await served({ missing: /steerlab-worker-[0-9a-f]+_bg\.wasm$/ }, async (base) => {
        await page.goto(`${base}?lesson=rss-basics`);
        const note = page.getByTestId("load-error");
        await note.waitFor({ timeout: 20_000 });
        const text = await note.textContent();
        expect(/steerlab-worker-[0-9a-f]+_bg\.wasm/.test(text), `the notice names the file: ${text}`);
      });
    },
    allowConsoleErrors: true,
  },
];
