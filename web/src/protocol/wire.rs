//! The wire view of a small host, without the DOM: where each of a few flows' packets goes,
//! flow → NIC rule (an indirection-table cell, or an exact-match filter) → RX queue → CPU, and
//! the packets themselves as dots that travel that route. Dots are spawned from the flows'
//! real packet counts between two views (one dot per `per_dot` packets, chosen so that the
//! screen never floods), so a faster flow sends more dots and a flow that changes queue
//! visibly changes route. `components/wire.rs` draws it.

use steerlab_engine::{DropPoint, FlowView, QueueRule};

/// Most flows drawn one by one; larger hosts are drawn by density (`components/paths.rs`).
pub const MAX_FLOWS: u32 = 64;
/// Most RX queues and CPUs drawn one by one.
pub const MAX_QUEUES: usize = 32;
/// Dots spawned per real second at most (across flows): one dot stands for more packets when
/// the simulation runs faster.
const DOTS_PER_SECOND: f64 = 90.0;
/// Dots alive at most.
const MAX_DOTS: usize = 600;
/// A dot's flight from its flow to the CPU, real ms.
pub const FLIGHT_MS: f64 = 1200.0;

/// One flow as the wire view needs it: the engine's view and where it sits on the page.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WireFlow {
    /// Flow index.
    pub index: u32,
    /// Its indirection-table entry (`hash & (size - 1)`).
    pub reta_index: u32,
    /// Where its packets go now.
    pub view: FlowView,
    /// What it is, in a word: `DNS`, `web`, `udp:5353` (its label beside `#index`).
    pub kind: String,
}

impl WireFlow {
    /// The route point where its packets stop when they are dropped: 1 in the NIC (a filter),
    /// 2 at the queue (ring full, XDP), 3 at the CPU (backlog full, tc in software).
    pub fn stop(&self) -> Option<usize> {
        self.view.dropped.map(|d| match d {
            DropPoint::Nic => 1,
            DropPoint::Ring | DropPoint::Xdp => 2,
            DropPoint::Backlog | DropPoint::Tc => 3,
        })
    }

    /// Processed away from its reader's CPU.
    pub fn remote(&self) -> bool {
        self.view.away_from_reader()
    }
}

/// A small host: its flows, indirection table, queues and CPUs.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WireView {
    /// The flows.
    pub flows: Vec<WireFlow>,
    /// Queue of each indirection-table entry.
    pub reta: Vec<u16>,
    /// RX queues: their IRQ CPU.
    pub queues: Vec<u16>,
    /// RX queues: the thousandths of their packets a full ring drops now (a share of every
    /// flow's: that many of its dots stop at the queue).
    pub ring_drops: Vec<u32>,
    /// CPUs: NUMA node and the threads on it.
    pub cpus: Vec<(u16, Vec<u32>)>,
    /// The marked cell (RX queue, CPU): a matrix click, a prediction's row of "Your host".
    pub cell: Option<(u16, u16)>,
}

/// Where everything is drawn, in CSS pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Canvas size.
    pub width: f64,
    /// Canvas height.
    pub height: f64,
    /// Row pitch of flows, queues and CPUs.
    pub row: f64,
    /// Column x of flows, the table's left edge, queues and CPUs.
    pub flow_x: f64,
    /// Left edge of the indirection table grid.
    pub reta_x: f64,
    /// Cells per row of the grid.
    pub reta_cols: u32,
    /// Cell size.
    pub cell: f64,
    /// Top of the grid.
    pub reta_y: f64,
    /// Centre of the filters box.
    pub filter: (f64, f64),
    /// Queue column x.
    pub queue_x: f64,
    /// CPU column x.
    pub cpu_x: f64,
    /// Top margin (captions).
    pub top: f64,
    /// Extra gap before each NUMA node's first CPU.
    pub node_gap: f64,
}

