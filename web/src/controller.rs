//! The page's model of the running sandbox: the engine plus playback state, with no Yew or DOM
//! code, so that it is tested natively. Components send it actions and render its [`ViewModel`].

use core::net::IpAddr;

use steerlab_engine::{FlowKey, FlowSpec, Nanos, Proto, Sim};
use steerlab_scenario::Scenario;

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
    /// Flows whose packets arrive on this queue now.
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
    /// Packets processed on their reader's CPU.
    pub local: u64,
    /// Packets processed elsewhere.
    pub remote: u64,
    /// aRFS filter updates.
    pub arfs_update: u64,
    /// Digest of the run so far.
    pub digest: String,
}

/// The sandbox: a scenario's host and its playback.
pub struct Controller {
    scenario: Scenario,
    sim: Sim,
    playing: bool,
}

/// The lesson the page opens on.
pub const DEFAULT_LESSON: &str = "rss-basics";

impl Controller {
    /// The default lesson's host at time 0.
    pub fn new_default() -> Controller {
        Controller::for_lesson(DEFAULT_LESSON).expect("the built-in default lesson is valid")
    }

    /// A built-in lesson's host at time 0.
    pub fn for_lesson(id: &str) -> Result<Controller, String> {
        let text = steerlab_scenario::lesson(id).ok_or_else(|| format!("no lesson {id:?}"))?;
        let scenario = steerlab_scenario::parse(text, &[]).map_err(|e| e.to_string())?;
        let sim = scenario.build().map_err(|e| e.to_string())?;
        Ok(Controller { scenario, sim, playing: true })
    }

    /// Adds the flow described by `form` at 1,000 packets per second, read by one of the
    /// host's threads (round robin).
    pub fn add_flow(&mut self, form: &FlowForm) -> Result<(), String> {
        let key = form.parse()?;
        let threads = self.sim.thread_count();
        let readers = if threads == 0 { Vec::new() } else { vec![self.sim.flow_count() % threads] };
        self.sim.add_flow(FlowSpec { key, rate_pps: 1000, bytes: 1500, readers, tx: None }).map_err(|e| e.to_string())?;
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
        self.run_for(FRAME_NS);
    }

    /// Advances simulated time by `d`, applying the scenario's timeline on the way.
    pub fn run_for(&mut self, d: Nanos) {
        let until = self.sim.now().saturating_add(d);
        if let Err(e) = self.scenario.run_from(&mut self.sim, until) {
            gloo_console_error(&e.to_string());
        }
    }

    /// The view of the current state.
    pub fn view(&self) -> ViewModel {
        let snap = self.sim.snapshot();
        let mut flows = vec![0u32; snap.queues.len()];
        for f in 0..self.sim.flow_count() {
            if let Some(q) = self.sim.flow_queue_now(f) {
                flows[usize::from(q)] += 1;
            }
        }
        let queues = snap
            .queues
            .iter()
            .enumerate()
            .map(|(i, q)| QueueView { index: i as u16, packets: q.packets, flows: flows[i] })
            .collect();
        ViewModel {
            sim_time: snap.now.to_string(),
            flow_count: snap.flows,
            queues,
            playing: self.playing,
            local: snap.counters.local,
            remote: snap.counters.remote,
            arfs_update: snap.arfs.update,
            digest: snap.digest.hex(),
        }
    }
}

/// Logs to the browser console (a no-op natively).
fn gloo_console_error(msg: &str) {
    #[cfg(target_arch = "wasm32")]
    gloo::console::error!(msg.to_string());
    #[cfg(not(target_arch = "wasm32"))]
    let _ = msg;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_lesson_runs_and_counts_every_packet() {
        let mut c = Controller::new_default();
        assert_eq!(c.view().flow_count, 13);
        for _ in 0..100 {
            c.frame();
        }
        let v = c.view();
        assert_eq!(v.sim_time, "1.000s");
        // 12 flows at 2,000 pps and one elephant at 40,000 pps for one second.
        assert_eq!(v.queues.iter().map(|q| q.packets).sum::<u64>(), 64_000);
        assert_eq!(v.queues.iter().map(|q| q.flows).sum::<u32>(), 13);
    }

    #[test]
    fn bad_form_names_the_field_and_changes_nothing() {
        let mut c = Controller::new_default();
        let form = FlowForm { src: "10.0.0.1".into(), dst: "nope".into(), sport: "1".into(), dport: "2".into(), proto: "tcp".into() };
        let err = c.add_flow(&form).unwrap_err();
        assert!(err.starts_with("destination:"), "{err}");
        assert_eq!(c.view().flow_count, 13);
        let form = FlowForm { dst: "::1".into(), ..form };
        assert!(c.add_flow(&form).unwrap_err().contains("both be IPv4"));
    }
}
