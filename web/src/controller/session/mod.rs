//! The worker's state: one host (or two side by side in the compare view), the pacer they
//! share, and what the page is owed (events, and a view when it has drawn the last one).
//! [`Session::apply`] takes every [`Action`]; [`Session::pump`] runs the engine in slices of
//! flows between messages, towards the simulated time the pacer asks for; [`Session::take`]
//! hands over what the page should get. Pure and clock-free: the caller passes the wall
//! clock in, so the whole loop is tested natively.

use serde_json::json;

use super::action::{Action, Event, HostId, Origin, SessionView, ToPage};
use super::view::ViewModel;
use super::{frame, Controller, Pacer, SPEEDS};
use crate::protocol::embed;

/// Flows per engine slice: 1-2 ms of work in the release wasm, so that a message (pause, a
/// command) waits at most that long.
pub const FLOWS_PER_SLICE: u32 = 16_384;

/// Views a permalink may lag behind while time runs (half a second at 60 frames a second;
/// at full speed, where views of a big host are spaced by their cost, about 2.5 s of seed
/// 000's): the share button asks for the exact state at its click, and a command or a pause
/// makes a new one at once.
const LINK_EVERY: u32 = 30;

/// One host and what its page has been told of it.
struct Host {
    c: Controller,
    /// The rare parts of its view the page holds (`frame.rs`).
    sent: frame::Sent,
    /// Its permalink as last made, the commands it covered, and the views since.
    link: (std::rc::Rc<str>, usize, u32),
    /// What the embedding course page was told of the learner's way through the lesson.
    told: told::Told,
}

impl Host {
    fn new(c: Controller) -> Host {
        Host {
            c,
            sent: None,
            link: (std::rc::Rc::default(), 0, 0),
            told: told::Told::default(),
        }
    }

    /// Its view, with the permalink remade when due, and the rare parts the page lacks.
    fn frame(&mut self, playing: bool) -> (ViewModel, frame::RareParts) {
        let mut v = self.c.view();
        let (link, commands, age) = &mut self.link;
        let due = link.is_empty() || !playing || *commands != self.c.applied_count() || *age >= LINK_EVERY;
        if due {
            (*link, *commands, *age) = (self.c.permalink().into(), self.c.applied_count(), 0);
        }
        *age += 1;
        v.permalink = link.clone();
        let rare = frame::changes(&mut self.sent, &v);
        (v, rare)
    }
}

/// What the worker should do after a pump.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Next {
    /// Run again as soon as pending messages are handled.
    Now,
    /// Nothing is due for this many real ms (a paced speed).
    After(f64),
    /// Time is stopped: wait for a message.
    Idle,
}

/// The worker's whole state.
pub struct Session {
    hosts: Vec<Host>,
    pacer: Pacer,
    /// The page has drawn the last view and waits for the next.
    view_wanted: bool,
    /// Something the page shows changed since the last view.
    changed: bool,
    /// In the compare view, host A has run a tick that host B has not yet run.
    a_ahead: bool,
    /// Simulated ns per real ms at full speed (a moving average), for the estimate.
    rate: f64,
    /// Where Run to end stops (the scenario's suggested length): nothing else stops time.
    stop_at: Option<u64>,
    /// Time has passed the scenario's suggested length (a quiet note on the page).
    run_ended: bool,
    /// The learner's speed while Run to end runs at the fastest: given back where it stops
    /// or when the learner takes over (Pause, a seek, a command).
    speed_before_run: Option<usize>,
    /// While a permalink restores: the progress (per mille) the last view showed, `None`
    /// before the restore's first view ([`Session::view_due`]).
    restore_shown: Option<u32>,
    /// What building and sending a view costs the worker, wall ms (a moving average; 0 until
    /// the worker times one: [`Session::view_took`]).
    view_ms: f64,
    /// The worker's clock when it began the last view (none yet: -∞), and at the end of the
    /// last pump.
    view_at_ms: f64,
    clock_ms: f64,
    /// The worker's clock when this lesson was opened (its first pump): the learner's wall
    /// time on it, for the course page's score.
    opened_ms: Option<f64>,
    out: Vec<ToPage>,
}

