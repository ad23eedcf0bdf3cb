//! The view snapshot: everything the page draws of one host, built in the worker from the
//! engine's state and sent to the page (`serde`: it crosses the worker boundary). It carries
//! only what the panels show: the aRFS table's scroll window rather than every filter, the
//! ledger and the figures rather than the whole run report.

use std::rc::Rc;

use serde::{Deserialize, Serialize};
use steerlab_engine::{CpuSet, Driver, FlowView, NamedEnum, Nanos};
use steerlab_scenario::Report;

use super::console::ConsoleView;
use super::Controller;

/// aRFS filter rows sent per view: the table's scroll window and its overscan.
pub const FILTER_WINDOW: u32 = 64;

/// One RX queue as drawn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueView {
    /// Queue index.
    pub index: u16,
    /// Packets received so far.
    pub packets: u64,
    /// Packets per second over the last simulated second.
    pub pps: u64,
    /// Packets dropped because the ring was full.
    pub drops: u64,
    /// Flows whose packets arrive on this queue now.
    pub flows: u32,
    /// CPU its IRQ is affined to.
    pub irq_cpu: u16,
}

/// One CPU as drawn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuView {
    /// CPU index.
    pub index: u16,
    /// NUMA node.
    pub node: u16,
    /// Softirq time in the last sample window, per mille of the window.
    pub softirq_permille: u32,
    /// Packets whose protocol processing ran here.
    pub packets: u64,
    /// Threads on this CPU now.
    pub threads: Vec<u32>,
}

/// One thread as drawn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadView {
    /// Thread id.
    pub id: u32,
    /// Its CPU.
    pub cpu: u16,
    /// Its cpuset as a list.
    pub cpuset: String,
}

/// One aRFS filter row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilterRow {
    /// Filter id.
    pub id: u16,
    /// The flow it matches.
    pub flow: u32,
    /// Its flow_id (slot in the target queue's table).
    pub flow_id: u32,
    /// Target queue.
    pub queue: u16,
    /// Not yet programmed.
    pub pending: bool,
    /// Another live filter shares its flow_id (the hash-only match confuses them).
    pub collision: bool,
}

/// The lesson panel.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonView {
    /// Lesson id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Goal.
    pub goal: String,
    /// Guided steps.
    pub steps: Vec<StepView>,
    /// Current step: it follows the commands the learner runs, and "Next step".
    pub step: usize,
    /// Every built-in lesson id (the lesson select).
    pub lesson_ids: Vec<String>,
    /// Kernel files.
    pub kernel_files: Vec<String>,
    /// Source of the lesson's effect.
    pub source: String,
    /// Goal check result: `None` until it can be assessed.
    pub goal_met: Option<bool>,
    /// The goal was met, and a later change undid it: the command that did.
    pub goal_undone_by: Option<String>,
    /// The lesson's key figures, before the last change and now.
    pub evidence: Vec<super::EvidenceView>,
    /// The chart or panel shown beside the host (a `data-testid`).
    pub chart: String,
    /// The `data-testid` the current step points at (highlighted on the page).
    pub highlight: Option<String>,
    /// The question asked now (or the last one, with the engine's answer).
    pub predict: Option<super::PredictView>,
    /// The challenge form, when on (`?mode=challenge`).
    pub challenge: Option<super::ChallengeView>,
    /// The lesson offers a challenge form.
    pub has_challenge: bool,
    /// The ending, once the goal was met (it stays when a later change undoes the goal).
    pub complete: Option<super::CompleteView>,
}

/// A row of the lesson's own table (as `steerlab run --vary` prints it), for this host now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    /// The seed's label.
    pub label: String,
    /// The total since the start, as the CLI prints it.
    pub value: String,
    /// The number, for a ratio between hosts.
    pub raw: Option<f64>,
    /// A counter's rate over the last simulated second (`None` for a value that is not a
    /// count).
    pub per_s: Option<f64>,
}

/// One TX queue's XPS map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct XpsRow {
    /// TX queue.
    pub queue: u16,
    /// `xps_cpus` as `cat` prints it (the kernel's `%*pb` mask).
    pub cpus_mask: String,
    /// The same CPUs as a list (empty: none).
    pub cpus: String,
    /// `xps_rxqs` as a list of RX queues (empty: none).
    pub rxqs: String,
}

