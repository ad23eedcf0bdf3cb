// Trunk's post_build hook (Trunk.toml), release builds only: the last touches to the staged
// page, in order.
//  1. Minifies wasm-bindgen's glue JavaScript (the page's and the importer's) with terser,
//     pinned in package-lock.json. Trunk's own minifier stops at the glue's
//     `export { … as default }` (it warns "Failed to minify JS" and leaves the file as it was):
//     59 KB of JavaScript, 9.9 KB gzipped, that every learner downloads; minified, about 27 KB
//     and 8 KB. Property names stay (the wasm module imports its functions by name), only local
//     names shrink. The page links the glue with a sha384 `integrity`, which is recomputed here.
//  2. Moves the module's preload links (the wasm, then the glue) to the top of the head. Trunk
//     writes them at its end, after the inlined first screens, boot script and stylesheet, so
//     the browser asked for the module only once it had parsed those: on Lighthouse's mobile
//     profile (CPU 4x slower) about 50 ms after the HTML's last byte and 90 ms after its first
//     (tests/e2e/reach.mjs, REACH_TIMELINE=1). The module's download is what the first console
//     answer waits for (issue 32).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { minify } from "terser";

if (process.env.TRUNK_PROFILE !== "release") process.exit(0);
const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error("post-build.mjs is run by trunk (Trunk.toml hooks)");

const indexPath = join(dir, "index.html");
let index = readFileSync(indexPath, "utf8");
index = await minifyGlue(index);
index = preloadFirst(index);
writeFileSync(indexPath, index);

/** Step 1: returns `index` with the glue's new integrity hashes. */
async function minifyGlue(index) {
  const sri = (text) => `sha384-${createHash("sha384").update(text).digest("base64")}`;
  const glue = [
    ...readdirSync(dir).filter((f) => /^steerlab-web-[0-9a-f]+\.js$/.test(f)),
    "importer/steerlab_importer.js",
  ];
  for (const file of glue) {
    const path = join(dir, file);
    const before = readFileSync(path, "utf8");
    const out = await minify(before, { module: true, compress: { passes: 2 }, mangle: true });
    if (!out.code) throw new Error(`terser returned nothing for ${file}`);
    writeFileSync(path, out.code);
    // Every reference to the old text's hash (the modulepreload link) now names the new text.
    index = index.split(sri(before)).join(sri(out.code));
    console.log(`post-build: ${file} ${before.length} -> ${out.code.length} bytes`);
  }
  return index;
}

/** Step 2: the wasm's and the glue's preload links, moved to just after `<meta charset>`. */
function preloadFirst(index) {
  const find = (re, what) => {
    const m = index.match(re);
    if (!m) throw new Error(`post-build: index.html has no ${what} link`);
    index = index.replace(m[0], "");
    return m[0];
  };
  const wasm = find(/<link\b[^>]*\btype="?application\/wasm"?[^>]*>/, "wasm preload");
  const glue = find(/<link\b[^>]*\brel="?modulepreload"?[^>]*>/, "glue modulepreload");
  const charset = index.match(/<meta\b[^>]*\bcharset=[^>]*>/);
  if (!charset) throw new Error("post-build: index.html has no <meta charset>");
  console.log("post-build: the module's preload links moved to the top of the head");
  return index.replace(charset[0], charset[0] + wasm + glue);
}
