// Trunk's post_build hook (Trunk.toml), release builds only: minifies wasm-bindgen's glue
// JavaScript (the page's and the importer's) with terser, pinned in package-lock.json.
// Trunk's own minifier stops at the glue's `export { … as default }` (it warns "Failed to
// minify JS" and leaves the file as it was): 59 KB of JavaScript, 9.9 KB gzipped, that every
// learner downloads; minified, about 27 KB and 8 KB. Property names stay (the wasm module
// imports its functions by name), only local names shrink. The page links the glue with a
// sha384 `integrity`, which is recomputed here.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { minify } from "terser";

if (process.env.TRUNK_PROFILE !== "release") process.exit(0);
const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error("minify-glue.mjs is run by trunk (Trunk.toml hooks)");

const sri = (text) => `sha384-${createHash("sha384").update(text).digest("base64")}`;
const glue = [
  ...readdirSync(dir).filter((f) => /^steerlab-web-[0-9a-f]+\.js$/.test(f)),
  "importer/steerlab_importer.js",
];
const indexPath = join(dir, "index.html");
let index = readFileSync(indexPath, "utf8");
for (const file of glue) {
  const path = join(dir, file);
  const before = readFileSync(path, "utf8");
  const out = await minify(before, { module: true, compress: { passes: 2 }, mangle: true });
  if (!out.code) throw new Error(`terser returned nothing for ${file}`);
  writeFileSync(path, out.code);
  // Every reference to the old text's hash (the modulepreload link) now names the new text.
  index = index.split(sri(before)).join(sri(out.code));
  console.log(`minify-glue: ${file} ${before.length} -> ${out.code.length} bytes`);
}
writeFileSync(indexPath, index);
