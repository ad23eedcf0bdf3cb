//! steerlab-console: the command lines of a real host, applied to a simulated one.
//!
//! One command layer for the page's console, `steerlab shell`, scenario timelines and the
//! embedding API (issue 7). What a learner types here is what they type on a server, and what
//! comes back is what the real tool prints, so the skill transfers. Grammar: product brief §4 and
//! kernel-semantics.md §7. Each tool has its own module, whose doc names the source file of the
//! tool (or kernel file) whose output format it follows:
//!
//! | module       | commands                                                        |
//! |--------------|-----------------------------------------------------------------|
//! | `ethtool`    | `ethtool -i -k -l -L -x -X -n -N -K -S`                         |
//! | `sysfs`      | `sysctl`, `echo … >` and `cat` of `/sys/class/net/…`, `/proc/sys/…`, `/proc/irq/…` |
//! | `procfs`     | `cat /proc/net/softnet_stat`, `cat /proc/interrupts`, `nproc`, `lscpu`, `readlink` of the device |
//! | `mpstat`     | `mpstat -P ALL`: each CPU's %usr, %sys, %soft since the host's start |
//! | `systemctl`  | `systemctl start\|stop\|status irqbalance`: the irqbalance agent          |
//! | `snmp`       | `nstat`, `netstat -s`: the UDP counters (`RcvbufErrors`)          |
//! | `iplink`     | `ip link show`, `ip link set dev DEV xdp …`                      |
//! | `taskset`    | `taskset -p[c] …`                                               |
//! | `tc`         | `tc qdisc …`, `tc filter …`                                     |
//! | `own`        | steerlab's own `flow`, `thread`, `xdp`, `nic`, `kernel`, `rfs`, `help` |
//! | `shell`      | bash around them: quoting, `;`, `echo … \| tee FILE…`, `for … in …; do …; done`, `$VAR`, globs, `sudo`, `grep . FILE…` |
//!
//! `complete` offers the page's tab completion from the same forms; `notes` steerlab's word
//! after a command that succeeded without doing what it seems to (RFS half on, a queue gone).
//!
//! Errors are the real tool's text, then one `hint:` line with the accepted form. The rules are
//! the engine's: a command parses its words as the tool does, then makes one engine call and
//! words the engine's typed refusal ([`steerlab_engine::SimError`]) as the tool words the errno;
//! it does not re-check what the engine checks. A command that fails changes nothing: the engine
//! refuses without side effects, and a command of several calls asks the engine's checks first
//! ([`Sim::check_setting`]). A line of
//! many writes (a `for` loop, a `tee` to many files, a `;` list) is checked whole before its
//! first write (see `shell`), where real bash and tee would stop half way.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod complete;
mod ethtool;
mod iplink;
mod mpstat;
mod notes;
mod own;
mod procfs;
mod shell;
mod snmp;
mod sysfs;
mod systemctl;
mod taskset;
mod tc;

pub use complete::complete;
pub use notes::note;

use core::fmt::Display;

use steerlab_engine::{CpuSet, NamedEnum, Sim};

/// The sandbox's one NIC.
pub const DEVICE: &str = "eth0";

