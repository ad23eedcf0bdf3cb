//! A host capture (scripts/capture-host.sh's transcript, or outputs pasted alone) and flows on
//! it (the capture, a NUL, then flow lines or `ss` output): imported, or refused with an error
//! that names its line; what imports builds and applies its commands, and every prediction
//! names a queue of the host.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (capture, flows) = text.split_once('\0').unwrap_or((&text, ""));
    let imported = match steerlab_scenario::capture::import(capture) {
        Ok(i) => i,
        Err(e) => {
            assert!(
                e.0.starts_with("line ") || e.0.starts_with("the capture is"),
                "an error without its line: {e}"
            );
            return;
        }
    };
    let mut sim = imported.scenario.build().expect("an imported host builds");
    imported
        .scenario
        .apply_due(&mut sim)
        .expect("an imported host's commands apply");
    let Ok(keys) = steerlab_scenario::predict::parse_flows(flows) else {
        return;
    };
    for k in keys.iter().take(64) {
        let p = steerlab_scenario::predict::predict(&sim, k);
        assert!(p.queue < sim.config().rx_queues && p.irq_cpu < sim.config().cpus);
        assert!(p.rps_cpu.is_none_or(|c| c < sim.config().cpus));
    }
});
