//! The page's model of the running sandbox: the engine plus playback, lesson and console
//! state, with no Yew or DOM code, so that it is tested natively. Components send it actions
//! and render its [`ViewModel`]. Every action a control performs is applied as the console
//! command a learner would type on a real host, and echoed in the console.

use std::collections::VecDeque;
use std::net::IpAddr;

use steerlab_engine::{Driver, FlowKey, FlowView, NamedEnum, Nanos, Proto, Sim};
use steerlab_scenario::permalink::{self, Applied, Source, State};
use steerlab_scenario::{Report, Scenario};

/// Simulated time advanced per animation frame at speed 1 (the engine decides results by
/// simulated time only, so the frame rate never changes results).
pub const FRAME_NS: Nanos = Nanos::from_ms(10);

/// Playback speeds: simulated time per frame as a multiple of [`FRAME_NS`] (the last one is
/// "as fast as possible": as much as fits the frame's budget).
pub const SPEEDS: [(&str, u64); 5] = [("0.1×", 0), ("1×", 1), ("10×", 10), ("100×", 100), ("max", u64::MAX)];

/// Reports kept for charts and goal checks, one per [`SAMPLE_NS`].
const HISTORY: usize = 120;
/// Sampling period of the history.
pub const SAMPLE_NS: u64 = 100_000_000;
/// Console lines kept.
const CONSOLE_LINES: usize = 200;
/// Engine snapshots kept for stepping back (one per [`CHECKPOINT_NS`]).
const CHECKPOINTS: usize = 12;
/// Most commands a permalink may carry (each is replayed on load).
const MAX_LINK_COMMANDS: usize = 2000;
/// Simulated time between snapshots.
const CHECKPOINT_NS: u64 = 1_000_000_000;

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

/// `flow add` syntax of a key (IPv6 addresses in brackets before a port).
fn flow_command(key: &FlowKey, readers: &[u32]) -> String {
    let ep = |ip: IpAddr, p: u16| match ip {
        IpAddr::V4(a) => format!("{a}:{p}"),
        IpAddr::V6(a) => format!("[{a}]:{p}"),
    };
    let proto = if key.proto() == Proto::Udp { "udp" } else { "tcp" };
    let mut cmd = format!("flow add {proto} {} {} rate 1000", ep(key.src(), key.sport()), ep(key.dst(), key.dport()));
    if !readers.is_empty() {
        let r: Vec<String> = readers.iter().map(u32::to_string).collect();
        cmd.push_str(&format!(" readers {}", r.join(",")));
    }
    cmd
}

/// One RX queue as drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueView {
    /// Queue index.
    pub index: u16,
    /// Packets received so far.
    pub packets: u64,
    /// Packets dropped because the ring was full.
    pub drops: u64,
    /// Flows whose packets arrive on this queue now.
    pub flows: u32,
    /// CPU its IRQ is affined to.
    pub irq_cpu: u16,
}

/// One CPU as drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadView {
    /// Thread id.
    pub id: u32,
    /// Its CPU.
    pub cpu: u16,
    /// Its cpuset as a list.
    pub cpuset: String,
}

/// One aRFS filter row.
#[derive(Clone, Debug, PartialEq, Eq)]
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LessonView {
    /// Lesson id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Goal.
    pub goal: String,
    /// Guided steps.
    pub steps: Vec<String>,
    /// Current step.
    pub step: usize,
    /// Kernel files.
    pub kernel_files: Vec<String>,
    /// Source of the lesson's effect.
    pub source: String,
    /// Goal check result: `None` until it can be assessed.
    pub goal_met: Option<bool>,
    /// The `data-testid` the current step points at (highlighted on the page).
    pub highlight: Option<String>,
}

/// One console entry: the command and its output or error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsoleLine {
    /// The command as typed (or as a control applied it).
    pub command: String,
    /// Output (Ok) or error text (Err).
    pub output: Result<String, String>,
}

/// A chart series: name and values per sample.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend.
    pub name: &'static str,
    /// Values, oldest first.
    pub values: Vec<f64>,
}

