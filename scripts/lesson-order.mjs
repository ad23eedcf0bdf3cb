// The built-in lessons in teaching order, as crates/scenario/build.rs orders them: a lesson no
// other names as its `next` starts the chain (the first by id if several), each `next` leads
// to the one after, and any left over follow by id. The first is the default lesson (the page
// opens it without ?lesson=). One rule for the build (first-screens.mjs, bundle-size.mjs) and
// the tests (tests/e2e/lesson-files.mjs).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The lesson files of `dir` (crates/scenario/lessons), parsed, in teaching order. */
export function lessonsInOrder(dir) {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")));
  const named = new Set(files.map((l) => l.lesson?.next));
  const byId = new Map(files.map((l) => [l.id, l]));
  const order = [];
  for (let l = files.find((f) => !named.has(f.id)); l && !order.includes(l); l = byId.get(l.lesson?.next)) order.push(l);
  return [...order, ...files.filter((l) => !order.includes(l))];
}
