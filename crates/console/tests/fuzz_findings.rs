//! Every input the fuzz targets found (fuzz/, scripts/fuzz.sh) that broke the console, run as
//! the `console_line` target runs it: the first byte picks nothing here, the rest are lines.
//! Each must finish (quickly: the test harness times the suite), refuse or apply, and a
//! refused line must leave the host as it was.

mod common;

use common::host;
use steerlab_console::execute;

#[test]
fn fuzz_findings_are_handled() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz-findings");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).expect("the findings directory") {
        let bytes = std::fs::read(entry.expect("an entry").path()).expect("a finding");
        let text = String::from_utf8_lossy(bytes.get(1..).unwrap_or_default()).into_owned();
        let mut sim = host();
        for line in text.lines().take(8) {
            let (snap, cfg) = (sim.snapshot(), sim.config().clone());
            let started = std::time::Instant::now();
            if execute(&mut sim, line).is_err() {
                assert!(
                    sim.snapshot() == snap && *sim.config() == cfg,
                    "a refused line changed the host: {line:?}"
                );
            }
            assert!(started.elapsed().as_secs() < 5, "{line:?} took {:?}", started.elapsed());
        }
        sim.run_ticks(1);
        assert!(sim.conserved());
        seen += 1;
    }
    assert!(seen > 0);
}
