// Precompresses dist/ for static hosts (issue 32): beside every HTML, JS, CSS, wasm and JSON file a
// `.gz` and a `.br` (brotli, quality 11). The `.gz` is zopfli's (@gfx/zopfli, pinned in
// package-lock.json; 15 iterations, its default): a plain gzip stream any browser inflates, 4.5 %
// smaller than GNU gzip -9 on the module (510.5 -> 487.7 KB), which is 0.12 s less on the mobile
// profile's 1.47 Mbit/s; it takes about 5 s for the module, once per build. A host that serves precompressed files (nginx gzip_static/brotli_static, Caddy
// precompressed, Netlify and Cloudflare do it themselves) sends these; bundle-size.mjs weighs
// the .gz files, which is what the default page downloads. Usage: node scripts/precompress.mjs DIST
import { gzipAsync } from "@gfx/zopfli";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants } from "node:zlib";

const dist = process.argv[2] ?? "dist";
const walk = (dir) => readdirSync(dir).flatMap((f) => {
  const p = join(dir, f);
  return statSync(p).isDirectory() ? walk(p) : [p];
});
let n = 0;
for (const file of walk(dist).filter((f) => /\.(html|js|css|wasm|json)$/.test(f))) {
  const raw = readFileSync(file);
  writeFileSync(`${file}.gz`, await gzipAsync(raw, { numiterations: 15 }));
  const br = brotliCompressSync(raw, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: statSync(file).size },
  });
  writeFileSync(`${file}.br`, br);
  n++;
}
console.log(`precompress: ${n} files in ${dist}, each with .gz and .br`);