/// Every supported command: its first word and its accepted forms, one per line (for `help`,
/// completion and the `hint:` line of errors). `{drivers}` and `{records}` stand for the
/// engine's own lists of names (`Driver::ALL`, `RecordPolicy::ALL`: [`forms`] fills them), so
/// that a new driver model is named here without an edit.
pub const COMMANDS: &[(&str, &str)] = &[
    ("ethtool", ethtool::FORMS),
    ("sysctl", sysfs::SYSCTL_FORMS),
    ("echo", sysfs::ECHO_FORMS),
    ("cat", "cat FILE... (a file of echo, or /proc/net/softnet_stat, /proc/interrupts; globs: cat /sys/class/net/DEV/queues/rx-*/FILE)"),
    ("grep", shell::GREP_FORMS),
    ("nproc", procfs::NPROC_FORMS),
    ("lscpu", procfs::LSCPU_FORMS),
    ("readlink", procfs::READLINK_FORMS),
    ("nstat", snmp::NSTAT_FORMS),
    ("mpstat", mpstat::FORMS),
    ("systemctl", systemctl::FORMS),
    ("netstat", snmp::NETSTAT_FORMS),
    ("tee", shell::TEE_FORMS),
    ("for", shell::FOR_FORMS),
    ("sudo", shell::SUDO_FORMS),
    ("ip", iplink::FORMS),
    ("taskset", taskset::FORMS),
    ("tc", "tc qdisc add|del dev DEV ingress, tc filter add|del|show dev DEV ingress [prio P] flower ..., tc counting legacy|usesw"),
    ("xdp", own::XDP_FORMS),
    ("flow", own::FLOW_FORMS),
    ("thread", own::THREAD_FORMS),
    ("nic", "nic driver {drivers}   (steerlab: the driver model)"),
    ("kernel", "kernel [6.10|6.15|6.16|6.18]   (steerlab: which kernel's RPS/RFS rules: 6.10-6.14 (6.14 also accepted), 6.15, 6.16-6.17.7, 6.18 and 6.17.8+)"),
    ("rfs", "rfs record {records}   (steerlab: when readers record their CPU)"),
    ("help", "help [COMMAND]"),
];

/// What a command that succeeded did, in the words of the embedding page's events
/// (`steerlab:event`'s `kind`, product brief): decided by the console's own parse of the line,
/// so `taskset -p 1` (a query) is a command and `taskset -p 2 1` a migration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `flow add`.
    FlowAdded,
    /// `flow close`.
    FlowClosed,
    /// `thread migrate`, or `taskset -p` with a new set.
    ThreadMigrated,
    /// Anything else.
    Command,
}

impl Kind {
    /// The event's name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::FlowAdded => "flow-added",
            Kind::FlowClosed => "flow-closed",
            Kind::ThreadMigrated => "thread-migrated",
            Kind::Command => "command",
        }
    }

    /// The kind of a lone tool command, by its words as the shell expanded them.
    fn of(words: &[&str]) -> Kind {
        match words {
            ["flow", "add", ..] => Kind::FlowAdded,
            ["flow", "close", ..] => Kind::FlowClosed,
            ["thread", "migrate", ..] => Kind::ThreadMigrated,
            ["taskset", args @ ..] if taskset::sets_affinity(args) => Kind::ThreadMigrated,
            _ => Kind::Command,
        }
    }
}

/// Runs one command line against `sim`; returns its output (possibly empty) or the error
/// text the real tool would print, plus a `hint:` line with the accepted form. On `Err` the
/// host is unchanged.
pub fn execute(sim: &mut Sim, line: &str) -> Result<String, String> {
    run(sim, line).map(|(output, _)| output)
}

/// [`execute`], with what the command did.
pub fn run(sim: &mut Sim, line: &str) -> Result<(String, Kind), String> {
    debug_assert!(
        !sim.in_tick(),
        "a command runs between ticks (Sim's call order): {line}"
    );
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok((String::new(), Kind::Command));
    }
    shell::run(sim, line)
}

/// Everything about the host a command may change (the counters and the time apart): two
/// equal values around a command mean it only read, and the page does not measure its
/// evidence and goal anew after a read (web/src/controller). Compared, never printed: it
/// keeps the types' `Debug` code out of the page's module.
#[derive(Clone, PartialEq)]
pub struct Settings {
    config: steerlab_engine::HostConfig,
    reta: steerlab_engine::rss::Reta,
    key: Vec<u8>,
    ntuple: Vec<steerlab_engine::NtupleRule>,
    xdp: Option<steerlab_engine::xdp::XdpProgram>,
    /// The ingress block's filters and what it counts (`tc filter add|del`, `tc counting`).
    tc: Option<(u32, u32, u32, u32, steerlab_engine::tc::Counting)>,
    sock_entries: u32,
    irqbalance: (Option<CpuSet>, Option<CpuSet>),
    hash: Vec<steerlab_engine::rss::HashFields>,
    /// Per RX queue: `rps_cpus`, `rps_flow_cnt`, its vector's `smp_affinity_list`.
    rx: Vec<(CpuSet, u32, Option<CpuSet>)>,
    /// Per TX queue: `xps_cpus`, `xps_rxqs`.
    tx: Vec<(Option<CpuSet>, Option<CpuSet>)>,
    threads: Vec<ThreadSettings>,
    flows: Vec<FlowSettings>,
}