/// A guided step as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepView {
    /// What to read or look at.
    pub text: String,
    /// The exact console lines that carry it out.
    pub commands: Vec<String>,
    /// What the kernel did, in words.
    pub kernel: String,
    /// The learner has run all its commands.
    pub done: bool,
    /// The host matrix cell it points at (RX queue, CPU).
    pub cell: Option<(u16, u16)>,
}

/// A chart series: name and values per sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Legend.
    pub name: String,
    /// Values, oldest first.
    pub values: Vec<f64>,
}

/// Everything the page shows, derived from the engine's snapshot. The fields serde skips are
/// the rare parts a frame carries only when they change ([`super::frame`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ViewModel {
    /// Simulated time, e.g. `1.250s`.
    pub sim_time: String,
    /// The scenario's suggested length, ms (a mark on the timeline).
    pub duration_ms: u64,
    /// The earliest time the timeline reaches, ms (the oldest snapshot kept).
    pub earliest_ms: u64,
    /// Simulated time as a share of the scenario's duration, per mille.
    pub progress_permille: u32,
    /// Number of flows.
    pub flow_count: u32,
    /// The RX queues.
    pub queues: Vec<QueueView>,
    /// The CPUs.
    pub cpus: Vec<CpuView>,
    /// The threads.
    pub threads: Vec<ThreadView>,
    /// Packets processed on their reader's CPU.
    pub local: u64,
    /// Packets processed elsewhere.
    pub remote: u64,
    /// aRFS filter updates.
    pub arfs_update: u64,
    /// Digest of the run so far.
    pub digest: String,
    /// The driver model's name (`nic driver NAME`).
    pub driver: String,
    /// The live aRFS filters the table's scroll window shows, colliding flow_ids first:
    /// rows `filters_first..` of all of them (a host may hold 16,384; only these cross to the page).
    pub filters: Vec<FilterRow>,
    /// Index of the first row in [`ViewModel::filters`].
    pub filters_first: u32,
    /// Live filters in total.
    pub filters_total: usize,
    /// The lesson (rare: [`super::frame`]).
    #[serde(skip)]
    pub lesson: Rc<LessonView>,
    /// The console (rare).
    #[serde(skip)]
    pub console: Rc<ConsoleView>,
    /// aRFS add/update/skip/expire per second, per sample.
    pub arfs_series: Vec<Series>,
    /// Local and remote packets per second, per sample.
    pub locality_series: Vec<Series>,
    /// CPU time per packet (softirq, sys, user ns), per sample.
    pub cost_series: Vec<Series>,
    /// The learner's commands within the series' span, in seconds from its first sample:
    /// the charts mark them.
    pub marks: Vec<f64>,
    /// The ledger and the XDP, XPS and tc figures the panels show (not the whole report).
    pub figures: Figures,
    /// The permalink fragment value (`#s=` + this) of the state: the session sets it when
    /// a frame is due one (rare: [`super::frame`]).
    #[serde(skip)]
    pub permalink: Rc<str>,
    /// Simulated time, ns.
    pub now_ns: u64,
    /// Flows for the trace select (the first 256): index and tuple (rare).
    #[serde(skip)]
    pub flow_labels: Rc<Vec<(u32, String)>>,
    /// The traced flow.
    pub traced: u32,
    /// Its path now.
    pub trace: Option<steerlab_engine::FlowTrace>,
    /// The RSS key.
    pub rss_key: Vec<u8>,
    /// `ethtool -K ntuple` state.
    pub ntuple: bool,
    /// `rps_sock_flow_entries` in force.
    pub sock_entries: u32,
    /// The scenario's JSON as loaded (the download) (rare).
    #[serde(skip)]
    pub scenario_json: Rc<str>,
    /// RFS tables: the socket table's size and used entries, and one queue's flow table.
    pub rfs: RfsView,
    /// The lesson's table rows for this host, totals since the start.
    pub table: Vec<TableRow>,
    /// XPS map per TX queue (the first 64) (rare).
    #[serde(skip)]
    pub xps: Rc<Vec<XpsRow>>,
    /// A small host's flows packet by packet (`None`: drawn by density only).
    pub wire: Option<std::rc::Rc<crate::wire::WireView>>,
    /// A bigger host's queue × CPU picture (`None` when the wire view draws it).
    pub matrix: Option<std::rc::Rc<super::MatrixView>>,
    /// A permalink's restore in progress, per mille of its time.
    pub restoring: Option<u32>,
    /// The loaded XDP program's cost per packet, part by part.
    pub xdp: Option<XdpView>,
    /// The ingress block's picture (with an ingress qdisc).
    pub tc: Option<super::TcPicture>,
    /// The transmit path's picture (when a socket sends).
    pub tx: Option<super::TxPicture>,
    /// The host in words, for screen readers.
    pub host_text: String,
}

