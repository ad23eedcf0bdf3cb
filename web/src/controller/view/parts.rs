//! The pieces of a host's view, each built from the engine and the controller's history:
//! queues, CPUs and threads, the aRFS table's window, the lesson panel, the charts' series,
//! the lesson's table, the XPS map, the wire view, the XDP bar and the RFS tables.

use std::rc::Rc;

use steerlab_engine::time::mul_div;
use steerlab_engine::{FlowView, Snapshot};
use steerlab_scenario::{Figures, Report, Totals};

use super::{
    CpuView, FilterRow, LessonView, QueueView, RfsView, Series, StepView, TableRow, ThreadView, XdpView, XpsRow,
    FILTER_WINDOW,
};
use crate::controller::{Controller, PredictView};

impl Controller {
    /// Each metric's change per sample, divided by `per` of that sample (its seconds, its
    /// packets). Each sample's figures are looked up once (a report's lookup by dotted path
    /// is a string split and map searches, and a frame draws 120 samples of 11 metrics).
    pub(super) fn delta_series(
        &self,
        paths: &[(&str, &str)],
        per: impl Fn(u64, &Totals, &Totals) -> f64,
    ) -> Vec<Series> {
        let samples = self.history.samples();
        let per: Vec<f64> = samples
            .windows(2)
            .map(|w| per(w[1].0 - w[0].0, &w[0].1, &w[1].1).max(1e-9))
            .collect();
        paths
            .iter()
            .map(|&(name, path)| {
                let at: Vec<u64> = samples.iter().map(|(_, r)| r.int(path)).collect();
                Series {
                    name: name.to_string(),
                    values: at
                        .windows(2)
                        .zip(&per)
                        .map(|(w, per)| w[1].saturating_sub(w[0]) as f64 / per)
                        .collect(),
                }
            })
            .collect()
    }

    /// A value at each sample but the first (aligned with the rate series), divided by `unit`.
    pub(super) fn value_series(&self, paths: &[(&str, &str)], unit: f64) -> Vec<Series> {
        let samples = self.history.samples();
        paths
            .iter()
            .map(|&(name, path)| Series {
                name: name.to_string(),
                values: samples.iter().skip(1).map(|(_, r)| r.int(path) as f64 / unit).collect(),
            })
            .collect()
    }

    /// Arrival-to-read latency, p50 and p99 in µs, where the lesson's evidence shows it (a
    /// series every frame carries to the page is kept to the lessons about it).
    pub(super) fn latency_series(&self) -> Vec<Series> {
        let shown = self.scenario.lesson.chart == "chart-latency"
            || self
                .scenario
                .lesson
                .evidence
                .iter()
                .any(|e| e.metric.starts_with("latency."));
        if !shown {
            return Vec::new();
        }
        self.value_series(&[("p50", "latency.p50_ns"), ("p99", "latency.p99_ns")], 1000.0)
    }

    /// Per second.
    pub(super) fn rate_series(&self, paths: &[(&str, &str)]) -> Vec<Series> {
        self.delta_series(paths, |dt, _, _| dt as f64 / 1e9)
    }

    /// Whether the host is drawn as the matrix (too big for the wire view).
    pub(in crate::controller) fn shows_matrix(&self) -> bool {
        use crate::protocol::wire::{MAX_FLOWS, MAX_QUEUES};
        let c = self.sim.config();
        self.sim.open_flow_count() > MAX_FLOWS
            || usize::from(c.rx_queues) > MAX_QUEUES
            || usize::from(c.cpus) > MAX_QUEUES
    }