/// A thread's CPU and cpuset, and its migration period.
type ThreadSettings = (Option<(u16, CpuSet)>, Option<steerlab_engine::Nanos>);

/// A flow's tuple, whether it is open, and its socket.
type FlowSettings = (
    Option<steerlab_engine::FlowKey>,
    bool,
    Option<steerlab_engine::SocketView>,
);

/// The host's [`Settings`] now.
pub fn settings(sim: &Sim) -> Settings {
    let c = sim.config();
    Settings {
        config: c.clone(),
        reta: sim.reta().clone(),
        key: sim.rss_key().to_vec(),
        ntuple: sim.ntuple_rules(),
        xdp: sim.xdp().cloned(),
        tc: sim
            .tc_block()
            .map(|b| (b.len(), b.filtercnt(), b.skipswcnt(), b.offloadcnt(), b.counting())),
        sock_entries: sim.sock_flow_entries(),
        irqbalance: (sim.irqbalance(), sim.irqbalance_env()),
        hash: steerlab_engine::FlowType::ALL
            .iter()
            .map(|&t| sim.hash_fields(t))
            .collect(),
        rx: (0..c.rx_queues)
            .map(|q| (sim.rps_cpus(q), sim.flow_cnt(q), sim.irq_affinity(q)))
            .collect(),
        tx: (0..c.tx_queues).map(|q| (sim.xps_cpus(q), sim.xps_rxqs(q))).collect(),
        threads: (0..sim.thread_count())
            .map(|t| (sim.thread(t), sim.thread_migration(t)))
            .collect(),
        flows: (0..sim.flow_count())
            .map(|f| (sim.flow_key(f), sim.flow_view(f).is_some(), sim.socket_view(f)))
            .collect(),
    }
}

/// Runs one command of a tool, its words expanded by the shell.
pub(crate) fn dispatch(sim: &mut Sim, words: &[&str]) -> Result<String, String> {
    let Some((&first, rest)) = words.split_first() else {
        return Ok(String::new());
    };
    match first {
        "help" => own::help(rest),
        "ethtool" => ethtool::run(sim, rest),
        "sysctl" => sysfs::sysctl(sim, rest),
        "nproc" => procfs::nproc(sim, rest),
        "lscpu" => procfs::lscpu(sim, rest),
        "nstat" => snmp::nstat(sim, rest),
        "mpstat" => mpstat::mpstat(sim, rest),
        "systemctl" => systemctl::run(sim, rest),
        "netstat" => snmp::netstat(sim, rest),
        "readlink" => procfs::readlink(rest),
        "ip" => iplink::run(sim, rest),
        "taskset" => taskset::run(sim, rest),
        "tc" => tc::run(sim, rest),
        "xdp" | "flow" | "thread" | "nic" | "kernel" | "rfs" => own::run(sim, first, rest),
        other => Err(not_found(other)),
    }
}

/// `WORD: command not found`, with a hint at the command a learner meant when the word is
/// one of steerlab's names: the lessons' texts name driver models, kernel generations, tc
/// counting modes, RFS record policies and the stages of "Where the time goes", and a
/// learner types them as read.
fn not_found(word: &str) -> String {
    use steerlab_engine::tc::Counting;
    use steerlab_engine::{Driver, Kernel, RecordPolicy};
    let meant = if Driver::from_name(word).is_some() {
        format!("{word} is a driver model: nic driver {word}")
    } else if Kernel::from_name(word).is_some() {
        format!("{word} is a kernel generation: kernel {word}")
    } else if Counting::from_name(word).is_some() {
        format!("{word} is a tc counting rule: tc counting {word}")
    } else if RecordPolicy::from_name(word).is_some() {
        format!("{word} is an RFS record policy: rfs record {word}")
    } else if steerlab_engine::ledger::Stage::ALL.iter().any(|s| s.name() == word) {
        format!("{word} is a stage of the CPU time in \"Where the time goes\", not a command")
    } else {
        "help lists the commands".to_string()
    };
    hinted(format!("{word}: command not found"), &meant)
}

