//! The result of a run under the names of the CLI JSON contract (product brief §4), as JSON
//! and as a table; and the same figures typed ([`Totals`]), which the page samples every
//! 100 ms of simulated time and reads by the same paths without building the JSON.

use serde_json::{json, Map, Value};
use steerlab_engine::arfs::ArfsCounters;
use steerlab_engine::ledger::Ledger;
use steerlab_engine::metrics::{Counters, CpuStats, Digest, QueueStats};
use steerlab_engine::tc::Counting;
use steerlab_engine::xdp::{Kfunc, Meta};
use steerlab_engine::{Nanos, Sim};

use crate::Scenario;

/// A finished (or paused) run.
#[derive(Clone, Debug, PartialEq)]
pub struct Report(pub Value);

impl Report {
    /// The report of `sim` running `scenario`.
    pub fn new(scenario: &Scenario, sim: &Sim) -> Report {
        Report::build(scenario, sim, true)
    }

    /// The report without its per-queue and per-CPU arrays (`queues`, `cpus`): every total and
    /// figure, at a fraction of the cost on a big host (the page samples one every 100 ms).
    pub fn totals(scenario: &Scenario, sim: &Sim) -> Report {
        Report::build(scenario, sim, false)
    }

    fn build(scenario: &Scenario, sim: &Sim, arrays: bool) -> Report {
        Report::of_snapshot(scenario, sim, &sim.snapshot(), arrays)
    }

    /// [`Report::new`] (`arrays`) or [`Report::totals`] from `s`, `sim`'s snapshot now, for a
    /// caller that needs the snapshot too (a big host's costs most of a report).
    pub fn of_snapshot(scenario: &Scenario, sim: &Sim, s: &steerlab_engine::Snapshot, arrays: bool) -> Report {
        Totals::of(scenario, sim, s, arrays).report(scenario, sim)
    }

    /// A value by dotted path (`packets.offered`; array elements by index, `queues.rx.3`).
    pub fn get(&self, path: &str) -> Option<&Value> {
        path.split('.').try_fold(&self.0, |v, k| match v {
            Value::Array(a) => k.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => v.get(k),
        })
    }

    /// An integer by dotted path (0 when absent).
    pub fn int(&self, path: &str) -> u64 {
        self.get(path).and_then(Value::as_u64).unwrap_or(0)
    }

    /// The report as one line of JSON.
    pub fn to_json(&self) -> String {
        self.0.to_string()
    }

    /// The dotted paths of every scalar (per-queue and per-CPU series omitted), in table order.
    pub fn scalar_paths(&self) -> Vec<String> {
        let mut rows = Vec::new();
        flatten("", &self.0, &mut rows);
        rows.into_iter().map(|(k, _)| k).collect()
    }

    /// The totals as an aligned two-column table (per-queue and per-CPU series omitted).
    pub fn to_table(&self) -> String {
        let mut rows = Vec::new();
        flatten("", &self.0, &mut rows);
        let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        rows.iter().map(|(k, v)| format!("{k:<width$}  {v}\n")).collect()
    }
}

/// What a goal, a lesson's figure or a chart reads of a sample: a number by report path
/// (`packets.offered`, `ledger.stack_rx_ns`, `queues.rx.3.packets`), as the JSON report gives
/// it: `number` is `as_f64` of the JSON value (`None` for a string, a boolean, `null` or no
/// such path), `int` is `as_u64` (0 for anything else).
pub trait Figures {
    /// The figure at `path` as a number.
    fn number(&self, path: &str) -> Option<f64>;
    /// The figure at `path` as an unsigned integer (0 when it is not one).
    fn int(&self, path: &str) -> u64;
}

impl Figures for Report {
    fn number(&self, path: &str) -> Option<f64> {
        self.get(path).and_then(Value::as_f64)
    }

    fn int(&self, path: &str) -> u64 {
        Report::int(self, path)
    }
}

