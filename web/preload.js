// The simulation worker's module, asked for before anything else (issue 32): the first
// screen's console waits for it. Inlined by Trunk near the top of the head; just before it,
// scripts/post-build.mjs writes `window.steerlabWorker`: the module's files (content-hashed
// names), their integrity and the wasm's size. A click-to-start embed asks for it only when
// the learner starts it (web/boot.js), so that a course page of many embeds downloads no
// engine before a click.
(() => {
  "use strict";
  const w = window.steerlabWorker;
  if (!w) return;
  /** The module's preload links, once: web/boot.js's compile and the worker's import then
   * take the preloaded bytes. */
  w.preload = () => {
    if (w.preloaded) return;
    w.preloaded = true;
    const link = (attrs) => document.head.append(Object.assign(document.createElement("link"), attrs));
    link({ rel: "preload", as: "fetch", type: "application/wasm", crossOrigin: "anonymous", href: w.wasm, integrity: w.wasmIntegrity });
    link({ rel: "modulepreload", crossOrigin: "anonymous", href: w.glue, integrity: w.glueIntegrity });
  };
  if (new URLSearchParams(location.search).get("start") !== "click") w.preload();
})();