/// While time runs as fast as the engine can, views take at most this share of the
/// worker's time: a view of seed 000's host (144 CPUs, 16,384 flows) costs the worker about
/// 2.4 ms, so the page gets one every 77 ms instead of each frame it draws (23 a second),
/// and the engine keeps the 5 % those took (issue 34); a host whose view costs less than
/// half a millisecond still gets one each frame.
const VIEW_SHARE: f64 = 1.0 / 32.0;

impl Default for Session {
    fn default() -> Session {
        Session::with(vec![Controller::new_default()])
    }
}

impl Session {
    fn with(hosts: Vec<Controller>) -> Session {
        let mut s = Session {
            hosts: hosts.into_iter().map(Host::new).collect(),
            pacer: Pacer::default(),
            view_wanted: true,
            changed: true,
            a_ahead: false,
            rate: 0.0,
            stop_at: None,
            run_ended: false,
            speed_before_run: None,
            restore_shown: None,
            view_ms: 0.0,
            view_at_ms: f64::NEG_INFINITY,
            clock_ms: 0.0,
            opened_ms: None,
            out: Vec::new(),
        };
        s.note_length();
        s
    }

    /// Whether time has passed the scenario's suggested length: the first time it does, the
    /// page gets a quiet note (`Event::RunEnded`); nothing stops.
    fn note_length(&mut self) {
        let past = self.hosts[0].c.finished() && self.now_ns() > 0;
        if past && !self.run_ended {
            self.event(Event::RunEnded);
        }
        self.run_ended = past;
    }

    /// Run to end is over (reached, or the learner took over): the learner's speed is back.
    fn end_run_to_end(&mut self) {
        self.stop_at = None;
        if let Some(speed) = self.speed_before_run.take() {
            self.pacer.set_speed(speed);
        }
    }

