//! The sandbox's model, without Yew or DOM code, so that it is tested natively. It runs in
//! the Web Worker (`crate::worker`): the page sends it [`Action`]s and renders the
//! [`ViewModel`]s it answers with.
//!
//! - [`Controller`] (this file) is one host: the engine, the scenario's timeline, the
//!   learner's commands (every control applies the console command a learner would type),
//!   the lesson's step.
//! - `history`: sampled reports, engine snapshots, stepping back and the goal check.
//! - `lesson`: the learner's way through the lesson: current step, goal undone, evidence.
//! - `matrix`: the queue × CPU picture of a big host.
//! - `restore`: permalinks and their restore a slice at a time.
//! - `console`: the console's log and recall.
//! - `view`: the snapshot the page draws.
//! - `pacer`: wall-clock time to simulated time, for every playback speed.
//! - `session`: the worker's state (one host, or two in the compare view) driven by `Action`.
//! - `action`: the messages between page and worker.
#![forbid(unsafe_code)]

mod action;
mod console;
mod evidence;
pub mod frame;
mod history;
#[cfg(all(any(test, feature = "learner"), not(target_arch = "wasm32")))]
pub mod learner;
mod lesson;
mod matrix;
mod pacer;
mod pictures;
mod restore;
mod session;
mod texts;
mod view;

use std::net::IpAddr;

use serde::{Deserialize, Serialize};
use steerlab_engine::{FlowKey, Nanos, Proto, Sim};
use steerlab_scenario::permalink::{Applied, Source};
use steerlab_scenario::Scenario;

pub use action::{decode, encode, Action, Event, HostId, Origin, SessionView, ToPage};
pub use console::{ConsoleLine, ConsoleLog, ConsoleView};
pub use evidence::{ratio_text, EvidenceView, Trend};
pub use history::{History, SAMPLE_NS};
pub use lesson::{ChallengeView, CompleteView, PredictView, Progress};
pub use matrix::{Cell, CellFlow, Fates, MatrixView};
pub use pacer::{Pacer, SPEEDS};
pub use pictures::{FlowKind, TcEnd, TcFilterView, TcPicture, TxPicture, TxSender};
pub use session::{Next, Session, FLOWS_PER_SLICE};
pub use view::{
    driver_names, CpuView, Figures, FilterRow, LessonView, QueueView, RfsView, Series, StepView, TableRow, ThreadView,
    ViewModel, XdpView, XpsRow, FILTER_WINDOW,
};

use restore::Restore;

/// Most commands a permalink may carry (each is replayed on load).
const MAX_LINK_COMMANDS: usize = 2000;
/// The most replay work a link may ask of a page, in flow-ticks (a tick of a host costs
/// about its flows plus [`TICK_OVERHEAD`]): a bound on links made by hand, about ten
/// minutes of engine time. Links the page makes stop where replaying cost it
/// [`history::LINK_BUDGET_MS`] of its own engine time ([`Controller::link_limit`]).
const MAX_LINK_WORK: u64 = 5_000_000_000;
/// A tick's fixed work in flow-ticks (timers, every CPU's backlog, the samples), for
/// [`MAX_LINK_WORK`].
const TICK_OVERHEAD: u64 = 256;

/// The lesson the page opens on.
pub const DEFAULT_LESSON: &str = "rss-basics";

