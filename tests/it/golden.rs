//! Cross-target determinism: the digests of short lesson runs are pinned in
//! `tests/golden/digests.txt`, which the wasm tests (web/tests/browser.rs) check too, so native
//! and wasm builds must produce the same bytes. Beside them, `tests/golden/figures.txt` pins
//! each lesson's headline figures at every 100 ms of the same runs: a digest says only that
//! something moved, the table's diff says which figure and from when. When an engine change
//! alters results on purpose, each test prints the new file to paste.

use serde_json::Value;
use steerlab_engine::Nanos;
use steerlab_scenario::{Report, Scenario};

/// The digests' runs: `(lesson, duration_ms, digest)`.
fn runs(text: &str) -> Vec<(&str, u64, &str)> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|line| {
            let mut it = line.split_whitespace();
            let id = it.next().unwrap();
            let ms = it.next().unwrap().parse().unwrap();
            (id, ms, it.next().unwrap_or(""))
        })
        .collect()
}

fn scenario(id: &str, ms: u64) -> Scenario {
    steerlab_scenario::load(id, &[format!("sim.duration_ms={ms}")]).unwrap()
}

#[test]
fn lesson_digests_match_the_golden_file() {
    let mut fresh = String::from("# lesson duration_ms digest (regenerate: see tests/it/golden.rs)\n");
    let mut mismatches = Vec::new();
    for (id, ms, want) in runs(include_str!("../golden/digests.txt")) {
        let got = scenario(id, ms).run().unwrap().snapshot().digest.hex();
        fresh.push_str(&format!("{id} {ms} {got}\n"));
        if got != want {
            mismatches.push(format!("{id}: {want} -> {got}"));
        }
    }
    assert!(
        mismatches.is_empty(),
        "digests changed ({}); if intended, write this to tests/golden/digests.txt:\n{fresh}",
        mismatches.join(", ")
    );
}

/// Where the figures are taken: every 100 ms of simulated time (the digests' runs last 200 to
/// 500 ms, so whole seconds would give one row).
const STEP_MS: u64 = 100;

/// A lesson's headline figures: the packets' fate, then its seed table's rows and its evidence
/// strip's figures (what the lesson is about), each once.
fn headline(s: &Scenario) -> Vec<String> {
    let mut paths: Vec<String> = [
        "packets.offered",
        "packets.delivered",
        "steering.local",
        "steering.remote",
    ]
    .map(String::from)
    .to_vec();
    let lesson = s
        .lesson
        .table
        .iter()
        .map(|(_, p)| p)
        .chain(s.lesson.evidence.iter().map(|e| &e.metric));
    for p in lesson {
        if !paths.contains(p) {
            paths.push(p.clone());
        }
    }
    paths
}

/// A figure exactly, integers with thousands separators (a golden, not a display: no rounding).
fn cell(r: &Report, path: &str) -> String {
    match r.get(path) {
        Some(Value::Number(n)) => match n.as_u64() {
            Some(i) => {
                let digits = i.to_string();
                let mut out = String::new();
                for (k, ch) in digits.chars().enumerate() {
                    if k > 0 && (digits.len() - k) % 3 == 0 {
                        out.push(',');
                    }
                    out.push(ch);
                }
                out
            }
            None => n.to_string(),
        },
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => "-".into(),
    }
}

/// One lesson's block: a row per figure, a column per step, the last column the run's end.
fn block(id: &str, paths: &[String], columns: &[(u64, Report)]) -> String {
    let rows: Vec<Vec<String>> = paths
        .iter()
        .map(|p| columns.iter().map(|(_, r)| cell(r, p)).collect())
        .collect();
    let label_w = paths.iter().map(String::len).max().unwrap_or(0).max(id.len() + 3);
    let col_w = |c: usize| {
        rows.iter()
            .map(|row| row[c].len())
            .chain([format!("{} ms", columns[c].0).len()])
            .max()
            .unwrap_or(0)
    };
    let mut out = format!("{:<label_w$}", format!("== {id}"));
    for (c, (t, _)) in columns.iter().enumerate() {
        out.push_str(&format!("  {:>w$}", format!("{t} ms"), w = col_w(c)));
    }
    out.push('\n');
    for (path, row) in paths.iter().zip(&rows) {
        out.push_str(&format!("{path:<label_w$}"));
        for (c, v) in row.iter().enumerate() {
            out.push_str(&format!("  {v:>w$}", w = col_w(c)));
        }
        out.push('\n');
    }
    out
}

