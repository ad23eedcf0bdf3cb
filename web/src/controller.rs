//! The page's model of the running sandbox: the engine plus playback state, with no Yew or DOM
//! code, so that it is tested natively. Components send it actions and render its [`ViewModel`].

use core::net::IpAddr;

use steerlab_engine::{FlowKey, Nanos, Proto, Sim};

/// Simulated time advanced per animation frame at speed 1 (the engine decides results by
/// simulated time only, so the frame rate never changes them).
pub const FRAME_NS: Nanos = Nanos::from_ms(10);

/// The flow form's fields as typed by the learner.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowForm {
    /// Source address.
    pub src: String,
    /// Destination address.
    pub dst: String,
    /// Source port.
    pub sport: String,
    /// Destination port.
    pub dport: String,
    /// `tcp` or `udp`.
    pub proto: String,
}

impl FlowForm {
    /// Validates the form into a flow key, naming the first bad field.
    pub fn parse(&self) -> Result<FlowKey, String> {
        let ip = |name: &str, text: &str| -> Result<IpAddr, String> {
            text.trim().parse().map_err(|_| format!("{name}: {text:?} is not an IPv4 or IPv6 address"))
        };
        let port = |name: &str, text: &str| -> Result<u16, String> {
            text.trim().parse().map_err(|_| format!("{name}: {text:?} is not a port (0-65535)"))
        };
        let proto = match self.proto.as_str() {
            "tcp" | "" => Proto::Tcp,
            "udp" => Proto::Udp,
            other => return Err(format!("protocol: {other:?} is not tcp or udp")),
        };
        let src = ip("source", &self.src)?;
        let dst = ip("destination", &self.dst)?;
        let sport = port("source port", &self.sport)?;
        let dport = port("destination port", &self.dport)?;
        FlowKey::new(src, dst, sport, dport, proto).map_err(|e| e.to_string())
    }
}

/// One RX queue as drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueView {
    /// Queue index.
    pub index: u16,
    /// Packets received so far.
    pub packets: u64,
    /// Flows the indirection table sends to this queue.
    pub flows: u32,
}

/// Everything the page shows, derived from the engine's snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewModel {
    /// Simulated time, e.g. `1.250s`.
    pub sim_time: String,
    /// Number of flows.
    pub flow_count: u32,
    /// The RX queues.
    pub queues: Vec<QueueView>,
    /// Whether time is running.
    pub playing: bool,
}

/// The sandbox: a simulated host and its playback.
pub struct Controller {
    sim: Sim,
    playing: bool,
}

impl Controller {
    /// The default scenario: a 4-queue NIC receiving four TCP flows (the first four published
    /// Toeplitz verification tuples).
    pub fn new_default() -> Controller {
        let mut sim = Sim::new(4).expect("4 queues are in range");
        for v in steerlab_engine::toeplitz::VERIFICATION_VECTORS.iter().take(4) {
            let key = FlowKey::new(
                v.src.parse().expect("published address"),
                v.dst.parse().expect("published address"),
                v.sport,
                v.dport,
                Proto::Tcp,
            )
            .expect("same family");
            sim.add_flow(key, 1000).expect("rate in range");
        }
        Controller { sim, playing: true }
    }

    /// Adds the flow described by `form` at 1,000 packets per second.
    pub fn add_flow(&mut self, form: &FlowForm) -> Result<(), String> {
        let key = form.parse()?;
        self.sim.add_flow(key, 1000).map_err(|e| e.to_string())?;
        Ok(())
    }

    /// Starts or stops time.
    pub fn set_playing(&mut self, playing: bool) {
        self.playing = playing;
    }

    /// One animation frame: advances simulated time by [`FRAME_NS`] when playing.
    pub fn frame(&mut self) {
        if self.playing {
            self.step();
        }
    }

    /// Advances simulated time by one frame's worth, playing or not.
    pub fn step(&mut self) {
        let now = self.sim.snapshot().now;
        self.sim.advance_to(now.saturating_add(FRAME_NS));
    }

    /// The view of the current state.
    pub fn view(&self) -> ViewModel {
        let snap = self.sim.snapshot();
        let queues = snap
            .rx_packets
            .iter()
            .enumerate()
            .map(|(i, &packets)| QueueView {
                index: i as u16,
                packets,
                flows: snap.flow_queues.iter().filter(|&&q| usize::from(q) == i).count() as u32,
            })
            .collect();
        ViewModel { sim_time: snap.now.to_string(), flow_count: snap.flows, queues, playing: self.playing }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_scenario_spreads_four_flows_and_counts_packets() {
        let mut c = Controller::new_default();
        assert_eq!(c.view().flow_count, 4);
        for _ in 0..100 {
            c.frame();
        }
        let v = c.view();
        assert_eq!(v.sim_time, "1.000s");
        assert_eq!(v.queues.iter().map(|q| q.packets).sum::<u64>(), 4000);
        // The published hashes 0x51ccc178, 0xc626b0ea, 0x5c2b394a, 0xafc7327f index the default
        // 128-entry table of a 4-queue NIC at queues 0, 2, 2, 3 (kernel-semantics.md §1.3).
        let flows: Vec<u32> = v.queues.iter().map(|q| q.flows).collect();
        assert_eq!(flows, [1, 0, 2, 1]);
    }

    #[test]
    fn bad_form_names_the_field_and_changes_nothing() {
        let mut c = Controller::new_default();
        let form = FlowForm { src: "10.0.0.1".into(), dst: "nope".into(), sport: "1".into(), dport: "2".into(), proto: "tcp".into() };
        let err = c.add_flow(&form).unwrap_err();
        assert!(err.starts_with("destination:"), "{err}");
        assert_eq!(c.view().flow_count, 4);
        let form = FlowForm { dst: "::1".into(), ..form };
        assert!(c.add_flow(&form).unwrap_err().contains("both be IPv4"));
    }
}