/// A report's figures, typed: everything [`Report::of_snapshot`] writes but its strings, read
/// by the same paths ([`Figures`]). The page takes one every 100 ms of simulated time (1,800
/// in a 180 s run of seed 000), and its goals, texts and charts read a few figures of each:
/// building the JSON of every one cost about 0.02 ms in wasm, about 1.6 % of a run to end.
#[derive(Clone, Debug, PartialEq)]
pub struct Totals {
    seed: u64,
    now: Nanos,
    digest: Digest,
    c: Counters,
    a: ArfsCounters,
    arfs_active: u32,
    arfs_work_queued: u32,
    in_flight: u64,
    ledger: Ledger,
    xdp_ps: Option<u64>,
    /// The recent packets' latency median and 99th percentile, ns.
    latency: Option<(u64, u64)>,
    reads_hash: bool,
    counting: Counting,
    /// The tc block's `filtercnt`, `skipswcnt`, `useswcnt`, `bypass_sw` and filters (zeros
    /// without a block).
    tc: (u32, u32, u32, bool, u32),
    insert_ns: u64,
    /// Per RX queue, per CPU and per TX queue: empty unless asked for (`arrays`).
    queues: Vec<QueueStats>,
    cpus: Vec<CpuStats>,
    txq: Vec<u64>,
}

/// One figure's value, as the JSON report has it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Figure {
    U(u64),
    F(f64),
    B(bool),
    Null,
}

impl Figure {
    fn json(self) -> Value {
        match self {
            Figure::U(n) => json!(n),
            Figure::F(x) => json!(x),
            Figure::B(b) => json!(b),
            Figure::Null => Value::Null,
        }
    }

    /// `Value::as_f64` of [`Figure::json`] (a non-finite float is written `null`).
    fn number(self) -> Option<f64> {
        match self {
            Figure::U(n) => Some(n as f64),
            Figure::F(x) => x.is_finite().then_some(x),
            Figure::B(_) | Figure::Null => None,
        }
    }

    /// `Value::as_u64` of [`Figure::json`].
    fn int(self) -> Option<u64> {
        match self {
            Figure::U(n) => Some(n),
            _ => None,
        }
    }
}