impl Layout {
    /// Row pitch of flows, queues and CPUs, CSS pixels.
    pub const ROW: f64 = 18.0;
    /// Top of the first row.
    pub const TOP: f64 = 34.0;
    /// Column x of the flows (their labels, `#12 DNS`, are left of it).
    pub const FLOW_X: f64 = 76.0;

    /// The layout of `view` on a canvas `width` CSS pixels wide.
    pub fn new(view: &WireView, width: f64) -> Layout {
        let width = width.max(300.0);
        let (row, top) = (Self::ROW, Self::TOP);
        let nodes = view.cpus.iter().map(|c| c.0).max().map_or(1, |n| n + 1);
        let node_gap = 10.0;
        let reta_cols = if view.reta.len() > 128 { 16 } else { 8 };
        let cell = 9.0;
        let reta_rows = (view.reta.len() as u32).div_ceil(reta_cols);
        let filter_h = 44.0;
        let reta_y = top + filter_h + 22.0;
        let rows = [view.flows.len(), view.queues.len(), view.cpus.len()]
            .into_iter()
            .max()
            .unwrap_or(1) as f64;
        // Room below for the legend line.
        let height =
            (top + rows * row + f64::from(nodes) * node_gap).max(reta_y + f64::from(reta_rows) * cell + 12.0) + 24.0;
        Layout {
            width,
            height,
            row,
            flow_x: Self::FLOW_X,
            reta_x: width * 0.30,
            reta_cols,
            cell,
            reta_y,
            filter: (width * 0.30 + f64::from(reta_cols) * cell / 2.0, top + filter_h / 2.0),
            queue_x: width * 0.62,
            // Right of the CPUs: their threads' names, then the arcs to a remote reader.
            cpu_x: width - 110.0,
            top,
            node_gap,
        }
    }

    /// A flow's dot.
    pub fn flow(&self, i: usize) -> (f64, f64) {
        (self.flow_x, self.top + (i as f64 + 0.5) * self.row)
    }

    /// The flow row at a point (a click), if the point is left of the indirection table:
    /// the inverse of [`Layout::flow`].
    pub fn flow_at(&self, (x, y): (f64, f64)) -> Option<usize> {
        let i = ((y - self.top) / self.row).floor();
        (x < self.reta_x && i >= 0.0).then_some(i as usize)
    }

    /// The centre of indirection-table cell `i`.
    pub fn reta_cell(&self, i: u32) -> (f64, f64) {
        let (col, line) = (i % self.reta_cols, i / self.reta_cols);
        (
            self.reta_x + (f64::from(col) + 0.5) * self.cell,
            self.reta_y + (f64::from(line) + 0.5) * self.cell,
        )
    }

    /// RX queue `q`.
    pub fn queue(&self, q: u16) -> (f64, f64) {
        (self.queue_x, self.top + (f64::from(q) + 0.5) * self.row)
    }

    /// CPU `c` of NUMA node `node`.
    pub fn cpu(&self, c: u16, node: u16) -> (f64, f64) {
        (
            self.cpu_x,
            self.top + (f64::from(c) + 0.5) * self.row + f64::from(node) * self.node_gap,
        )
    }

    /// The route of flow `f`'s packets now: flow, rule (table cell or filters box), queue, CPU.
    pub fn route(&self, view: &WireView, i: usize) -> [(f64, f64); 4] {
        let f = &view.flows[i];
        // An offloaded tc filter drops in the NIC's filter stage, before RSS.
        let rule = match (f.view.rule, f.view.dropped) {
            (QueueRule::Rss, d) if d != Some(DropPoint::Nic) => self.reta_cell(f.reta_index),
            _ => self.filter,
        };
        let node = view.cpus.get(usize::from(f.view.cpu)).map_or(0, |c| c.0);
        [self.flow(i), rule, self.queue(f.view.queue), self.cpu(f.view.cpu, node)]
    }
}

/// Half the width of a queue's box, CSS px (components/wire.rs draws it 48 wide).
const QUEUE_HALF: f64 = 25.0;
/// Half the width of a CPU's box (44 wide).
const CPU_HALF: f64 = 23.0;

