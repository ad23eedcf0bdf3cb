// The built-in lessons as the tests walk them: one per file of crates/scenario/lessons, in
// teaching order (each file's next leads to the one after, as build.rs orders them): adding a
// lesson is adding its file, and every walk follows it.
import { readdirSync, readFileSync } from "node:fs";

const dir = new URL("../../crates/scenario/lessons/", import.meta.url);

/** A lesson's file, as the engine reads it. */
export const lessonFile = (id) => JSON.parse(readFileSync(new URL(`${id}.json`, dir)));

/** The lesson ids, in teaching order. */
export const LESSONS = (() => {
  const files = readdirSync(dir).filter((f) => f.endsWith(".json")).map((f) => JSON.parse(readFileSync(new URL(f, dir))));
  const named = new Set(files.map((l) => l.lesson.next));
  const byId = new Map(files.map((l) => [l.id, l]));
  const order = [];
  for (let l = files.find((f) => !named.has(f.id)); l && !order.includes(l.id); l = byId.get(l.lesson.next)) order.push(l.id);
  return [...order, ...[...byId.keys()].filter((id) => !order.includes(id)).sort()];
})();