type Field = (&'static str, fn(&Totals) -> Figure);

/// Every scalar figure of a report but its strings, the ledger's stages and the arrays'
/// elements ([`ARRAYS`]), by path: the JSON is written from this list and [`Totals`] answers
/// from it, so the two cannot disagree.
const FIELDS: &[Field] = &[
    ("seed", |t| Figure::U(t.seed)),
    ("sim_seconds", |t| Figure::F(t.now.0 as f64 / 1e9)),
    ("packets.offered", |t| Figure::U(t.c.offered)),
    ("packets.delivered", |t| Figure::U(t.c.delivered)),
    ("packets.in_flight", |t| Figure::U(t.in_flight)),
    ("packets.dropped.ring_full", |t| Figure::U(t.c.ring_full)),
    ("packets.dropped.backlog_full", |t| Figure::U(t.c.backlog_full)),
    ("packets.dropped.xdp", |t| Figure::U(t.c.xdp_drop)),
    ("packets.dropped.tc", |t| Figure::U(t.c.tc_drop)),
    // At a full socket receive buffer (UDP's RcvbufErrors, as nstat shows it).
    ("packets.dropped.socket", |t| Figure::U(t.c.socket_drop)),
    // The queues' interrupts after moderation (/proc/interrupts), and the net_rx_action runs
    // that ended with work left (softnet_stat's time_squeeze), over every CPU.
    ("irq.interrupts", |t| Figure::U(t.c.interrupts)),
    ("napi.time_squeeze", |t| Figure::U(t.c.time_squeeze)),
    // Arrival to the read, over the last few hundred ms (latency.rs in the engine:
    // moderation, the poll's queue, a full ring, a backlog or a socket that backs up).
    ("latency.p50_ns", |t| t.latency.map_or(Figure::Null, |l| Figure::U(l.0))),
    ("latency.p99_ns", |t| t.latency.map_or(Figure::Null, |l| Figure::U(l.1))),
    // Of backlog_full, the flow limit's drops (softnet_stat's flow_limit_count).
    ("backlog.flow_limit_count", |t| Figure::U(t.c.flow_limit)),
    ("steering.local", |t| Figure::U(t.c.local)),
    ("steering.remote", |t| Figure::U(t.c.remote)),
    ("steering.wrong_queue", |t| Figure::U(t.c.wrong_queue)),
    ("steering.remote_wakeups", |t| Figure::U(t.c.remote_wakeups)),
    ("steering.wake_ipis", |t| Figure::U(t.c.wake_ipis)),
    ("steering.backlog_wakes", |t| Figure::U(t.c.backlog_wakes)),
    ("steering.rps_ipis", |t| Figure::U(t.c.ipis)),
    ("arfs.add", |t| Figure::U(t.a.add)),
    ("arfs.update", |t| Figure::U(t.a.update)),
    ("arfs.skip", |t| Figure::U(t.a.skip)),
    ("arfs.expire", |t| Figure::U(t.a.expire)),
    ("arfs.misprogram_avoided", |t| Figure::U(t.a.misprogram_avoided)),
    ("arfs.filters_active", |t| Figure::U(u64::from(t.arfs_active))),
    ("arfs.work_queued", |t| Figure::U(u64::from(t.arfs_work_queued))),
    ("arfs.full", |t| Figure::U(t.a.full)),
    ("arfs.lock_wait_ns", |t| Figure::U(t.c.arfs_lock_wait_ns)),
    ("arfs.missteered", |t| Figure::U(t.c.arfs_missteered)),
    ("rfs.sock_flow_updates", |t| Figure::U(t.c.sock_flow_updates)),
    ("rfs.sock_flow_deletes", |t| Figure::U(t.c.sock_flow_deletes)),
    ("rfs.cpu_switches", |t| Figure::U(t.c.cpu_switches)),
    ("rfs.sock_flow_skipped", |t| Figure::U(t.c.sock_flow_skipped)),
    // Threads that moved to another CPU (their policy, or `thread migrate`/`taskset`).
    ("threads.migrations", |t| Figure::U(t.c.migrations)),
    ("cpu.user_ns", |t| Figure::U(t.c.user_ns)),
    ("cpu.sys_ns", |t| Figure::U(t.c.sys_ns)),
    ("cpu.softirq_ns", |t| Figure::U(t.c.softirq_ns)),
    ("cpu.cross_numa_bytes", |t| Figure::U(t.c.cross_numa_bytes)),
    ("tc.filtercnt", |t| Figure::U(u64::from(t.tc.0))),
    ("tc.skipswcnt", |t| Figure::U(u64::from(t.tc.1))),
    ("tc.useswcnt", |t| Figure::U(u64::from(t.tc.2))),
    ("tc.bypass_sw", |t| Figure::B(t.tc.3)),
    ("tc.sw_classified", |t| Figure::U(t.c.tc_sw_classified)),
    ("tc.sw_missed", |t| Figure::U(t.c.tc_sw_missed)),
    ("tc.bypassed", |t| Figure::U(t.c.tc_bypassed)),
    ("tc.hw_drop", |t| Figure::U(t.c.tc_hw_drop)),
    ("tc.filters", |t| Figure::U(u64::from(t.tc.4))),
    ("tc.insert_seconds", |t| {
        Figure::F((t.insert_ns as f64 / 1e7).round() / 100.0)
    }),
    ("xps.hash_picks", |t| Figure::U(t.c.xps_hash_picks)),
    ("xps.map_picks", |t| Figure::U(t.c.xps_map_picks)),
    ("xps.cached_picks", |t| Figure::U(t.c.tx_cached_picks)),
    ("xps.queue_changes", |t| Figure::U(t.c.tx_queue_changes)),
    ("xps.messages", |t| Figure::U(t.c.tx_messages)),
    ("xps.msgs_per_sec", |t| {
        let secs = (t.now.0 as f64 / 1e9).max(1e-9);
        Figure::U((t.c.tx_messages as f64 / secs).round() as u64)
    }),
    ("xps.atr_samples", |t| Figure::U(t.c.atr_samples)),
    // XDP figures as the seed reports them: ns per packet and packets per second per core.
    ("xdp.ns_per_pkt", |t| {
        t.xdp_ps
            .map_or(Figure::Null, |ps| Figure::F((ps as f64 / 10.0).round() / 100.0))
    }),
    ("xdp.mpps_per_core", |t| {
        t.xdp_ps.map_or(Figure::Null, |ps| {
            Figure::F((1e6 / ps as f64 * 1000.0).round() / 1000.0)
        })
    }),
    ("xdp.kfunc_calls", |t| Figure::U(t.c.xdp_kfunc_calls)),
    ("xdp.unsupported", |t| Figure::U(t.c.xdp_unsupported)),
    ("xdp.tx", |t| Figure::U(t.c.xdp_tx)),
    ("xdp.redirect", |t| Figure::U(t.c.xdp_redirect)),
    // 1 when the program uses the RX hash (from the kfunc, or computed by the program where
    // the driver answers "not supported"): a check reads numbers.
    ("xdp.reads_hash", |t| Figure::U(u64::from(t.reads_hash))),
];

/// An array of the report (`queues.rx`): its path, its length, and the figures of each element
/// (`queues.rx.3.packets`) by key, from the element's index. The JSON is written from these
/// lists and [`Totals`] answers from them.
struct Array {
    path: &'static str,
    len: fn(&Totals) -> usize,
    keys: &'static [Key],
}

/// A figure of an array's element: its key, and its value from the element's index.
type Key = (&'static str, fn(&Totals, usize) -> u64);

const ARRAYS: &[Array] = &[
    Array {
        path: "queues.rx",
        len: |t| t.queues.len(),
        keys: &[
            ("queue", |_, i| i as u64),
            ("packets", |t, i| t.queues[i].packets),
            ("drops", |t, i| t.queues[i].drops),
            ("interrupts", |t, i| t.queues[i].interrupts),
        ],
    },
    Array {
        path: "queues.tx",
        len: |t| t.txq.len(),
        keys: &[("queue", |_, i| i as u64), ("packets", |t, i| t.txq[i])],
    },
    Array {
        path: "cpus",
        len: |t| t.cpus.len(),
        keys: &[
            ("cpu", |_, i| i as u64),
            ("softirq_ns", |t, i| t.cpus[i].softirq_ns),
            ("sys_ns", |t, i| t.cpus[i].sys_ns),
            ("user_ns", |t, i| t.cpus[i].user_ns),
            ("packets", |t, i| t.cpus[i].packets),
            ("dropped", |t, i| t.cpus[i].dropped),
            ("received_rps", |t, i| t.cpus[i].received_rps),
            ("time_squeeze", |t, i| t.cpus[i].time_squeeze),
        ],
    },
];

/// Whether `path` is a numeric figure of the report of a host configured as `cfg` (a goal or
/// a question may name it): a scalar, a ledger stage, or an element of an array the host can
/// have (its NIC's most queues, its CPUs). Strings (`tc.counting`) are not: a goal names
/// them as settings.
pub fn is_figure(path: &str, cfg: &steerlab_engine::HostConfig) -> bool {
    if FIELDS.iter().any(|(p, _)| *p == path) {
        return true;
    }
    if let Some(name) = path.strip_prefix("ledger.").and_then(|n| n.strip_suffix("_ns")) {
        return steerlab_engine::ledger::Stage::ALL.iter().any(|s| s.name() == name);
    }
    let queues = usize::from(
        cfg.cpus
            .min(steerlab_engine::config::MAX_QUEUES)
            .max(cfg.rx_queues)
            .max(cfg.tx_queues),
    );
    ARRAYS.iter().any(|a| {
        let Some((i, key)) = path
            .strip_prefix(a.path)
            .and_then(|r| r.strip_prefix('.'))
            .and_then(|r| r.split_once('.'))
        else {
            return false;
        };
        let len = if a.path == "cpus" {
            usize::from(cfg.cpus)
        } else {
            queues
        };
        // An index as the report writes it: digits, no sign or leading zero.
        let index_ok = i.parse::<usize>().is_ok_and(|n| n < len && n.to_string() == i);
        index_ok && a.keys.iter().any(|(k, _)| *k == key)
    })
}

impl Totals {
    /// The figures of `s`, `sim`'s snapshot now, running `scenario`; with the per-queue and
    /// per-CPU arrays when `arrays`.
    pub fn of(scenario: &Scenario, sim: &Sim, s: &steerlab_engine::Snapshot, arrays: bool) -> Totals {
        debug_assert_eq!(s.now, sim.now(), "the snapshot is of the present");
        let block = sim.tc_block();
        let costs = sim.config().costs;
        let counting = sim.config().tc_counting;
        let insert_ns = steerlab_engine::tc::insertion_ns(
            scenario.tc.insert_threads,
            scenario.tc.insert_rules,
            counting,
            costs.tc_insert_serial_ns,
            costs.tc_insert_parallel_ns,
        );
        Totals {
            seed: scenario.sim.seed,
            now: s.now,
            digest: s.digest,
            c: s.counters,
            a: s.arfs,
            arfs_active: s.arfs_active,
            arfs_work_queued: s.arfs_work_queued,
            in_flight: s.in_flight,
            ledger: s.ledger,
            xdp_ps: s.xdp_ps,
            latency: sim.latency(),
            reads_hash: sim.xdp().is_some_and(|p| p.kfuncs.contains(&Kfunc::Read(Meta::Hash))),
            counting,
            tc: block.map_or((0, 0, 0, false, 0), |b| {
                (b.filtercnt(), b.skipswcnt(), b.useswcnt(), b.bypass_sw(), b.len())
            }),
            insert_ns,
            queues: if arrays { s.queues.clone() } else { Vec::new() },
            cpus: if arrays { s.cpus.clone() } else { Vec::new() },
            txq: if arrays { s.txq.clone() } else { Vec::new() },
        }
    }

    /// The figure at `path` (`None`: no such figure, or a string).
    fn figure(&self, path: &str) -> Option<Figure> {
        if let Some(&(_, f)) = FIELDS.iter().find(|(p, _)| *p == path) {
            return Some(f(self));
        }
        if let Some(name) = path.strip_prefix("ledger.").and_then(|n| n.strip_suffix("_ns")) {
            return self
                .ledger
                .iter()
                .find(|(st, _)| st.name() == name)
                .map(|(_, ns)| Figure::U(ns));
        }
        let (a, rest) = ARRAYS
            .iter()
            .find_map(|a| Some((a, path.strip_prefix(a.path)?.strip_prefix('.')?)))?;
        let (i, key) = rest.split_once('.')?;
        let i = i.parse::<usize>().ok().filter(|&i| i < (a.len)(self))?;
        let n = a.keys.iter().find(|(k, _)| *k == key).map(|&(_, f)| f(self, i))?;
        Some(Figure::U(n))
    }

    /// The report of these figures (strings from `scenario` and `sim`, as they were when the
    /// figures were taken).
    pub fn report(&self, scenario: &Scenario, sim: &Sim) -> Report {
        let mut root = Map::new();
        root.insert("scenario".into(), json!(scenario.id));
        root.insert("digest".into(), json!(self.digest.hex()));
        for (path, f) in FIELDS {
            put(&mut root, path, f(self).json());
        }
        put(&mut root, "tc.counting", json!(self.counting.to_string()));
        put(
            &mut root,
            "xdp.program",
            json!(sim.xdp().map_or("", |p| p.name.as_str())),
        );
        let ledger: Map<String, Value> = self
            .ledger
            .iter()
            .map(|(st, ns)| (format!("{}_ns", st.name()), json!(ns)))
            .collect();
        root.insert("ledger".into(), Value::Object(ledger));
        for a in ARRAYS {
            let object = |i| {
                Value::Object(
                    a.keys
                        .iter()
                        .map(|&(k, f)| (k.to_string(), json!(f(self, i))))
                        .collect(),
                )
            };
            put(
                &mut root,
                a.path,
                Value::Array((0..(a.len)(self)).map(object).collect()),
            );
        }
        Report(Value::Object(root))
    }
}

impl Figures for Totals {
    fn number(&self, path: &str) -> Option<f64> {
        self.figure(path).and_then(Figure::number)
    }

    fn int(&self, path: &str) -> u64 {
        self.figure(path).and_then(Figure::int).unwrap_or(0)
    }
}

/// Sets `path` (dotted) in `root` to `v`, making the objects on the way.
fn put(root: &mut Map<String, Value>, path: &str, v: Value) {
    let mut parts = path.split('.');
    let mut last = parts.next().unwrap_or_default();
    let mut at = root;
    for next in parts {
        let obj = at.entry(last).or_insert_with(|| Value::Object(Map::new()));
        if !obj.is_object() {
            *obj = Value::Object(Map::new());
        }
        let Value::Object(m) = obj else {
            return;
        };
        at = m;
        last = next;
    }
    at.insert(last.into(), v);
}

fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        Value::Array(_) => {}
        Value::String(s) => out.push((prefix.into(), s.clone())),
        other => out.push((prefix.into(), other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use steerlab_engine::Nanos;

    /// The typed figures answer every path as the JSON report does (`as_f64` and `as_u64` of
    /// its value, `None` where it has none or a string), for every lesson, with and without
    /// the arrays, and their report is the one [`Report::of_snapshot`] builds.
    #[test]
    fn totals_answer_every_path_as_the_report_does() {
        for id in crate::lesson_ids() {
            let sc = crate::parse(crate::lesson(id).expect("a built-in lesson"), &[]).expect("it parses");
            let mut sim = sc.build().expect("it builds");
            sc.run_from(&mut sim, Nanos::from_ms(300)).expect("it runs");
            let snap = sim.snapshot();
            for arrays in [false, true] {
                let t = Totals::of(&sc, &sim, &snap, arrays);
                let r = Report::of_snapshot(&sc, &sim, &snap, arrays);
                assert_eq!(t.report(&sc, &sim), r);
                let mut paths = r.scalar_paths();
                assert!(paths.len() > 80, "{id}: {} paths", paths.len());
                for (array, keys) in [
                    ("queues.rx", &["queue", "packets", "drops"][..]),
                    ("queues.tx", &["queue", "packets"]),
                    (
                        "cpus",
                        &["cpu", "packets", "softirq_ns", "sys_ns", "user_ns", "dropped"],
                    ),
                ] {
                    for i in ["0", "1", "03", "+2", "x", "4095", "99999999999999999999"] {
                        paths.extend(keys.iter().map(|k| format!("{array}.{i}.{k}")));
                    }
                    paths.push(array.into());
                }
                paths.extend(
                    [
                        "",
                        ".",
                        "nope",
                        "packets",
                        "packets.",
                        "ledger",
                        "ledger.nope_ns",
                        "ledger.stack_rx",
                        "queues",
                    ]
                    .map(String::from),
                );
                let mut answered = 0;
                for p in &paths {
                    assert_eq!(t.number(p), r.number(p), "{id} {p} (arrays: {arrays})");
                    assert_eq!(Figures::int(&t, p), Figures::int(&r, p), "{id} {p} (arrays: {arrays})");
                    answered += usize::from(r.number(p).is_some());
                }
                assert!(answered > 70, "{id}: {answered} figures");
            }
        }
    }
}
