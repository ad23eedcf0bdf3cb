//! Messages from an embedding page (`postMessage` data as JSON): refused with an error event,
//! or a host message; a command among them runs on a small host.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use steerlab_engine::Sim;
use steerlab_web::protocol::embed::{parse_message, HostMessage};

fn host() -> &'static Sim {
    static HOST: OnceLock<Sim> = OnceLock::new();
    HOST.get_or_init(|| {
        steerlab_scenario::load("rss-basics", &[])
            .and_then(|s| s.build())
            .expect("a lesson builds")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    if let Ok(HostMessage::Command(line)) = parse_message(&value) {
        let mut sim = host().clone();
        let _ = steerlab_console::execute(&mut sim, &line);
        sim.run_ticks(1);
        assert!(sim.conserved());
    }
});
