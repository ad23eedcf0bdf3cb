//! The result of a run under the names of the CLI JSON contract (product brief §4), as JSON
//! and as a table.

use serde_json::{json, Value};
use steerlab_engine::xdp::{Kfunc, Meta};
use steerlab_engine::Sim;

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
        debug_assert_eq!(s.now, sim.now(), "the snapshot is of the present");
        let c = &s.counters;
        let a = &s.arfs;
        let queues: Vec<Value> = if !arrays {
            Vec::new()
        } else {
            s.queues
                .iter()
                .enumerate()
                .map(|(i, q)| json!({"queue": i, "packets": q.packets, "drops": q.drops}))
                .collect()
        };
        let cpus: Vec<Value> = if !arrays {
            Vec::new()
        } else {
            s
            .cpus
            .iter()
            .enumerate()
            .map(|(i, p)| json!({"cpu": i, "softirq_ns": p.softirq_ns, "sys_ns": p.sys_ns, "user_ns": p.user_ns, "packets": p.packets}))
            .collect()
        };
        let txq: Vec<Value> = if !arrays {
            Vec::new()
        } else {
            s.txq
                .iter()
                .enumerate()
                .map(|(i, &n)| json!({"queue": i, "packets": n}))
                .collect()
        };
        let secs = (s.now.0 as f64 / 1e9).max(1e-9);
        let ledger: serde_json::Map<String, Value> = s
            .ledger
            .iter()
            .map(|(st, ns)| (format!("{}_ns", st.name()), json!(ns)))
            .collect();
        // XDP figures as the seed reports them: ns per packet and packets per second per core.
        let (xdp_ns, xdp_mpps) = match s.xdp_ps {
            Some(ps) => (
                json!((ps as f64 / 10.0).round() / 100.0),
                json!((1e6 / ps as f64 * 1000.0).round() / 1000.0),
            ),
            None => (Value::Null, Value::Null),
        };
        let block = sim.tc_block();
        let costs = sim.config().costs;
        let insert_ns = steerlab_engine::tc::insertion_ns(
            scenario.tc.insert_threads,
            scenario.tc.insert_rules,
            sim.config().tc_counting,
            costs.tc_insert_serial_ns,
            costs.tc_insert_parallel_ns,
        );
        Report(json!({
            "scenario": scenario.id,
            "seed": scenario.sim.seed,
            "sim_seconds": s.now.0 as f64 / 1e9,
            "digest": s.digest.hex(),
            "packets": {
                "offered": c.offered,
                "delivered": c.delivered,
                "in_flight": s.in_flight,
                "dropped": {"ring_full": c.ring_full, "backlog_full": c.backlog_full, "xdp": c.xdp_drop, "tc": c.tc_drop},
            },
            // Of backlog_full, the flow limit's drops (softnet_stat's flow_limit_count).
            "backlog": {"flow_limit_count": c.flow_limit},
            "steering": {"local": c.local, "remote": c.remote, "wrong_queue": c.wrong_queue, "remote_wakeups": c.remote_wakeups, "wake_ipis": c.wake_ipis, "backlog_wakes": c.backlog_wakes, "rps_ipis": c.ipis},
            "arfs": {
                "add": a.add, "update": a.update, "skip": a.skip, "expire": a.expire,
                "misprogram_avoided": a.misprogram_avoided, "filters_active": s.arfs_active,
                "full": a.full, "lock_wait_ns": c.arfs_lock_wait_ns, "missteered": c.arfs_missteered,
            },
            "rfs": {"sock_flow_updates": c.sock_flow_updates, "sock_flow_deletes": c.sock_flow_deletes, "cpu_switches": c.cpu_switches, "sock_flow_skipped": c.sock_flow_skipped},
            "cpu": {"user_ns": c.user_ns, "sys_ns": c.sys_ns, "softirq_ns": c.softirq_ns, "cross_numa_bytes": c.cross_numa_bytes},
            "tc": {
                "counting": sim.config().tc_counting.to_string(),
                "filtercnt": block.map_or(0, |b| b.filtercnt()), "skipswcnt": block.map_or(0, |b| b.skipswcnt()),
                "useswcnt": block.map_or(0, |b| b.useswcnt()), "bypass_sw": block.is_some_and(|b| b.bypass_sw()),
                "sw_classified": c.tc_sw_classified, "sw_missed": c.tc_sw_missed, "bypassed": c.tc_bypassed,
                "hw_drop": c.tc_hw_drop, "filters": block.map_or(0, |b| b.len()),
                "insert_seconds": (insert_ns as f64 / 1e7).round() / 100.0,
            },
            "xps": {
                "hash_picks": c.xps_hash_picks, "map_picks": c.xps_map_picks, "cached_picks": c.tx_cached_picks,
                "queue_changes": c.tx_queue_changes, "messages": c.tx_messages,
                "msgs_per_sec": (c.tx_messages as f64 / secs).round() as u64, "atr_samples": c.atr_samples,
            },
            "xdp": {
                "ns_per_pkt": xdp_ns, "mpps_per_core": xdp_mpps, "kfunc_calls": c.xdp_kfunc_calls,
                "unsupported": c.xdp_unsupported, "tx": c.xdp_tx, "redirect": c.xdp_redirect,
                "program": sim.xdp().map_or("", |p| p.name.as_str()),
                // 1 when the program uses the RX hash (from the kfunc, or computed by the
                // program where the driver answers "not supported"): a check reads numbers.
                "reads_hash": u8::from(sim.xdp().is_some_and(|p| p.kfuncs.contains(&Kfunc::Read(Meta::Hash)))),
            },
            "ledger": ledger,
            "queues": {"rx": queues, "tx": txq},
            "cpus": cpus,
        }))
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
