//! The engine alone in WebAssembly, without the page: what a lesson's run costs in a browser's
//! worker when nothing else is built (no views, no samples, no messages). The page's own
//! figures (tests/e2e/worker.e2e.mjs: run to end, a link's restore) add its work to this;
//! `scripts/bench-wasm-engine.sh` times both this and the native CLI, alternately, so the
//! ratio the page cannot go below is measured rather than guessed. Built with the worker's
//! profile (`wasm-release`: the engine at opt-level 3) and SIMD, like the page's module.

use wasm_bindgen::prelude::*;

/// Runs lesson `id` for `secs` simulated seconds (its own length when 0) and returns the
/// run's digest, which the native CLI's `run ID --json` must give too.
#[wasm_bindgen]
pub fn run_lesson(id: &str, secs: u32) -> Result<String, String> {
    let mut scenario = steerlab_scenario::load(id, &[]).map_err(|e| e.to_string())?;
    if secs > 0 {
        scenario.sim.duration_ms = u64::from(secs) * 1000;
    }
    let sim = scenario.run().map_err(|e| e.to_string())?;
    Ok(sim.snapshot().digest.hex())
}

#[cfg(test)]
mod tests {
    /// The export runs a lesson and gives the native run's digest.
    #[test]
    fn a_lesson_runs_to_its_digest() {
        let mut s = steerlab_scenario::load("rss-basics", &[]).unwrap();
        s.sim.duration_ms = 1000;
        let want = s.run().unwrap().snapshot().digest.hex();
        assert_eq!(super::run_lesson("rss-basics", 1).unwrap(), want);
        assert!(super::run_lesson("no-such-lesson", 1).is_err());
    }
}