/// Everything the page shows, derived from the engine's snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewModel {
    /// Simulated time, e.g. `1.250s`.
    pub sim_time: String,
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
    /// Whether time is running.
    pub playing: bool,
    /// Index into [`SPEEDS`].
    pub speed: usize,
    /// Packets processed on their reader's CPU.
    pub local: u64,
    /// Packets processed elsewhere.
    pub remote: u64,
    /// aRFS filter updates.
    pub arfs_update: u64,
    /// Digest of the run so far.
    pub digest: String,
    /// The driver model.
    pub driver: Driver,
    /// Every live aRFS filter, colliding flow_ids first (the page renders only the visible rows).
    pub filters: std::rc::Rc<Vec<FilterRow>>,
    /// Live filters in total.
    pub filters_total: usize,
    /// The lesson.
    pub lesson: LessonView,
    /// Console history, oldest first.
    pub console: Vec<ConsoleLine>,
    /// aRFS add/update/skip/expire per second, per sample.
    pub arfs_series: Vec<Series>,
    /// Local and remote packets per second, per sample.
    pub locality_series: Vec<Series>,
    /// CPU time per packet (softirq, sys, user ns), per sample.
    pub cost_series: Vec<Series>,
    /// The run report (every metric, for panels and export).
    pub report: Report,
    /// The permalink fragment value (`#s=` + this) of the current state.
    pub permalink: String,
    /// Simulated time, ns.
    pub now_ns: u64,
    /// Flows for the trace select (the first 256): index and tuple.
    pub flow_labels: Vec<(u32, String)>,
    /// The traced flow.
    pub traced: u32,
    /// Its path now.
    pub trace: Option<steerlab_engine::FlowTrace>,
    /// The RSS key.
    pub rss_key: Vec<u8>,
    /// Paths in use: (RX queue, processing CPU, processed away from the reader, flows).
    pub paths: Vec<(u16, u16, bool, u32)>,
    /// `ethtool -K ntuple` state.
    pub ntuple: bool,
    /// `rps_sock_flow_entries` in force.
    pub sock_entries: u32,
    /// The scenario's JSON as loaded (download), shared with the controller.
    pub scenario_json: std::rc::Rc<str>,
    /// Estimated real time to the end when running at full speed.
    pub eta: Option<String>,
    /// RFS tables: the socket table's size and used entries, and one queue's flow table.
    pub rfs: RfsView,
    /// XPS map per TX queue: (queue, xps_cpus list, xps_rxqs list).
    pub xps: Vec<(u16, String, String)>,
    /// A small host's flows packet by packet (`None`: drawn by density only).
    pub wire: Option<std::rc::Rc<crate::wire::WireView>>,
    /// A permalink's restore in progress, per mille of its time.
    pub restoring: Option<u32>,
}

/// The RFS tables panel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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

/// The sandbox: a scenario's host, its playback and the learner's session.
pub struct Controller {
    source: Source,
    /// The scenario's JSON as it was loaded (a lesson's file, or the uploaded or embedded
    /// text): what the download gives, and what loads back to the same host. Shared with
    /// every view, not copied per frame.
    scenario_json: std::rc::Rc<str>,
    scenario: Scenario,
    /// Commands the learner applied, with their simulated time (for permalinks and replay).
    applied: Vec<Applied>,
    /// Engine snapshots for stepping back: (time, engine, commands applied before it).
    checkpoints: VecDeque<(u64, Sim)>,
    sim: Sim,
    playing: bool,
    speed: usize,
    /// Reports sampled every [`SAMPLE_NS`], oldest first (at most [`HISTORY`]).
    history: Vec<(u64, Report)>,
    step: usize,
    console: VecDeque<ConsoleLine>,
    /// Commands typed, for up/down recall.
    typed: Vec<String>,
    traced: u32,
    /// Simulated ns per real ms at full speed (moving average), for the estimate.
    rate: f64,
    /// Successful commands not yet reported to an embedding page: (event kind, command).
    events: Vec<(&'static str, String)>,
    /// RX queue of the RFS table panel.
    rfs_queue: u16,
    /// A permalink being restored, a slice per frame (seed 000's three minutes take seconds).
    restoring: Option<Restore>,
    /// Why the last restore stopped early (a link command the host refused).
    link_error: Option<String>,
}

/// A permalink's commands still to replay and the time it ends at.
struct Restore {
    commands: VecDeque<Applied>,
    until: u64,
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
        let mut c = Controller {
            source,
            scenario_json,
            applied: Vec::new(),
            checkpoints: VecDeque::new(),
            scenario,
            sim,
            playing: true,
            speed: 1,
            history: Vec::new(),
            step: 0,
            console: VecDeque::new(),
            typed: Vec::new(),
            traced: 0,
            rate: 0.0,
            events: Vec::new(),
            rfs_queue: 0,
            restoring: None,
            link_error: None,
        };
        c.sample();
        c.checkpoints.push_back((0, c.sim.clone()));
        Ok(c)
    }

