//! Scenario text and `--set` overrides (the text, a NUL, then one override per line): refused
//! with an error or built and run for 200 ms of simulated time, every packet conserved.
#![no_main]

use libfuzzer_sys::fuzz_target;
use steerlab_engine::Nanos;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (json, sets) = text.split_once('\0').unwrap_or((&text, ""));
    let overrides: Vec<String> = sets.lines().take(8).map(str::to_string).collect();
    let Ok(scenario) = steerlab_scenario::parse(json, &overrides) else {
        return;
    };
    let Ok(mut sim) = scenario.build() else { return };
    // Hosts too big to run a million times stay parsed and built only.
    if u64::from(sim.flow_count()) * u64::from(sim.config().cpus) > 20_000 {
        return;
    }
    if scenario.run_from(&mut sim, Nanos::from_ms(200)).is_ok() {
        assert!(sim.conserved(), "packets lost");
    }
});
