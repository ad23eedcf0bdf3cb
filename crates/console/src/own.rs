//! steerlab's own commands: what a real host has no tool for, because on a real host it is
//! the workload or the hardware (flows, threads, the driver model, the kernel generation), plus
//! `xdp strategy` (seed 004's kfunc call strategies) and `help`.
//!
//! These follow no real tool, so their output is a plain `key value` style; they still refuse
//! bad values before touching the engine and end errors with a `hint:` line.

use core::net::IpAddr;

use steerlab_engine::rps::NO_CPU;
use steerlab_engine::xdp::{Strategy, PROGRAMS};
use steerlab_engine::{
    CpuSet, Driver, FlowKey, FlowSpec, Kernel, Nanos, Proto, RecordPolicy, Sim, SimError, ThreadSpec,
};

use crate::{hinted, parse_named, COMMANDS, DEVICE};

/// The accepted forms of `flow`.
pub(crate) const FLOW_FORMS: &str =
    "flow add [tcp|udp] SRC[:SPORT] DST[:DPORT] [rate PPS] [bytes N] [readers TID,...]\n\
flow random N [rate PPS]   (N TCP flows from random 10.x.y.z sources, each read by a random thread)\n\
flow close ID [active]   (the connection closes, the peer first, or this host with active; no more packets;\n\
  from 6.16 the socket's rps_sock_flow_table entry is cleared, except on the side entering TIME_WAIT)\n\
flow setsockopt ID SO_RCVBUF BYTES   (the reader's app asks a receive buffer: twice BYTES, at most twice rmem_max)\n\
flow work ID NS   (the reader's own work per datagram, ns: a slow consumer; UDP flows)\n\
flow list\n\
(IPv6 endpoints as [ADDR]:PORT; a missing port is 0; rate defaults to 1000, bytes to 1500)";

/// The accepted forms of `thread`.
pub(crate) const THREAD_FORMS: &str = "thread add CPU [cpuset CPULIST] [migrate MS]\n\
thread migrate TID CPU\n\
thread policy TID pin | cpuset CPULIST | migrate MS\n\
thread list";

/// The accepted forms of `xdp`.
pub(crate) const XDP_FORMS: &str = "xdp strategy call|query|inline   (reloads the attached program)\n\
xdp programs   (the programs ip link set dev DEV xdp obj PROGRAM can load)";

/// Runs one of steerlab's own commands.
pub(crate) fn run(sim: &mut Sim, cmd: &str, args: &[&str]) -> Result<String, String> {
    match cmd {
        "flow" => flow(sim, args),
        "thread" => thread(sim, args),
        "xdp" => xdp(sim, args),
        "nic" => match args {
            ["driver", name] => {
                sim.set_driver(parse_named::<Driver>("nic driver", name).map_err(|e| usage(e, "nic"))?);
                Ok(String::new())
            }
            _ => Err(usage("nic: bad arguments", "nic")),
        },
        "kernel" => match args {
            [] => {
                let now = sim.config().kernel;
                let mut out = format!("kernel {now}: {}\nchoices:\n", now.covers());
                Kernel::ALL
                    .iter()
                    .for_each(|k| out.push_str(&format!("  {k:<5} {}\n", k.covers())));
                Ok(out)
            }
            [v] => {
                let k = parse_named::<Kernel>("kernel", v).map_err(|e| usage(e, "kernel"))?;
                sim.set_kernel(k);
                Ok(format!("kernel {k}: {}\n", k.covers()))
            }
            _ => Err(usage("kernel: bad arguments", "kernel")),
        },
        _ => match args {
            ["record", v] => {
                sim.set_record(parse_named::<RecordPolicy>("rfs record", v).map_err(|e| usage(e, "rfs"))?);
                Ok(String::new())
            }
            _ => Err(usage("rfs: bad arguments", "rfs")),
        },
    }
}

