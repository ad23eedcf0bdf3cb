//! Cross-target determinism: the digests of short lesson runs are pinned in
//! `tests/golden/digests.txt`, which the wasm tests (web/tests/browser.rs) check too, so native
//! and wasm builds must produce the same bytes. When an engine change alters results on
//! purpose, this test prints the new file to paste.

#[test]
fn lesson_digests_match_the_golden_file() {
    let text = include_str!("../golden/digests.txt");
    let mut fresh = String::from("# lesson duration_ms digest (regenerate: see tests/it/golden.rs)\n");
    let mut mismatches = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let mut it = line.split_whitespace();
        let (id, ms, want) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap_or(""));
        let scenario = steerlab_scenario::load(id, &[format!("sim.duration_ms={ms}")]).unwrap();
        let got = scenario.run().unwrap().snapshot().digest.hex();
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