/// What one XDP packet costs, part by part: the driver's poll with a trivial program, then
/// each kfunc call and fallback of the loaded program (the lesson's stacked cost bar). The
/// parts add up to `xdp.ns_per_pkt`, the strip's figure.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct XdpView {
    /// The program's name.
    pub program: String,
    /// How its kfuncs are called (`call`, `query`, `inline`).
    pub strategy: String,
    /// The driver's per-packet base (NAPI poll and a trivial program), ns.
    pub base_ns: f64,
    /// Each call or fallback and its ns, in the program's order.
    pub parts: Vec<(String, f64)>,
}

/// The RFS tables panel.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RfsView {
    /// `rps_sock_flow_entries` (0: RFS off).
    pub sock_size: u32,
    /// Entries holding a recorded CPU.
    pub sock_used: u32,
    /// The RX queue whose flow table is shown.
    pub queue: u16,
    /// Its `rps_flow_cnt` (0: none).
    pub table_size: u32,
    /// Its used entries (first 128): slot, CPU, aRFS filter id (`None`: no filter), last_qtail.
    pub entries: Vec<(u32, u16, Option<u16>, u32)>,
}

/// The cost ledger and the XDP, XPS and tc figures, as the panels print them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// CPU time per pipeline stage, ns (stage name without `_ns`).
    pub ledger: Vec<(String, u64)>,
    /// Each figure the panels show, by its report path, formatted ("—" when it has no value).
    pub values: Vec<(String, String)>,
}

/// The report paths of [`Figures::values`].
const FIGURES: [&str; 13] = [
    "xdp.ns_per_pkt",
    "xdp.mpps_per_core",
    "xps.hash_picks",
    "xps.map_picks",
    "xps.msgs_per_sec",
    "tc.counting",
    "tc.filtercnt",
    "tc.skipswcnt",
    "tc.useswcnt",
    "tc.bypass_sw",
    "tc.sw_classified",
    "tc.sw_missed",
    "packets.offered",
];

impl Figures {
    fn of(r: &Report) -> Figures {
        let ledger = r
            .get("ledger")
            .and_then(|v| v.as_object())
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.trim_end_matches("_ns").to_string(), v.as_u64()?)))
                    .collect()
            })
            .unwrap_or_default();
        let show = |v: &serde_json::Value| match v {
            serde_json::Value::Null => "—".to_string(),
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let values = FIGURES
            .iter()
            .map(|&p| (p.to_string(), r.get(p).map_or("—".to_string(), show)))
            .collect();
        Figures { ledger, values }
    }

    /// A figure by report path, as printed ("—" when absent).
    pub fn get(&self, path: &str) -> &str {
        self.values
            .iter()
            .find(|(p, _)| p == path)
            .map_or("—", |(_, v)| v.as_str())
    }
}

impl Controller {
    /// Each metric's change per sample, divided by `per` of that sample (its seconds, its
    /// packets).
    fn delta_series(&self, paths: &[(&str, &str)], per: impl Fn(u64, &Report, &Report) -> f64) -> Vec<Series> {
        paths
            .iter()
            .map(|&(name, path)| {
                let values = self
                    .history
                    .samples()
                    .iter()
                    .zip(self.history.samples().iter().skip(1))
                    .map(|((t0, a), (t1, b))| {
                        (b.int(path).saturating_sub(a.int(path))) as f64 / per(t1 - t0, a, b).max(1e-9)
                    })
                    .collect();
                Series {
                    name: name.to_string(),
                    values,
                }
            })
            .collect()
    }

    /// Per second.
    fn rate_series(&self, paths: &[(&str, &str)]) -> Vec<Series> {
        self.delta_series(paths, |dt, _, _| dt as f64 / 1e9)
    }