    /// The session a permalink describes: its host, then its commands replayed at their
    /// times, then time advanced to the link's time (deterministic replay: same digest).
    /// Replays it all now (the tests' way); the page uses [`Controller::restoring`] and lets
    /// its frames do it.
    #[cfg(test)]
    pub fn from_permalink(link: &str) -> Result<Controller, String> {
        let mut c = Controller::restoring(link)?;
        while c.restoring.is_some() {
            c.step_part(u32::MAX);
        }
        c.take_link_error().map_or(Ok(c), Err)
    }

    /// Why a restore stopped early, once (the page shows it in its banner).
    pub fn take_link_error(&mut self) -> Option<String> {
        self.link_error.take()
    }

    /// The session a permalink describes, at time 0, with the link's commands to replay as
    /// time advances ([`Controller::step_part`] applies each at its time and stops, paused, at
    /// the link's time). The link is validated before anything runs.
    pub fn restoring(link: &str) -> Result<Controller, String> {
        let state = permalink::decode(link).map_err(|e| e.to_string())?;
        let mut c = match &state.source {
            Source::Lesson(id) => Controller::for_lesson(id)?,
            Source::Scenario(text) => {
                let scenario = steerlab_scenario::parse(text, &[]).map_err(|e| format!("the link's scenario: {e}"))?;
                Controller::for_scenario(scenario, state.source.clone())?
            }
        };
        if state.commands.len() > MAX_LINK_COMMANDS {
            return Err(format!("this link carries {} commands; at most {MAX_LINK_COMMANDS} are replayed", state.commands.len()));
        }
        let max = Nanos::from_ms(c.scenario.sim.duration_ms).0;
        if state.t_ns > max || state.commands.windows(2).any(|w| w[0].at_ns > w[1].at_ns) || state.commands.iter().any(|a| a.at_ns > state.t_ns) {
            return Err("this link is damaged (times out of order or beyond the scenario); opened the default lesson instead".into());
        }
        c.restoring = Some(Restore { commands: state.commands.into(), until: state.t_ns });
        c.playing = true;
        Ok(c)
    }

    /// How far a permalink's restore is, per mille (`None` when not restoring).
    pub fn restore_progress(&self) -> Option<u32> {
        self.restoring.as_ref().map(|r| (u128::from(self.sim.now().0) * 1000 / u128::from(r.until.max(1))).min(1000) as u32)
    }

    /// Between ticks of a restore: applies the link's commands that are due (those the next
    /// tick would pass, as `run_for` then the command did when the link was made), and ends
    /// the restore, paused, once the next tick would pass the link's time. Returns whether
    /// the restore goes on.
    fn restore_between_ticks(&mut self) -> bool {
        let tick = self.sim.config().tick_ns;
        let now = self.sim.now().0;
        let Some(r) = self.restoring.as_mut() else { return false };
        let mut due = Vec::new();
        while r.commands.front().is_some_and(|a| a.at_ns < now + tick) {
            due.extend(r.commands.pop_front());
        }
        let done = r.commands.is_empty() && now + tick > r.until;
        for a in due {
            if let Err(e) = self.apply(&a.command) {
                // The rest of the link cannot be trusted: stop here, paused, and say why.
                self.link_error = Some(format!("the link's command {:?} fails: {e}", a.command));
                self.restoring = None;
                self.playing = false;
                return false;
            }
        }
        if done {
            // A link shows a precise state: it opens paused there.
            self.restoring = None;
            self.playing = false;
        }
        !done
    }

    /// The permalink fragment value of the current state.
    pub fn permalink(&self) -> String {
        permalink::encode(&State { source: self.source.clone(), commands: self.applied.clone(), t_ns: self.sim.now().0, view: "sandbox".into() })
    }