/// `message`, then the forms of `cmd` as the hint.
fn usage(message: impl core::fmt::Display, cmd: &str) -> String {
    hinted(message, &forms(cmd).unwrap_or_default())
}

fn forms(cmd: &str) -> Option<String> {
    COMMANDS.iter().find(|(c, _)| *c == cmd).map(|(_, f)| fill(f))
}

/// A command's forms with the engine's lists of names in place of `{drivers}` and `{records}`.
pub(crate) fn fill(forms: &str) -> String {
    let drivers: Vec<&str> = Driver::ALL.iter().map(|d| d.name()).collect();
    let records: Vec<&str> = RecordPolicy::ALL.iter().map(|r| r.name()).collect();
    forms
        .replace("{drivers}", &drivers.join("|"))
        .replace("{records}", &records.join("|"))
}

/// `help [COMMAND]`.
pub(crate) fn help(args: &[&str]) -> Result<String, String> {
    match args {
        [] => {
            let mut out = String::from("Commands: the real tools with their real syntax, and steerlab's own xdp, flow, thread, nic, kernel, rfs:\n");
            for (c, f) in COMMANDS {
                let f = fill(f);
                let mut lines = f.lines();
                out += &format!("  {c:<8} {}\n", lines.next().unwrap_or(""));
                lines.for_each(|l| out += &format!("           {l}\n"));
            }
            out += &format!("The NIC is {DEVICE}. help COMMAND shows one command's forms.\n");
            Ok(out)
        }
        [c] => forms(c)
            .map(|f| format!("{f}\n"))
            .ok_or_else(|| hinted(format!("help: no help topics match `{c}'"), "help lists the commands")),
        _ => Err(hinted("help: too many arguments", "help [COMMAND]")),
    }
}

// ------------------------------------------------------------------------------ flows

/// `ADDR:PORT`, `ADDR`, `[ADDR6]:PORT` or a bare IPv6 address.
fn endpoint(text: &str) -> Option<(IpAddr, u16)> {
    if let Some(rest) = text.strip_prefix('[') {
        let (addr, tail) = rest.split_once(']')?;
        let port = match tail {
            "" => 0,
            t => t.strip_prefix(':')?.parse().ok()?,
        };
        return Some((IpAddr::V6(addr.parse().ok()?), port));
    }
    if let Ok(a) = text.parse::<IpAddr>() {
        return Some((a, 0));
    }
    let (addr, port) = text.rsplit_once(':')?;
    Some((IpAddr::V4(addr.parse().ok()?), port.parse().ok()?))
}

/// A flow id as typed.
fn flow_id(text: &str) -> Result<u32, String> {
    text.parse::<u32>()
        .map_err(|_| format!("{text:?} is not a flow id (flow list shows them)"))
}