    /// The wire view, for hosts small enough to draw flow by flow, from the view's flows,
    /// queues and CPUs.
    pub(super) fn wire_view(
        &self,
        flows: &[(u32, FlowView)],
        queues: &[QueueView],
        cpus: &[CpuView],
    ) -> Option<std::rc::Rc<crate::protocol::wire::WireView>> {
        use crate::protocol::wire::{WireFlow, WireView, MAX_FLOWS, MAX_QUEUES};
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
                        .map(|k| crate::controller::pictures::short_kind(&k))
                        .unwrap_or_default(),
                })
                .collect(),
            reta: reta.entries().to_vec(),
            queues: queues.iter().map(|q| q.irq_cpu).collect(),
            // Unread where the lesson has the learner find the place.
            ring_drops: (0..queues.len() as u16)
                .map(|q| match self.hidden("packets.dropped.ring_full") {
                    Some(_) => 0,
                    None => self.sim.ring_drop_permille(q),
                })
                .collect(),
            cpus: cpus.iter().map(|c| (c.node, c.threads.clone())).collect(),
            cell: self.matrix_cell,
        }))
    }

    /// The loaded XDP program's cost per packet, part by part (`xdp.rs` `parts`).
    pub(super) fn xdp_view(&self) -> Option<XdpView> {
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

    /// The RFS tables panel: the socket table's size and use, and one queue's flow table.
    pub(super) fn rfs_view(&self) -> RfsView {
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

    /// The RX queues as drawn: counters, the rate of the last sample, flows arriving now.
    pub(super) fn queue_views(&self, snap: &Snapshot) -> Vec<QueueView> {
        let sim = &self.sim;
        let mut flows = vec![0u32; snap.queues.len()];
        for f in 0..sim.flow_count() {
            if let Some(q) = sim.flow_queue_now(f) {
                flows[usize::from(q)] += 1;
            }
        }
        let rates = self.history.queue_rates();
        snap.queues
            .iter()
            .enumerate()
            .map(|(i, q)| QueueView {
                index: i as u16,
                packets: q.packets,
                pps: rates.get(i).copied().unwrap_or(0),
                drops: q.drops,
                drops_hidden: self.hidden("packets.dropped.ring_full").is_some(),
                flows: flows[i],
                irq_cpu: sim.irq_cpu(i as u16).unwrap_or(0),
                irq_moving_to: sim
                    .irq_move_pending(i as u16)
                    .then(|| sim.irq_effective_cpu(i as u16))
                    .flatten(),
            })
            .collect()
    }

    /// The threads, each with its CPU and cpuset.
    pub(super) fn thread_views(&self) -> Vec<ThreadView> {
        let sim = &self.sim;
        (0..sim.thread_count())
            .filter_map(|t| {
                sim.thread(t).map(|(cpu, set)| ThreadView {
                    id: t,
                    cpu,
                    cpuset: set.to_list(),
                })
            })
            .collect()
    }

    /// The CPUs as drawn: softirq load over the last sample window, and their threads.
    pub(super) fn cpu_views(&self, snap: &Snapshot, threads: &[ThreadView]) -> Vec<CpuView> {
        let before = self.history.softirq_before();
        let window = before.map_or(1, |(t, _)| snap.now.0.saturating_sub(t).max(1));
        snap.cpus
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let before = before.and_then(|(_, a)| a.get(i).copied()).unwrap_or(0);
                let load = mul_div(c.softirq_ns.saturating_sub(before), 1000, window).min(1000) as u32;
                CpuView {
                    index: i as u16,
                    node: self.sim.node_of(i as u16),
                    softirq_permille: load,
                    packets: c.packets,
                    threads: threads
                        .iter()
                        .filter(|t| usize::from(t.cpu) == i)
                        .map(|t| t.id)
                        .collect(),
                }
            })
            .collect()
    }

    /// The aRFS table's scroll window (colliding flow_ids first): its rows, the index of the
    /// first, and how many filters there are in all.
    ///
    /// The table goes colliding flow_ids first, then by flow_id and filter id (ids are
    /// unique: the order is total). Only the window's rows are sorted: seed 000's table holds
    /// 16,384 filters and a frame shows 64, and sorting them all took most of a frame's view
    /// (about 10 M instructions natively). Counting the filters of each flow_id (they are
    /// below `MAX_FLOW_CNT`) gives each flow_id's first row, so the flow_ids the window
    /// overlaps are known before anything is sorted.
    pub(super) fn filter_window(&self) -> (Vec<FilterRow>, u32, usize) {
        let all = self.sim.arfs_filters();
        let total = all.len();
        let first = (self.filters_first as usize).min(total);
        let end = (first + FILTER_WINDOW as usize).min(total);
        let span = all.iter().map(|f| f.flow_id as usize + 1).max().unwrap_or(0);
        let mut count = vec![0u32; span];
        for f in &all {
            count[f.flow_id as usize] += 1;
        }
        // Each flow_id's first row: the colliding ones, then the others, each by flow_id.
        let mut start = vec![0u32; span];
        let mut row = 0;
        for colliding in [true, false] {
            for (id, &n) in count.iter().enumerate() {
                if n > 0 && (n > 1) == colliding {
                    start[id] = row;
                    row += n;
                }
            }
        }
        let mut rows: Vec<FilterRow> = all
            .iter()
            .filter(|f| {
                let (s, n) = (start[f.flow_id as usize] as usize, count[f.flow_id as usize] as usize);
                s < end && s + n > first
            })
            .map(|f| FilterRow {
                id: f.id,
                flow: f.flow,
                flow_id: f.flow_id,
                queue: f.queue,
                pending: f.pending,
                collision: count[f.flow_id as usize] > 1,
            })
            .collect();
        rows.sort_unstable_by_key(|f| (!f.collision, f.flow_id, f.id));
        // The first of them opens the flow_id that holds row `first`.
        let skip = rows.first().map_or(0, |f| first - start[f.flow_id as usize] as usize);
        rows.drain(..skip);
        rows.truncate(end - first);
        (rows, first as u32, total)
    }

    /// The lesson panel: its texts filled with the run's figures, the step, the goal, the
    /// evidence, the question and the challenge.
    pub(super) fn lesson_view(&self) -> LessonView {
        let l = &self.scenario.lesson;
        let samples = self.history.samples();
        let goal_met = self.goal_met();
        LessonView {
            fidelity: match &self.source {
                steerlab_scenario::permalink::Source::Lesson(id) => steerlab_scenario::lesson_fidelity(id),
                steerlab_scenario::permalink::Source::Scenario(_) => None,
            },
            id: self.scenario.id.clone(),
            title: l.title.clone(),
            goal: crate::controller::texts::fill(&l.goal, samples),
            steps: l
                .steps
                .iter()
                .zip(self.progress.steps_done())
                .enumerate()
                .map(|(k, (s, done))| {
                    // Where the learner is to find the place, a later step would name it
                    // (packet-drops' fourth: "Why is the reader slow?"): it shows once reached.
                    if l.find_by_reading && k > self.progress.step && !done {
                        return StepView {
                            text: "Shows once you reach it: the counters you read first decide where it goes.".into(),
                            commands: Vec::new(),
                            kernel: String::new(),
                            done,
                            outcome: String::new(),
                            cell: None,
                        };
                    }
                    let (text, outcome) = self.progress.step_text(l, k, samples);
                    StepView {
                        text,
                        commands: s.commands.clone(),
                        // What the kernel did follows the step's commands (it would answer
                        // the step's question); a step to look at says it at once.
                        kernel: if done || s.commands.is_empty() {
                            s.kernel.clone()
                        } else {
                            String::new()
                        },
                        done,
                        outcome,
                        cell: s.cell.map(|[q, c]| (q, c)),
                    }
                })
                .collect(),
            step: self.progress.step,
            // A lesson opened from a file (`?lesson-url=`, an upload) is listed with the
            // built-in ones, first.
            lesson_ids: std::iter::once(self.scenario.id.clone())
                .filter(|id| !l.steps.is_empty() && steerlab_scenario::lesson_title(id).is_none())
                .chain(steerlab_scenario::lesson_ids().map(String::from))
                .collect(),
            kernel_files: l.kernel_files.clone(),
            source: l.source.clone(),
            goal_met,
            goal_undone_by: (self.progress.met_once && goal_met != Some(true))
                .then(|| self.progress.undone_by().map(String::from))
                .flatten(),
            evidence: self
                .progress
                .evidence(l, samples, self.changed.last().map(|a| a.at_ns), !self.playing),
            chart: if l.chart.is_empty() {
                "chart-locality".to_string()
            } else {
                l.chart.clone()
            },
            highlight: l.highlight.get(self.progress.step).filter(|h| !h.is_empty()).cloned(),
            predict: self.progress.predict_view(l).map(|p| PredictView {
                paused: !self.playing,
                ..p
            }),
            challenge: self.progress.challenge_view(l),
            has_challenge: l.challenge.is_some(),
            complete: self.progress.complete_view(l),
            goal_parts: self.goal.parts(self.progress.checks(l), |m| self.hidden(m)),
            wrong_way: self.goal.shortcut.as_ref().map(|(why, _)| why.clone()),
            held: self.progress.held().map(String::from),
            student: self.student.clone().map(|s| (s, self.scenario.sim.seed)),
        }
    }

    /// The learner's commands within the series' span, in seconds from its first sample.
    pub(super) fn marks(&self) -> Vec<f64> {
        let span = self.history.samples();
        let (t0, t1) = (span.get(1).map_or(0, |s| s.0), span.last().map_or(0, |s| s.0));
        self.changed
            .iter()
            .filter(|a| a.at_ns >= t0 && a.at_ns <= t1)
            .map(|a| (a.at_ns - t0) as f64 / 1e9)
            .collect()
    }

    /// CPU time per packet the host processed (ring drops never reached a CPU): what a host
    /// pays for each packet, by account.
    pub(super) fn cost_series(&self) -> Vec<Series> {
        self.delta_series(
            &[
                ("softirq", "cpu.softirq_ns"),
                ("sys", "cpu.sys_ns"),
                ("user", "cpu.user_ns"),
            ],
            |_, a, b| {
                let processed = |r: &Totals| {
                    r.int("packets.offered")
                        .saturating_sub(r.int("packets.dropped.ring_full"))
                };
                processed(b).saturating_sub(processed(a)) as f64
            },
        )
    }

    /// The lesson's own table (as `steerlab run --vary` prints it) for this host.
    pub(super) fn table_rows(&self, totals: &Report) -> Vec<TableRow> {
        let samples = self.history.samples();
        let now = samples.last().map_or(0, |s| s.0);
        self.scenario
            .lesson
            .table
            .iter()
            .map(|(label, path)| {
                let counter = totals.get(path).and_then(serde_json::Value::as_u64).is_some();
                TableRow {
                    label: label.clone(),
                    value: steerlab_scenario::compare::cell(totals, path),
                    raw: totals.get(path).and_then(serde_json::Value::as_f64),
                    per_s: counter
                        .then(|| steerlab_scenario::teach::figure(samples, path, true, now))
                        .flatten(),
                }
            })
            .collect()
    }

    /// The XPS map of the first 64 TX queues.
    pub(super) fn xps_rows(&self) -> Vec<XpsRow> {
        let sim = &self.sim;
        let ncpus = sim.config().cpus;
        (0u16..)
            .zip(sim.xps_maps(64))
            .map(|(q, (cpus, rxqs))| XpsRow {
                queue: q,
                cpus_mask: cpus.to_hex(ncpus),
                cpus: cpus.to_list(),
                rxqs: rxqs.to_list(),
            })
            .collect()
    }

    /// The trace select's flows: the first 256 open ones, with their tuple. Formatted again
    /// only when those flows change (256 labels a frame were an eighth of a view of seed
    /// 000's host), and the same `Rc` otherwise, which the frame's diff takes as unchanged.
    pub(super) fn flow_labels(&self) -> Rc<Vec<(u32, String)>> {
        let sim = &self.sim;
        let open = || {
            (0..sim.flow_count().min(256))
                .filter(|&f| !sim.flow_closed(f))
                .filter_map(|f| sim.flow_key(f).map(|k| (f, k)))
        };
        let mut cache = self.flow_labels.borrow_mut();
        if !open().eq(cache.flows.iter().copied()) {
            cache.flows = open().collect();
            cache.labels = Rc::new(cache.flows.iter().map(|(f, k)| (*f, format!("#{f} {k}"))).collect());
        }
        cache.labels.clone()
    }
}