/// The flow form's fields as typed by the learner.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Every field's error, by the `data-testid` of its input (empty: the fields are each
    /// valid; the key as a whole may still be refused, e.g. IPv4 to IPv6): what the form
    /// shows beside each field.
    pub fn field_errors(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        for (id, name, text) in [
            ("flow-src", "source", &self.src),
            ("flow-dst", "destination", &self.dst),
        ] {
            if text.trim().parse::<IpAddr>().is_err() {
                let what = if text.trim().is_empty() {
                    "empty".to_string()
                } else {
                    format!("{:?} is not", text.trim())
                };
                out.push((
                    id,
                    format!("{name}: {what} an IPv4 or IPv6 address, e.g. 10.0.0.1 or fd00::1")
                        .replace("empty an", "empty: type an"),
                ));
            }
        }
        for (id, name, text) in [
            ("flow-sport", "source port", &self.sport),
            ("flow-dport", "destination port", &self.dport),
        ] {
            if text.trim().parse::<u16>().is_err() {
                let what = if text.trim().is_empty() {
                    "empty: type".to_string()
                } else {
                    format!("{:?} is not", text.trim())
                };
                out.push((id, format!("{name}: {what} a port number, 0 to 65535")));
            }
        }
        out
    }

    /// Validates the form into a flow key, naming the first bad field.
    pub fn parse(&self) -> Result<FlowKey, String> {
        let ip = |name: &str, text: &str| -> Result<IpAddr, String> {
            text.trim()
                .parse()
                .map_err(|_| format!("{name}: {text:?} is not an IPv4 or IPv6 address"))
        };
        let port = |name: &str, text: &str| -> Result<u16, String> {
            text.trim()
                .parse()
                .map_err(|_| format!("{name}: {text:?} is not a port (0-65535)"))
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

/// `flow add` syntax of a key (IPv6 addresses in brackets before a port).
fn flow_command(key: &FlowKey, readers: &[u32]) -> String {
    let ep = |ip: IpAddr, p: u16| match ip {
        IpAddr::V4(a) => format!("{a}:{p}"),
        IpAddr::V6(a) => format!("[{a}]:{p}"),
    };
    let proto = if key.proto() == Proto::Udp { "udp" } else { "tcp" };
    let mut cmd = format!(
        "flow add {proto} {} {} rate 1000",
        ep(key.src(), key.sport()),
        ep(key.dst(), key.dport())
    );
    if !readers.is_empty() {
        let r: Vec<String> = readers.iter().map(u32::to_string).collect();
        cmd.push_str(&format!(" readers {}", r.join(",")));
    }
    cmd
}

/// What a host keeps of its past (the memory test's measure, `web/tests/memory.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// Report samples.
    pub samples: usize,
    /// Engine snapshots.
    pub snapshots: usize,
    /// Console lines.
    pub console: usize,
    /// The host matrix's samples.
    pub matrix: usize,
    /// The learner's commands (a permalink replays them).
    pub commands: usize,
}

impl Footprint {
    /// The parts that stay the same size once a class has run a while: samples, snapshots,
    /// the matrix's samples.
    pub fn bounded(&self) -> (usize, usize, usize) {
        (self.samples, self.snapshots, self.matrix)
    }
}

/// A command that succeeded, for the embedding page (`steerlab:event`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Done {
    /// `flow-added`, `flow-closed`, `thread-migrated` or `command`.
    pub kind: &'static str,
    /// The command.
    pub command: String,
    /// What it printed.
    pub output: String,
}

/// One host: a scenario's engine, its timeline and the learner's session on it.
pub struct Controller {
    source: Source,
    /// The scenario's JSON as it was loaded (a lesson's file, or the uploaded or embedded
    /// text): what the download gives, and what loads back to the same host.
    scenario_json: std::rc::Rc<str>,
    scenario: Scenario,
    /// Commands the learner applied, with their simulated time (for permalinks and replay).
    applied: Vec<Applied>,
    sim: Sim,
    /// Time runs for this host (a restore runs whatever this says, and stops paused).
    playing: bool,
    history: History,
    progress: Progress,
    console: ConsoleLog,
    traced: u32,
    /// Commands that succeeded and are not yet reported to an embedding page.
    done: Vec<Done>,
    /// RX queue of the RFS table panel.
    rfs_queue: u16,
    /// First row of the aRFS table's scroll window.
    filters_first: u32,
    /// A permalink being restored, a slice at a time.
    restoring: Option<Restore>,
    /// Recent per-flow and per-queue samples for the host matrix.
    matrix: matrix::MatrixHistory,
    /// The host matrix's selected cell (RX queue, CPU).
    matrix_cell: Option<(u16, u16)>,
    /// Why the last restore stopped early (a link command the host refused).
    link_error: Option<String>,
}

impl Controller {
    /// The default lesson's host at time 0.
    pub fn new_default() -> Controller {
        Controller::for_lesson(DEFAULT_LESSON).expect("the built-in default lesson is valid")
    }

    /// A built-in lesson's host at time 0.
    pub fn for_lesson(id: &str) -> Result<Controller, String> {
        let text = steerlab_scenario::lesson(id).ok_or_else(|| {
            let ids: Vec<&str> = steerlab_scenario::lesson_ids().collect();
            format!("no lesson {id:?} (lessons: {})", ids.join(", "))
        })?;
        let scenario = steerlab_scenario::parse(text, &[]).map_err(|e| e.to_string())?;
        Controller::for_scenario(scenario, Source::Lesson(id.to_string()))
    }