fn flow(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let bad = |why: String| usage(why, "flow");
    match args {
        ["list"] => Ok(flow_list(sim)),
        ["setsockopt", id, opt, bytes] => {
            let id = flow_id(id).map_err(|e| bad(format!("flow setsockopt: {e}")))?;
            if *opt != "SO_RCVBUF" {
                return Err(bad(format!("flow setsockopt: steerlab models SO_RCVBUF, not {opt:?}")));
            }
            let bytes = bytes
                .parse::<u32>()
                .ok()
                .filter(|&b| b <= i32::MAX as u32)
                .ok_or_else(|| {
                    bad(format!(
                        "flow setsockopt: {bytes:?} is not a byte count (0..=2147483647)"
                    ))
                })?;
            let got = sim
                .set_rcvbuf(id, bytes)
                .map_err(|e| bad(format!("flow setsockopt: {e}")))?;
            Ok(format!("flow {id}: SO_RCVBUF {bytes}: sk_rcvbuf {got}\n"))
        }
        ["work", id, ns] => {
            let id = flow_id(id).map_err(|e| bad(format!("flow work: {e}")))?;
            let ns = ns
                .parse::<u32>()
                .map_err(|_| bad(format!("flow work: {ns:?} is not a count of ns")))?;
            sim.set_reader_work(id, ns)
                .map_err(|e| bad(format!("flow work: {e}")))?;
            Ok(format!("flow {id}: the reader works {ns} ns a datagram\n"))
        }
        ["close", id, how @ ..] => {
            let id = id
                .parse::<u32>()
                .map_err(|_| bad(format!("flow close: {id:?} is not a flow id (flow list shows them)")))?;
            let active = match how {
                [] => false,
                ["active"] => true,
                _ => {
                    return Err(bad(
                        "flow close: after the id only `active` (this host closes first)".into()
                    ))
                }
            };
            sim.close_flow(id, active)
                .map_err(|e| bad(format!("flow close: {e}")))?;
            Ok(format!("flow {id}: closed\n"))
        }
        ["add", rest @ ..] => {
            let (proto, rest) = match rest {
                ["tcp", r @ ..] => (Proto::Tcp, r),
                ["udp", r @ ..] => (Proto::Udp, r),
                r => (Proto::Tcp, r),
            };
            let [src, dst, opts @ ..] = rest else {
                return Err(bad("flow add: needs a source and a destination".into()));
            };
            let (s, sport) = endpoint(src).ok_or_else(|| bad(format!("flow add: {src:?} is not ADDR[:PORT]")))?;
            let (d, dport) = endpoint(dst).ok_or_else(|| bad(format!("flow add: {dst:?} is not ADDR[:PORT]")))?;
            let key = FlowKey::new(s, d, sport, dport, proto).map_err(|e| bad(format!("flow add: {e}")))?;
            let mut spec = FlowSpec {
                key,
                rate_pps: 1000,
                bytes: 1500,
                readers: Vec::new(),
                tx: None,
            };
            for pair in opts.chunks(2) {
                let [name, value] = pair else {
                    return Err(bad(format!("flow add: {} needs a value", pair[0])));
                };
                let num = |what: &str| {
                    value
                        .parse::<u64>()
                        .map_err(|_| bad(format!("flow add: {what} {value:?} is not a number")))
                };
                match *name {
                    "rate" => spec.rate_pps = num("rate")?,
                    "bytes" => spec.bytes = u32::try_from(num("bytes")?).unwrap_or(u32::MAX),
                    "readers" => {
                        spec.readers = value
                            .split(',')
                            .map(|t| t.parse::<u32>().ok())
                            .collect::<Option<Vec<u32>>>()
                            .ok_or_else(|| bad(format!("flow add: readers {value:?} is not a list of thread ids")))?;
                    }
                    other => return Err(bad(format!("flow add: unknown option {other:?}"))),
                }
            }
            let id = sim.add_flow(spec).map_err(|e| bad(format!("flow add: {e}")))?;
            let q = sim.flow_queue_now(id).map_or(String::from("-"), |q| q.to_string());
            Ok(format!("flow {id}: {key} rx-{q}\n"))
        }
        ["random", n, opts @ ..] => {
            let n = n
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=100_000).contains(n))
                .ok_or_else(|| bad(format!("flow random: {n:?} is not a count in 1..=100000")))?;
            let rate = match opts {
                [] => 1000,
                ["rate", r] => r
                    .parse::<u64>()
                    .map_err(|_| bad(format!("flow random: rate {r:?} is not a number")))?,
                _ => return Err(bad("flow random: only `rate PPS` may follow the count".into())),
            };
            let specs = random_flows(sim, n, rate);
            let added = sim.add_flows(specs).map_err(|e| bad(format!("flow random: {e}")))?;
            Ok(format!("flows {}-{} added\n", added.start, added.end.saturating_sub(1)))
        }
        _ => Err(bad("flow: bad arguments".into())),
    }
}