    /// Goes to simulated time `t` (earlier or later): from the latest engine snapshot at or
    /// before `t`, or from the start, replaying the learner's commands at their times.
    pub fn seek(&mut self, t: Nanos) {
        if self.restoring.is_some() {
            return;
        }
        self.finish_tick();
        let t = Nanos(t.0.min(Nanos::from_ms(self.scenario.sim.duration_ms).0));
        if t < self.sim.now() {
            let base = self.checkpoints.iter().rev().find(|(at, _)| *at <= t.0).map(|(_, s)| s.clone());
            let base = match base {
                Some(s) => s,
                None => match self.scenario.build() {
                    Ok(s) => s,
                    Err(_) => return,
                },
            };
            self.sim = base;
            self.history.retain(|(at, _)| *at <= self.sim.now().0);
            self.checkpoints.retain(|(at, _)| *at <= t.0);
            let from = self.sim.now().0;
            let replay: Vec<Applied> = self.applied.iter().filter(|a| a.at_ns >= from && a.at_ns <= t.0).cloned().collect();
            // Commands after `t` are forgotten: stepping back and acting again makes a new
            // branch, as in an editor's undo.
            self.applied.retain(|a| a.at_ns <= t.0);
            for a in replay {
                self.run_for(Nanos(a.at_ns - self.sim.now().0));
                let _ = steerlab_console::execute(&mut self.sim, &a.command);
            }
        }
        self.run_for(Nanos(t.0 - self.sim.now().0));
    }

    /// One step back in time (a tick, at least 10 ms).
    pub fn step_back(&mut self) {
        let d = self.sim.config().tick_ns.max(FRAME_NS.0);
        self.seek(Nanos(self.sim.now().0.saturating_sub(d)));
    }

    /// The scenario being run.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The engine (read only: changes go through [`Controller::command`]).
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// Back to the scenario's start (same seed: the same run again).
    pub fn reset(&mut self) {
        if let Ok(c) = Controller::for_scenario(self.scenario.clone(), self.source.clone()) {
            let (console, typed, speed, playing) = (std::mem::take(&mut self.console), std::mem::take(&mut self.typed), self.speed, self.playing);
            *self = c;
            (self.console, self.typed, self.speed, self.playing) = (console, typed, speed, playing);
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
            let e = format!("restoring the shared state ({}.{} %): wait for it to finish", p / 10, p % 10);
            self.console.push_back(ConsoleLine { command: line.to_string(), output: Err(e.clone()) });
            return Err(e);
        }
        self.apply(line)
    }

    /// Applies a console line now (between ticks) and records it for permalinks and replay.
    fn apply(&mut self, line: &str) -> Result<String, String> {
        self.finish_tick();
        let out = steerlab_console::execute(&mut self.sim, line);
        if out.is_ok() {
            self.applied.push(Applied { at_ns: self.sim.now().0, command: line.to_string() });
            let kind = match line.split_whitespace().take(2).collect::<Vec<_>>().as_slice() {
                ["flow", "add"] => "flow-added",
                ["thread", "migrate"] | ["taskset", _] => "thread-migrated",
                _ => "command",
            };
            self.events.push((kind, line.to_string()));
        }
        if self.typed.last().map(String::as_str) != Some(line) {
            self.typed.push(line.to_string());
        }
        self.console.push_back(ConsoleLine { command: line.to_string(), output: out.clone() });
        while self.console.len() > CONSOLE_LINES {
            self.console.pop_front();
        }
        out
    }

    /// Takes the events (flow added, thread migrated, other commands) since the last call.
    pub fn take_events(&mut self) -> Vec<(&'static str, String)> {
        std::mem::take(&mut self.events)
    }

    /// Commands typed so far, oldest first (for up/down recall).
    pub fn typed(&self) -> &[String] {
        &self.typed
    }

    /// Adds the flow described by `form` at 1,000 packets per second, read by one of the
    /// host's threads (round robin), through `flow add`.
    pub fn add_flow(&mut self, form: &FlowForm) -> Result<(), String> {
        let key = form.parse()?;
        let threads = self.sim.thread_count();
        let readers = if threads == 0 { Vec::new() } else { vec![self.sim.flow_count() % threads] };
        self.command(&flow_command(&key, &readers)).map(drop)
    }

    /// Adds `n` flows with random sources to the host's first destination, through `flow
    /// random N` (one command: replayed, it adds the same flows).
    pub fn add_random_flows(&mut self, n: u32) -> Result<(), String> {
        self.command(&format!("flow random {n}")).map(drop)
    }

