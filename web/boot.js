// The page's first moments, before its wasm modules have run (issue 32). Inlined into the
// HTML's head by Trunk, so it runs at once:
//  - it fetches the requested lesson's text and draws the lesson's title, goal and first step
//    and a console, in plain HTML, so a learner reads while the modules download;
//  - it compiles the simulation worker's module (engine, console, scenario: streaming, as it
//    downloads; web/preload.js asked for it first thing) once for every worker, each of which
//    gets it by postMessage;
//  - it starts the simulation worker as soon as that module is compiled, opens the lesson in
//    it and lets the plain console talk to it, so the console answers before the page's module
//    has even come. The page then adopts that worker (client.rs) and its session: the
//    commands typed early are in its console, and the first screen gives way to the page;
//  - it lets the page's module (Yew, drawing, charts; its links wait in
//    `<template id="page-module">`) be asked for about a round trip before the worker's has
//    all come, so that the two do not share a slow connection, and compiles it for the page's
//    loader (Trunk.toml `pattern_script`).
// A compare view, a shared link (#s=), a trainer's lesson file (?lesson-url=) and a
// click-to-start embed have no first screen: the page opens them itself, and both modules are fetched at once (a click-to-start embed's worker
// module when the learner starts it).
(() => {
  "use strict";
  const params = new URLSearchParams(location.search);
  const lesson = params.get("lesson") ?? window.steerlabDefaultLesson;
  // A built-in lesson's first screen (scripts/first-screens.mjs inlines them), unless the page
  // opens something else (the compare view, a link, a click-to-start embed).
  const screens = window.steerlabFirstScreens ?? {};
  // A click-to-start embed asks for the worker's module when the learner starts it.
  const click = params.get("start") === "click";
  const screen = params.get("view") !== "compare" && !click && !params.has("lesson-url")
    && !location.hash.startsWith("#s=") && Object.hasOwn(screens, lesson) ? screens[lesson] : null;
  const base = new URL(".", location.href).href;
  // The modules use WebAssembly SIMD: web/preload.js probed for it before it asked for any
  // module; without it the page says what it needs rather than stay blank. Opened from a file
  // (file://), browsers load neither the modules nor the worker: the page says how to serve it.
  const fromFile = location.protocol === "file:";
  const runnable = window.steerlabSimd === true && !fromFile;
  // The lesson's whole text, for the worker (the first screen has its digest already).
  const text = screen ? fetch(`${base}lessons/${lesson}.json`).then((r) => (r.ok ? r.text() : null)).catch(() => null) : null;

  const boot = {
    /** The simulation worker's compiled module (a promise), from the moment the document is
     * parsed (a click-to-start embed's, from the first `spawn`). */
    module: null,
    /** The page has started its session: no first screen any more. */
    closed: false,
    /** The first screen's worker and what it holds, for the page to adopt (once). */
    early: null,
    /** A new simulation worker, given the compiled module when it is ready. */
    spawn,
    /** The page's module for its loader, once the first screen's worker has answered what
     * its console asked (the page's start would hold the main thread that relays the
     * answer); at most 2 s after the module is compiled. */
    forPage() {
      // Without SIMD the modules cannot compile: the page does not start (the notice says why).
      if (!runnable) return new Promise(() => {});
      // Settled, then one frame for the answer to be painted before the page's start holds
      // the main thread.
      const settled = () => new Promise((done) => {
        e.settled = () => requestAnimationFrame(() => setTimeout(done));
        settle();
        setTimeout(done, 2000);
      });
      return pageModule.then((m) => settled().then(() => m));
    },
    /** The page takes the first screen's worker if there is one: { worker, ready, opened
     * (it holds lesson `id` already), queued (messages for it once ready) }. */
    adopt(id) {
      boot.closed = true;
      const e = boot.early;
      boot.early = null;
      if (!e?.worker) return null;
      e.worker.onmessage = null;
      return { worker: e.worker, ready: e.ready, opened: e.opened === id, queued: e.queue.splice(0) };
    },
  };
  window.steerlabBoot = boot;

  /** The worker's module's URLs (web/preload.js asked for them), absolute. */
  function urls() {
    const w = window.steerlabWorker;
    const abs = (u) => (u ? new URL(u, location.href).href : undefined);
    return { glue: abs(w?.glue), wasm: abs(w?.wasm) };
  }

  /** The worker's compiled module, compiled on first use as it downloads (`watch` is told
   * its bytes as they come). */
  function workerModule(watch) {
    if (!boot.module) {
      window.steerlabWorker?.preload();
      boot.module = compile(urls().wasm, watch).then((m) => (performance.mark("steerlab:compiled"), m));
    }
    return boot.module;
  }

  /** The page's module: compiled once `letPageIn` has put its preload links (with their
   * integrity) into the head, so that the download starts then. */
  let letPageIn;
  const pageModule = new Promise((done) => {
    letPageIn = () => {
      letPageIn = () => {};
      const links = [...(document.getElementById("page-module")?.content.children ?? [])].map((l) => l.cloneNode());
      document.head.append(...links);
      const wasm = links.find((l) => l.type === "application/wasm")?.href;
      const page = wasm ? compile(wasm) : Promise.reject(new Error("the page has no <template id=page-module> (scripts/post-build.mjs)"));
      done(page.catch((err) => failed(`the page's module (${wasm})`, err)));
    };
  });

  /** Calls `f` once the worker's module has downloaded (its resource timing entry), or has
   * compiled, whichever is told first: the latest the page's module is let in. */
  function whenWorkerModuleHere(f) {
    const wasm = urls().wasm;
    if (typeof PerformanceObserver === "function" && wasm) {
      const seen = new PerformanceObserver((list) => {
        if (list.getEntries().some((r) => r.name === wasm && r.responseEnd > 0)) {
          seen.disconnect();
          f();
        }
      });
      seen.observe({ type: "resource", buffered: true });
    }
    boot.module?.finally(f);
  }

  /** A watch for the worker module's download that calls `f` about one round trip before
   * its last byte, so that the page's module, asked for then, starts arriving as the worker's
   * finishes rather than a round trip later (0.6 s on the mobile profile) and without sharing
   * the connection before. The round trip is how long the first bytes took to come, the rate
   * how fast the rest comes, the size what scripts/post-build.mjs wrote in
   * `window.steerlabWorker`. */
  function roundTripBefore(size, f) {
    const asked = performance.now();
    let first = null;
    return (received) => {
      const now = performance.now();
      if (first === null) {
        first = { at: now, received };
        return;
      }
      const rate = (received - first.received) / Math.max(1, now - first.at);
      if (rate > 0 && (size - received) / rate <= first.at - asked) f();
    };
  }

  /** Compiles as it downloads (the preload's bytes); a host that serves wasm as another
   * type gets the slow path. `watch`, if given, is told how many bytes have come so far. */
  function compile(wasm, watch) {
    const get = () => fetch(wasm, { credentials: "same-origin" });
    const watched = (r) => {
      if (!watch || !r.body || typeof TransformStream !== "function") return r;
      let received = 0;
      const count = new TransformStream({
        transform(chunk, out) {
          received += chunk.byteLength;
          watch(received);
          out.enqueue(chunk);
        },
      });
      return new Response(r.body.pipeThrough(count), { status: r.status, statusText: r.statusText, headers: r.headers });
    };
    return WebAssembly.compileStreaming(get().then(watched))
      .catch(() => get().then((r) => r.arrayBuffer()).then((b) => WebAssembly.compile(b)));
  }

  function spawn() {
    const { glue } = urls();
    const json = (s) => JSON.stringify(s);
    // The worker's start: the globals worker.rs reads, then the page's own glue, instantiated
    // with the module posted first (later messages wait in the worker until Rust listens;
    // it says Ready then).
    const script = `self.STEERLAB_IMPORTER = ${json(`${base}importer/steerlab_importer.js`)};
self.STEERLAB_LESSONS = ${json(`${base}lessons/`)};
import init from ${json(glue)};
self.onmessage = (e) => { self.onmessage = null; init({ module_or_path: e.data }).catch((err) => setTimeout(() => { throw err; })); };
`;
    const url = URL.createObjectURL(new Blob([script], { type: "text/javascript" }));
    const worker = new Worker(url, { type: "module" });
    URL.revokeObjectURL(url);
    workerModule().then((m) => worker.postMessage(m), (err) => failed(`the simulation's module (${urls().wasm})`, err));
    // The worker's own start (its glue, imported in it) fails there: said here.
    worker.addEventListener("error", (ev) => failed(`the simulation worker (${glue})`, ev.message || "it did not start"));
    return worker;
  }

  /** Once the document is parsed (the head's preload links, the body's placeholder): its
   * readyState turns "interactive" before the page's deferred loader runs and long before
   * DOMContentLoaded, which waits for the loader's glue. */
  function parsed(f) {
    if (document.readyState !== "loading") f();
    else document.addEventListener("readystatechange", f, { once: true });
  }

  /** The first screen's worker: started when the lesson's text is here; until it is ready,
   * what the first screen sends waits in `queue`. */
  const e = { worker: null, expected: false, ready: false, opened: null, queue: [], out: null, asked: 0, settled: null };
  const send = (msg) => (e.ready ? e.worker.postMessage(msg) : e.queue.push(msg));
  const ask = (line) => {
    e.asked++;
    send(JSON.stringify({ command: line }));
  };
  /** The page may start: no first-screen worker coming, or it is ready and has answered
   * (the lines typed before the page's start go to it, not lost in between). */
  function settle() {
    if (e.settled && (!e.expected || (e.ready && e.asked === 0))) {
      const go = e.settled;
      e.settled = null;
      go();
    }
  }

  /** The lesson's text is here: the worker starts on it (its open goes before any line the
   * first screen's console took meanwhile). */
  function begin(t) {
    let ok = false;
    try {
      ok = Boolean(t && JSON.parse(t).lesson && urls().glue && boot.module);
    } catch {
      // the page says what is wrong
    }
    if (!ok) {
      e.expected = false;
      return settle();
    }
    e.worker = spawn();
    e.opened = lesson;
    boot.early = e;
    e.queue.unshift(JSON.stringify({ open: lesson, text: t }));
    e.worker.onmessage = (m) => {
      if (typeof m.data === "string") {
        const a = JSON.parse(m.data).answer;
        if (a && e.out) {
          performance.mark("steerlab:answer-arrived");
          print(e.out, a.output, a.error);
          requestAnimationFrame(() => performance.mark("steerlab:first-answer"));
        }
        e.asked--;
      } else if (!e.ready) {
        // The worker's first binary message is its Ready; later ones are views for the page.
        performance.mark("steerlab:worker-ready");
        e.ready = true;
        // What was queued meanwhile (the open, lines typed while the module downloaded) goes
        // as one message: the worker applies it all before it starts playing (worker.rs).
        const queued = e.queue.splice(0);
        if (queued.length) e.worker.postMessage(queued.length === 1 ? queued[0] : `[${queued.join(",")}]`);
      }
      settle();
    };
  }

  // The lesson's first screen (title, goal, first step: inlined in the page by
  // scripts/first-screens.mjs) as soon as the body is parsed; the worker when its text is here.
  parsed(() => {
    // With a first screen the worker's module goes first, and the page's is asked for a round
    // trip before the worker's has all come; else the page needs both at once.
    const size = Number(window.steerlabWorker?.size);
    const watch = screen && size > 0 ? roundTripBefore(size, () => letPageIn()) : null;
    if (runnable && urls().wasm && !click) workerModule(watch);
    if (runnable && screen) whenWorkerModuleHere(() => letPageIn());
    else if (runnable) letPageIn();
    if (screen && !boot.closed) {
      e.out = draw(screen, ask);
      performance.mark("steerlab:first-screen");
    }
    if (fromFile) fromFileNotice();
    else if (!runnable) unsupported();
  });
  if (screen && runnable) {
    e.expected = true;
    text.then((t) => parsed(() => !boot.closed && begin(t)));
  }

  /** `{{…}}` figures come from the engine: an ellipsis until it runs. */
  const plain = (s) => String(s ?? "").replace(/\{\{[^}]*\}\}/g, "…");

  function el(tag, attrs, ...children) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs ?? {})) n.setAttribute(k, v);
    for (const c of children) n.append(c);
    return n;
  }

  /** Text with `code` spans, as the lesson panel shows it. */
  function rich(s) {
    return plain(s).split("`").map((t, i) => (i % 2 ? el("code", null, t) : document.createTextNode(t)));
  }

  /** The first screen, laid out as the page's lesson column; returns the console's output. */
  function draw(l, run) {
    const root = document.getElementById("first-screen");
    if (!root) return null;
    const out = el("pre", { class: "console-output", "data-testid": "console-output", tabindex: "0", "aria-live": "polite" });
    const input = el("input", {
      "data-testid": "console-input", spellcheck: "false", autocomplete: "off", placeholder: "help",
      "aria-label": "command line (Enter runs)",
    });
    input.addEventListener("keydown", (ev) => {
      if (ev.key !== "Enter" || !input.value.trim()) return;
      const line = input.value.trim();
      out.append(el("span", { class: "prompt" }, `# ${line}\n`));
      input.value = "";
      run(line);
    });
    const main = el("main", { class: `sandbox${params.get("embed") === "1" ? " embed" : ""}` },
      el("header", { class: "topbar" }, el("h1", null, "steerlab"),
        el("p", { class: "notice", role: "status", "data-testid": "loading" }, "Starting the simulation…")),
      el("div", { class: "lesson-col" },
        el("section", { class: "panel lesson", "aria-labelledby": "lesson-title" },
          el("div", { class: "lesson-head" }, el("h2", { id: "lesson-title" }, plain(l.title))),
          el("p", { class: "goal" }, el("strong", null, "Goal: "), ...rich(l.goal)),
          el("ol", { class: "steps" }, el("li", { class: "current" }, el("p", { class: "step-text" }, ...rich(l.step))))),
        el("section", { class: "panel console", "aria-label": "Console" }, el("h2", null, "Console"), out,
          el("label", { class: "console-line" }, el("span", { "aria-hidden": "true" }, "# "), input))),
      el("div", { class: "stage" }));
    root.replaceChildren(main);
    return out;
  }

  /** A file the page needs did not load: said at the top of the page, naming it, instead of
   * a "Starting…" that never ends (then rethrown for the console). */
  function failed(what, err) {
    const reason = String(err?.message ?? err ?? "").split("\n")[0];
    if (!document.querySelector("[data-testid=load-error]")) {
      const note = el("p", { class: "error load-error", role: "alert", "data-testid": "load-error" },
        `steerlab could not load ${what}${reason ? `: ${reason}` : ""}. Check that every file of dist/ was copied next to index.html and is served with its type (.wasm as application/wasm), then reload.`);
      parsed(() => document.body.prepend(note));
    }
    throw err instanceof Error ? err : new Error(`${what}: ${reason}`);
  }
  // The page's glue is imported by the loader Trunk writes: a failed import is an unhandled
  // rejection before the page has started.
  addEventListener("unhandledrejection", (ev) => {
    const msg = String(ev.reason?.message ?? ev.reason ?? "");
    if (!boot.closed && /import|module|fetch/i.test(msg)) {
      try { failed("the page's module", ev.reason); } catch { /* said on the page */ }
    }
  });

  /** Opened from a file: what the page needs, and the one command that serves it. */
  function fromFileNotice() {
    const cmd = "python3 -m http.server 8080";
    const note = el("div", { class: "error file-notice", role: "alert", "data-testid": "file-notice" },
      el("p", null, "steerlab cannot run from a file (file://): browsers load its WebAssembly modules and its simulation worker only from a web server."),
      el("p", null, "In this folder (the one with index.html), run ", el("code", null, cmd), " and open ", el("a", { href: "http://127.0.0.1:8080/" }, "http://127.0.0.1:8080/"), ". Any static web server works, at any path."));
    const root = document.getElementById("first-screen");
    root?.querySelector("[data-testid=loading]")?.remove();
    (root ?? document.body).prepend(note);
  }

  /** The browser cannot run the engine: said at the top of the page, with what it needs. */
  function unsupported() {
    const root = document.getElementById("first-screen");
    root?.querySelector("[data-testid=loading]")?.remove();
    root?.prepend(el("p", { class: "error", role: "alert", "data-testid": "unsupported" },
      "This browser cannot run the steerlab simulation: it needs WebAssembly SIMD (Chrome or Edge 91, Firefox 89, Safari 16.4 or later). The lesson's text is below; the sandbox needs a newer browser."));
  }

  function print(out, output, error) {
    if (output) out.append(el("span", error ? { class: "err" } : null, `${output.trimEnd()}\n`));
  }

})();
