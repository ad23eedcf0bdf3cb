// Accessibility (issue 32): axe-core's WCAG 2.1 A and AA rules on every screen a learner
// meets (each lesson, its question answered, the challenge with a hint, the compare view, an
// embed), the keyboard's way into the two canvases a mouse clicks (the host matrix, the wire
// view), and the host's text description a screen reader hears.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
import { LESSONS } from "./lesson-files.mjs";

function expect(cond, msg) {
  if (!cond) throw new Error(msg);
}

async function open(page, base, query) {
  await page.goto(`${base}?${query}`);
  await page.getByTestId("sim-time").first().waitFor();
  // A second of simulated time: the charts, tables and the matrix have drawn.
  await page.waitForFunction(() => {
    const t = document.querySelector("[data-testid='sim-time']")?.textContent ?? "";
    return parseFloat(t) >= 1;
  });
}

/** Runs axe on the page; throws with every violation, its nodes and axe's summary. */
async function axe(page, what) {
  if (!(await page.evaluate(() => typeof window.axe === "object"))) await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => `${n.target.join(" ")}: ${n.failureSummary.replace(/\s+/g, " ")}`).join("; ")}`);
  });
  expect(violations.length === 0, `axe on ${what}:\n  ${violations.join("\n  ")}`);
}

export const tests = [
  {
    name: "axe: no WCAG 2.1 A/AA violation on any lesson, with its question answered",
    timeoutMs: 240_000,
    async run(page, base) {
      for (const id of LESSONS) {
        await open(page, base, `lesson=${id}`);
        await axe(page, id);
        const choice = page.getByTestId("lesson-predict-choice").first();
        if (await choice.count()) {
          await choice.click();
          await page.getByTestId("lesson-predict-result").waitFor({ timeout: 30_000 }).catch(() => {});
          await axe(page, `${id}, answered`);
        }
      }
    },
  },
  {
    name: "axe: the challenge with a hint, the compare view and an embed",
    timeoutMs: 120_000,
    async run(page, base) {
      await open(page, base, "lesson=arfs-collision&mode=challenge");
      await page.getByTestId("lesson-challenge").waitFor();
      await page.getByTestId("lesson-hint").click();
      await axe(page, "the challenge");
      await open(page, base, "view=compare&lesson=rfs-thread-churn");
      await axe(page, "the compare view");
      await page.goto(`${base}?lesson=tc-bypass&embed=1&start=click`);
      await axe(page, "an embed before its start");
      await page.getByTestId("embed-start").click();
      await page.getByTestId("sim-time").first().waitFor();
      await axe(page, "an embed");
    },
  },
  {
    name: "keyboard: arrows and Enter list a matrix cell's flows; Up and Down trace flows on the wire",
    timeoutMs: 90_000,
    async run(page, base) {
      await open(page, base, "lesson=arfs-collision");
      const matrix = page.getByTestId("host-matrix");
      await matrix.focus();
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("ArrowRight");
      const hover = await page.getByTestId("matrix-hover").textContent();
      expect(/^rx-1 → CPU 1:/.test(hover.trim()), `two arrows from rx-0/CPU 0 name rx-1 → CPU 1, not ${JSON.stringify(hover)}`);
      await page.keyboard.press("Enter");
      await page.getByTestId("matrix-cell-flows").waitFor();
      await page.keyboard.press("Escape");
      await page.getByTestId("matrix-cell-flows").waitFor({ state: "detached" });

      await open(page, base, "lesson=rss-basics");
      const wire = page.getByTestId("wire");
      expect(await wire.count(), "rss-basics draws the wire view");
      const traced = () => page.evaluate(() => document.querySelector("[data-testid='trace-flow-select']")?.value);
      const first = await traced();
      await wire.focus();
      await page.keyboard.press("ArrowDown");
      await page.waitForFunction((f) => document.querySelector("[data-testid='trace-flow-select']")?.value !== f, first);
      await page.keyboard.press("ArrowUp");
      await page.waitForFunction((f) => document.querySelector("[data-testid='trace-flow-select']")?.value === f, first);
    },
  },
  {
    name: "a screen reader hears the host: queues, CPUs and where flows land, in words",
    timeoutMs: 60_000,
    async run(page, base) {
      await open(page, base, "lesson=rfs-thread-churn");
      const d = page.getByTestId("host-description");
      expect((await d.getAttribute("aria-live")) === "polite", "the description is a polite live region");
      // At most once a second: the first text (time 0, nothing measured yet) gives way to one
      // with the last second's rates.
      await page.waitForFunction(() => /[1-9]\d* packets\/s/.test(document.querySelector("[data-testid='host-description']")?.textContent ?? ""), null, { timeout: 20_000 })
        .catch(async () => { throw new Error(`no rate in the description: ${JSON.stringify(await d.textContent())}`); });
      const text = (await d.textContent()).trim();
      expect(/^Host: 512 flows/.test(text), `the description counts the lesson's 512 flows: ${JSON.stringify(text)}`);
      expect(/Busiest RX queues: rx-\d+ \d+\/s \(\d+ % off the reader's CPU\)/.test(text), `per queue: rate and off-reader share: ${JSON.stringify(text)}`);
      expect(/Busiest CPUs, softirq: CPU \d+ \d+\.\d %/.test(text), `per CPU: softirq load: ${JSON.stringify(text)}`);
    },
  },
];
