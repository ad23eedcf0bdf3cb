// The SCORM 1.2 launcher of a steerlab lesson package (scripts/scorm.sh): it finds the LMS's
// API (window.API in a parent frame, or the opener's, as SCORM 1.2's run-time environment
// says), opens the lesson in the sandbox beside it (sandbox/index.html, embedded, allowing
// this page's origin), and maps what the learner does to the LMS's data model:
//   the lesson opened             -> cmi.core.lesson_status "incomplete" (unless passed)
//   every learning moment         -> cmi.suspend_data "s=PERMALINK" (the exact state: a learner
//                                    who comes back resumes where they left)
//   lesson-complete {score}       -> cmi.core.lesson_status "passed", cmi.core.score.raw =
//                                    score.points (min 0, max 100)
//   leaving the page              -> cmi.core.session_time, LMSFinish
// window.STEERLAB_SCORM (written by scripts/scorm.sh into launch.html) names the lesson:
// { lesson: "ID" } or { lessonUrl: "FILE.json" } (a file packed beside the sandbox).
(() => {
  "use strict";
  const cfg = window.STEERLAB_SCORM ?? {};
  const note = document.getElementById("lms");
  const lab = document.getElementById("lab");
  const say = (t) => { if (note) note.textContent = t; };

  /** SCORM 1.2's API discovery: the parent chain (at most 7 levels), then the opener's. */
  function findAPI(win) {
    for (let i = 0; win && i < 8; i++) {
      try {
        if (win.API) return win.API;
      } catch {
        return null; // another origin: not our LMS
      }
      if (win.parent === win) break;
      win = win.parent;
    }
    return null;
  }
  const api = findAPI(window) ?? (window.opener ? findAPI(window.opener) : null);
  const lms = {
    get: (k) => (api ? String(api.LMSGetValue(k) ?? "") : ""),
    set: (k, v) => api && api.LMSSetValue(k, String(v)) === "true",
    commit: () => api && api.LMSCommit(""),
  };
  if (api) {
    api.LMSInitialize("");
    if (lms.get("cmi.core.lesson_status") !== "passed") lms.set("cmi.core.lesson_status", "incomplete");
    say("");
  } else {
    say("No LMS found: the lesson runs, but nothing is recorded.");
  }
  const started = Date.now();

  // The lesson in the sandbox: embedded, driven and heard by this page only.
  const params = new URLSearchParams({ embed: "1", origin: location.origin });
  if (cfg.lessonUrl) params.set("lesson-url", cfg.lessonUrl);
  else if (cfg.lesson) params.set("lesson", cfg.lesson); // else the sandbox's default lesson
  const saved = lms.get("cmi.suspend_data");
  lab.src = `sandbox/index.html?${params}${saved.startsWith("s=") ? `#${saved}` : ""}`;

  /** SCORM 1.2 allows 4,096 characters of suspend_data: a longer state is not saved. */
  const SUSPEND_MAX = 4096;
  addEventListener("message", (e) => {
    if (e.source !== lab.contentWindow || e.origin !== location.origin) return;
    const m = e.data ?? {};
    if (m.type === "steerlab:event") {
      if (m.kind === "lesson-complete") {
        const points = Math.max(0, Math.min(100, Number(m.detail?.score?.points ?? 0)));
        lms.set("cmi.core.score.min", 0);
        lms.set("cmi.core.score.max", 100);
        lms.set("cmi.core.score.raw", points);
        lms.set("cmi.core.lesson_status", "passed");
        lms.commit();
      }
      // Every moment a teacher grades is a state worth resuming: ask for it.
      if (m.kind !== "command") lab.contentWindow.postMessage({ type: "steerlab:get-state" }, location.origin);
    } else if (m.type === "steerlab:state" && m.permalink) {
      const data = `s=${m.permalink}`;
      if (data.length <= SUSPEND_MAX && lms.set("cmi.suspend_data", data)) lms.commit();
    }
  });

  /** SCORM 1.2's CMITimespan: HHHH:MM:SS. */
  function timespan(ms) {
    const s = Math.floor(ms / 1000);
    const pad = (n, w) => String(n).padStart(w, "0");
    return `${pad(Math.floor(s / 3600), 4)}:${pad(Math.floor(s / 60) % 60, 2)}:${pad(s % 60, 2)}`;
  }
  let finished = false;
  function finish() {
    if (!api || finished) return;
    finished = true;
    lms.set("cmi.core.session_time", timespan(Date.now() - started));
    lms.set("cmi.core.exit", lms.get("cmi.core.lesson_status") === "passed" ? "" : "suspend");
    lms.commit();
    api.LMSFinish("");
  }
  addEventListener("pagehide", finish);
  addEventListener("beforeunload", finish);
})();
