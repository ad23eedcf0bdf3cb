#!/usr/bin/env bash
# The kernel check's own test (issue 51): for each mutation in scripts/mutations.json (an
# engine or console change that breaks one rule the kernel check compares), apply it to a copy
# of the sources, build the CLI, run the kernel check on that rule only, and require it to
# report DIFFER and exit non-zero. Prints a mutation score; exits 1 unless every mutation is
# caught. Needs what scripts/kernel-check.sh needs (root, network namespaces), and time: about
# a minute a mutation (an incremental release build of the CLI, then the rule's check).
#
# Usage (root): scripts/mutation-check.sh [ID...]   (default: every mutation)
# The copy lives in ${STEERLAB_MUTANTS:-/tmp/steerlab-mutants} (kept between runs, so that its
# builds are incremental); the repository itself is never changed.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
copy="${STEERLAB_MUTANTS:-/tmp/steerlab-mutants}"
mkdir -p "$copy"
# The repository's files (tracked and new, not ignored), with their times, so that the copy's
# builds stay incremental from run to run.
rm -rf "$copy/src"
mkdir -p "$copy/src"
(cd "$root" && git ls-files -co --exclude-standard -z | tar --null -cf - -T -) | tar -xf - -C "$copy/src"
ids=("$@")
[ ${#ids[@]} = 0 ] && mapfile -t ids < <(python3 -c 'import json,sys; [print(m["id"]) for m in json.load(open(sys.argv[1]))]' "$here/mutations.json")
caught=0
total=0
for id in "${ids[@]}"; do
    total=$((total + 1))
    # Apply: the `find` text must occur exactly once (a stale mutation is an error, not a pass).
    read -r file breaks < <(python3 - "$here/mutations.json" "$id" "$copy/src" <<'PY'
import json, sys
muts = {m["id"]: m for m in json.load(open(sys.argv[1]))}
m = muts.get(sys.argv[2])
if m is None:
    sys.exit(f"no mutation {sys.argv[2]}")
path = f"{sys.argv[3]}/{m['file']}"
text = open(path).read()
if text.count(m["find"]) != 1:
    sys.exit(f"{m['id']}: {m['file']} holds its text {text.count(m['find'])} times (need 1): update scripts/mutations.json")
open(path, "w").write(text.replace(m["find"], m["replace"]))
print(m["file"], m["breaks"])
PY
    ) || { echo "MUTANT $id: cannot apply"; continue; }
    echo "== mutant $id: breaks \"$breaks\""
    if ! (cd "$copy/src" && CARGO_TARGET_DIR="$copy/target" cargo build --release --offline -q -p steerlab-cli); then
        echo "MUTANT $id: does not build"
        cp "$root/$file" "$copy/src/$file"
        continue
    fi
    only="^$(printf '%s' "$breaks" | sed 's/[][\.*^$(){}+?|/]/\\&/g')\$"
    out="$(bash "$here/kernel-check.sh" --steerlab "$copy/target/release/steerlab" --only "$only")"
    status=$?
    cp "$root/$file" "$copy/src/$file"
    if [ "$status" != 0 ] && echo "$out" | grep -qF "DIFFER $breaks:"; then
        caught=$((caught + 1))
        echo "CAUGHT $id: $(echo "$out" | grep -F "DIFFER $breaks:")"
    else
        echo "MISSED $id (exit $status):"
        echo "$out" | grep -E "AGREE|DIFFER|SKIP" | sed 's/^/    /'
    fi
done
echo "mutation-check: $caught of $total mutations caught"
[ "$caught" = "$total" ]
