// The simulation worker's module, asked for before anything else (issue 32): the first
// screen's console waits for it. Inlined by Trunk near the top of the head; just before it,
// scripts/post-build.mjs writes `window.steerlabWorker`: the module's files (content-hashed
// names), their integrity and the wasm's size. A click-to-start embed asks for it only when
// the learner starts it (web/boot.js), so that a course page of many embeds downloads no
// engine before a click.
(() => {
  "use strict";
  // The modules use WebAssembly SIMD (.cargo/config.toml). This module of one function that
  // returns a v128 constant validates only in a browser that has it (Chrome 91, Firefox 89,
  // Safari 16.4 and later). Without it no module can compile: none is asked for, and
  // web/boot.js says what the page needs.
  const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 22, 1, 20, 0,
    253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11]);
  const simd = typeof WebAssembly === "object" && WebAssembly.validate(SIMD_PROBE);
  window.steerlabSimd = simd;
  const w = window.steerlabWorker;
  // From a file nothing can load: web/boot.js says how to serve the page instead.
  if (!w || location.protocol === "file:") return;
  /** The module's preload links, once: web/boot.js's compile and the worker's import then
   * take the preloaded bytes. */
  w.preload = () => {
    if (w.preloaded || !simd) return;
    w.preloaded = true;
    const link = (attrs) => document.head.append(Object.assign(document.createElement("link"), attrs));
    link({ rel: "preload", as: "fetch", type: "application/wasm", crossOrigin: "anonymous", href: w.wasm, integrity: w.wasmIntegrity });
    link({ rel: "modulepreload", crossOrigin: "anonymous", href: w.glue, integrity: w.glueIntegrity });
  };
  if (new URLSearchParams(location.search).get("start") !== "click") w.preload();
})();