/// `n` new TCP flows to the host's first flow's destination (port 80) from random 10.x.y.z
/// sources, each read by a random thread. The draws come from a generator seeded by the run's
/// seed and the flow count, so replaying the command (a permalink, a timeline) adds the same
/// flows.
fn random_flows(sim: &Sim, n: u32, rate_pps: u64) -> Vec<FlowSpec> {
    let dst = sim.flow_key(0).map_or(IpAddr::from([192, 168, 0, 1]), |k| k.dst());
    let threads = sim.thread_count();
    let mut rng =
        steerlab_engine::rng::Rng::new(sim.config().seed ^ (u64::from(sim.flow_count()) << 32)).fork("flow random");
    let mut specs: Vec<FlowSpec> = Vec::with_capacity(n as usize);
    let mut seen = std::collections::BTreeSet::new();
    while specs.len() < n as usize {
        let src = match dst {
            IpAddr::V4(_) => IpAddr::from((0x0a00_0000 | (rng.next_u32() & 0x00ff_ffff)).to_be_bytes()),
            IpAddr::V6(_) => IpAddr::from(core::net::Ipv6Addr::from(
                (0xfd00_u128 << 112) | u128::from(rng.next_u64()),
            )),
        };
        let sport = 1024 + rng.below(64_512) as u16;
        let Ok(key) = FlowKey::new(src, dst, sport, 80, Proto::Tcp) else {
            continue;
        };
        if sim.has_flow(&key) || !seen.insert(key) {
            continue; // a tuple in use: draw again
        }
        let readers = if threads == 0 {
            Vec::new()
        } else {
            vec![rng.below(threads)]
        };
        specs.push(FlowSpec {
            key,
            rate_pps,
            bytes: 1500,
            readers,
            tx: None,
        });
    }
    specs
}

fn flow_list(sim: &Sim) -> String {
    let mut out = String::new();
    for f in 0..sim.flow_count() {
        let Some(key) = sim.flow_key(f) else { continue };
        let Some(v) = sim.flow_view(f) else {
            out += &format!("flow {f}: {key} closed\n");
            continue;
        };
        let reader = if v.reader_cpu == NO_CPU {
            "-".to_string()
        } else {
            v.reader_cpu.to_string()
        };
        out += &format!(
            "flow {f}: {key} hash 0x{:08x} rx-{} cpu {} reader-cpu {reader}\n",
            v.hash, v.queue, v.cpu
        );
    }
    out
}

// ------------------------------------------------------------------------------ threads