    /// A scenario's host at time 0.
    pub fn for_scenario(scenario: Scenario, source: Source) -> Result<Controller, String> {
        let sim = scenario.build().map_err(|e| e.to_string())?;
        let scenario_json = match &source {
            Source::Lesson(id) => steerlab_scenario::lesson(id).unwrap_or_default(),
            Source::Scenario(text) => text,
        }
        .into();
        Ok(Controller {
            source,
            scenario_json,
            applied: Vec::new(),
            history: History::start(&scenario, &sim),
            progress: Progress::start(&scenario.lesson),
            matrix: {
                let mut m = matrix::MatrixHistory::default();
                m.sample(&sim);
                m
            },
            matrix_cell: None,
            scenario,
            sim,
            playing: true,
            console: ConsoleLog::default(),
            traced: 0,
            done: Vec::new(),
            rfs_queue: 0,
            filters_first: 0,
            restoring: None,
            link_error: None,
        })
    }

    /// An uploaded or embedded scenario's host at time 0.
    pub fn for_text(text: &str) -> Result<Controller, String> {
        let scenario = steerlab_scenario::parse(text, &[]).map_err(|e| format!("scenario: {e}"))?;
        Controller::for_scenario(scenario, Source::Scenario(text.to_string()))
    }

    /// The console's last line (what a command just answered).
    pub fn last_console_line(&self) -> Option<&ConsoleLine> {
        self.console.lines().last()
    }

    /// The scenario being run.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The scenario's JSON as loaded.
    pub fn scenario_json(&self) -> &str {
        &self.scenario_json
    }

    /// How many commands the learner applied (a permalink names each).
    pub fn applied_count(&self) -> usize {
        self.applied.len()
    }

    /// The engine (read only: changes go through [`Controller::command`]).
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// The scenario's suggested length.
    pub fn duration(&self) -> Nanos {
        Nanos::from_ms(self.scenario.sim.duration_ms)
    }

    /// What this host keeps of its past now.
    pub fn footprint(&self) -> Footprint {
        Footprint {
            samples: self.history.samples().len(),
            snapshots: self.history.snapshots(),
            console: self.console.lines().count(),
            matrix: self.matrix.len(),
            commands: self.applied.len(),
        }
    }

    /// Back to the scenario's start (same seed: the same run again); the console stays.
    pub fn reset(&mut self) {
        if let Ok(c) = Controller::for_scenario(self.scenario.clone(), self.source.clone()) {
            let (console, playing) = (std::mem::take(&mut self.console), self.playing);
            *self = c;
            (self.console, self.playing) = (console, playing);
        }
    }

    /// Runs a console command, records it, and returns its result. A refused command changes
    /// nothing (the console layer guarantees it).
    pub fn command(&mut self, line: &str) -> Result<String, String> {
        let line = line.trim();
        if line.is_empty() {
            return Ok(String::new());
        }
        if let Some(p) = self.restore_progress() {
            let e = format!(
                "restoring the shared state ({}.{} %): wait for it to finish",
                p / 10,
                p % 10
            );
            self.console.note(line, Err(e.clone()), self.sim.now().0);
            return Err(e);
        }
        self.apply(line)
    }

    /// Applies a console line now (between ticks) and records it for permalinks and replay.
    fn apply(&mut self, line: &str) -> Result<String, String> {
        self.finish_tick();
        let (out, kind) = match steerlab_console::run(&mut self.sim, line) {
            Ok((output, kind)) => (Ok(output), kind),
            Err(e) => (Err(e), steerlab_console::Kind::Command),
        };
        if let Ok(output) = &out {
            self.applied.push(Applied {
                at_ns: self.sim.now().0,
                command: line.to_string(),
            });
            let (lesson, samples) = (&self.scenario.lesson, self.history.samples());
            self.progress.command(lesson, line, self.sim.now().0, samples);
            self.progress.track_step(lesson, samples);
            self.done.push(Done {
                kind: kind.name(),
                command: line.to_string(),
                output: output.clone(),
            });
        }
        self.console.record(line, out.clone(), self.sim.now().0);
        if out.is_ok() && !self.playing && self.restoring.is_none() {
            self.console
                .remark("time is paused: press Play to see what this changes (what it printed is the host now)");
        }
        out
    }

    /// Takes the commands that succeeded since the last call.
    pub fn take_done(&mut self) -> Vec<Done> {
        std::mem::take(&mut self.done)
    }

    /// Adds the flow described by `form` at 1,000 packets per second, read by one of the
    /// host's threads (round robin), through `flow add`.
    pub fn add_flow(&mut self, form: &FlowForm) -> Result<(), String> {
        let key = form.parse()?;
        let threads = self.sim.thread_count();
        let readers = if threads == 0 {
            Vec::new()
        } else {
            vec![self.sim.flow_count() % threads]
        };
        self.command(&flow_command(&key, &readers)).map(drop)
    }