    /// Moves a thread (what dragging it does), through `thread migrate`.
    pub fn migrate(&mut self, tid: u32, cpu: u16) -> Result<(), String> {
        self.command(&format!("thread migrate {tid} {cpu}")).map(drop)
    }

    /// Switches the driver model, through `nic driver`.
    pub fn set_driver(&mut self, name: &str) -> Result<(), String> {
        self.command(&format!("nic driver {name}")).map(drop)
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

    /// Sets the playback speed (index into [`SPEEDS`]).
    pub fn set_speed(&mut self, speed: usize) {
        self.speed = speed.min(SPEEDS.len() - 1);
    }

    /// Whether the scenario's end is reached.
    pub fn finished(&self) -> bool {
        self.sim.now().0 >= Nanos::from_ms(self.scenario.sim.duration_ms).0
    }

    /// Engine ticks this frame wants at the current speed (`u64::MAX` = as many as fit).
    /// Speed 0.1× wants one frame's worth every tenth frame.
    pub fn wanted_ticks(&self, frame_index: u64) -> u64 {
        if self.restoring.is_some() {
            return u64::MAX;
        }
        if !self.playing || self.finished() {
            return 0;
        }
        let tick = self.sim.config().tick_ns;
        match SPEEDS[self.speed].1 {
            0 => u64::from(frame_index % 10 == 0) * (FRAME_NS.0 / tick).max(1),
            u64::MAX => u64::MAX,
            m => (FRAME_NS.0 * m / tick).max(1),
        }
    }

    /// One animation frame with at most `budget_ticks` engine ticks (the page passes what fits
    /// its time budget; tests pass `u64::MAX`). Results depend only on simulated time.
    pub fn frame(&mut self, frame_index: u64, budget_ticks: u64) {
        let n = self.wanted_ticks(frame_index).min(budget_ticks);
        let n = if n == u64::MAX { 1 } else { n };
        for _ in 0..n {
            self.step();
        }
    }

    /// Runs part of the next tick (at most `max_flows` flows); true when a tick completed.
    /// The page calls this within its frame budget; results never depend on the split.
    pub fn step_part(&mut self, max_flows: u32) -> bool {
        if !self.sim.in_tick() {
            if self.restoring.is_some() && !self.restore_between_ticks() {
                return false;
            }
            if self.finished() {
                return false;
            }
            if let Err(e) = self.scenario.apply_due(&mut self.sim) {
                self.console.push_back(ConsoleLine { command: "(timeline)".into(), output: Err(e.to_string()) });
            }
        }
        let before = self.sim.now();
        let done = self.sim.tick_part(max_flows);
        if done {
            self.after_tick(before);
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
            return; // the restore's frames advance time
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
                self.console.push_back(ConsoleLine { command: "(timeline)".into(), output: Err(e.to_string()) });
            }
            self.after_tick(before);
            if self.sim.now() == before {
                break; // less than a tick left
            }
        }
    }

    /// Samples the history and keeps engine snapshots at their boundaries.
    fn after_tick(&mut self, before: Nanos) {
        let now = self.sim.now().0;
        if now == before.0 {
            return;
        }
        // Sample and snapshot when a boundary was crossed (any tick length).
        if now / SAMPLE_NS > before.0 / SAMPLE_NS {
            self.sample();
        }
        if now / CHECKPOINT_NS > before.0 / CHECKPOINT_NS && self.checkpoints.back().is_none_or(|(t, _)| *t < now) {
            self.checkpoints.push_back((now, self.sim.clone()));
            // Keep the start and the most recent snapshots.
            if self.checkpoints.len() > CHECKPOINTS {
                self.checkpoints.remove(1);
            }
        }
    }

    fn sample(&mut self) {
        let r = Report::new(&self.scenario, &self.sim);
        self.history.push((self.sim.now().0, r));
        if self.history.len() > HISTORY {
            self.history.remove(0);
        }
    }

    /// Records how much simulated time a frame period of `ms` real milliseconds advanced (for
    /// the run-to-the-end estimate).
    pub fn note_rate(&mut self, sim_ns: u64, ms: f64) {
        if ms > 0.0 {
            let r = sim_ns as f64 / ms;
            self.rate = if self.rate == 0.0 { r } else { 0.9 * self.rate + 0.1 * r };
        }
    }

