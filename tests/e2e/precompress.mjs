// Precompresses dist/ for static hosts (issue 32): beside every HTML, JS, CSS, wasm and JSON file a
// `.gz` (GNU gzip -9: 1-2 % smaller than zlib's level 9 on the wasm) and a `.br` (brotli,
// quality 11). A host that serves precompressed files (nginx gzip_static/brotli_static, Caddy
// precompressed, Netlify and Cloudflare do it themselves) sends these; bundle-size.mjs weighs
// the .gz files, which is what the default page downloads. Usage: node tests/e2e/precompress.mjs DIST
import { execFileSync } from "node:child_process";
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
  execFileSync("gzip", ["-9", "-n", "-k", "-f", file]);
  const br = brotliCompressSync(readFileSync(file), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: statSync(file).size },
  });
  writeFileSync(`${file}.br`, br);
  n++;
}
console.log(`precompress: ${n} files in ${dist}, each with .gz and .br`);
