//! `mpstat -P ALL`: each CPU's share of time as sysstat's mpstat prints it (`%usr`, `%sys`,
//! `%soft`, `%idle` of its columns; LC_ALL=C's 24-hour time), from the engine's ledger: what
//! a packet's path, the readers and the kworkers cost each CPU (the ledger's user, sys and
//! softirq classes).
//!
//! Real mpstat without an interval prints the averages since boot, from `/proc/stat`; so does
//! this one (the sandbox's boot is the lesson's start, its clock the simulated time). With an
//! interval real mpstat samples the next seconds; the console cannot wait, so an interval is
//! refused with a hint to read the page's charts (they are the live view). Columns the
//! sandbox does not model (`%nice`, `%iowait`, `%irq`, `%steal`, `%guest`, `%gnice`) are 0.00:
//! the hardware interrupt's own time is in `%soft` here (the driver's poll).

use core::fmt::Write;

use steerlab_engine::Sim;

use crate::hinted;

/// The accepted forms of `mpstat`.
pub(crate) const FORMS: &str =
    "mpstat [-P ALL|CPU[,CPU...]]   (averages since the host's start; the charts are the live view)";

/// `mpstat [-P ALL|LIST]`.
pub(crate) fn mpstat(sim: &Sim, args: &[&str]) -> Result<String, String> {
    let cpus = usize::from(sim.config().cpus);
    let rows: Vec<usize> = match args {
        [] => Vec::new(),
        ["-P", "ALL"] | ["-P", "all"] => (0..cpus).collect(),
        ["-P", list] => steerlab_engine::CpuSet::parse_list(list)
            .ok()
            .filter(|s| s.end() as usize <= cpus)
            .map(|s| s.iter().map(usize::from).collect())
            .ok_or_else(|| {
                hinted(
                    format!("mpstat: {list:?} is not a list of this host's CPUs (0-{})", cpus - 1),
                    FORMS,
                )
            })?,
        [n, ..] if n.parse::<u32>().is_ok() || args.iter().any(|a| a.parse::<u32>().is_ok()) => {
            return Err(hinted(
                "mpstat: steerlab prints the averages since the host's start; it cannot wait for an interval",
                "the page's charts show the CPUs live; mpstat -P ALL prints the averages",
            ))
        }
        _ => {
            return Err(hinted(
                format!("mpstat: {:?} is not supported in steerlab", args.join(" ")),
                FORMS,
            ))
        }
    };
    let snap = sim.snapshot();
    let secs = snap.now.0 as f64 / 1e9;
    let t = snap.now.0 / 1_000_000_000;
    let time = format!("{:02}:{:02}:{:02}", t / 3600 % 24, t / 60 % 60, t % 60);
    let mut out = format!(
        "Linux 6.18.0 (steerlab) \t01/01/2026 \t_x86_64_\t({cpus} CPU)\n\n{time:<11} {:>4}",
        "CPU"
    );
    for h in [
        "%usr", "%nice", "%sys", "%iowait", "%irq", "%soft", "%steal", "%guest", "%gnice", "%idle",
    ] {
        let _ = write!(out, " {h:>7}");
    }
    out.push('\n');
    let pct = |ns: u64, n: usize| {
        if secs > 0.0 {
            ns as f64 / 1e9 / secs / n as f64 * 100.0
        } else {
            0.0
        }
    };
    let mut row = |name: &str, user: u64, sys: u64, soft: u64, n: usize| {
        let (u, s, q) = (pct(user, n), pct(sys, n), pct(soft, n));
        let idle = (100.0 - u - s - q).max(0.0);
        let _ = write!(out, "{time:<11} {name:>4}");
        for v in [u, 0.0, s, 0.0, 0.0, q, 0.0, 0.0, 0.0, idle] {
            let _ = write!(out, " {v:>7.2}");
        }
        out.push('\n');
    };
    let c = &snap.counters;
    row("all", c.user_ns, c.sys_ns, c.softirq_ns, cpus);
    for i in rows {
        let s = &snap.cpus[i];
        row(&i.to_string(), s.user_ns, s.sys_ns, s.softirq_ns, 1);
    }
    Ok(out)
}
