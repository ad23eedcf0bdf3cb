//! The queue × CPU picture of a host too big to draw flow by flow (seed 000: 144 queues, 144
//! CPUs, 16,384 flows): for each (RX queue, CPU) the packets of the last simulated second,
//! split by where they were processed against their reader (its CPU, another CPU of its NUMA
//! node, the other node), and how many arrived on a queue that is not their reader's (a
//! wrong filter, or RSS, even when RFS then moved their processing to the reader); per queue
//! the aRFS filters added, re-pointed and expired in that second and in the last sample
//! (what is happening now); the socket-table writes of the last sample; and the flows
//! counted by fate (steered by their own filter, by a wrong one, by RSS, dropped).
//!
//! Rates come from samples taken with the reports (every 100 ms of simulated time): each
//! queue's aRFS tallies, and the time. A flow's packets at the window's start are worked out
//! from its start and rate (`Sim::flow_sent_at`, exact), not copied from 16,384 flow records
//! every sample. A flow's packets of the last second are drawn where its last packet went (its
//! queue and CPU now): a flow that moved within the second is drawn at its new place, as the
//! engine's `FlowView` knows only the last one.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use steerlab_engine::arfs::QueueTally;
use steerlab_engine::{FlowView, Nanos, Sim};

use super::Controller;

/// The span rates are measured over.
const WINDOW_NS: u64 = 1_000_000_000;
/// Samples kept: a window's worth and one.
const SAMPLES: usize = 11;
/// Flows listed for a selected cell.
const CELL_FLOWS: usize = 8;

/// What the samples hold of one instant.
#[derive(Clone, Debug, Default)]
struct Sample {
    at_ns: u64,
    /// aRFS tallies so far per queue.
    arfs: Vec<QueueTally>,
    /// `rps_sock_flow_table` writes so far.
    sock_writes: u64,
}

/// Recent samples of per-queue aRFS tallies.
#[derive(Clone, Debug, Default)]
pub(super) struct MatrixHistory {
    samples: VecDeque<Sample>,
}

impl MatrixHistory {
    /// Takes a sample of `sim` now.
    pub(super) fn sample(&mut self, sim: &Sim) {
        self.samples.push_back(Sample {
            at_ns: sim.now().0,
            arfs: sim.arfs_per_queue().to_vec(),
            sock_writes: sim.sock_flow_updates(),
        });
        if self.samples.len() > SAMPLES {
            self.samples.pop_front();
        }
    }

    /// Samples held.
    pub(super) fn len(&self) -> usize {
        self.samples.len()
    }

    /// Time went back to `t`: samples after it are forgotten.
    pub(super) fn rewind(&mut self, t: u64) {
        self.samples.retain(|s| s.at_ns <= t);
    }

    /// The time of the oldest sample within the window before `now`.
    pub(super) fn start_ns(&self, now: u64) -> Option<u64> {
        self.window_start(now).map(|s| s.at_ns)
    }

    /// The oldest sample within the window before `now`.
    fn window_start(&self, now: u64) -> Option<&Sample> {
        self.samples
            .iter()
            .find(|s| s.at_ns + WINDOW_NS >= now && s.at_ns < now)
    }
}

/// One cell of the matrix: packets per second from an RX queue processed on a CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// RX queue.
    pub queue: u16,
    /// CPU.
    pub cpu: u16,
    /// Packets per second processed on their reader's CPU.
    pub local: u32,
    /// Packets per second processed on another CPU of their reader's NUMA node.
    pub near: u32,
    /// Packets per second processed on the other NUMA node (or with no reader).
    pub far: u32,
    /// Of all of them, packets per second that arrived on a queue not their reader's.
    pub wrong_queue: u32,
    /// Of those, packets per second an aRFS filter sent there: re-pointed by another flow
    /// (ice before the fix) or not yet moved after the reader. Drawn so that one such flow
    /// shows at a glance: the ice fix empties them.
    pub by_other_filter: u32,
}

impl Cell {
    /// Packets per second in all.
    pub fn total(&self) -> u32 {
        self.local + self.near + self.far
    }
}

