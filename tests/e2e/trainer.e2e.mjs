// A trainer's own lesson and learners' own variants (issue 49): a lesson file opened by
// ?lesson-url= from the page's origin (and refused from another), its next lesson a file too,
// the same file loaded by an embedding page; each student's variant solved and graded.
import { readFileSync } from "node:fs";
import { expect } from "./harness.mjs";

const lessonFile = (id) => JSON.parse(readFileSync(new URL(`../../crates/scenario/lessons/${id}.json`, import.meta.url)));

/** A trainer's lesson: tc-bypass under another id, with a next lesson given as a file. */
function custom(id, next) {
  const l = lessonFile("tc-bypass");
  l.id = id;
  l.lesson.title = `Net 342, lab 3: ${id}`;
  l.lesson.next = next;
  return JSON.stringify(l);
}

/** Serves the trainer's files beside the sandbox, on its origin. */
async function lessonsBeside(page, base, files) {
  await page.route(`${base}course/**`, (route) => {
    const name = new URL(route.request().url()).pathname.split("/").pop();
    return files[name] ? route.fulfill({ contentType: "application/json", body: files[name] }) : route.fulfill({ status: 404, body: "no" });
  });
}

async function solve(page) {
  await page.getByTestId("speed").selectOption({ label: "10 s/s" });
  await page.getByTestId("console-input").fill("tc counting usesw");
  await page.getByTestId("console-input").press("Enter");
  await page.getByTestId("lesson-held").waitFor();
  await page.getByTestId("lesson-predict-choice").first().click();
  await page.getByTestId("lesson-goal-met").waitFor({ timeout: 60_000 });
}

export const tests = [
  {
    name: "trainer: a lesson file by ?lesson-url= plays, is listed, and its next lesson file opens from its ending; another origin is refused",
    timeoutMs: 90_000,
    async run(page, base) {
      await lessonsBeside(page, base, { "lab3.json": custom("lab3", "lab4.json"), "lab4.json": custom("lab4", "") });
      await page.goto(`${base}?lesson-url=course/lab3.json`);
      await page.getByRole("heading", { name: "Net 342, lab 3: lab3" }).waitFor();
      expect((await page.getByTestId("lesson-select").inputValue()) === "lab3", "the lesson list shows it");
      await solve(page);
      await page.getByTestId("lesson-complete-next").click();
      await page.getByRole("heading", { name: "Net 342, lab 3: lab4" }).waitFor();
      expect(new URL(page.url()).searchParams.get("lesson-url") === `${base}course/lab4.json`, `the next file, read against the first: ${page.url()}`);
      await page.goto(`${base}?lesson-url=${encodeURIComponent("https://evil.example/lab.json")}`);
      await page.getByTestId("error-banner").waitFor();
      const banner = await page.getByTestId("error-banner").textContent();
      expect(/only from this page's origin/.test(banner) && /evil\.example/.test(banner), `refused, naming why: ${banner}`);
      await page.goto(`${base}?lesson-url=course/missing.json`);
      await page.getByTestId("error-banner").filter({ hasText: "404" }).waitFor();
    },
    // The browser logs the missing file's 404 itself.
    allowConsoleErrors: true,
  },
  {
    name: "trainer: two students' variants of one file open with their own seed and are each gradable",
    timeoutMs: 120_000,
    async run(page, base) {
      const seeds = [];
      for (const student of ["Ada Lovelace", "Linus"]) {
        await page.goto(`${base}?lesson=tc-bypass&student=${encodeURIComponent(student)}`);
        await page.getByTestId("lesson-student").waitFor();
        const said = await page.getByTestId("lesson-student").textContent();
        expect(said.includes(student), `the variant names its student: ${said}`);
        seeds.push(said.match(/seed (\d+)/)[1]);
        await solve(page);
        await page.getByTestId("lesson-score").waitFor();
      }
      expect(seeds[0] !== seeds[1], `a seed each: ${seeds}`);
    },
  },
];
