// The built-in lessons as the tests walk them: one per file of crates/scenario/lessons, in
// teaching order (each file's next leads to the one after, as build.rs orders them): adding a
// lesson is adding its file, and every walk follows it.
import { readFileSync } from "node:fs";
import { lessonsInOrder } from "../../scripts/lesson-order.mjs";

const dir = new URL("../../crates/scenario/lessons/", import.meta.url);

/** A lesson's file, as the engine reads it. */
export const lessonFile = (id) => JSON.parse(readFileSync(new URL(`${id}.json`, dir)));

/** The lesson ids, in teaching order. */
export const LESSONS = lessonsInOrder(dir.pathname).map((l) => l.id);