    /// The wire view, for hosts small enough to draw flow by flow, from the view's flows,
    /// queues and CPUs.
    fn wire_view(
        &self,
        flows: &[(u32, FlowView)],
        queues: &[QueueView],
        cpus: &[CpuView],
    ) -> Option<std::rc::Rc<crate::wire::WireView>> {
        use crate::wire::{WireFlow, WireView, MAX_FLOWS, MAX_QUEUES};
        if flows.len() > MAX_FLOWS as usize || queues.len() > MAX_QUEUES || cpus.len() > MAX_QUEUES {
            return None;
        }
        let reta = self.sim.reta();
        Some(std::rc::Rc::new(WireView {
            flows: flows
                .iter()
                .map(|&(index, view)| WireFlow {
                    index,
                    reta_index: reta.index(view.hash),
                    view,
                    kind: self
                        .sim
                        .flow_key(index)
                        .map(|k| super::pictures::short_kind(&k))
                        .unwrap_or_default(),
                })
                .collect(),
            reta: reta.entries().to_vec(),
            queues: queues.iter().map(|q| q.irq_cpu).collect(),
            cpus: cpus.iter().map(|c| (c.node, c.threads.clone())).collect(),
            cell: self.matrix_cell,
        }))
    }

    /// The view of the current state.
    pub fn view(&self) -> ViewModel {
        let sim = &self.sim;
        let snap = sim.snapshot();
        let mut flows = vec![0u32; snap.queues.len()];
        for f in 0..sim.flow_count() {
            if let Some(q) = sim.flow_queue_now(f) {
                flows[usize::from(q)] += 1;
            }
        }
        let rates = self.history.queue_rates();
        let queues: Vec<QueueView> = snap
            .queues
            .iter()
            .enumerate()
            .map(|(i, q)| QueueView {
                index: i as u16,
                packets: q.packets,
                pps: rates.get(i).copied().unwrap_or(0),
                drops: q.drops,
                flows: flows[i],
                irq_cpu: sim.irq_cpu(i as u16).unwrap_or(0),
            })
            .collect();
        let threads: Vec<ThreadView> = (0..sim.thread_count())
            .filter_map(|t| {
                sim.thread(t).map(|(cpu, set)| ThreadView {
                    id: t,
                    cpu,
                    cpuset: set.to_list(),
                })
            })
            .collect();
        // Softirq load over the last sample window.
        let before = self.history.softirq_before();
        let window = before.map_or(1, |(t, _)| snap.now.0.saturating_sub(t).max(1));
        let cpus: Vec<CpuView> = snap
            .cpus
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let before = before.and_then(|(_, a)| a.get(i).copied()).unwrap_or(0);
                let load = (c.softirq_ns.saturating_sub(before) as u128 * 1000 / u128::from(window)).min(1000) as u32;
                CpuView {
                    index: i as u16,
                    node: sim.node_of(i as u16),
                    softirq_permille: load,
                    packets: c.packets,
                    threads: threads
                        .iter()
                        .filter(|t| usize::from(t.cpu) == i)
                        .map(|t| t.id)
                        .collect(),
                }
            })
            .collect();
        let all = sim.arfs_filters();
        let mut per_slot = std::collections::BTreeMap::<u32, u32>::new();
        for f in &all {
            *per_slot.entry(f.flow_id).or_default() += 1;
        }
        let mut filters: Vec<FilterRow> = all
            .iter()
            .map(|f| FilterRow {
                id: f.id,
                flow: f.flow,
                flow_id: f.flow_id,
                queue: f.queue,
                pending: f.pending,
                collision: per_slot[&f.flow_id] > 1,
            })
            .collect();
        filters.sort_by_key(|f| (!f.collision, f.flow_id, f.id));
        let filters_total = filters.len();
        let filters_first = self.filters_first.min(filters_total as u32);
        let filters: Vec<FilterRow> = filters
            .drain(filters_first as usize..)
            .take(FILTER_WINDOW as usize)
            .collect();
        // Where each open flow's packets go now, by flow id: the wire view and the host matrix
        // draw them (a closed flow has no path).
        let flow_views = open_flows(sim);
        let wire = self.wire_view(&flow_views, &queues, &cpus);
        let host_text = self.host_text(&cpus);
        let l = &self.scenario.lesson;
        let goal_met = self.goal_met();
        let totals = Report::totals(&self.scenario, sim);
        let duration = Nanos::from_ms(self.scenario.sim.duration_ms).0.max(1);
        ViewModel {
            sim_time: snap.now.to_string(),
            duration_ms: self.scenario.sim.duration_ms,
            earliest_ms: self.earliest().0 / 1_000_000,
            progress_permille: (u128::from(snap.now.0) * 1000 / u128::from(duration)).min(1000) as u32,
            flow_count: snap.flows,
            queues,
            cpus,
            threads,
            local: snap.counters.local,
            remote: snap.counters.remote,
            arfs_update: snap.arfs.update,
            digest: snap.digest.hex(),
            driver: sim.config().driver.as_name().to_string(),
            filters,
            filters_first,
            filters_total,
            lesson: Rc::new(LessonView {
                id: self.scenario.id.clone(),
                title: l.title.clone(),
                goal: super::texts::fill(&l.goal, self.history.samples()),
                steps: l
                    .steps
                    .iter()
                    .zip(self.progress.steps_done())
                    .enumerate()
                    .map(|(k, (s, done))| StepView {
                        text: self.progress.step_text(l, k, self.history.samples()),
                        commands: s.commands.clone(),
                        kernel: s.kernel.clone(),
                        done,
                        cell: s.cell.map(|[q, c]| (q, c)),
                    })
                    .collect(),
                step: self.progress.step,
                lesson_ids: steerlab_scenario::lesson_ids().map(String::from).collect(),
                kernel_files: l.kernel_files.clone(),
                source: l.source.clone(),
                goal_met,
                goal_undone_by: (self.progress.met_once && goal_met != Some(true))
                    .then(|| self.progress.undone_by().map(String::from))
                    .flatten(),
                evidence: self.progress.evidence(
                    l,
                    self.history.samples(),
                    self.applied.last().map(|a| a.at_ns),
                    !self.playing,
                ),
                chart: if l.chart.is_empty() {
                    "chart-locality".to_string()
                } else {
                    l.chart.clone()
                },
                highlight: l.highlight.get(self.progress.step).filter(|h| !h.is_empty()).cloned(),
                predict: self.progress.predict_view(l),
                challenge: self.progress.challenge_view(l),
                has_challenge: l.challenge.is_some(),
                complete: self.progress.complete_view(l),
            }),
            console: self.console.view(),
            arfs_series: self.rate_series(&[
                ("add", "arfs.add"),
                ("update", "arfs.update"),
                ("skip", "arfs.skip"),
                ("expire", "arfs.expire"),
            ]),
            locality_series: self.rate_series(&[("local", "steering.local"), ("remote", "steering.remote")]),
            marks: {
                let span = self.history.samples();
                let (t0, t1) = (span.get(1).map_or(0, |s| s.0), span.last().map_or(0, |s| s.0));
                self.applied
                    .iter()
                    .filter(|a| a.at_ns >= t0 && a.at_ns <= t1)
                    .map(|a| (a.at_ns - t0) as f64 / 1e9)
                    .collect()
            },
            // CPU time per packet the host processed (ring drops never reached a CPU): what a
            // host pays for each packet, by account.
            cost_series: self.delta_series(
                &[
                    ("softirq", "cpu.softirq_ns"),
                    ("sys", "cpu.sys_ns"),
                    ("user", "cpu.user_ns"),
                ],
                |_, a, b| {
                    let processed = |r: &Report| {
                        r.int("packets.offered")
                            .saturating_sub(r.int("packets.dropped.ring_full"))
                    };
                    processed(b).saturating_sub(processed(a)) as f64
                },
            ),
            figures: Figures::of(&totals),
            table: l
                .table
                .iter()
                .map(|(label, path)| {
                    let samples = self.history.samples();
                    let counter = totals.get(path).and_then(serde_json::Value::as_u64).is_some();
                    TableRow {
                        label: label.clone(),
                        value: steerlab_scenario::compare::cell(&totals, path),
                        raw: totals.get(path).and_then(serde_json::Value::as_f64),
                        per_s: counter
                            .then(|| {
                                let now = samples.last().map_or(0, |s| s.0);
                                steerlab_scenario::teach::figure(samples, path, true, now)
                            })
                            .flatten(),
                    }
                })
                .collect(),
            // Set by the session when due (`Session::view`): a deflate of the learner's
            // commands, not worth a frame while time runs.
            permalink: Rc::default(),
            now_ns: snap.now.0,
            flow_labels: Rc::new(
                (0..sim.flow_count().min(256))
                    .filter(|&f| !sim.flow_closed(f))
                    .filter_map(|f| sim.flow_key(f).map(|k| (f, format!("#{f} {k}"))))
                    .collect(),
            ),
            traced: self.traced,
            trace: sim.trace_flow(self.traced),
            rss_key: sim.rss_key().to_vec(),
            ntuple: sim.config().ntuple,
            sock_entries: sim.sock_flow_entries(),
            scenario_json: self.scenario_json.clone(),
            rfs: self.rfs_view(),
            xps: Rc::new(
                (0..sim.config().tx_queues.min(64))
                    .map(|q| {
                        let cpus = sim.xps_cpus(q);
                        XpsRow {
                            queue: q,
                            cpus_mask: cpus.map_or_else(
                                || CpuSet::default().to_hex(sim.config().cpus),
                                |s| s.to_hex(sim.config().cpus),
                            ),
                            cpus: cpus.map(|s| s.to_list()).unwrap_or_default(),
                            rxqs: sim.xps_rxqs(q).map(|s| s.to_list()).unwrap_or_default(),
                        }
                    })
                    .collect(),
            ),
            matrix: wire.is_none().then(|| std::rc::Rc::new(self.matrix_view(&flow_views))),
            wire,
            restoring: self.restore_progress(),
            xdp: self.xdp_view(),
            tc: self.tc_picture(),
            tx: self.tx_picture(),
            host_text,
        }
    }

    /// The loaded XDP program's cost per packet, part by part (`xdp.rs` `parts`).
    fn xdp_view(&self) -> Option<XdpView> {
        use steerlab_engine::xdp;
        let p = self.sim.xdp_program()?;
        let c = &self.sim.config().costs;
        let parts = xdp::parts(p, self.sim.config().driver)
            .into_iter()
            .filter(|part| !matches!(part, xdp::Part::Refused(_)))
            .map(|part| {
                let ps = xdp::part_ps(part, c.xdp_kfunc_call_ps, c.xdp_fallback_ps);
                (part.name().to_string(), ps as f64 / 1000.0)
            })
            .collect();
        Some(XdpView {
            program: p.name.clone(),
            strategy: p.strategy.name().to_string(),
            base_ns: c.driver_rx_ps as f64 / 1000.0,
            parts,
        })
    }

    fn rfs_view(&self) -> RfsView {
        use steerlab_engine::rps::{NO_CPU, NO_FILTER};
        let sim = &self.sim;
        let sock = sim.sock_flow_table();
        let table = sim.dev_flow_table(self.rfs_queue);
        RfsView {
            sock_size: sock.map_or(0, |t| t.mask + 1),
            sock_used: sock.map_or(0, |t| t.used()),
            queue: self.rfs_queue,
            table_size: table.map_or(0, |t| t.flows.len() as u32),
            entries: table.map_or(Vec::new(), |t| {
                t.flows
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.cpu != NO_CPU)
                    .take(128)
                    .map(|(i, e)| {
                        (
                            i as u32,
                            e.cpu,
                            (e.filter != NO_FILTER).then_some(e.filter),
                            e.last_qtail,
                        )
                    })
                    .collect()
            }),
        }
    }

    /// Scrolls the aRFS table's window so that it starts at row `first`.
    pub fn show_filters_from(&mut self, first: u32) {
        self.filters_first = first;
    }
}

/// The view of every open flow with its id (a closed flow has none, and ids stay).
pub(super) fn open_flows(sim: &steerlab_engine::Sim) -> Vec<(u32, FlowView)> {
    (0..sim.flow_count())
        .filter_map(|f| sim.flow_view(f).map(|v| (f, v)))
        .collect()
}

/// The driver names for the driver select.
pub fn driver_names() -> Vec<&'static str> {
    Driver::ALL.iter().map(|d| d.as_name()).collect()
}
