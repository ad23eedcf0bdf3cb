#!/usr/bin/env bash
# A SCORM 1.2 package of one lesson, for a company's LMS (issue 49):
#   bash scripts/scorm.sh LESSON_ID|LESSON_FILE OUT.zip
# The zip holds the built sandbox (dist/, as `sandbox/`; DIST=DIR to use another build, built
# first when missing), the lesson file when it is not a built-in one (beside the sandbox's
# page, opened by ?lesson-url=), web/scorm/steerlab-scorm.js and a launch.html that loads it
# (the SCO: it finds the LMS's API and maps the learner's progress to cmi.core.lesson_status,
# cmi.core.score.raw and cmi.suspend_data, the permalink a learner resumes from), and an
# imsmanifest.xml naming every file. Upload the zip to the LMS as a SCORM 1.2 package.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ]; then
  echo "usage: bash scripts/scorm.sh LESSON_ID|LESSON_FILE OUT.zip" >&2
  exit 2
fi
lesson="$1"
out="$(realpath -m "$2")"
dist="${DIST:-dist}"
if [ ! -f "$dist/index.html" ]; then
  bash scripts/setup.sh
  source scripts/env.sh
  build_dist
fi
if [ -f "$lesson" ]; then
  file="$lesson"
elif [ -f "crates/scenario/lessons/$lesson.json" ]; then
  file=""
else
  echo "scorm: $lesson is neither a lesson id ($(ls crates/scenario/lessons | sed 's/\.json$//' | paste -sd' ')) nor a file" >&2
  exit 2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sandbox"
# The sandbox as built, without its precompressed copies (an LMS serves what it has).
cp -r "$dist/." "$work/sandbox/"
find "$work/sandbox" -type f \( -name '*.gz' -o -name '*.br' \) -delete
cp web/scorm/steerlab-scorm.js "$work/"
node - "$work" "$lesson" "$file" <<'EOF'
const { readFileSync, writeFileSync, copyFileSync, readdirSync, statSync } = require("node:fs");
const { join, relative, basename } = require("node:path");
const [work, lesson, file] = process.argv.slice(2);
const text = readFileSync(file || `crates/scenario/lessons/${lesson}.json`, "utf8");
const l = JSON.parse(text);
const title = (l.lesson && l.lesson.title) || l.id;
let cfg = { lesson: l.id };
if (file) {
  const name = `course-${basename(file).replace(/[^A-Za-z0-9._-]/g, "_")}`;
  copyFileSync(file, join(work, "sandbox", name));
  cfg = { lessonUrl: name };
}
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
writeFileSync(join(work, "launch.html"), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><link rel="icon" href="data:,">
<style>body{margin:0;font-family:system-ui,sans-serif}#lms{margin:0;padding:2px 8px;font-size:.8em;color:#5b6470}#lms:empty{display:none}iframe{display:block;width:100%;height:100vh;border:0}</style>
</head><body><p id="lms" role="status"></p><iframe id="lab" title="${esc(title)}"></iframe>
<script>window.STEERLAB_SCORM = ${JSON.stringify(cfg).replace(/</g, "\\u003c")};</script>
<script src="steerlab-scorm.js"></script>
</body></html>
`);
const files = [];
const walk = (d) => readdirSync(d).forEach((f) => { const p = join(d, f); statSync(p).isDirectory() ? walk(p) : files.push(relative(work, p)); });
walk(work);
files.sort();
writeFileSync(join(work, "imsmanifest.xml"), `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="steerlab-${esc(l.id)}" version="1.0"
  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">
  <metadata><schema>ADL SCORM</schema><schemaversion>1.2</schemaversion></metadata>
  <organizations default="steerlab">
    <organization identifier="steerlab">
      <title>${esc(title)}</title>
      <item identifier="lesson" identifierref="sco" isvisible="true">
        <title>${esc(title)}</title>
        <adlcp:masteryscore>40</adlcp:masteryscore>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="sco" type="webcontent" adlcp:scormtype="sco" href="launch.html">
${[...files, "imsmanifest.xml"].map((f) => `      <file href="${esc(f)}"/>`).join("\n")}
    </resource>
  </resources>
</manifest>
`);
console.log(`scorm: ${l.id} (${title}), ${files.length + 1} files`);
EOF
rm -f "$out"
(cd "$work" && python3 -c 'import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for root, _, files in os.walk("."):
        for f in sorted(files):
            p = os.path.join(root, f)
            z.write(p, os.path.relpath(p, "."))' "$out")
echo "scorm: wrote $out (SCORM 1.2: upload it to the LMS as a package)"