    fn eta(&self) -> Option<String> {
        if !self.playing || SPEEDS[self.speed].1 != u64::MAX || self.finished() || self.rate <= 0.0 {
            return None;
        }
        let left = Nanos::from_ms(self.scenario.sim.duration_ms).0.saturating_sub(self.sim.now().0) as f64;
        Some(format!("about {:.0} s to the end", left / self.rate / 1000.0))
    }

    fn rfs_view(&self) -> RfsView {
        use steerlab_engine::rps::{NO_CPU, NO_FILTER};
        let sim = &self.sim;
        let sock = sim.sock_flow_table();
        let table = sim.dev_flow_table(self.rfs_queue);
        RfsView {
            sock_size: sock.map_or(0, |t| t.mask + 1),
            sock_used: sock.map_or(0, |t| t.ents.iter().filter(|&&e| e != 0xffff).count() as u32),
            queue: self.rfs_queue,
            table_size: table.map_or(0, |t| t.flows.len() as u32),
            entries: table.map_or(Vec::new(), |t| {
                t.flows
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.cpu != NO_CPU)
                    .take(128)
                    .map(|(i, e)| (i as u32, e.cpu, (e.filter != NO_FILTER).then_some(e.filter), e.last_qtail))
                    .collect()
            }),
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

    /// Moves the lesson panel to its next step.
    pub fn next_step(&mut self) {
        let n = self.scenario.lesson.steps.len();
        if n > 0 {
            self.step = (self.step + 1) % n;
        }
    }

    /// Simulated time of the learner's last change: goal checks look only after it.
    fn since_ns(&self) -> u64 {
        self.applied.last().map_or(0, |a| a.at_ns)
    }

    /// Whether the lesson's goal is met now (`None`: not yet assessable).
    pub fn goal_met(&self) -> Option<bool> {
        let check = self.scenario.lesson.check.as_ref()?;
        check.met(&self.history, self.since_ns())
    }

    /// Each metric's change per sample, divided by `per` of that sample (its seconds, its
    /// packets).
    fn delta_series(&self, paths: &[(&'static str, &str)], per: impl Fn(u64, &Report, &Report) -> f64) -> Vec<Series> {
        paths
            .iter()
            .map(|&(name, path)| {
                let values = self
                    .history
                    .iter()
                    .zip(self.history.iter().skip(1))
                    .map(|((t0, a), (t1, b))| (b.int(path).saturating_sub(a.int(path))) as f64 / per(t1 - t0, a, b).max(1e-9))
                    .collect();
                Series { name, values }
            })
            .collect()
    }

    /// Per second.
    fn rate_series(&self, paths: &[(&'static str, &str)]) -> Vec<Series> {
        self.delta_series(paths, |dt, _, _| dt as f64 / 1e9)
    }

    /// The wire view, for hosts small enough to draw flow by flow, from the view's flows,
    /// queues and CPUs.
    fn wire_view(&self, flows: &[FlowView], queues: &[QueueView], cpus: &[CpuView]) -> Option<std::rc::Rc<crate::wire::WireView>> {
        use crate::wire::{WireFlow, WireView, MAX_FLOWS, MAX_QUEUES};
        if flows.len() > MAX_FLOWS as usize || queues.len() > MAX_QUEUES || cpus.len() > MAX_QUEUES {
            return None;
        }
        let reta = self.sim.reta();
        Some(std::rc::Rc::new(WireView {
            flows: flows.iter().zip(0..).map(|(&view, index)| WireFlow { index, reta_index: reta.index(view.hash), view }).collect(),
            reta: reta.entries().to_vec(),
            queues: queues.iter().map(|q| q.irq_cpu).collect(),
            cpus: cpus.iter().map(|c| (c.node, c.threads.clone())).collect(),
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
        let queues: Vec<QueueView> = snap
            .queues
            .iter()
            .enumerate()
            .map(|(i, q)| QueueView { index: i as u16, packets: q.packets, drops: q.drops, flows: flows[i], irq_cpu: sim.irq_cpu(i as u16).unwrap_or(0) })
            .collect();
        let threads: Vec<ThreadView> = (0..sim.thread_count())
            .filter_map(|t| sim.thread(t).map(|(cpu, set)| ThreadView { id: t, cpu, cpuset: set.to_list() }))
            .collect();
        // Softirq load over the last sample window.
        let prev = self.history.iter().rev().nth(1);
        let window = prev.map_or(1, |(t, _)| snap.now.0.saturating_sub(*t).max(1));
        let before = prev.and_then(|(_, r)| r.get("cpus")).and_then(serde_json::Value::as_array);
        let cpus: Vec<CpuView> = snap
            .cpus
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let before = before.and_then(|a| a.get(i)).and_then(|v| v["softirq_ns"].as_u64()).unwrap_or(0);
                let load = (c.softirq_ns.saturating_sub(before) as u128 * 1000 / u128::from(window)).min(1000) as u32;
                CpuView {
                    index: i as u16,
                    node: sim.node_of(i as u16),
                    softirq_permille: load,
                    packets: c.packets,
                    threads: threads.iter().filter(|t| usize::from(t.cpu) == i).map(|t| t.id).collect(),
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
            .map(|f| FilterRow { id: f.id, flow: f.flow, flow_id: f.flow_id, queue: f.queue, pending: f.pending, collision: per_slot[&f.flow_id] > 1 })
            .collect();
        filters.sort_by_key(|f| (!f.collision, f.flow_id, f.id));
        let filters_total = filters.len();
        // Where each flow's packets go now: the wire view and the paths both draw them.
        let flow_views: Vec<FlowView> = (0..sim.flow_count()).filter_map(|f| sim.flow_view(f)).collect();
        let wire = self.wire_view(&flow_views, &queues, &cpus);
        let l = &self.scenario.lesson;
        let duration = Nanos::from_ms(self.scenario.sim.duration_ms).0.max(1);
        ViewModel {
            sim_time: snap.now.to_string(),
            progress_permille: (u128::from(snap.now.0) * 1000 / u128::from(duration)).min(1000) as u32,
            flow_count: snap.flows,
            queues,
            cpus,
            threads,
            playing: self.playing,
            speed: self.speed,
            local: snap.counters.local,
            remote: snap.counters.remote,
            arfs_update: snap.arfs.update,
            digest: snap.digest.hex(),
            driver: sim.config().driver,
            filters: std::rc::Rc::new(filters),
            filters_total,
            lesson: LessonView {
                id: self.scenario.id.clone(),
                title: l.title.clone(),
                goal: l.goal.clone(),
                steps: l.steps.clone(),
                step: self.step,
                kernel_files: l.kernel_files.clone(),
                source: l.source.clone(),
                goal_met: self.goal_met(),
                highlight: l.highlight.get(self.step).filter(|h| !h.is_empty()).cloned(),
            },
            console: self.console.iter().cloned().collect(),
            arfs_series: self.rate_series(&[("add", "arfs.add"), ("update", "arfs.update"), ("skip", "arfs.skip"), ("expire", "arfs.expire")]),
            locality_series: self.rate_series(&[("local", "steering.local"), ("remote", "steering.remote")]),
            // CPU time per packet offered: what a host pays for each packet, by account.
            cost_series: self.delta_series(&[("softirq", "cpu.softirq_ns"), ("sys", "cpu.sys_ns"), ("user", "cpu.user_ns")], |_, a, b| {
                b.int("packets.offered").saturating_sub(a.int("packets.offered")) as f64
            }),
            report: Report::new(&self.scenario, sim),
            // Encoding is not free (deflate): only a paused state is offered as a link; the
            // share button encodes the live state when clicked.
            permalink: if self.playing { String::new() } else { self.permalink() },
            now_ns: snap.now.0,
            flow_labels: (0..sim.flow_count().min(256)).filter_map(|f| sim.flow_key(f).map(|k| (f, format!("#{f} {k}")))).collect(),
            traced: self.traced,
            trace: sim.trace_flow(self.traced),
            rss_key: sim.rss_key().to_vec(),
            ntuple: sim.config().ntuple,
            sock_entries: sim.sock_flow_entries(),
            scenario_json: self.scenario_json.clone(),
            eta: self.eta(),
            rfs: self.rfs_view(),
            xps: (0..sim.config().tx_queues.min(64))
                .map(|q| (q, sim.xps_cpus(q).map(|s| s.to_list()).unwrap_or_default(), sim.xps_rxqs(q).map(|s| s.to_list()).unwrap_or_default()))
                .collect(),
            wire,
            restoring: self.restore_progress(),
            paths: {
                let mut m = std::collections::BTreeMap::<(u16, u16, bool), u32>::new();
                for fv in &flow_views {
                    *m.entry((fv.queue, fv.cpu, fv.away_from_reader())).or_default() += 1;
                }
                m.into_iter().map(|((q, c, r), n)| (q, c, r, n)).collect()
            },
        }
    }
}

/// The driver names for the driver select.
pub fn driver_names() -> Vec<&'static str> {
    Driver::ALL.iter().map(|d| d.as_name()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Every lesson: the goal is not met at the start, and the guided steps reach it in at
    /// most three learner actions (the brief's bar).
    #[test]
    fn every_lesson_reaches_its_goal_in_three_actions() {
        let plans: &[(&str, &[&str])] = &[
            ("rss-basics", &["ethtool -X eth0 equal 3"]),
            ("arfs-collision", &["nic driver ice"]),
            ("tc-bypass", &["tc counting usesw"]),
            ("rfs-thread-churn", &["rfs record cpuset"]),
            ("xps-pick-tx", &["echo 40 > /sys/class/net/eth0/queues/tx-2/xps_cpus"]),
            ("xdp-kfunc-cost", &["xdp strategy inline"]),
        ];
        assert_eq!(plans.len(), steerlab_scenario::lesson_ids().count(), "a plan per lesson");
        for (id, actions) in plans {
            assert!(actions.len() <= 3);
            let mut c = Controller::for_lesson(id).unwrap();
            run(&mut c, 3000);
            assert_eq!(c.goal_met(), Some(false), "{id}: the first screen shows the problem");
            for a in *actions {
                c.command(a).unwrap_or_else(|e| panic!("{id}: {a}: {e}"));
            }
            assert_eq!(c.goal_met(), None, "{id}: assessed only on what happens after the change");
            run(&mut c, 2500);
            assert_eq!(c.goal_met(), Some(true), "{id}: goal after {actions:?}");
        }
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

    /// The page restores a link a slice per frame: slices of any size give the same state as
    /// replaying it at once, the learner's commands wait, and it stops paused at the link's time.
    #[test]
    fn a_permalink_restores_in_slices_to_the_same_state() {
        let mut c = Controller::for_lesson("rfs-thread-churn").unwrap();
        run(&mut c, 300);
        c.command("rfs record cpuset").unwrap();
        run(&mut c, 250);
        let link = c.permalink();
        assert_eq!(Controller::from_permalink(&link).unwrap().view().digest, c.view().digest, "at once");
        let mut d = Controller::restoring(&link).unwrap();
        assert_eq!(d.view().restoring, Some(0));
        let mut frames = 0;
        while d.view().restoring.is_some() {
            assert!(d.wanted_ticks(frames) == u64::MAX, "a restore runs as fast as the frames allow");
            // A frame: slices until one reports no progress (the page's loop does the same).
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
        assert_eq!((restored.digest, restored.sim_time), (original.digest, original.sim_time));
        assert!(!d.view().playing, "opens paused at the link's time");
        assert_eq!(d.permalink(), link, "the same link again");
        assert_eq!(d.take_link_error(), None);
    }

    #[test]
    fn a_link_whose_command_fails_stops_there_and_says_why() {
        let state = permalink::State {
            source: Source::Lesson("rss-basics".into()),
            commands: vec![Applied { at_ns: 2_000_000, command: "ethtool -X eth0 equal 2".into() }, Applied { at_ns: 5_000_000, command: "thread migrate 99 1".into() }],
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
        assert_ne!(c.view().digest, at3, "the command after 1.2 s was forgotten by stepping back before it");
        c.step_back();
        assert_eq!(c.view().sim_time, "2.990s");
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
            assert!(c.history.len() >= 10, "{tick}: {} samples", c.history.len());
            c.step();
            assert!(c.sim.now().0 > now, "{tick}: step advances");
            c.seek(Nanos::from_ms(1000));
            assert!(c.sim.now().0 <= 1_000_000_000 && c.sim.now().0 > 700_000_000, "{tick}: seek");
        }
    }

    #[test]
    fn frame_rate_never_changes_results() {
        let (mut a, mut b) = (Controller::new_default(), Controller::new_default());
        for i in 0..100 {
            a.frame(i, u64::MAX);
        }
        b.set_speed(2);
        for i in 0..10 {
            b.frame(i, u64::MAX);
        }
        assert_eq!(a.view().digest, b.view().digest);
        assert_eq!(a.view().sim_time, "1.000s");
    }
}