    /// A new session on built-in lesson `id`, on `hosts` hosts side by side (two for the
    /// compare view), as `OpenLesson` and `OpenCompare` open it: the worker starts this way,
    /// without the default lesson's text (worker.rs).
    pub fn on_lesson(id: &str, hosts: usize) -> Result<Session, String> {
        let hosts = (0..hosts.max(1))
            .map(|_| Controller::for_lesson(id))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Session::with(hosts))
    }

    /// Host `i`'s controller, if there is one.
    pub fn host(&self, i: usize) -> Option<&Controller> {
        self.hosts.get(i).map(|h| &h.c)
    }

    fn first(&mut self) -> &mut Controller {
        &mut self.hosts[0].c
    }

    /// Time runs.
    pub fn playing(&self) -> bool {
        self.hosts[0].c.playing()
    }

    fn event(&mut self, e: Event) {
        self.out.push(ToPage::Event(e));
    }

    /// A message for the embedding page.
    fn host_message(&mut self, msg: serde_json::Value) {
        self.event(Event::Host(msg.to_string()));
    }

    /// Replaces the hosts (a lesson, a scenario, a link): the pacer starts anew.
    fn replace(&mut self, hosts: Vec<Controller>) {
        // The learner's speed, not Run to end's.
        let speed = self.speed_before_run.unwrap_or(self.pacer.speed());
        let (out, view_wanted) = (std::mem::take(&mut self.out), self.view_wanted);
        *self = Session::with(hosts);
        // One view in flight at a time, across the change too.
        (self.out, self.view_wanted) = (out, view_wanted);
        self.pacer.set_speed(speed);
    }

    /// Runs every host to the same tick boundary: a tick in progress ends, and in the compare
    /// view B runs the tick A is ahead by, so that both stay on one clock.
    fn settle(&mut self) {
        while !self.between_ticks() {
            if !self.slice() {
                break;
            }
        }
    }

    /// Applies `f` to every host; time may have jumped, so the pacer counts anew. The learner
    /// took over: a Run to end in progress stops.
    fn each(&mut self, f: impl Fn(&mut Controller)) {
        for h in &mut self.hosts {
            f(&mut h.c);
        }
        self.pacer.restart();
        self.end_run_to_end();
        self.note_length();
    }

    /// Takes one action.
    pub fn apply(&mut self, action: Action) {
        if action == Action::ViewShown {
            self.view_wanted = true;
            return;
        }
        self.settle();
        self.changed = true;
        match action {
            Action::ViewShown => {}
            Action::SendAll => self.hosts.iter_mut().for_each(|h| h.sent = None),
            Action::OpenLesson(id) => self.open_lesson(id),
            Action::OpenCompare(id) => {
                let make = || Controller::for_lesson(&id).unwrap_or_else(|_| Controller::new_default());
                self.replace(vec![make(), make()]);
            }
            Action::Load { text, from } => self.load(&text, from),
            // Natively (tests, fuzzing) the importer runs here; the page's worker loads its
            // module and sends its answer as `HostBuilt` (worker.rs), so that the default
            // page's module does not carry it.
            #[cfg(not(target_arch = "wasm32"))]
            Action::ImportHost { capture, flows, sets } => {
                self.apply(Action::HostBuilt(steerlab_importer::build(&capture, &flows, &sets)));
            }
            #[cfg(target_arch = "wasm32")]
            Action::ImportHost { .. } => self.event(Event::HostRefused(
                "the importer runs in the worker's own module (worker.rs)".into(),
            )),
            Action::HostBuilt(built) => self.host_built(built),
            Action::Restore(link) => match Controller::restoring(&link) {
                Ok(c) => self.replace(vec![c]),
                Err(e) => {
                    self.replace(vec![Controller::new_default()]);
                    self.event(Event::Banner(Some(e)));
                }
            },
            Action::Play => self.each(|c| c.set_playing(true)),
            Action::Pause => self.each(|c| c.set_playing(false)),
            Action::Step => self.each(Controller::step),
            Action::StepBack => self.each(Controller::step_back),
            Action::Back => self.each(|c| {
                c.set_playing(false);
                c.back();
            }),
            Action::Reset => {
                self.each(Controller::reset);
                self.hosts.iter_mut().for_each(|h| h.told.clear());
            }
            Action::RunToEnd => {
                // Past the scenario's length there is no end to run to.
                let length = self.hosts[0].c.duration().0;
                if self.now_ns() < length {
                    self.each(|c| c.set_playing(true));
                    self.speed_before_run = Some(self.pacer.speed());
                    self.pacer.set_speed(SPEEDS.len() - 1);
                    self.stop_at = Some(length);
                }
            }
            Action::Speed(s) => {
                self.speed_before_run = None;
                self.pacer.set_speed(s);
            }
            Action::Seek(ms) => self.each(|c| c.seek(steerlab_engine::Nanos::from_ms(ms))),
            Action::Command { host, line, from } => self.command(host, &line, from),
            Action::Commands { host, lines } => {
                let result = match self.hosts.get_mut(usize::from(host)) {
                    Some(h) => lines.iter().try_for_each(|l| h.c.command(l).map(drop)),
                    None => Err(format!("no host {host}")),
                };
                self.event(Event::Banner(result.err()));
            }
            Action::AddFlow(form) => {
                let result = self.first().add_flow(&form);
                self.event(Event::Banner(result.err()));
            }
            Action::Trace(f) => self.first().trace(f),
            Action::RfsQueue(q) => self.first().show_rfs_queue(q),
            Action::FilterWindow(first) => self.first().show_filters_from(first),
            Action::MatrixCell(cell) => self.first().select_cell(cell),
            Action::MatrixCellOf(host, cell) => {
                if let Some(h) = self.hosts.get_mut(usize::from(host)) {
                    h.c.select_cell(cell);
                }
            }
            Action::NextStep => self.first().next_step(),
            Action::Predict(choice) => self.first().predict(choice),
            Action::Challenge(on) => self.hosts.iter_mut().for_each(|h| h.c.set_challenge(on)),
            Action::Student(name) => self.student(&name),
            Action::Hint => self.first().hint(),
            Action::GetState => {
                let state = self.state();
                self.host_message(state);
            }
            Action::FromHostPage(text) => self.host_page_message(&text),
            Action::Share => self.share(),
        }
    }

    /// An embedding page's message: its actions, or the error event that says what is wrong
    /// (text that is not JSON is refused as any message that is not an object; a message too
    /// big is refused before it is parsed).
    fn host_page_message(&mut self, text: &str) {
        let parsed = embed::check_size(text.len())
            .map(|()| serde_json::from_str(text).unwrap_or(serde_json::Value::Null))
            .and_then(|data| embed::parse_message(&data));
        match parsed {
            Err(m) => self.host_message(embed::error_event(&m)),
            Ok(msg) => embed::actions(msg).into_iter().for_each(|a| self.apply(a)),
        }
    }

    /// Opens a built-in lesson, or the default one with a banner saying why.
    fn open_lesson(&mut self, id: String) {
        match Controller::for_lesson(&id) {
            Ok(c) => {
                self.replace(vec![c]);
                self.event(Event::Banner(None));
                self.event(Event::Lesson(id));
            }
            Err(e) => {
                self.replace(vec![Controller::new_default()]);
                self.event(Event::Banner(Some(format!(
                    "?lesson={id}: {e}; opened the default lesson"
                ))));
            }
        }
    }

    /// Reopens the lesson as `name`'s own variant (`?student=NAME`): the same file with the
    /// seed `steerlab_scenario::student_seed` gives that name, carried whole by the host's
    /// scenario (a permalink keeps it).
    fn student(&mut self, name: &str) {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control) {
            return self.event(Event::Banner(Some(
                "?student=: a name of 1 to 64 printable characters".into(),
            )));
        }
        let c = &self.hosts[0].c;
        let seed = steerlab_scenario::student_seed(c.scenario().sim.seed, name);
        let variant = steerlab_scenario::with_overrides(c.scenario_json(), &[format!("sim.seed={seed}")])
            .map_err(|e| e.to_string())
            .and_then(|text| Controller::for_text(&text));
        match variant {
            Ok(mut c) => {
                c.set_student(name);
                self.replace(vec![c]);
            }
            Err(e) => self.event(Event::Banner(Some(format!("?student={name}: {e}")))),
        }
    }

    /// Opens a scenario's JSON (an upload, or an embedding page's `steerlab:load`).
    fn load(&mut self, text: &str, from: Origin) {
        match Controller::for_text(text) {
            Ok(c) => {
                let id = c.scenario().id.clone();
                self.replace(vec![c]);
                match from {
                    Origin::Embed => self.host_message(embed::event("loaded", json!({ "lesson": id }))),
                    _ => self.event(Event::Banner(None)),
                }
            }
            Err(e) => self.refuse(from, format!("uploaded {e}")),
        }
    }

    /// "Your host": the importer's answer becomes the host, and its predictions go to the page.
    fn host_built(&mut self, built: Result<steerlab_importer::ImportedHost, String>) {
        let built = built.and_then(|h| {
            let scenario = steerlab_scenario::parse(&h.text, &[]).map_err(|e| e.to_string())?;
            let rx_queues = scenario.nic.rx_queues;
            let c = Controller::for_scenario(scenario, steerlab_scenario::permalink::Source::Scenario(h.text))?;
            Ok((c, h.rows, (h.assumptions, h.observed), rx_queues))
        });
        match built {
            Ok((c, rows, (assumptions, observed), rx_queues)) => {
                self.replace(vec![c]);
                self.event(Event::Banner(None));
                self.event(Event::HostImported {
                    rows,
                    assumptions,
                    observed,
                    rx_queues,
                });
            }
            // Said beside the Build button, where the learner looks.
            Err(e) => self.event(Event::HostRefused(e)),
        }
    }

    /// A command line on one host; a refusal goes where the line came from.
    fn command(&mut self, host: HostId, line: &str, from: Origin) {
        if usize::from(host) >= self.hosts.len() {
            return self.refuse(from, format!("no host {host} (this view has {})", self.hosts.len()));
        }
        // A single host's lesson asks its questions first; the compare view has no lesson panel.
        let single = self.hosts.len() == 1;
        let h = &mut self.hosts[usize::from(host)];
        let result = match from {
            Origin::Console | Origin::Control if single => h.c.learner_command(line),
            _ => h.c.command(line),
        };
        match (from, result) {
            (Origin::Console, _) | (_, Ok(_)) => self.event(Event::Banner(None)),
            (Origin::Control, Err(e)) => self.event(Event::Banner(Some(e))),
            (Origin::Embed, Err(e)) => self.host_message(embed::error_event(&format!("{line}: {e}"))),
        }
    }

    /// The permalink of the state now, or why there is none.
    fn share(&mut self) {
        let link = self.first().permalink();
        // A link too long to open again is no link (a captured host with thousands of flows):
        // say so and point at the scenario's download.
        let max = steerlab_scenario::permalink::MAX_LINK;
        if link.len() > max {
            let why = format!(
                "This state's link would be {} characters, over the {max} a link may carry (a host with many flows): download its scenario instead (Features and scenario, Scenario JSON)",
                link.len()
            );
            self.event(Event::Banner(Some(why)));
        } else {
            self.event(Event::Permalink(link));
        }
    }

    fn refuse(&mut self, from: Origin, e: String) {
        match from {
            Origin::Embed => self.host_message(embed::error_event(&e)),
            _ => self.event(Event::Banner(Some(e))),
        }
    }

    /// `steerlab:state` of the first host: what an embedding page follows.
    fn state(&self) -> serde_json::Value {
        let c = &self.hosts[0].c;
        let snap = c.sim().snapshot();
        let report = steerlab_scenario::Report::new(c.scenario(), c.sim());
        embed::state(
            &c.scenario().id,
            &snap.now.to_string(),
            &snap.digest.hex(),
            c.goal_met(),
            &c.permalink(),
            &report.0,
        )
    }

    /// One slice of engine work: a slice of the host's tick, or in the compare view of A's
    /// tick and then of B's (lockstep). False when no host can advance (the end, a restore
    /// that stopped).
    fn slice(&mut self) -> bool {
        if self.hosts.len() == 1 {
            let c = &mut self.hosts[0].c;
            return c.step_part(FLOWS_PER_SLICE) || c.sim().in_tick();
        }
        if !self.a_ahead {
            let a = &mut self.hosts[0].c;
            if a.step_part(FLOWS_PER_SLICE) {
                self.a_ahead = true;
                return true;
            }
            return a.sim().in_tick();
        }
        let b = &mut self.hosts[1].c;
        if b.step_part(FLOWS_PER_SLICE) || !b.sim().in_tick() {
            self.a_ahead = false;
        }
        true
    }

    fn now_ns(&self) -> u64 {
        self.hosts[0].c.sim().now().0
    }

    fn between_ticks(&self) -> bool {
        !self.a_ahead && !self.hosts[0].c.sim().in_tick()
    }

    /// The worker's loop without a page (tests, fuzz targets): pumps of 8 ms with a clock that
    /// moves 0.01 ms per read, until the session is idle or `max_pumps` ran. Returns whether it
    /// went idle. Results depend only on simulated time, so the made-up clock changes none.
    pub fn pump_until_idle(&mut self, max_pumps: u32) -> bool {
        let mut t = 0.0;
        for _ in 0..max_pumps {
            let mut clock = || {
                t += 0.01;
                t
            };
            if self.pump(&mut clock, 8.0) == Next::Idle {
                return true;
            }
        }
        false
    }

    /// Runs the engine for at most `budget_ms` of wall time (`clock` gives real ms), in
    /// slices, towards the simulated time the pacer asks for (a restore runs at full speed).
    /// Results depend only on simulated time, never on the clock or the budget.
    pub fn pump(&mut self, clock: &mut dyn FnMut() -> f64, budget_ms: f64) -> Next {
        let restoring = self.hosts[0].c.restore_progress().is_some();
        if !restoring && !self.playing() {
            return Next::Idle;
        }
        let stop = if restoring {
            u64::MAX
        } else {
            self.stop_at.unwrap_or(u64::MAX)
        };
        if self.between_ticks() && self.now_ns() >= stop {
            self.stop_at_end();
            return Next::Idle;
        }
        let t0 = clock();
        let sim0 = self.now_ns();
        let target = if restoring {
            u64::MAX
        } else {
            self.pacer.target(t0, sim0).min(stop)
        };
        let mut stalled = false;
        while !(self.between_ticks() && self.now_ns() >= target) && clock() - t0 < budget_ms {
            if !self.slice() {
                stalled = true;
                break;
            }
        }
        let now = clock();
        self.clock_ms = now;
        self.opened_ms.get_or_insert(t0);
        if self.now_ns() != sim0 {
            self.changed = true;
            if self.pacer.unbounded() && now > t0 {
                let r = (self.now_ns() - sim0) as f64 / (now - t0);
                self.rate = if self.rate == 0.0 { r } else { 0.8 * self.rate + 0.2 * r };
            }
        }
        // What replaying costs: each host's share of the engine's wall time.
        let share = (now - t0) / self.hosts.len() as f64;
        for h in &mut self.hosts {
            h.c.spent(share);
        }
        self.note_length();
        if restoring && self.hosts[0].c.restore_progress().is_none() {
            self.changed = true;
            self.pacer.restart();
            if let Some(e) = self.hosts[0].c.take_link_error() {
                self.event(Event::Banner(Some(e)));
            }
            return Next::Idle;
        }
        if stalled || (self.between_ticks() && self.now_ns() >= stop) {
            self.stop_at_end();
            return Next::Idle;
        }
        if target == u64::MAX || self.now_ns() < target || !self.between_ticks() {
            Next::Now
        } else {
            let tick = self.hosts[0].c.sim().config().tick_ns;
            Next::After(self.pacer.wait_ms(now, self.now_ns() + tick))
        }
    }

    /// Run to end reached the scenario's suggested length: it stops there, paused, at the
    /// learner's speed again; Play goes on.
    fn stop_at_end(&mut self) {
        self.each(|c| c.set_playing(false));
        self.changed = true;
    }

    /// What the page is owed: events (commands done, a goal met) and, when the page has drawn
    /// the last view and something changed, the next view.
    pub fn take(&mut self) -> Vec<ToPage> {
        for i in 0..self.hosts.len() {
            for d in self.hosts[i].c.take_done() {
                self.host_message(embed::event(
                    d.kind,
                    json!({ "command": d.command, "output": d.output }),
                ));
            }
            let name = (self.hosts.len() > 1).then_some(["a", "b"][i.min(1)]);
            let wall_s = (self.clock_ms - self.opened_ms.unwrap_or(self.clock_ms)).max(0.0) / 1000.0;
            let h = &mut self.hosts[i];
            for msg in h.told.news(&h.c, name, wall_s) {
                self.host_message(msg);
            }
        }
        let mut out = std::mem::take(&mut self.out);
        if self.view_wanted && self.changed && self.view_due() {
            out.push(ToPage::View(Box::new(self.view())));
            self.view_wanted = false;
            self.changed = false;
        }
        out
    }

    /// The worker built and sent a view from `at_ms` (its clock) in `ms`: views at full
    /// speed are spaced by that cost ([`VIEW_SHARE`]).
    pub fn view_took(&mut self, at_ms: f64, ms: f64) {
        self.view_at_ms = at_ms;
        self.view_ms = if self.view_ms == 0.0 {
            ms
        } else {
            0.5 * (self.view_ms + ms)
        };
    }

    /// Whether a view is worth building now. While a permalink restores, the page gets one
    /// as the restore starts and then only as its progress passes each tenth (the page shows
    /// just the progress bar until the restore lands), not one a frame: building and sending
    /// a view of a big host costs much of the engine's slice between two frames, and the
    /// replay runs at engine speed without them. While time runs at full speed (the
    /// fastest speed, Run to end), views are spaced so that they take at most
    /// [`VIEW_SHARE`] of the worker's time; paused, at a paced speed or at the end, the view
    /// comes at once.
    fn view_due(&mut self) -> bool {
        let Some(p) = self.hosts[0].c.restore_progress() else {
            self.restore_shown = None;
            let full_speed = self.playing() && self.pacer.unbounded();
            return !full_speed || self.clock_ms - self.view_at_ms >= self.view_ms / VIEW_SHARE;
        };
        let due = self.restore_shown.is_none_or(|shown| p >= shown + 100);
        if due {
            self.restore_shown = Some(p);
        }
        due
    }

    /// The view of every host now, with the rare parts the page lacks.
    pub fn view(&mut self) -> SessionView {
        let playing = self.playing();
        let (hosts, rare) = self.hosts.iter_mut().map(|h| h.frame(playing)).unzip();
        let c = &self.hosts[0].c;
        let eta = (self.playing() && self.stop_at.is_some() && !c.finished() && self.rate > 0.0).then(|| {
            let left = c.duration().0.saturating_sub(c.sim().now().0) as f64;
            format!("about {:.0} s to the end", left / self.rate / 1000.0)
        });
        let behind = self
            .playing()
            .then(|| self.pacer.behind())
            .flatten()
            .map(|r| format!("running at {r:.2} s/s: the engine cannot keep up with this host"));
        SessionView {
            hosts,
            rare,
            playing: self.playing(),
            speed: self.pacer.speed(),
            eta,
            behind,
            run_ended: self.run_ended,
        }
    }
}

mod told;

#[cfg(test)]
mod tests;