/// Flows counted by what decides their RX queue now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fates {
    /// An aRFS filter sends them to their reader's queue.
    pub own_filter: u32,
    /// An aRFS filter sends them elsewhere (another flow's, or not yet moved).
    pub wrong_filter: u32,
    /// Another exact filter (ntuple, ATR).
    pub other_filter: u32,
    /// The indirection table.
    pub rss: u32,
    /// Their last packet was dropped.
    pub dropped: u32,
}

/// A flow listed for the selected cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellFlow {
    /// Flow index.
    pub flow: u32,
    /// `#f 5-tuple`.
    pub label: String,
    /// Packets per second over the window.
    pub pps: u32,
    /// Processed away from its reader.
    pub remote: bool,
}

/// The queue × CPU picture.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatrixView {
    /// RX queues (rows).
    pub queues: u16,
    /// CPUs (columns).
    pub cpus: u16,
    /// Simulated ms the rates are measured over (0: not yet measurable).
    pub window_ms: u32,
    /// The cells with packets, row by row.
    pub cells: Vec<Cell>,
    /// Per queue: aRFS filters added, re-pointed and expired per second.
    pub arfs: Vec<[u32; 3]>,
    /// Per queue: aRFS filters re-pointed in the last sample (100 ms): what happens now.
    pub arfs_now: Vec<u32>,
    /// `rps_sock_flow_table` writes in the last sample.
    pub sock_writes_now: u64,
    /// Simulated ms of that last sample.
    pub now_ms: u32,
    /// NUMA nodes (CPUs split in equal contiguous blocks).
    pub nodes: u16,
    /// Each queue's NUMA node (its IRQ CPU's).
    pub queue_nodes: Vec<u16>,
    /// Flows by fate.
    pub fates: Fates,
    /// The selected cell and its busiest flows.
    pub selected: Option<(u16, u16)>,
    /// Busiest flows of the selected cell.
    pub selected_flows: Vec<CellFlow>,
    /// The learner changed the host this many simulated ms ago, less than a window: this is
    /// the picture of the last full second before the change, kept while the new one is
    /// measured (flows are drawn where they go now: a window across the change would draw a
    /// second of the old steering where the new one sends them).
    pub measuring_ms: Option<u32>,
}

impl Fates {
    fn count(flows: &[(u32, FlowView)]) -> Fates {
        use steerlab_engine::QueueRule;
        let mut f = Fates::default();
        for (_, v) in flows {
            let slot = match v.rule {
                _ if v.dropped.is_some() => &mut f.dropped,
                QueueRule::Arfs if v.by_wrong_filter() => &mut f.wrong_filter,
                QueueRule::Arfs => &mut f.own_filter,
                QueueRule::Ntuple | QueueRule::Atr => &mut f.other_filter,
                QueueRule::Rss => &mut f.rss,
            };
            *slot += 1;
        }
        f
    }
}

impl Controller {
    /// Before a change of the learner's: keeps the matrix of the last second as it is, to be
    /// shown while the change's first second is measured ([`MatrixView::measuring_ms`]).
    pub(super) fn hold_matrix(&mut self) {
        let flows = super::view::open_flows(&self.sim);
        let view = self.live_matrix(&flows);
        self.matrix_held = (view.window_ms > 0).then(|| (self.sim.now().0, view));
    }

    /// The matrix view now: the one held at the learner's last change while less than a
    /// window has passed since, else the live one.
    pub(super) fn matrix_view(&self, flows: &[(u32, FlowView)]) -> MatrixView {
        let now = self.sim.now().0;
        match &self.matrix_held {
            Some((at, held)) if now >= *at && now - at < WINDOW_NS => MatrixView {
                measuring_ms: Some(((now - at) / 1_000_000) as u32),
                selected: self.matrix_cell,
                ..held.clone()
            },
            _ => self.live_matrix(flows),
        }
    }

    /// Selects a cell of the matrix (or none).
    pub fn select_cell(&mut self, cell: Option<(u16, u16)>) {
        let c = self.sim.config();
        self.matrix_cell = cell.filter(|&(q, cpu)| q < c.rx_queues && cpu < c.cpus);
    }

