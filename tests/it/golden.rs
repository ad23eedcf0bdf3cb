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
