//! `systemctl start|stop|restart|status irqbalance`: the irqbalance daemon's unit, the one
//! service of the sandbox (the engine's agent: crates/engine/src/sim/irqbalance.rs). The
//! status lines follow systemd's `systemctl status` layout (its first three lines). The
//! daemon's banned CPUs (`IRQBALANCE_BANNED_CPULIST`) are the engine's to take; the console
//! starts it with none.

use steerlab_engine::Sim;

use crate::hinted;

/// The accepted forms of `systemctl`.
pub(crate) const FORMS: &str =
    "systemctl start|stop|restart|status irqbalance   (irqbalance: a pass every 10 s places the NIC's queue vectors)";

/// `systemctl VERB irqbalance[.service]`.
pub(crate) fn run(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let (verb, unit) = match args {
        [verb, unit] => (*verb, unit.trim_end_matches(".service")),
        _ => return Err(hinted("systemctl: steerlab runs one verb on one unit", FORMS)),
    };
    if unit != "irqbalance" {
        return Err(hinted(
            format!("Failed to {verb} {unit}.service: Unit {unit}.service not found."),
            FORMS,
        ));
    }
    let refused = |e: steerlab_engine::SimError| hinted(format!("Job for irqbalance.service failed: {e}"), FORMS);
    match verb {
        "start" if sim.irqbalance().is_some() => Ok(String::new()),
        "start" | "restart" => {
            sim.set_irqbalance(Some(steerlab_engine::CpuSet::EMPTY)).map_err(refused)?;
            Ok(String::new())
        }
        "stop" => {
            sim.set_irqbalance(None).map_err(refused)?;
            Ok(String::new())
        }
        "status" => Ok(match sim.irqbalance() {
            Some(_) => "● irqbalance.service - irqbalance daemon\n     Loaded: loaded (/usr/lib/systemd/system/irqbalance.service; enabled; preset: enabled)\n     Active: active (running)\n",
            None => "○ irqbalance.service - irqbalance daemon\n     Loaded: loaded (/usr/lib/systemd/system/irqbalance.service; disabled; preset: enabled)\n     Active: inactive (dead)\n",
        }
        .to_string()),
        other => Err(hinted(format!("Unknown command verb '{other}'."), FORMS)),
    }
}