/// One packet dot in flight.
#[derive(Clone, Debug, PartialEq)]
pub struct Dot {
    /// Its route (flow, rule, queue, CPU).
    pub route: [(f64, f64); 4],
    /// Real ms when it left its flow.
    pub born: f64,
    /// Colour index (its queue).
    pub colour: u16,
    /// Processed away from its reader: drawn in the warning colour on its last leg.
    pub remote: bool,
    /// Dropped at this route point: the dot stops there (and turns black).
    pub stop: Option<usize>,
}

impl Dot {
    /// Where it is at real time `now` (ms); `None` once it has arrived.
    pub fn at(&self, now: f64) -> Option<((f64, f64), Stage)> {
        let t = (now - self.born) / FLIGHT_MS;
        if !(0.0..1.0).contains(&t) {
            return None;
        }
        // Three legs of equal time: to the rule, to the queue, to the CPU.
        let leg = ((t * 3.0) as usize).min(2);
        if let Some(stop) = self.stop.filter(|&s| s <= leg) {
            return Some((self.route[stop], Stage::Dropped));
        }
        let u = t * 3.0 - leg as f64;
        let (mut a, mut b) = (self.route[leg], self.route[leg + 1]);
        // Dots go round the queue's and the CPU's boxes, never over their names: a leg ends
        // at a box's left edge and the next starts at its right edge.
        match leg {
            1 => b.0 -= QUEUE_HALF,
            2 => (a.0, b.0) = (a.0 + QUEUE_HALF, b.0 - CPU_HALF),
            _ => {}
        }
        let stage = if leg == 2 { Stage::LastLeg } else { Stage::Flying };
        Some(((a.0 + (b.0 - a.0) * u, a.1 + (b.1 - a.1) * u), stage))
    }
}

/// Where a dot is on its way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Before the queue→CPU leg.
    Flying,
    /// On its way to the processing CPU.
    LastLeg,
    /// Stopped where it was dropped.
    Dropped,
}

/// The dots in flight and what is needed to spawn the next ones.
#[derive(Clone, Debug, Default)]
pub struct Flight {
    /// Dots in flight, oldest first.
    pub dots: Vec<Dot>,
    /// Packets per flow at the last update.
    last: Vec<u64>,
    /// Packets per flow not yet shown as a dot.
    owed: Vec<u64>,
    /// Per flow, thousandths of a dot dropped at its queue's full ring not yet drawn.
    drop_owed: Vec<u32>,
    /// Real ms of the last update.
    last_ms: Option<f64>,
    /// Packets per real second, smoothed.
    rate: f64,
    /// Packets one dot stands for.
    pub per_dot: u64,
}

impl Flight {
    /// Spawns dots for the packets the flows sent since the last update (spread over the real
    /// time between the two updates) and drops the dots that arrived.
    pub fn update(&mut self, view: &WireView, layout: &Layout, now: f64) {
        self.dots.retain(|d| now - d.born < FLIGHT_MS);
        let n = view.flows.len();
        if self.last.len() != n || view.flows.iter().zip(&self.last).any(|(f, &l)| f.view.packets < l) {
            // Another host (reset, lesson switch): start counting afresh.
            self.last = view.flows.iter().map(|f| f.view.packets).collect();
            self.owed = vec![0; n];
            self.drop_owed = vec![0; n];
            self.last_ms = Some(now);
            return;
        }
        let dt = self.last_ms.map_or(0.0, |t| (now - t).max(0.0));
        self.last_ms = Some(now);
        let sent: u64 = view
            .flows
            .iter()
            .zip(&self.last)
            .map(|(f, &l)| f.view.packets - l)
            .sum();
        if dt > 0.0 {
            let rate = sent as f64 * 1000.0 / dt;
            self.rate = if self.rate == 0.0 {
                rate
            } else {
                0.8 * self.rate + 0.2 * rate
            };
        }
        self.per_dot = nice(self.rate / DOTS_PER_SECOND);
        for (i, f) in view.flows.iter().enumerate() {
            self.owed[i] += f.view.packets - self.last[i];
            self.last[i] = f.view.packets;
            let k = (self.owed[i] / self.per_dot).min(4);
            self.owed[i] -= k * self.per_dot;
            let route = layout.route(view, i);
            for j in 0..k {
                if self.dots.len() >= MAX_DOTS {
                    self.owed[i] = 0;
                    break;
                }
                // Spread over the interval, oldest first, so bursts do not clump.
                let born = now - dt * (k - j) as f64 / (k + 1) as f64;
                // A flow that loses a share at its queue's ring: that share of its dots stop
                // there.
                let owed = &mut self.drop_owed[i];
                *owed += view.ring_drops.get(usize::from(f.view.queue)).copied().unwrap_or(0);
                let stop = if f.stop().is_none() && *owed >= 1000 {
                    *owed -= 1000;
                    Some(2)
                } else {
                    f.stop()
                };
                self.dots.push(Dot {
                    route,
                    born,
                    colour: f.view.queue,
                    remote: f.remote(),
                    stop,
                });
            }
        }
    }
}