fn thread(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    let bad = |why: String| usage(why, "thread");
    let cpu_of = |t: &str| {
        t.parse::<u16>()
            .map_err(|_| bad(format!("thread: CPU {t:?} is not a number")))
    };
    match args {
        ["list"] => Ok((0..sim.thread_count())
            .filter_map(|t| {
                sim.thread(t)
                    .map(|(cpu, set)| format!("thread {t}: cpu {cpu} cpuset {}\n", set.to_list()))
            })
            .collect()),
        ["migrate", tid, cpu] => {
            let tid = tid
                .parse::<u32>()
                .map_err(|_| bad(format!("thread migrate: TID {tid:?} is not a number")))?;
            let cpu = cpu_of(cpu)?;
            sim.migrate_thread(tid, cpu)
                .map_err(|e| bad(format!("thread migrate: {e}")))?;
            // A thread with a migration policy does not stay where it is put: said now, not
            // discovered when the next period moves it back.
            match (sim.thread_migration(tid), sim.thread(tid)) {
                (Some(every), Some((_, set))) if every.0 > 0 => Ok(format!(
                    "thread {tid} migrates on its own every {} ms within CPUs {} (its policy): it leaves CPU {cpu} at its next move; `thread policy {tid} pin` keeps it there\n",
                    every.0 / 1_000_000,
                    set.to_list()
                )),
                _ => Ok(String::new()),
            }
        }
        ["policy", tid, policy @ ..] => {
            // steerlab's per-thread policy: pinned where it is, confined to a cpuset, or
            // migrating on a period (what `taskset` and a scheduler would do).
            let tid = tid
                .parse::<u32>()
                .map_err(|_| bad(format!("thread policy: TID {tid:?} is not a number")))?;
            let (cpu, _) = sim
                .thread(tid)
                .ok_or_else(|| bad(format!("thread policy: no thread {tid}")))?;
            let ncpus = sim.config().cpus;
            let (set, every) = match policy {
                ["pin"] => (CpuSet::range(cpu, cpu + 1), Nanos::ZERO),
                ["cpuset", list] => (
                    CpuSet::parse_list(list).map_err(|e| bad(format!("thread policy: cpuset {e}")))?,
                    Nanos::ZERO,
                ),
                ["migrate", ms] => {
                    let ms = ms
                        .parse::<u64>()
                        .ok()
                        .filter(|m| (1..=86_400_000).contains(m))
                        .ok_or_else(|| bad(format!("thread policy: migrate {ms:?} is not 1..=86400000 ms")))?;
                    let set = sim
                        .thread(tid)
                        .map(|(_, s)| s)
                        .filter(|s| s.len() > 1)
                        .unwrap_or(CpuSet::range(0, ncpus));
                    (set, Nanos(ms * 1_000_000))
                }
                _ => return Err(bad("thread policy: expected pin | cpuset LIST | migrate MS".into())),
            };
            sim.set_thread_policy(tid, set, every).map_err(|e| match e {
                SimError::Config(_) => bad(format!(
                    "thread policy: cpuset must name CPUs of this host (0-{})",
                    ncpus - 1
                )),
                e => bad(format!("thread policy: {e}")),
            })?;
            Ok(String::new())
        }
        ["add", cpu, opts @ ..] => {
            let mut spec = ThreadSpec {
                cpu: cpu_of(cpu)?,
                allowed: CpuSet::EMPTY,
                migrate_every: Nanos::ZERO,
            };
            for pair in opts.chunks(2) {
                let [name, value] = pair else {
                    return Err(bad(format!("thread add: {} needs a value", pair[0])));
                };
                match *name {
                    "cpuset" => {
                        spec.allowed = CpuSet::parse_list(value).map_err(|e| bad(format!("thread add: cpuset {e}")))?
                    }
                    "migrate" => {
                        let ms = value
                            .parse::<u64>()
                            .map_err(|_| bad(format!("thread add: migrate {value:?} is not a number of ms")))?;
                        spec.migrate_every = Nanos(ms.saturating_mul(1_000_000));
                    }
                    other => return Err(bad(format!("thread add: unknown option {other:?}"))),
                }
            }
            let cpu = spec.cpu;
            let tid = sim.add_thread(spec).map_err(|e| bad(format!("thread add: {e}")))?;
            Ok(format!("thread {tid}: cpu {cpu}\n"))
        }
        _ => Err(bad("thread: bad arguments".into())),
    }
}

// ------------------------------------------------------------------------------ XDP

fn xdp(sim: &mut Sim, args: &[&str]) -> Result<String, String> {
    match args {
        ["programs"] => {
            let loaded = sim.xdp().map(|p| p.name.clone());
            Ok(PROGRAMS
                .iter()
                .map(|(name, calls, action, what)| {
                    let mark = if loaded.as_deref() == Some(*name) { '*' } else { ' ' };
                    format!("{mark} {name:<15} {calls} kfunc calls, then {action}: {what}\n")
                })
                .collect())
        }
        ["strategy", s] => {
            let strategy = parse_named::<Strategy>("xdp strategy", s).map_err(|e| usage(e, "xdp"))?;
            let Some(p) = sim.xdp().cloned() else {
                return Err(hinted(
                    "xdp: no XDP program is attached",
                    &format!("ip link set dev {DEVICE} xdp obj PROGRAM first"),
                ));
            };
            sim.set_xdp(Some(steerlab_engine::xdp::XdpProgram { strategy, ..p }));
            Ok(String::new())
        }
        _ => Err(usage("xdp: bad arguments", "xdp")),
    }
}