/// `cat FILE...`: procfs tables or the sysfs/sysctl files, concatenated.
pub(crate) fn cat(sim: &Sim, paths: &[&str]) -> Result<String, String> {
    if paths.is_empty() {
        return Err(hinted(
            "cat: missing file operand (steerlab's cat reads files, not stdin)",
            "cat FILE",
        ));
    }
    let mut out = String::new();
    for path in paths {
        out.push_str(&read(sim, path).ok_or_else(|| no_such_file(sim, "cat", path))?);
    }
    Ok(out)
}

/// The text of the file at `path`, if the host has it: a procfs table or a steering file.
pub(crate) fn read(sim: &Sim, path: &str) -> Option<String> {
    match path {
        "/proc/net/softnet_stat" => Some(procfs::softnet_stat(sim)),
        "/proc/interrupts" => Some(procfs::interrupts(sim)),
        _ => sysfs::read(sim, path),
    }
}

/// What a tool that reads files (coreutils' `cat`, GNU grep) prints for one the host does not
/// have, with the host's files as the hint.
pub(crate) fn no_such_file(sim: &Sim, tool: &str, path: &str) -> String {
    hinted(
        format!("{tool}: {}: No such file or directory", quotef(path)),
        &sysfs::files_hint(sim),
    )
}

/// The real tool's message, then a `hint:` line with the accepted form (several forms are
/// indented under it).
pub(crate) fn hinted(message: impl Display, form: &str) -> String {
    format!("{message}\nhint: {}", form.replace('\n', "\n      "))
}

/// A file name as coreutils prints it in errors (gnulib `quotef`, shell-escape quoting): as it
/// is when it has only characters a shell leaves alone, else in `'…'`, so a glob that matched
/// nothing shows as `'/sys/class/net/eth0/queues/rx-*/x'`.
pub(crate) fn quotef(name: &str) -> String {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "%+,-./:@_".contains(c));
    if plain {
        name.to_string()
    } else {
        format!("'{}'", name.replace('\'', "'\\''"))
    }
}

/// Parses a named choice, naming what is accepted.
pub fn parse_named<T: NamedEnum>(what: &str, text: &str) -> Result<T, String> {
    T::from_name(text).ok_or_else(|| format!("{what}: {text:?} is not one of {}", T::accepted_names()))
}

/// An unsigned number as C's `strtoull(s, NULL, 0)` reads it (ethtool's options): `0x` hex,
/// a leading `0` octal, else decimal; a leading `-` negates modulo 2^64 as strtoull does.
pub(crate) fn parse_c_u64(text: &str) -> Option<u64> {
    let (neg, t) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let v = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()?
    } else if t.len() > 1 && t.starts_with('0') {
        u64::from_str_radix(&t[1..], 8).ok()?
    } else if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        t.parse().ok()?
    } else {
        return None;
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_quote_like_coreutils() {
        assert_eq!(
            quotef("/sys/class/net/eth0/queues/rx-0/rps_cpus"),
            "/sys/class/net/eth0/queues/rx-0/rps_cpus"
        );
        assert_eq!(quotef("/sys/rx-*/x"), "'/sys/rx-*/x'");
        assert_eq!(quotef("it's"), "'it'\\''s'");
    }

    #[test]
    fn c_numbers_read_like_strtoull() {
        assert_eq!(parse_c_u64("10"), Some(10));
        assert_eq!(parse_c_u64("0x1f"), Some(31));
        assert_eq!(parse_c_u64("010"), Some(8));
        assert_eq!(parse_c_u64("-1"), Some(u64::MAX));
        assert_eq!(parse_c_u64("1a"), None);
        assert_eq!(parse_c_u64(""), None);
    }
}
