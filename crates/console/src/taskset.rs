//! `taskset -p[c]` on the sandbox's threads (their ids stand for pids), as util-linux prints it.
//!
//! Source: util-linux schedutils/taskset.c (`print_affinity`: `pid %d's current affinity
//! list: %s` / `... mask: %s`, then `pid %d's new affinity ...` after a change; errors
//! `failed to get pid %d's affinity`, `failed to set pid %d's affinity`, `failed to parse CPU
//! list: %s`, `failed to parse CPU mask: %s`, and `invalid PID argument: '%s'` from
//! `strtopid_or_err`, each after `taskset: ` and with `: strerror` for system calls). A mask
//! prints as lib/cpuset.c `cpumask_create` does: hex without leading zeros.

use steerlab_engine::{CpuSet, Sim};

use crate::hinted;

/// The accepted forms.
pub(crate) const FORMS: &str = "taskset -pc [CPULIST] TID   (CPULIST like 0-3,8)\n\
taskset -p [MASK] TID   (MASK in hex, like f0)";

/// `taskset`'s arguments as util-linux reads them.
struct Args<'a> {
    /// `-c`: CPU lists, not masks.
    list: bool,
    /// The new set, if one is given.
    set: Option<&'a str>,
    /// The thread.
    pid: &'a str,
}

/// Whether `taskset ARGS` asks for a new affinity (else it prints the current one).
pub(crate) fn sets_affinity(args: &[&str]) -> bool {
    parse(args).is_ok_and(|a| a.set.is_some())
}

/// Reads the options and the positional words, as taskset.c does before any system call.
fn parse<'a>(args: &[&'a str]) -> Result<Args<'a>, String> {
    let (mut pid_mode, mut list, mut rest) = (false, false, Vec::new());
    for &a in args {
        match a {
            "-p" | "--pid" => pid_mode = true,
            "-c" | "--cpu-list" => list = true,
            "-pc" | "-cp" => (pid_mode, list) = (true, true),
            "-a" | "--all-tasks" => {}
            o if o.starts_with('-') && o.len() > 1 && !o[1..].starts_with(|c: char| c.is_ascii_digit()) => {
                return Err(hinted(
                    format!("taskset: option {o} is not supported in steerlab"),
                    FORMS,
                ))
            }
            w => rest.push(w),
        }
    }
    if !pid_mode {
        return Err(hinted(
            "taskset: starting a command is not supported in steerlab (act on a thread with -p)",
            FORMS,
        ));
    }
    let (set, pid) = match rest.as_slice() {
        [pid] => (None, *pid),
        [set, pid] => (Some(*set), *pid),
        _ => {
            return Err(hinted(
                "taskset: bad usage\nTry 'taskset --help' for more information.",
                FORMS,
            ))
        }
    };
    Ok(Args { list, set, pid })
}

/// Runs `taskset ARGS`.
pub(crate) fn run(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let Args { list, set, pid } = parse(args)?;
    // In taskset.c's order: the pid, the new set, then the current affinity.
    let tid: u32 = pid
        .parse()
        .map_err(|_| hinted(format!("taskset: invalid PID argument: '{pid}'"), FORMS))?;
    let new = match set {
        None => None,
        Some(text) if list => Some(
            CpuSet::parse_list(text)
                .map_err(|e| hinted(format!("taskset: failed to parse CPU list: {text}"), &e.to_string()))?,
        ),
        Some(text) => Some(
            CpuSet::parse_hex(text)
                .map_err(|e| hinted(format!("taskset: failed to parse CPU mask: {text}"), &e.to_string()))?,
        ),
    };
    let Some((_, old)) = sim.thread(tid) else {
        let hint = format!("thread list shows the sandbox's threads (0..{})", sim.thread_count());
        return Err(hinted(
            format!("taskset: failed to get pid {tid}'s affinity: No such process"),
            &hint,
        ));
    };
    let kind = if list { "list" } else { "mask" };
    let show = |s: &CpuSet| if list { s.to_list() } else { mask(s) };
    let current = format!("pid {tid}'s current affinity {kind}: {}\n", show(&old));
    let Some(new) = new else { return Ok(current) };
    // taskset prints the current affinity before it tries the change.
    let failed = |why: String| {
        hinted(
            format!("{current}taskset: failed to set pid {tid}'s affinity: Invalid argument"),
            &why,
        )
    };
    // sched_setaffinity's EINVAL: no CPU of the host in the set (the engine's rule).
    let ncpus = sim.config().cpus;
    sim.set_thread_cpuset(tid, new)
        .map_err(|_| failed(format!("the host's CPUs are 0-{}", ncpus - 1)))?;
    Ok(format!("{current}pid {tid}'s new affinity {kind}: {}\n", show(&new)))
}

/// A CPU set as `cpumask_create` prints it: hex, no leading zeros.
fn mask(s: &CpuSet) -> String {
    let hex: String = s.to_hex(s.end().max(1)).chars().filter(|&c| c != ',').collect();
    let trimmed = hex.trim_start_matches('0');
    if trimmed.is_empty() {
        "0".to_string()
    } else {
        trimmed.to_string()
    }
}
