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
mod goal;
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
pub use evidence::{human, ratio_text, EvidenceView, Trend};
pub use goal::GoalPart;
pub use history::{History, SAMPLE_NS};
pub use lesson::{ChallengeView, CompleteView, PredictView, Progress, Score};
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

/// The lesson the page opens on: the first in teaching order (the lesson files decide).
pub use steerlab_scenario::DEFAULT_LESSON;

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
    /// Samples of the figures ([`steerlab_scenario::Totals`]).
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
    /// Of those, the ones that changed the host (`steerlab_console::settings`): the goal and
    /// the evidence are measured anew after these, not after a command that only read.
    changed: Vec<Applied>,
    sim: Sim,
    /// Time runs for this host (a restore runs whatever this says, and stops paused).
    playing: bool,
    history: History,
    progress: Progress,
    /// The goal's verdict at the last sample, and what it says of a wrong way.
    goal: goal::GoalState,
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
    /// A restored link stopped paused at its state, and time has not played since.
    restored: bool,
    /// The learner whose variant this host is (`?student=NAME`).
    student: Option<String>,
    /// Recent per-flow and per-queue samples for the host matrix.
    matrix: matrix::MatrixHistory,
    /// The host matrix's selected cell (RX queue, CPU).
    matrix_cell: Option<(u16, u16)>,
    /// The matrix of the second before the learner's last change, and when it was made.
    matrix_held: Option<(u64, MatrixView)>,
    /// Why the last restore stopped early (a link command the host refused).
    link_error: Option<String>,
    /// The trace select's flows and their labels, as last formatted.
    flow_labels: std::cell::RefCell<FlowLabels>,
}

/// The trace select's flows (id, tuple) and their labels, as `view::parts`'s `flow_labels`
/// last formatted them.
#[derive(Default)]
struct FlowLabels {
    flows: Vec<(u32, steerlab_engine::FlowKey)>,
    labels: std::rc::Rc<Vec<(u32, String)>>,
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
            changed: Vec::new(),
            history: History::start(&scenario, &sim),
            progress: Progress::start(&scenario.lesson),
            goal: goal::GoalState::default(),
            matrix: {
                let mut m = matrix::MatrixHistory::default();
                m.sample(&sim);
                m
            },
            matrix_cell: None,
            matrix_held: None,
            scenario,
            sim,
            playing: true,
            console: ConsoleLog::default(),
            traced: 0,
            done: Vec::new(),
            rfs_queue: 0,
            filters_first: 0,
            restoring: None,
            restored: false,
            student: None,
            link_error: None,
            flow_labels: Default::default(),
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

    /// A line the learner typed or a control of theirs sent: a step's command typed before
    /// the step's question is answered waits for the answer (teaching.md: predict, then
    /// observe), and the console says so; typed again, it runs without a prediction.
    pub fn learner_command(&mut self, line: &str) -> Result<String, String> {
        let line = line.trim();
        if self.restoring.is_none() && self.progress.hold(&self.scenario.lesson, line) {
            self.console.record(line, Ok(String::new()), self.sim.now().0);
            self.console.remark(
                "waits for your prediction: answer the question in the lesson panel and it runs (type it again to run it without one)",
            );
            return Ok(String::new());
        }
        self.command(line)
    }

    /// Applies a console line now (between ticks) and records it for permalinks and replay.
    fn apply(&mut self, line: &str) -> Result<String, String> {
        self.finish_tick();
        // A big host's picture of the second before the change, while the change's own is
        // measured (a small host's wire view shows each packet as it goes).
        if self.shows_matrix() {
            self.hold_matrix();
        }
        let before = self.sim.config().clone();
        let settings = steerlab_console::settings(&self.sim);
        let (out, kind) = match steerlab_console::run(&mut self.sim, line) {
            Ok((output, kind)) => (Ok(output), kind),
            Err(e) => (Err(e), steerlab_console::Kind::Command),
        };
        if let Ok(output) = &out {
            let applied = Applied {
                at_ns: self.sim.now().0,
                command: line.to_string(),
            };
            let changed = steerlab_console::settings(&self.sim) != settings;
            if changed {
                self.changed.push(applied.clone());
            }
            self.applied.push(applied);
            let (lesson, samples) = (&self.scenario.lesson, self.history.samples());
            self.progress.command(lesson, line, self.sim.now().0, samples, changed);
            self.progress.track_step(lesson, samples);
            self.done.push(Done {
                kind: kind.name(),
                command: line.to_string(),
                output: output.clone(),
            });
            // Judged again from now: only what happens after the change counts.
            self.judge();
        }
        self.console.record(line, out.clone(), self.sim.now().0);
        let mut remarks = Vec::new();
        if out.is_ok() {
            remarks.extend(steerlab_console::note(&before, &self.sim, line));
        }
        if out.is_ok() && !self.playing && self.restoring.is_none() {
            remarks
                .push("time is paused: press Play to see what this changes (what it printed is the host now)".into());
        }
        if !remarks.is_empty() {
            self.console.remark(&remarks.join(" · "));
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
        self.restored &= !playing;
        self.playing = playing;
    }

    /// Whether a restored link stopped paused at its state and time has not played since (the
    /// page says to press Play).
    pub fn restored(&self) -> bool {
        self.restored
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
        self.judge();
    }

    /// Judges the goal at the last sample; the learner's progress follows (the questions'
    /// answers, a goal met or undone, a wrong way that stood long enough to count).
    fn judge(&mut self) {
        let lesson = &self.scenario.lesson;
        let samples = self.history.samples();
        self.goal.judge(
            (&self.scenario, self.progress.checks(lesson)),
            samples,
            &self.changed,
            &self.sim,
            self.history.at_zero(),
            self.history.arrays(),
        );
        let met = self.goal.verdict.met;
        self.progress.sampled(lesson, samples, &self.changed, met);
        self.progress.track_step(lesson, samples);
        let now = self.sim.now().0;
        if met == Some(true) {
            self.progress.met(now);
        }
        if let Some(why) = self.goal.standing_shortcut(now) {
            let last = self.changed.last().map(|a| a.command.as_str());
            self.progress.shortcut(lesson, why, last);
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

    /// The learner's answer to the question the lesson asks now; a command that waited for
    /// it runs.
    pub fn predict(&mut self, choice: usize) {
        self.progress.answer(&self.scenario.lesson, choice);
        if let Some(line) = self.progress.take_held() {
            let _ = self.command(&line);
        }
    }

    /// The challenge form (`?mode=challenge`) on or off.
    pub fn set_challenge(&mut self, on: bool) {
        self.progress
            .set_challenge(on && self.scenario.lesson.challenge.is_some());
        self.judge();
    }

    /// Marks this host as `name`'s own variant (shown on the page, said to the course page).
    pub fn set_student(&mut self, name: &str) {
        self.student = Some(name.to_string());
    }

    /// The learner whose variant this host is, if one.
    pub fn student(&self) -> Option<&str> {
        self.student.as_deref()
    }

    /// The learner's progress through the lesson (read only).
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// One more hint of the challenge.
    pub fn hint(&mut self) {
        self.progress.hint(&self.scenario.lesson);
    }
}

#[cfg(test)]
mod tests;
