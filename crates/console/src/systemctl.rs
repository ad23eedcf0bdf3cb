//! `systemctl start|stop|restart|status irqbalance`: the irqbalance daemon's unit, the one
//! service of the sandbox (the engine's agent: crates/engine/src/sim/irqbalance.rs). The
//! status lines follow systemd's `systemctl status` layout (its first three lines). The
//! daemon's banned CPUs come from the service manager's environment, as on a host where the
//! unit reads no file of its own: `systemctl set-environment IRQBALANCE_BANNED_CPULIST=LIST`
//! (`unset-environment`, `show-environment`), read when the daemon next starts. The
//! sandbox's manager environment holds that variable only (a real one also has PATH, LANG...).

use steerlab_engine::Sim;

use crate::hinted;

/// The accepted forms of `systemctl`.
pub(crate) const FORMS: &str =
    "systemctl start|stop|restart|status irqbalance   (irqbalance: a pass every 10 s places the NIC's queue vectors)\n\
systemctl set-environment IRQBALANCE_BANNED_CPULIST=CPUS   (read when irqbalance next starts: restart it)\n\
systemctl unset-environment IRQBALANCE_BANNED_CPULIST\n\
systemctl show-environment";

/// The one environment variable the sandbox's service manager holds.
const BANNED: &str = "IRQBALANCE_BANNED_CPULIST";

/// `systemctl set-environment|unset-environment|show-environment`.
fn environment(sim: &mut Sim, verb: &str, args: &[&str]) -> Result<String, String> {
    let not_modelled = |name: &str| {
        hinted(
            format!("systemctl: {name}: steerlab's service manager holds {BANNED} only"),
            FORMS,
        )
    };
    match (verb, args) {
        ("show-environment", []) => Ok(sim
            .irqbalance_env()
            .map_or_else(String::new, |b| format!("{BANNED}={}\n", b.to_list()))),
        ("unset-environment", [name]) if *name == BANNED => {
            sim.set_irqbalance_env(None).map_err(|e| hinted(e.to_string(), FORMS))?;
            Ok(String::new())
        }
        ("set-environment", [assignment]) => {
            let Some((name, value)) = assignment.split_once('=') else {
                return Err(hinted(format!("Invalid environment assignment: {assignment}"), FORMS));
            };
            if name != BANNED {
                return Err(not_modelled(name));
            }
            // irqbalance parses the list with cpulist_parse; an empty list bans nothing.
            let cpus = steerlab_engine::CpuSet::parse_list(value)
                .map_err(|e| hinted(format!("systemctl: {BANNED}: {e}"), FORMS))?;
            sim.set_irqbalance_env(Some(cpus))
                .map_err(|e| hinted(e.to_string(), FORMS))?;
            Ok(String::new())
        }
        ("unset-environment", [name]) => Err(not_modelled(name)),
        _ => Err(hinted("systemctl: steerlab runs one verb on one unit", FORMS)),
    }
}

/// `systemctl VERB irqbalance[.service]`.
pub(crate) fn run(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    if let Some((verb, rest)) = args.split_first().filter(|(v, _)| v.ends_with("-environment")) {
        return environment(sim, verb, rest);
    }
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
            let banned = sim.irqbalance_env().unwrap_or(steerlab_engine::CpuSet::EMPTY);
            sim.set_irqbalance(Some(banned)).map_err(refused)?;
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