    /// Starts or stops time.
    pub fn set_playing(&mut self, playing: bool) {
        // A restore runs to its end; it stops paused there.
        if self.restoring.is_some() {
            return;
        }
        if !playing {
            // Paused between ticks, so that what is shown is a state a link can name.
            self.finish_tick();
        }
        self.playing = playing;
    }

    /// Whether time runs for this host.
    pub fn playing(&self) -> bool {
        self.playing
    }

    /// The latest simulated time a permalink may name: where the engine had spent
    /// [`history::LINK_BUDGET_MS`] of wall time from the start (`None`: not reached, or no
    /// clock). Time plays on past it; Share then offers a link to this time instead.
    pub fn link_limit(&self) -> Option<Nanos> {
        self.history.link_limit().map(Nanos)
    }

    /// Whether replaying a link to `t` asks too much of a page: more than [`MAX_LINK_WORK`]
    /// flow-ticks of this host from its start.
    fn link_too_long(&self, t: u64) -> bool {
        let ticks = t / self.sim.config().tick_ns;
        let per_tick = u64::from(self.sim.flow_count()) + TICK_OVERHEAD;
        ticks.saturating_mul(per_tick) > MAX_LINK_WORK
    }

    /// Whether time has reached the scenario's suggested length (it goes on past it).
    pub fn finished(&self) -> bool {
        self.sim.now() >= self.duration()
    }

    /// Runs part of the next tick (at most `max_flows` flows); true when a tick completed.
    /// The worker's pump calls this between messages; results never depend on the split.
    pub fn step_part(&mut self, max_flows: u32) -> bool {
        if !self.sim.in_tick() {
            if self.restoring.is_some() && !self.restore_between_ticks() {
                return false;
            }
            if let Err(e) = self.scenario.apply_due(&mut self.sim) {
                self.console.note("(timeline)", Err(e.to_string()), self.sim.now().0);
            }
        }
        let before = self.sim.now();
        let done = self.sim.tick_part(max_flows);
        if done {
            self.advanced(before);
        }
        done
    }

    /// Completes a tick left in progress by [`Controller::step_part`].
    fn finish_tick(&mut self) {
        while self.sim.in_tick() {
            self.step_part(u32::MAX);
        }
    }

    /// Advances simulated time by one tick, playing or not.
    pub fn step(&mut self) {
        if self.restoring.is_some() {
            return; // the restore's own pump advances time
        }
        let tick = self.sim.config().tick_ns;
        self.run_for(Nanos(tick));
    }

    /// Advances simulated time by `d`, applying the scenario's timeline on the way, sampling
    /// the history every [`SAMPLE_NS`].
    pub fn run_for(&mut self, d: Nanos) {
        self.finish_tick();
        let until = self.sim.now().saturating_add(d);
        let tick = self.sim.config().tick_ns;
        while self.sim.now().0 + tick <= until.0 {
            // To the next sample boundary, but at least one tick (ticks need not divide it).
            let next_sample = (self.sim.now().0 / SAMPLE_NS + 1) * SAMPLE_NS;
            let to = Nanos(next_sample.max(self.sim.now().0 + tick).min(until.0));
            let before = self.sim.now();
            if let Err(e) = self.scenario.run_from(&mut self.sim, to) {
                self.console.note("(timeline)", Err(e.to_string()), self.sim.now().0);
            }
            self.advanced(before);
            if self.sim.now() == before {
                break; // less than a tick left
            }
        }
    }

    /// After time advanced from `before`: samples, snapshots, and whether the goal was met.
    /// The goal reads the samples, so it can change only when one is taken.
    fn advanced(&mut self, before: Nanos) {
        if !self.history.advanced(&self.scenario, &self.sim, before) {
            return;
        }
        self.matrix.sample(&self.sim);
        let lesson = &self.scenario.lesson;
        let samples = self.history.samples();
        let raw = steerlab_scenario::all_met(self.progress.checks(lesson), samples, 0);
        self.progress.sampled(lesson, samples, &self.applied, raw);
        self.progress.track_step(lesson, samples);
        if self.goal_met() == Some(true) {
            self.progress.met();
        }
    }

    /// Chooses the RX queue whose RFS flow table the panel shows.
    pub fn show_rfs_queue(&mut self, q: u16) {
        if q < self.sim.config().rx_queues {
            self.rfs_queue = q;
        }
    }

