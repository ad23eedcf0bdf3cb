// Trunk's post_build hook (Trunk.toml): the last touches to the staged page, in order.
//  1. Release builds: minifies wasm-bindgen's glue JavaScript (the page's, the worker's and the
//     importer's) with terser, pinned in package-lock.json. Trunk's own minifier stops at the
//     glue's `export { … as default }` (it warns "Failed to minify JS" and leaves the file as
//     it was): the page's glue is 59 KB of JavaScript, 9.9 KB gzipped, minified about 27 KB
//     and 8 KB. Property names stay (the wasm module imports its functions by name), only
//     local names shrink. The page links its glue with a sha384 `integrity`, recomputed here.
//  2. Every build: names the worker's module by its content. Trunk names a `data-type="worker"`
//     app by its binary only (steerlab-worker.js, steerlab-worker_bg.wasm); a static host
//     serves hashed names as immutable (README), so they get a hash as the page's files have.
//  3. Every build: the two modules, in the order a learner needs them (issue 32). The
//     worker's module (engine, console, scenario) is what the first screen's console waits
//     for: `window.steerlabWorker` (its files, their integrity, the wasm's size) goes first in
//     the head, just before web/preload.js, which asks for it at once (a click-to-start embed:
//     when the learner starts it). Trunk writes links at the head's end, after the inlined
//     first screens, boot script and stylesheet: on Lighthouse's mobile profile, CPU 4x
//     slower, the module was asked for 60 ms later. The page's module (Yew, drawing, charts)
//     must not share the connection with it: Trunk's preload links for it move into
//     `<template id="page-module">`, inert, and web/boot.js lets them in about a round trip
//     before the worker's module has all come, at once when there is no first screen.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { minify } from "terser";

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error("post-build.mjs is run by trunk (Trunk.toml hooks)");
const release = process.env.TRUNK_PROFILE === "release";
const WORKER = "steerlab-worker";

const sri = (bytes) => `sha384-${createHash("sha384").update(bytes).digest("base64")}`;
const indexPath = join(dir, "index.html");
let index = readFileSync(indexPath, "utf8");
if (release) index = await minifyGlue(index);
const worker = hashWorker();
index = orderModules(index, worker);
writeFileSync(indexPath, index);

/** Step 1: returns `index` with the page glue's new integrity hash. */
async function minifyGlue(index) {
  const glue = [
    ...readdirSync(dir).filter((f) => /^steerlab-web-[0-9a-f]+\.js$/.test(f)),
    `${WORKER}.js`,
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

/** Step 2: the worker's glue and wasm renamed `steerlab-worker-HASH.js`, `…-HASH_bg.wasm`;
 * returns their names and integrity. */
function hashWorker() {
  const glue = readFileSync(join(dir, `${WORKER}.js`));
  const wasm = readFileSync(join(dir, `${WORKER}_bg.wasm`));
  const hash = createHash("sha256").update(glue).update(wasm).digest("hex").slice(0, 16);
  const names = { glue: `${WORKER}-${hash}.js`, wasm: `${WORKER}-${hash}_bg.wasm` };
  renameSync(join(dir, `${WORKER}.js`), join(dir, names.glue));
  renameSync(join(dir, `${WORKER}_bg.wasm`), join(dir, names.wasm));
  return { ...names, glueSri: sri(glue), wasmSri: sri(wasm), wasmSize: wasm.length };
}

/** Step 3: the worker's module's data first in the head; the page's links in an inert template. */
function orderModules(index, worker) {
  const take = (re, what) => {
    const m = index.match(re);
    if (!m) throw new Error(`post-build: index.html has no ${what}`);
    index = index.replace(m[0], "");
    return m[0];
  };
  const pageWasm = take(/<link\b[^>]*\btype="?application\/wasm"?[^>]*>/, "page wasm preload link");
  const pageGlue = take(/<link\b[^>]*\brel="?modulepreload"?[^>]*>/, "page glue modulepreload link");
  // The page's files' directory, as Trunk wrote it (its public_url).
  const base = pageWasm.match(/\bhref="?([^"\s>]*\/)steerlab-web-/)?.[1];
  if (base === undefined) throw new Error("post-build: the page wasm link has no steerlab-web- href");
  const data = JSON.stringify({
    wasm: `${base}${worker.wasm}`,
    glue: `${base}${worker.glue}`,
    wasmIntegrity: worker.wasmSri,
    glueIntegrity: worker.glueSri,
    size: worker.wasmSize,
  });
  const charset = index.match(/<meta\b[^>]*\bcharset=[^>]*>/);
  if (!charset) throw new Error("post-build: index.html has no <meta charset>");
  // web/preload.js's own property (boot.js names steerlabWorker too): minifiers keep it.
  if (!index.includes(".preloaded")) throw new Error("post-build: index.html does not inline web/preload.js");
  index = index.replace(charset[0], `${charset[0]}<script>window.steerlabWorker=${data}</script>`);
  const head = index.lastIndexOf("</head>");
  if (head < 0) throw new Error("post-build: index.html has no </head>");
  index = `${index.slice(0, head)}<template id="page-module">${pageWasm}${pageGlue}</template>${index.slice(head)}`;
  console.log(`post-build: ${worker.wasm} asked for first (web/preload.js), the page's module in <template id="page-module">`);
  return index;
}
