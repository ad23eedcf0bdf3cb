// Trunk's pre_build hook (Trunk.toml): writes target/web/first-screens.js, which index.html
// inlines before web/boot.js: each built-in lesson's title, goal and first step, so that the
// first screen draws the lesson without waiting for its JSON (a round trip: 0.6 s on a slow
// connection), and the default lesson (the first in teaching order: lesson-order.mjs). The
// lessons' files stay the one source; this is a digest of them.
import { mkdirSync, writeFileSync } from "node:fs";
import { lessonsInOrder } from "./lesson-order.mjs";

const lessons = lessonsInOrder("crates/scenario/lessons");
const screens = {};
for (const { id, lesson } of lessons) {
  screens[id] = { title: lesson.title, goal: lesson.goal, step: lesson.steps?.[0]?.text ?? "" };
}
mkdirSync("target/web", { recursive: true });
writeFileSync(
  "target/web/first-screens.js",
  `window.steerlabFirstScreens = ${JSON.stringify(screens)};\nwindow.steerlabDefaultLesson = ${JSON.stringify(lessons[0].id)};\n`,
);