/// Each lesson's headline figures along the digest's own run (run in steps, which the engine
/// guarantees changes nothing: the run's digest is checked against the digests file too).
#[test]
fn lesson_figures_match_the_golden_table() {
    let mut fresh = String::from(
        "# Each lesson's headline figures (the packets' fate, its seed table's rows, its evidence strip)\n\
         # at every 100 ms of the runs tests/golden/digests.txt digests. Regenerate: see tests/it/golden.rs.\n",
    );
    for (id, ms, digest) in runs(include_str!("../golden/digests.txt")) {
        let s = scenario(id, ms);
        let mut sim = s.build().unwrap();
        let mut columns = Vec::new();
        let mut t = 0;
        while t < ms {
            t = (t + STEP_MS).min(ms);
            s.run_from(&mut sim, Nanos::from_ms(t)).unwrap();
            columns.push((t, Report::new(&s, &sim)));
        }
        assert_eq!(
            sim.snapshot().digest.hex(),
            digest,
            "{id}: the stepped run is the digest's run"
        );
        fresh.push('\n');
        fresh.push_str(&block(id, &headline(&s), &columns));
    }
    let want = include_str!("../golden/figures.txt");
    let was: Vec<&str> = want.lines().collect();
    let (mut lesson, mut moved) = ("", Vec::new());
    for (i, line) in fresh.lines().enumerate() {
        if let Some(head) = line.strip_prefix("== ") {
            lesson = head.split_whitespace().next().unwrap_or("");
        }
        if was.get(i) != Some(&line) {
            moved.push(format!("{lesson}:\n  now {line}\n  was {}", was.get(i).unwrap_or(&"")));
        }
    }
    assert!(
        fresh == want,
        "lesson figures moved:\n{}\nif intended, write this to tests/golden/figures.txt:\n{fresh}",
        moved.join("\n")
    );
}

/// The digest folds the path of every packet and each tick's main totals, not every counter
/// (a cpuset-skipped sock-table record, say, changes no path): the whole JSON report of short
/// runs is pinned too, as an FNV-1a hash of `steerlab run --json`'s line, in
/// `tests/golden/reports.txt` (`lesson duration_ms [KEY=VALUE ...] hash`). When an engine
/// change alters results on purpose, this test prints the new file to paste.
#[test]
fn lesson_reports_match_the_golden_file() {
    let text = include_str!("../golden/reports.txt");
    let mut fresh = String::new();
    let mut mismatches = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') || line.is_empty() {
            fresh.push_str(line);
            fresh.push('\n');
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let (id, ms, sets, want) = match words.as_slice() {
            [id, ms, sets @ .., want] => (*id, *ms, sets, *want),
            _ => panic!("bad line {line:?}"),
        };
        let mut all = vec![format!("sim.duration_ms={ms}")];
        all.extend(sets.iter().map(|s| s.to_string()));
        let scenario = steerlab_scenario::load(id, &all).unwrap();
        let sim = scenario.run().unwrap();
        let json = steerlab_scenario::Report::new(&scenario, &sim).to_json();
        let got = format!(
            "{:016x}",
            json.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b))
                .wrapping_mul(0x0100_0000_01b3))
        );
        let head: Vec<&str> = words[..words.len() - 1].to_vec();
        fresh.push_str(&format!("{} {got}\n", head.join(" ")));
        if got != want {
            mismatches.push(format!("{}: {want} -> {got}", head.join(" ")));
        }
    }
    assert!(
        mismatches.is_empty(),
        "reports changed ({}); if intended, write this to tests/golden/reports.txt:\n{fresh}",
        mismatches.join(", ")
    );
}
