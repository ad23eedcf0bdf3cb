//! Helpers shared by the capture tests.

use steerlab_scenario::capture::Imported;

/// Everything an import said, one assumption a line.
pub(crate) fn said(imported: &Imported) -> String {
    imported
        .assumptions
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The transcript `scripts/capture-host.sh` would print of `cmds` run on the console's host:
/// each output, or, for a command the host refuses (a one-TX-queue device's xps_cpus is
/// ENOENT), the tool's error line as its stderr would put it (the console's `hint:` lines are
/// the sandbox's, not the tool's).
#[allow(dead_code)] // not every test file captures a host
pub(crate) fn transcript(sim: &mut steerlab_engine::Sim, cmds: &[&str]) -> String {
    cmds.iter()
        .map(|cmd| {
            let out = steerlab_console::execute(sim, cmd)
                .unwrap_or_else(|e| format!("{}\n", e.lines().next().unwrap_or_default()));
            format!("$ {cmd}\n{out}\n")
        })
        .collect()
}