    /// Chooses the flow whose path the trace panel shows.
    pub fn trace(&mut self, flow: u32) {
        if flow < self.sim.flow_count() {
            self.traced = flow;
        }
    }

    /// Moves the lesson panel to its next step (after the last: the lesson's end).
    pub fn next_step(&mut self) {
        self.progress.next();
        self.progress.track_step(&self.scenario.lesson, self.history.samples());
    }

    /// The learner's answer to the question the lesson asks now.
    pub fn predict(&mut self, choice: usize) {
        self.progress.answer(&self.scenario.lesson, choice);
    }

    /// The challenge form (`?mode=challenge`) on or off.
    pub fn set_challenge(&mut self, on: bool) {
        self.progress
            .set_challenge(on && self.scenario.lesson.challenge.is_some());
    }

    /// One more hint of the challenge.
    pub fn hint(&mut self) {
        self.progress.hint(&self.scenario.lesson);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use steerlab_scenario::permalink;

    fn run(c: &mut Controller, ms: u64) {
        c.run_for(Nanos::from_ms(ms));
    }

    #[test]
    fn default_lesson_runs_and_counts_every_packet() {
        let mut c = Controller::new_default();
        assert_eq!(c.view().flow_count, 13);
        run(&mut c, 1000);
        let v = c.view();
        assert_eq!(v.sim_time, "1.000s");
        // 12 flows at 2,000 pps and one elephant at 40,000 pps for one second.
        assert_eq!(v.queues.iter().map(|q| q.packets).sum::<u64>(), 64_000);
        assert_eq!(v.queues.iter().map(|q| q.flows).sum::<u32>(), 13);
        assert_eq!(v.locality_series[0].values.len(), 10, "one rate sample per 100 ms");
    }

    /// A closed flow leaves the picture (wire routes, queue counts, the trace picker) while the
    /// others keep their ids, and the embedding page hears of it.
    #[test]
    fn a_closed_flow_leaves_the_views_and_the_others_keep_their_ids() {
        let mut c = Controller::new_default();
        run(&mut c, 100);
        c.command("flow close 3").unwrap();
        assert_eq!(c.take_done().last().map(|d| d.kind), Some("flow-closed"));
        run(&mut c, 100);
        let v = c.view();
        assert_eq!(v.flow_count, 12);
        assert_eq!(v.queues.iter().map(|q| q.flows).sum::<u32>(), 12);
        let wire = v.wire.as_ref().expect("a small host draws the wire view");
        let ids: Vec<u32> = wire.flows.iter().map(|f| f.index).collect();
        assert_eq!(ids, [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        assert!(wire.flows.iter().all(|f| Some(f.view) == c.sim().flow_view(f.index)));
        assert!(v.flow_labels.iter().all(|(f, _)| *f != 3));
    }

    #[test]
    fn the_flow_form_names_every_bad_field() {
        let form = FlowForm {
            src: "abc".into(),
            dst: "10.0.0.2".into(),
            sport: "".into(),
            dport: "99999".into(),
            proto: "tcp".into(),
        };
        let errors = form.field_errors();
        let ids: Vec<&str> = errors.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, ["flow-src", "flow-sport", "flow-dport"]);
        assert!(
            errors[0].1.contains("\"abc\" is not an IPv4 or IPv6 address"),
            "{errors:?}"
        );
        assert!(errors[1].1.contains("empty: type a port number"), "{errors:?}");
        assert!(
            errors[2].1.contains("\"99999\" is not a port number, 0 to 65535"),
            "{errors:?}"
        );
        let ok = FlowForm {
            src: "10.0.0.1".into(),
            dst: "10.0.0.2".into(),
            sport: "1".into(),
            dport: "80".into(),
            proto: "tcp".into(),
        };
        assert!(ok.field_errors().is_empty());
    }

    #[test]
    fn bad_form_names_the_field_and_changes_nothing() {
        let mut c = Controller::new_default();
        let form = FlowForm {
            src: "10.0.0.1".into(),
            dst: "nope".into(),
            sport: "1".into(),
            dport: "2".into(),
            proto: "tcp".into(),
        };
        let err = c.add_flow(&form).unwrap_err();
        assert!(err.starts_with("destination:"), "{err}");
        assert_eq!(c.view().flow_count, 13);
        let form = FlowForm {
            dst: "::1".into(),
            ..form
        };
        assert!(c.add_flow(&form).unwrap_err().contains("both be IPv4"));
    }

    /// Every lesson: the goal is not met at the start, and the guided steps reach it in at
    /// most three learner actions (the brief's bar).
    #[test]
    fn every_lesson_reaches_its_goal_in_three_actions() {
        let plans: &[(&str, &[&str])] = &[
            ("rss-basics", &["ethtool -X eth0 equal 3"]),
            ("arfs-collision", &["nic driver ice"]),
            ("tc-bypass", &["tc counting usesw"]),
            ("rfs-thread-churn", &["rfs record cpuset"]),
            ("xps-pick-tx", &["echo 44 > /sys/class/net/eth0/queues/tx-2/xps_cpus"]),
            ("xdp-kfunc-cost", &["xdp strategy inline"]),
        ];
        assert_eq!(
            plans.len(),
            steerlab_scenario::lesson_ids().count(),
            "a plan per lesson"
        );
        for (id, actions) in plans {
            assert!(actions.len() <= 3);
            let mut c = Controller::for_lesson(id).unwrap();
            run(&mut c, 3000);
            assert_eq!(c.goal_met(), Some(false), "{id}: the first screen shows the problem");
            for a in *actions {
                c.command(a).unwrap_or_else(|e| panic!("{id}: {a}: {e}"));
            }
            assert_eq!(
                c.goal_met(),
                None,
                "{id}: assessed only on what happens after the change"
            );
            run(&mut c, 2500);
            assert_eq!(c.goal_met(), Some(true), "{id}: goal after {actions:?}");
        }
    }

    /// Every lesson, followed as its own text says: each step's commands, typed in order,
    /// work; the current step follows them; the goal is met after one of the steps; and a
    /// later step that undoes it is named on the page.
    #[test]
    fn every_lesson_followed_as_written_meets_its_goal() {
        for id in steerlab_scenario::lesson_ids() {
            let mut c = Controller::for_lesson(id).unwrap();
            run(&mut c, 2000);
            let lesson = c.scenario().lesson.clone();
            let (mut met_after, mut undone_at) = (None, None);
            for (k, step) in lesson.steps.iter().enumerate() {
                for line in &step.commands {
                    c.command(line)
                        .unwrap_or_else(|e| panic!("{id} step {}: {line}: {e}", k + 1));
                }
                if !step.commands.is_empty() {
                    assert_eq!(
                        c.view().lesson.step,
                        (k + 1).min(lesson.steps.len() - 1),
                        "{id}: the current step follows step {}",
                        k + 1
                    );
                    assert!(c.view().lesson.steps[k].done, "{id}: step {} is marked done", k + 1);
                }
                run(&mut c, 2500);
                let v = c.view().lesson;
                if v.goal_met == Some(true) {
                    met_after.get_or_insert(k);
                    undone_at = None;
                } else if met_after.is_some() {
                    // The step whose commands undid it is blamed, and stays blamed while later
                    // steps' commands run (they did not undo it).
                    let k0 = *undone_at.get_or_insert(k);
                    assert_eq!(
                        v.goal_undone_by.as_deref(),
                        lesson.steps[k0].commands.last().map(String::as_str),
                        "{id}: the page names the change that undid the goal"
                    );
                    assert!(v.complete.is_some(), "{id}: the lesson stays complete");
                }
                assert_eq!(v.evidence.len(), lesson.evidence.len());
                assert!(
                    v.evidence.iter().all(|e| e.now != "—"),
                    "{id} step {}: every evidence figure has a value: {:?}",
                    k + 1,
                    v.evidence
                );
            }
            assert!(met_after.is_some(), "{id}: following the steps meets the goal");
            if id == "arfs-collision" {
                // The one-line form for 144 queues really wrote every queue.
                assert_eq!(
                    c.command("cat /sys/class/net/eth0/queues/rx-143/rps_flow_cnt").unwrap(),
                    "2048\n"
                );
            }
        }
    }

    /// Every lesson's question, asked before its key step: answered before the commands run,
    /// then the engine picks the answer that happened (the one the lesson's text teaches),
    /// with the kernel's explanation; a question whose commands ran is still shown while the
    /// next step is current.
    #[test]
    fn every_lesson_asks_a_question_the_engine_answers() {
        let right: &[(&str, usize)] = &[
            ("rss-basics", 1),
            ("arfs-collision", 0),
            ("tc-bypass", 0),
            ("rfs-thread-churn", 1),
            ("xps-pick-tx", 0),
            ("xdp-kfunc-cost", 1),
        ];
        for &(id, answer) in right {
            let mut c = Controller::for_lesson(id).unwrap();
            run(&mut c, 2000);
            let lesson = c.scenario().lesson.clone();
            let p = &lesson.predict[0];
            while c.view().lesson.step < p.step {
                c.next_step();
            }
            let v = c.view().lesson.predict.clone().expect("the step asks its question");
            assert_eq!((v.chosen, v.engine, v.measuring), (None, None, false), "{id}: open");
            c.predict(answer);
            for line in &lesson.steps[p.step].commands {
                c.command(line).unwrap_or_else(|e| panic!("{id}: {line}: {e}"));
            }
            c.predict((answer + 1) % p.choices.len());
            assert_eq!(
                c.view().lesson.predict.clone().unwrap().chosen,
                Some(answer),
                "{id}: no change of mind once run"
            );
            run(&mut c, 1000);
            assert!(c.view().lesson.predict.clone().unwrap().measuring, "{id}: measuring");
            run(&mut c, 1500);
            let v = c.view().lesson.predict.clone().expect("still shown after the step");
            assert_eq!(v.engine, Some(Some(answer)), "{id}: the engine's answer");
            assert!(
                !v.explain.is_empty() && v.why.len() == p.choices.len(),
                "{id}: explained"
            );
        }
    }

    /// The challenge form: the goal without the steps, hints on request, the evidence from the
    /// learner's first change; a met goal ends the lesson, and the ending stays when a later
    /// change undoes it. "Next step" after the last step leads to the end, not to step 1.
    #[test]
    fn a_challenge_is_solved_without_the_steps_and_the_lesson_ends() {
        let mut c = Controller::new_default();
        c.set_challenge(true);
        run(&mut c, 2000);
        let v = c.view().lesson;
        let ch = v.challenge.clone().expect("the challenge form");
        assert!(ch.goal.contains("RX queue 3") && ch.hints.is_empty() && ch.hints_total == 3);
        c.hint();
        c.hint();
        assert_eq!(c.view().lesson.challenge.clone().unwrap().hints.len(), 2);
        assert!(v.complete.is_none());
        c.command("ethtool -x eth0").unwrap();
        run(&mut c, 500);
        c.command("ethtool -X eth0 weight 1 1 1 0").unwrap();
        run(&mut c, 2500);
        let v = c.view().lesson;
        assert_eq!(v.goal_met, Some(true), "{:?}", v.evidence);
        let done = v.complete.clone().expect("the ending");
        assert_eq!(done.next.map(|(id, _)| id).as_deref(), Some("arfs-collision"));
        assert!(done.learned.lines().count() == 2, "two lines: {}", done.learned);
        // "before" is the learner's first change: rx-3 carried the elephant then.
        assert_eq!(
            (v.evidence[0].before.as_str(), v.evidence[0].now.as_str()),
            ("40.0k/s", "0/s")
        );
        c.command("ethtool -X eth0 default").unwrap();
        run(&mut c, 1500);
        let v = c.view().lesson;
        assert_eq!(v.goal_undone_by.as_deref(), Some("ethtool -X eth0 default"));
        assert!(v.complete.is_some(), "the ending stays");
        let n = v.steps.len();
        for _ in 0..n + 2 {
            c.next_step();
        }
        assert_eq!(c.view().lesson.step, n, "the end, not step 1");
    }

    /// The evidence strip: before the change and after it, moving the way the lesson says.
    #[test]
    fn the_evidence_strip_shows_the_change_and_its_direction() {
        let mut c = Controller::for_lesson("arfs-collision").unwrap();
        run(&mut c, 2000);
        assert!(
            c.view()
                .lesson
                .evidence
                .iter()
                .all(|e| e.before == "—" && e.trend == Trend::Unknown),
            "no change yet"
        );
        c.command("nic driver ice").unwrap();
        run(&mut c, 2000);
        let ev = c.view().lesson.evidence.clone();
        let updates = &ev[0];
        assert_eq!(updates.label, "aRFS updates");
        assert!(updates.before.ends_with("/s") && updates.before != "0/s", "{updates:?}");
        assert_eq!(
            (updates.trend, updates.better),
            (Trend::Down, steerlab_scenario::Better::Down),
            "{updates:?}"
        );
    }

    #[test]
    fn a_permalink_round_trips_the_exact_state_and_bad_links_are_refused() {
        let mut c = Controller::new_default();
        run(&mut c, 700);
        c.command("ethtool -X eth0 weight 1 1 2").unwrap();
        c.command("thread migrate 0 3").unwrap();
        assert!(c.command("ethtool -X eth0 equal 99").is_err());
        run(&mut c, 1300);
        let link = c.permalink();
        let d = Controller::from_permalink(&link).unwrap();
        assert_eq!(d.view().digest, c.view().digest);
        assert_eq!(d.view().sim_time, "2.000s");
        for bad in ["", "1.zz", &link[..link.len() / 2], "7.abc"] {
            assert!(Controller::from_permalink(bad).is_err(), "{bad:?}");
        }
    }

    /// The worker restores a link a slice at a time: slices of any size give the same state as
    /// replaying it at once, the learner's commands wait, and it stops paused at the link's time.
    #[test]
    fn a_permalink_restores_in_slices_to_the_same_state() {
        let mut c = Controller::for_lesson("rfs-thread-churn").unwrap();
        run(&mut c, 300);
        c.command("rfs record cpuset").unwrap();
        run(&mut c, 250);
        let link = c.permalink();
        assert_eq!(
            Controller::from_permalink(&link).unwrap().view().digest,
            c.view().digest,
            "at once"
        );
        let mut d = Controller::restoring(&link).unwrap();
        assert_eq!(d.view().restoring, Some(0));
        let mut frames = 0;
        while d.view().restoring.is_some() {
            // A pump: slices until one reports no progress (the worker's pump does the same).
            for _ in 0..3 {
                if !d.step_part(97) && !d.sim().in_tick() {
                    break;
                }
            }
            if frames == 5 {
                assert!(d.command("nic driver ice").is_err(), "commands wait for the restore");
                d.set_playing(false);
                d.step(); // ignored: the restore's own frames advance time
            }
            frames += 1;
        }
        assert!(frames > 10, "restored over many frames ({frames})");
        let (restored, original) = (d.view(), c.view());
        assert_eq!(
            (restored.digest, restored.sim_time),
            (original.digest, original.sim_time)
        );
        assert!(!d.playing(), "opens paused at the link's time");
        assert_eq!(d.permalink(), link, "the same link again");
        assert_eq!(d.take_link_error(), None);
    }

    #[test]
    fn a_link_whose_command_fails_stops_there_and_says_why() {
        let state = permalink::State {
            source: Source::Lesson("rss-basics".into()),
            commands: vec![
                Applied {
                    at_ns: 2_000_000,
                    command: "ethtool -X eth0 equal 2".into(),
                },
                Applied {
                    at_ns: 5_000_000,
                    command: "thread migrate 99 1".into(),
                },
            ],
            t_ns: 9_000_000,
            view: "sandbox".into(),
        };
        let link = permalink::encode(&state);
        let e = Controller::from_permalink(&link).err().unwrap();
        assert!(e.contains("thread migrate 99 1"), "{e}");
    }

    #[test]
    fn stepping_back_replays_to_the_same_state() {
        let mut c = Controller::new_default();
        run(&mut c, 1500);
        c.command("ethtool -X eth0 equal 2").unwrap();
        run(&mut c, 1500);
        let at3 = c.view().digest;
        run(&mut c, 1000);
        c.seek(Nanos::from_ms(3000));
        assert_eq!(c.view().digest, at3, "back to 3 s through a snapshot and replay");
        c.seek(Nanos::from_ms(1200));
        assert_eq!(c.view().sim_time, "1.200s");
        assert!(c.permalink().len() > 2);
        c.seek(Nanos::from_ms(3000));
        assert_ne!(
            c.view().digest,
            at3,
            "the command after 1.2 s was forgotten by stepping back before it"
        );
        c.step_back();
        assert_eq!(c.view().sim_time, "2.999s", "one tick (1 ms) back");
    }

    /// Ticks that do not divide the 100 ms sample period still advance, sample and snapshot.
    #[test]
    fn odd_tick_lengths_advance_and_sample() {
        for tick in ["sim.tick_ns=300000", "sim.tick_ns=200000000"] {
            let text = steerlab_scenario::lesson("rss-basics").unwrap();
            let sc = steerlab_scenario::parse(text, &[tick.to_string()]).unwrap();
            let mut c = Controller::for_scenario(sc, Source::Lesson("rss-basics".into())).unwrap();
            run(&mut c, 2000);
            let now = c.sim.now().0;
            assert!(now > 1_800_000_000 && now <= 2_000_000_000, "{tick}: {now}");
            assert!(
                c.history.samples().len() >= 10,
                "{tick}: {} samples",
                c.history.samples().len()
            );
            c.step();
            assert!(c.sim.now().0 > now, "{tick}: step advances");
            c.seek(Nanos::from_ms(1000));
            assert!(
                c.sim.now().0 <= 1_000_000_000 && c.sim.now().0 > 700_000_000,
                "{tick}: seek"
            );
        }
    }
}