    /// The matrix view of the host now, from `flows` (the views of every open flow, by id).
    fn live_matrix(&self, flows: &[(u32, FlowView)]) -> MatrixView {
        let c = self.sim.config();
        let (queues, cpus) = (c.rx_queues, c.cpus);
        let now = self.sim.now().0;
        let mut view = MatrixView {
            queues,
            cpus,
            window_ms: 0,
            cells: Vec::new(),
            arfs: Vec::new(),
            arfs_now: Vec::new(),
            sock_writes_now: 0,
            now_ms: 0,
            nodes: c.numa_nodes,
            queue_nodes: (0..queues)
                .map(|q| self.sim.node_of(self.sim.irq_cpu(q).unwrap_or(0)))
                .collect(),
            fates: Fates::count(flows),
            selected: self.matrix_cell,
            selected_flows: Vec::new(),
            measuring_ms: None,
        };
        let Some(start) = self.matrix.window_start(now) else {
            return view;
        };
        let span = now - start.at_ns;
        view.window_ms = (span / 1_000_000) as u32;
        let per_s = |n: u64| (n as f64 * 1e9 / span as f64).round() as u32;
        // Per cell: packets on the reader's CPU, its node, the other node; on a wrong queue.
        let mut grid = vec![[0u64; 5]; usize::from(queues) * usize::from(cpus)];
        let mut listed = Vec::new();
        for &(f, ref v) in flows {
            let before = self.sim.flow_sent_at(f, Nanos(start.at_ns)).unwrap_or(0);
            let n = v.packets.saturating_sub(before);
            if n == 0 || v.dropped.is_some() || v.queue >= queues || v.cpu >= cpus {
                continue;
            }
            let has_reader = v.reader_cpu < cpus;
            let place = match (has_reader, v.away_from_reader()) {
                (true, false) => 0,
                (true, true) if self.sim.node_of(v.reader_cpu) == self.sim.node_of(v.cpu) => 1,
                _ => 2,
            };
            let cell = &mut grid[usize::from(v.queue) * usize::from(cpus) + usize::from(v.cpu)];
            cell[place] += n;
            if has_reader && v.queue != v.reader_queue {
                cell[3] += n;
            }
            if v.by_wrong_filter() {
                cell[4] += n;
            }
            if self.matrix_cell == Some((v.queue, v.cpu)) {
                listed.push((n, f, v.away_from_reader()));
            }
        }
        view.cells = grid
            .iter()
            .enumerate()
            .filter(|(_, c)| c[0] + c[1] + c[2] > 0)
            .map(|(i, c)| Cell {
                queue: (i / usize::from(cpus)) as u16,
                cpu: (i % usize::from(cpus)) as u16,
                local: per_s(c[0]),
                near: per_s(c[1]),
                far: per_s(c[2]),
                wrong_queue: per_s(c[3]),
                by_other_filter: per_s(c[4]),
            })
            .collect();
        let tallies = self.sim.arfs_per_queue();
        view.arfs = (0..usize::from(queues))
            .map(|q| {
                let (t, b) = (
                    tallies.get(q).copied().unwrap_or_default(),
                    start.arfs.get(q).copied().unwrap_or_default(),
                );
                [
                    per_s(t.add.saturating_sub(b.add)),
                    per_s(t.update.saturating_sub(b.update)),
                    per_s(t.expire.saturating_sub(b.expire)),
                ]
            })
            .collect();
        // What happens now: the last sample's re-points and socket-table writes.
        if let Some(last) = self
            .matrix
            .samples
            .back()
            .filter(|l| l.at_ns < now || self.matrix.samples.len() > 1)
        {
            let prev = self.matrix.samples.iter().rev().nth(1).unwrap_or(last);
            view.now_ms = ((last.at_ns - prev.at_ns) / 1_000_000) as u32;
            view.arfs_now = (0..usize::from(queues))
                .map(|q| {
                    let (t, b) = (
                        last.arfs.get(q).copied().unwrap_or_default(),
                        prev.arfs.get(q).copied().unwrap_or_default(),
                    );
                    t.update.saturating_sub(b.update) as u32
                })
                .collect();
            view.sock_writes_now = last.sock_writes.saturating_sub(prev.sock_writes);
        }
        // Busiest first, then by flow id (unique: no ties for an unstable sort to reorder).
        listed.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        view.selected_flows = listed
            .into_iter()
            .take(CELL_FLOWS)
            .filter_map(|(n, f, remote)| {
                Some(CellFlow {
                    flow: f,
                    label: format!("#{f} {}", self.sim.flow_key(f)?),
                    pps: per_s(n),
                    remote,
                })
            })
            .collect();
        view
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// seed 000's host: the cells add up to the packets of the last second, the aRFS strip to
    /// the driver's counters, every flow has one fate, and a selected cell lists its flows.
    #[test]
    fn the_matrix_adds_up_to_the_host() {
        let mut c = Controller::for_lesson("arfs-collision").unwrap();
        c.run_for(Nanos::from_ms(3000));
        let flows = crate::controller::view::open_flows(c.sim());
        let m = c.matrix_view(&flows);
        assert_eq!((m.queues, m.cpus, m.window_ms), (144, 144, 1000));
        let f = m.fates;
        assert_eq!(
            f.own_filter + f.wrong_filter + f.other_filter + f.rss + f.dropped,
            16_384
        );
        assert!(f.wrong_filter > 0, "the old driver sends flows by wrong filters: {f:?}");
        let total: u64 = m.cells.iter().map(|c| u64::from(c.total())).sum();
        // 16,384 flows at 200 packets/s, less the flows whose last packet was dropped.
        assert!(
            (3_000_000..=3_300_000).contains(&total),
            "{total} packets/s in the cells"
        );
        let updates: u64 = m.arfs.iter().map(|a| u64::from(a[1])).sum();
        assert!(updates > 1000, "the update storm shows per queue: {updates}/s");
        let wrong: u64 = m.cells.iter().map(|c| u64::from(c.wrong_queue)).sum();
        assert!(
            wrong > 10_000,
            "packets arriving on a queue not their reader's: {wrong}/s"
        );
        assert!(
            m.arfs_now.iter().any(|&n| n > 0) && m.now_ms == 100,
            "re-points of the last 100 ms"
        );
        let busiest = *m.cells.iter().max_by_key(|c| c.total()).unwrap();
        c.select_cell(Some((busiest.queue, busiest.cpu)));
        let m = c.matrix_view(&flows);
        assert!(!m.selected_flows.is_empty() && m.selected_flows.len() <= CELL_FLOWS);
        assert!(
            m.selected_flows.windows(2).all(|w| w[0].pps >= w[1].pps),
            "busiest first"
        );
        c.select_cell(Some((999, 0)));
        assert_eq!(
            c.matrix_view(&flows).selected,
            None,
            "a cell the host does not have is refused"
        );
    }

    /// A change keeps the last full second's picture while its own first second is measured
    /// (no false clean diagonal); the flows an aRFS filter not their own sends elsewhere are
    /// drawn apart, and the ice fix empties them.
    #[test]
    fn a_change_is_measured_before_it_is_drawn_and_the_fix_shows() {
        let mut c = Controller::for_lesson("arfs-collision").unwrap();
        c.run_for(Nanos::from_ms(3000));
        let other = |c: &Controller| -> u64 {
            let m = c.matrix_view(&crate::controller::view::open_flows(c.sim()));
            m.cells.iter().map(|x| u64::from(x.by_other_filter)).sum()
        };
        let before = other(&c);
        assert!(before > 0, "the old driver's wrong filters are drawn apart");
        let held = c.matrix_view(&crate::controller::view::open_flows(c.sim()));
        c.command("nic driver ice").unwrap();
        c.run_for(Nanos::from_ms(500));
        let m = c.matrix_view(&crate::controller::view::open_flows(c.sim()));
        assert_eq!(m.measuring_ms, Some(500), "said to be measuring");
        assert_eq!(m.cells, held.cells, "the picture of the second before the change");
        c.run_for(Nanos::from_ms(2500));
        let m = c.matrix_view(&crate::controller::view::open_flows(c.sim()));
        assert_eq!(m.measuring_ms, None);
        assert!(
            other(&c) * 20 < before,
            "the fix empties them: {before} -> {}",
            other(&c)
        );
    }
}