/// The smallest 1-2-5 number at least `x` (and at least 1): a dot stands for a round number
/// of packets.
pub fn nice(x: f64) -> u64 {
    let mut step = 1u64;
    loop {
        for m in [1, 2, 5] {
            if (step * m) as f64 >= x {
                return step * m;
            }
        }
        step = step.saturating_mul(10);
        if step >= u64::MAX / 10 {
            return step;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(packets: &[u64]) -> WireView {
        WireView {
            flows: packets
                .iter()
                .enumerate()
                .map(|(i, &p)| {
                    let rule = if i == 1 { QueueRule::Arfs } else { QueueRule::Rss };
                    let view = FlowView {
                        queue: i as u16 % 4,
                        cpu: 2,
                        reader_cpu: 1,
                        reader_queue: 1,
                        hash: 0,
                        rule,
                        rule_queue: i as u16 % 4,
                        packets: p,
                        dropped: None,
                    };
                    WireFlow {
                        index: i as u32,
                        reta_index: i as u32 * 3,
                        view,
                        kind: String::new(),
                    }
                })
                .collect(),
            reta: (0..128).map(|i| i % 4).collect(),
            queues: vec![0, 1, 2, 3],
            ring_drops: vec![0; 4],
            cpus: (0..4).map(|c| (c / 2, vec![])).collect(),
            cell: None,
        }
    }

    #[test]
    fn routes_go_through_the_rule_that_picks_the_queue() {
        let v = view(&[0, 0, 0]);
        let l = Layout::new(&v, 800.0);
        let rss = l.route(&v, 0);
        assert_eq!(rss[1], l.reta_cell(0), "RSS: through the flow's table cell");
        assert_eq!(l.route(&v, 1)[1], l.filter, "aRFS: through the filters, not the table");
        assert_eq!(rss[3], l.cpu(2, 1), "to the processing CPU, node 1 below its gap");
        assert!(l.cpu(2, 1).1 > l.cpu(1, 0).1 + l.row);
        assert!(l.height >= l.cpu(3, 1).1);
    }

    #[test]
    fn a_click_on_a_flow_row_finds_that_flow() {
        let v = view(&[0, 0, 0]);
        let l = Layout::new(&v, 800.0);
        for i in 0..3 {
            assert_eq!(l.flow_at(l.flow(i)), Some(i));
        }
        assert_eq!(l.flow_at((l.flow_x, l.top - 1.0)), None, "above the rows");
        assert_eq!(l.flow_at(l.reta_cell(0)), None, "on the table, not a flow");
    }

    #[test]
    fn dots_follow_packet_counts_and_arrive() {
        let l = Layout::new(&view(&[0, 0, 0]), 800.0);
        let mut flight = Flight::default();
        flight.update(&view(&[0, 0, 0]), &l, 0.0);
        assert!(flight.dots.is_empty());
        // 30 packets in 100 ms: 300 pps, about 3.3 packets per dot at 90 dots/s -> 5.
        flight.update(&view(&[10, 0, 20]), &l, 100.0);
        assert_eq!(flight.per_dot, 5);
        assert_eq!(flight.dots.len(), 2 + 4, "10/5 and 20/5");
        assert!(
            flight.dots.iter().all(|d| d.remote),
            "processed on CPU 2, read on CPU 1"
        );
        let d = &flight.dots[0];
        let (p, stage) = d.at(d.born + 1.0).unwrap();
        assert!(
            stage == Stage::Flying && (p.0 - d.route[0].0).abs() < 5.0,
            "just left its flow"
        );
        assert_eq!(d.at(d.born + FLIGHT_MS * 0.9).unwrap().1, Stage::LastLeg);
        assert!(d.at(d.born + FLIGHT_MS).is_none(), "arrived");
        // A packet dropped in the NIC stops at the filter.
        let dropped = Dot {
            stop: Some(1),
            ..d.clone()
        };
        assert_eq!(dropped.at(d.born + FLIGHT_MS * 0.5), Some((d.route[1], Stage::Dropped)));
        assert_eq!(dropped.at(d.born + FLIGHT_MS * 0.2).unwrap().1, Stage::Flying);
        flight.update(&view(&[10, 0, 20]), &l, 100.0 + FLIGHT_MS * 2.0);
        assert!(flight.dots.is_empty(), "arrived dots are dropped");
        // A reset (counts go down) starts afresh without a burst.
        flight.update(&view(&[0, 0, 1]), &l, 5000.0);
        assert!(flight.dots.is_empty());
    }

    /// A queue whose full ring drops 40 % of its packets: 40 % of each of its flows' dots stop
    /// at the queue (the others go on), the other queues' none.
    #[test]
    fn a_share_of_a_full_rings_dots_stop_at_the_queue() {
        let mut v = view(&[0, 0]);
        v.ring_drops = vec![400, 0, 0, 0];
        let l = Layout::new(&v, 800.0);
        let mut flight = Flight::default();
        flight.update(&v, &l, 0.0);
        for step in 1..=50u64 {
            let mut now = view(&[20 * step, 20 * step]);
            now.ring_drops = v.ring_drops.clone();
            flight.update(&now, &l, step as f64 * 100.0);
        }
        let stopped = |q: u16| {
            flight
                .dots
                .iter()
                .filter(|d| d.colour == q && d.stop == Some(2))
                .count()
        };
        let all = |q: u16| flight.dots.iter().filter(|d| d.colour == q).count();
        assert!(
            all(0) > 5 && stopped(0) * 10 >= all(0) * 3 && stopped(0) * 10 <= all(0) * 5,
            "{} of {}",
            stopped(0),
            all(0)
        );
        assert_eq!(stopped(1), 0);
    }

    #[test]
    fn a_fast_run_never_floods_the_screen() {
        let l = Layout::new(&view(&[0; 64]), 800.0);
        let mut flight = Flight::default();
        let mut packets = 0;
        for frame in 0..200 {
            packets += 1_000_000;
            flight.update(&view(&[packets; 64]), &l, f64::from(frame) * 16.0);
            // The dots in flight follow the dot rate (not the packet rate), well below the cap.
            let steady = DOTS_PER_SECOND * FLIGHT_MS / 1000.0;
            assert!(
                (flight.dots.len() as f64) <= 2.0 * steady,
                "{} dots in flight",
                flight.dots.len()
            );
        }
        assert!(
            flight.per_dot >= 100_000,
            "one dot stands for many packets: {}",
            flight.per_dot
        );
    }

    #[test]
    fn nice_numbers() {
        assert_eq!(
            [0.2, 1.0, 1.5, 3.0, 7.0, 11.0, 4999.0].map(nice),
            [1, 1, 2, 5, 10, 20, 5000]
        );
    }
}
