// The end-to-end harness: serves dist/ on 127.0.0.1, launches Debian's Chromium through
// playwright-core, and runs named steps, each under an outer timeout so that a hung browser or
// driver fails the run instead of hanging CI.
import { createServer } from "node:http";
import { readFile, mkdir } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { chromium } from "playwright-core";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".wasm": "application/wasm",
  ".css": "text/css",
  ".json": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** A file name with a content hash (Trunk's `name-0123456789abcdef.ext`): never changes. */
const HASHED = /-[0-9a-f]{16}(_bg)?\.[a-z]+$/;

/**
 * Serves `dir` on 127.0.0.1 at a free port; resolves to { url, close }. With `cache`, the
 * headers a static host sends: hashed assets immutable for a year, the rest revalidated
 * (reach.mjs measures loads as a learner's browser sees them). With `prefix` ("/a/b/"), the
 * files are served under that path only, as a course site serves them (`url` includes it);
 * with `missing` (a RegExp), the files whose path it matches answer 404.
 */
export async function serveDir(dir, { cache = false, prefix = "/", missing = null } = {}) {
  const server = createServer(async (req, res) => {
    const url = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (!url.startsWith(prefix) || missing?.test(url)) return res.writeHead(404).end("not found");
    const path = normalize(`/${url.slice(prefix.length)}`).replace(/^(\.\.[/\\])+/, "");
    const file = join(dir, path.endsWith("/") ? path + "index.html" : path);
    // The precompressed file a static host would send (precompress.mjs), if the browser takes it.
    const accepts = String(req.headers["accept-encoding"] ?? "");
    const encodings = [["br", ".br"], ["gzip", ".gz"]].filter(([e]) => accepts.includes(e));
    const type = { "content-type": TYPES[extname(file)] ?? "application/octet-stream", vary: "accept-encoding" };
    if (cache) type["cache-control"] = HASHED.test(file) ? "public, max-age=31536000, immutable" : "no-cache";
    for (const [encoding, suffix] of encodings) {
      try {
        const body = await readFile(file + suffix);
        res.writeHead(200, { ...type, "content-encoding": encoding });
        return res.end(body);
      } catch {
        // not precompressed: the plain file below
      }
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, type);
      res.end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address();
  // Closing ends the browser's kept-alive connections too (close alone waits for them).
  return { url: `http://127.0.0.1:${port}${prefix}`, close: () => new Promise((ok) => { server.close(ok); server.closeAllConnections(); }) };
}

/** Rejects after `ms` with a message naming the step. */
export function within(ms, what, promise) {
  let timer;
  const limit = new Promise((_, fail) => {
    timer = setTimeout(() => fail(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/** Chromium as root on a closed network (see the env notes): no sandbox, no background traffic. */
export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
}

export const OUT_DIR = new URL("./out/", import.meta.url).pathname;
export async function outPath(name) {
  await mkdir(OUT_DIR, { recursive: true });
  return join(OUT_DIR, name);
}

/** Throws unless `cond`, with `message`. */
export function expect(cond, message) {
  if (!cond) throw new Error(`assertion failed: ${message}`);
}
