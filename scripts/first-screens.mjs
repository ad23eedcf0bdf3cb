// Trunk's pre_build hook (Trunk.toml): writes target/web/first-screens.js, which index.html
// inlines before web/boot.js: each built-in lesson's title, goal and first step, so that the
// first screen draws the lesson without waiting for its JSON (a round trip: 0.6 s on a slow
// connection). The lessons' files stay the one source; this is a digest of them.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = "crates/scenario/lessons";
const screens = {};
for (const f of readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
  const { id, lesson } = JSON.parse(readFileSync(join(dir, f), "utf8"));
  screens[id] = { title: lesson.title, goal: lesson.goal, step: lesson.steps?.[0]?.text ?? "" };
}
mkdirSync("target/web", { recursive: true });
writeFileSync("target/web/first-screens.js", `window.steerlabFirstScreens = ${JSON.stringify(screens)};\n`);
