//! The view snapshot: everything the page draws of one host, built in the worker from the
//! engine's state and sent to the page (`serde`: it crosses the worker boundary). It carries
//! only what the panels show: the aRFS table's scroll window rather than every filter, the
//! ledger and the figures rather than the whole run report.

use std::rc::Rc;

use serde::{Deserialize, Serialize};
use steerlab_engine::{Driver, FlowView, NamedEnum, Nanos};
use steerlab_scenario::Report;

use super::console::ConsoleView;
use super::Controller;

mod figures;
mod parts;

pub use figures::Figures;

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
    /// CPU its NAPI polls on (where its interrupt last ran).
    pub irq_cpu: u16,
    /// Its drops are not shown: the lesson has the learner find them (`ethtool -S` first).
    pub drops_hidden: bool,
    /// CPU its vector was moved to while its poll kept running: the poll follows once it
    /// completes (engine `irq_effective_cpu`).
    pub irq_moving_to: Option<u16>,
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
    /// A built-in lesson's rules (docs/fidelity/rules.json): how many match the kernel, are
    /// stated simplifications, depart; `None` for a scenario or a lesson file of a course.
    pub fidelity: Option<[u16; 3]>,
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
    /// The goal's parts, each with its verdict (the checklist beside the goal).
    pub goal_parts: Vec<super::GoalPart>,
    /// Why the learner's change, which removed the symptom, does not meet the goal.
    pub wrong_way: Option<String>,
    /// A step's command typed before its question was answered: it runs once answered.
    pub held: Option<String>,
    /// The learner whose own variant this is (`?student=NAME`) and its seed.
    pub student: Option<(String, u64)>,
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
    /// What its commands did, once they ran (empty before).
    pub outcome: String,
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
    /// A shared link was restored here and time has not played since: paused at its state.
    pub restored: bool,
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
    /// mlx5: filter updates queued for its one worker.
    pub work_queued: u32,
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
    /// Latency p50 and p99 (µs), per sample, where the lesson shows latency (else empty).
    pub latency_series: Vec<Series>,
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
    pub wire: Option<std::rc::Rc<crate::protocol::wire::WireView>>,
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

impl Controller {
    /// The view of the current state.
    pub fn view(&self) -> ViewModel {
        let sim = &self.sim;
        let snap = sim.snapshot();
        let queues = self.queue_views(&snap);
        let threads = self.thread_views();
        let cpus = self.cpu_views(&snap, &threads);
        let (filters, filters_first, filters_total) = self.filter_window();
        // Where each open flow's packets go now, by flow id: the wire view and the host matrix
        // draw them (a closed flow has no path).
        let mut flow_views = open_flows(sim);
        self.hide_unread_drops(&mut flow_views);
        let wire = self.wire_view(&flow_views, &queues, &cpus);
        let host_text = self.host_text(&cpus, &flow_views);
        let totals = Report::of_snapshot(&self.scenario, sim, &snap, false);
        let duration = Nanos::from_ms(self.scenario.sim.duration_ms).0.max(1);
        ViewModel {
            sim_time: snap.now.to_string(),
            duration_ms: self.scenario.sim.duration_ms,
            earliest_ms: self.earliest().0 / 1_000_000,
            restored: self.restored(),
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
            work_queued: snap.arfs_work_queued,
            lesson: Rc::new(self.lesson_view()),
            console: self.console.view(),
            arfs_series: self.rate_series(&[
                ("add", "arfs.add"),
                ("update", "arfs.update"),
                ("skip", "arfs.skip"),
                ("expire", "arfs.expire"),
            ]),
            locality_series: self.rate_series(&[("local", "steering.local"), ("remote", "steering.remote")]),
            marks: self.marks(),
            cost_series: self.cost_series(),
            latency_series: self.latency_series(),
            figures: {
                let mut f = Figures::of(sim, &snap, self.history.samples());
                for d in &mut f.drops {
                    d.hidden = self.hidden(&d.metric).map(String::from);
                }
                f
            },
            table: self.table_rows(&totals),
            // Set by the session when due (`Session::view`): a deflate of the learner's
            // commands, not worth a frame while time runs.
            permalink: Rc::default(),
            now_ns: snap.now.0,
            flow_labels: self.flow_labels(),
            traced: self.traced,
            trace: sim.trace_flow(self.traced),
            rss_key: sim.rss_key().to_vec(),
            ntuple: sim.config().ntuple,
            sock_entries: sim.sock_flow_entries(),
            scenario_json: self.scenario_json.clone(),
            rfs: self.rfs_view(),
            xps: Rc::new(self.xps_rows()),
            matrix: wire.is_none().then(|| Rc::new(self.matrix_view(&flow_views))),
            wire,
            restoring: self.restore_progress(),
            xdp: self.xdp_view(),
            tc: self.tc_picture(&flow_views),
            tx: self.tx_picture(),
            host_text,
        }
    }
}

impl Controller {
    /// The command the learner is to run before the page shows `metric`
    /// (`Lesson::find_by_reading`).
    pub(super) fn hidden(&self, metric: &str) -> Option<&'static str> {
        self.progress.hidden(&self.scenario.lesson, metric)
    }

    /// Where the lesson has the learner find where packets drop, a flow's packets are not
    /// drawn stopping at a place whose counter they have not read.
    fn hide_unread_drops(&self, flows: &mut [(u32, FlowView)]) {
        use steerlab_engine::DropPoint;
        for (_, v) in flows {
            let metric = match v.dropped {
                Some(DropPoint::Ring) => "packets.dropped.ring_full",
                Some(DropPoint::Xdp) => "packets.dropped.xdp",
                Some(DropPoint::Nic) => "tc.hw_drop",
                Some(DropPoint::Tc) => "packets.dropped.tc",
                Some(DropPoint::Backlog) => "packets.dropped.backlog_full",
                None => continue,
            };
            if self.hidden(metric).is_some() {
                v.dropped = None;
            }
        }
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
