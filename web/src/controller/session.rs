//! The worker's state: one host (or two side by side in the compare view), the pacer they
//! share, and what the page is owed (events, and a view when it has drawn the last one).
//! [`Session::apply`] takes every [`Action`]; [`Session::pump`] runs the engine in slices of
//! flows between messages, towards the simulated time the pacer asks for; [`Session::take`]
//! hands over what the page should get. Pure and clock-free: the caller passes the wall
//! clock in, so the whole loop is tested natively.

use serde_json::json;

use super::action::{Action, Event, Origin, SessionView, ToPage};
use super::view::ViewModel;
use super::{frame, Controller, Pacer, SPEEDS};
use crate::embed;

/// Flows per engine slice: 1-2 ms of work in the release wasm, so that a message (pause, a
/// command) waits at most that long.
pub const FLOWS_PER_SLICE: u32 = 16_384;

/// Views a permalink may lag behind while time runs (half a second at 60 frames a second):
/// the share button asks for the exact state at its click, and a command or a pause makes a
/// new one at once.
const LINK_EVERY: u32 = 30;

/// One host and what its page has been told of it.
struct Host {
    c: Controller,
    /// The rare parts of its view the page holds (`frame.rs`).
    sent: frame::Sent,
    /// Its permalink as last made, the commands it covered, and the views since.
    link: (std::rc::Rc<str>, usize, u32),
    /// The embedding page was told the goal is met.
    goal_sent: bool,
}

impl Host {
    fn new(c: Controller) -> Host {
        Host {
            c,
            sent: None,
            link: (std::rc::Rc::default(), 0, 0),
            goal_sent: false,
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
    out: Vec<ToPage>,
}

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
            Action::OpenLesson(id) => match Controller::for_lesson(&id) {
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
            },
            Action::OpenCompare(id) => {
                let make = || Controller::for_lesson(&id).unwrap_or_else(|_| Controller::new_default());
                self.replace(vec![make(), make()]);
            }
            Action::Load { text, from } => match Controller::for_text(&text) {
                Ok(c) => {
                    let id = c.scenario().id.clone();
                    self.replace(vec![c]);
                    match from {
                        Origin::Embed => self.host_message(embed::event("loaded", json!({ "lesson": id }))),
                        _ => self.event(Event::Banner(None)),
                    }
                }
                Err(e) => self.refuse(from, format!("uploaded {e}")),
            },
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
            Action::HostBuilt(built) => {
                let built = built.and_then(|h| {
                    let scenario = steerlab_scenario::parse(&h.text, &[]).map_err(|e| e.to_string())?;
                    let rx_queues = scenario.nic.rx_queues;
                    let c = Controller::for_scenario(scenario, steerlab_scenario::permalink::Source::Scenario(h.text))?;
                    Ok((c, h.rows, h.assumptions, rx_queues))
                });
                match built {
                    Ok((c, rows, assumptions, rx_queues)) => {
                        self.replace(vec![c]);
                        self.event(Event::Banner(None));
                        self.event(Event::HostImported {
                            rows,
                            assumptions,
                            rx_queues,
                        });
                    }
                    // Said beside the Build button, where the learner looks.
                    Err(e) => self.event(Event::HostRefused(e)),
                }
            }
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
                self.hosts.iter_mut().for_each(|h| h.goal_sent = false);
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
            Action::Command { host, line, from } => {
                let Some(h) = self.hosts.get_mut(usize::from(host)) else {
                    return self.refuse(from, format!("no host {host} (this view has {})", self.hosts.len()));
                };
                let result = h.c.command(&line);
                match (from, result) {
                    (Origin::Console, _) | (_, Ok(_)) => self.event(Event::Banner(None)),
                    (Origin::Control, Err(e)) => self.event(Event::Banner(Some(e))),
                    (Origin::Embed, Err(e)) => self.host_message(embed::error_event(&format!("{line}: {e}"))),
                }
            }
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
            Action::Hint => self.first().hint(),
            Action::GetState => {
                let state = self.state();
                self.host_message(state);
            }
            Action::Share => {
                let link = self.first().permalink();
                // A link too long to open again is no link (a captured host with thousands of
                // flows): say so and point at the scenario's download.
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
            let h = &mut self.hosts[i];
            if !h.goal_sent && h.c.goal_met() == Some(true) {
                h.goal_sent = true;
                let id = h.c.scenario().id.clone();
                self.host_message(embed::event("goal-met", json!({ "lesson": id })));
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

    /// Whether a view is worth building now. While a permalink restores, the page gets one
    /// as the restore starts and then only as its progress passes each tenth (the page shows
    /// just the progress bar until the restore lands), not one a frame: building and sending
    /// a view of a big host costs much of the engine's slice between two frames, and the
    /// replay runs at engine speed without them.
    fn view_due(&mut self) -> bool {
        let Some(p) = self.hosts[0].c.restore_progress() else {
            self.restore_shown = None;
            return true;
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

#[cfg(test)]
mod tests {
    use super::*;
    use steerlab_engine::Nanos;

    /// A fake wall clock: each read advances it by `step` ms (the time a slice took).
    fn clock(t: &mut f64, step: f64) -> impl FnMut() -> f64 + '_ {
        move || {
            *t += step;
            *t
        }
    }

    fn views(out: &[ToPage]) -> Vec<&SessionView> {
        out.iter()
            .filter_map(|m| if let ToPage::View(v) = m { Some(&**v) } else { None })
            .collect()
    }

    fn events(out: &[ToPage]) -> Vec<&Event> {
        out.iter()
            .filter_map(|m| if let ToPage::Event(e) = m { Some(e) } else { None })
            .collect()
    }

    fn host(m: &str) -> serde_json::Value {
        serde_json::from_str(m).unwrap()
    }

    fn digest(s: &Session) -> String {
        s.host(0).unwrap().sim().snapshot().digest.hex()
    }

    fn now_ms(s: &Session) -> u64 {
        s.host(0).unwrap().sim().now().0 / 1_000_000
    }

    /// The worker's loop as the page drives it: pumps of a budget, the wall clock moving on
    /// between them by `gap` ms, each slice taking `slice` ms. Stops at `until_ms` of
    /// simulated time or after `max_pumps`.
    fn drive(s: &mut Session, t: &mut f64, slice: f64, gap: f64, until_ms: u64, max_pumps: u32) {
        for _ in 0..max_pumps {
            if now_ms(s) >= until_ms {
                break;
            }
            let next = s.pump(&mut clock(t, slice), 8.0);
            *t += gap;
            if next == Next::Idle {
                break;
            }
        }
    }

    /// The page's real loop, with two very different frame timings: time advances by the
    /// pacer (1× = one simulated second per real second), and the state reached at the same
    /// simulated time is the same, equal to a plain native run.
    #[test]
    fn frame_timing_never_changes_results_and_1x_is_real_time() {
        let (mut a, mut b) = (Session::default(), Session::default());
        let (mut ta, mut tb) = (0.0, 0.0);
        drive(&mut a, &mut ta, 0.05, 16.0, 2000, 100_000);
        drive(&mut b, &mut tb, 0.02, 41.0, 2000, 100_000);
        for t in [ta, tb] {
            let real = t / 1000.0;
            assert!(
                (real - 2.0).abs() < 0.1,
                "1×: 2 simulated seconds took {real:.3} s of wall time"
            );
        }
        // Forward from where each pump stopped: the pumped run is what is compared.
        for s in [&mut a, &mut b] {
            s.apply(Action::Pause);
            s.apply(Action::Seek(2100));
        }
        let mut reference = Controller::new_default();
        reference.run_for(Nanos::from_ms(2100));
        assert_eq!(now_ms(&a), 2100);
        assert_eq!(digest(&a), digest(&b));
        assert_eq!(digest(&a), reference.sim().snapshot().digest.hex());
    }

    /// "Your host": the capture and flows become the host (its flows to play), the rows come
    /// once, a marked cell reaches the wire view; a broken capture changes nothing.
    #[test]
    fn a_captured_host_replaces_the_host_and_sends_its_predictions_once() {
        let capture = include_str!("../../../crates/scenario/tests/fixtures/capture-ice.txt");
        let mut s = Session::default();
        s.take();
        let before = s.hosts[0].c.scenario().id.clone();
        s.apply(Action::ImportHost {
            capture: capture.replace("Total 2 rules", "Total 5 rules"),
            flows: String::new(),
            sets: Vec::new(),
        });
        let out = s.take();
        assert!(
            events(&out)
                .iter()
                .any(|e| matches!(e, Event::HostRefused(m) if m.starts_with("capture: line ") && m.contains("(the line: \"Total 5 rules\")"))),
            "{out:?}"
        );
        assert_eq!(s.hosts[0].c.scenario().id, before, "a refused capture leaves the host");
        let flows = "tcp 203.0.113.7:40000 10.0.0.2:443\nudp 198.51.100.9:5353 10.0.0.2:53\ntcp 203.0.113.7:40000 10.0.0.2:443\n";
        s.apply(Action::ImportHost {
            capture: capture.into(),
            flows: flows.into(),
            sets: Vec::new(),
        });
        let out = s.take();
        let rows = events(&out).iter().find_map(|e| match e {
            Event::HostImported { rows, rx_queues, .. } => Some((rows.clone(), *rx_queues)),
            _ => None,
        });
        let (rows, rx_queues) = rows.expect("the predictions come");
        assert_eq!(
            (rows.len(), rx_queues),
            (3, 8),
            "a row per flow given, the host's queue count"
        );
        assert_eq!(
            s.hosts[0].c.sim().flow_count(),
            2,
            "the same connection twice is one flow"
        );
        assert_eq!((rows[0].queue, rows[0].decided_by.as_str()), (6, "ntuple:1023"));
        s.apply(Action::MatrixCell(Some((rows[0].queue, rows[0].irq_cpu))));
        let view = s.hosts[0].c.view();
        assert_eq!(
            view.wire.expect("a small host is drawn flow by flow").cell,
            Some((6, 12))
        );
        // Thousands of flows make a link too long to open again: Share says so instead.
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let many: String = (0..10_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let b = x.to_be_bytes();
                format!(
                    "udp {}.{}.{}.{}:{} 10.0.0.2:53\n",
                    b[0],
                    b[1],
                    b[2],
                    b[3],
                    u16::from_be_bytes([b[4], b[5]])
                )
            })
            .collect();
        s.apply(Action::ImportHost {
            capture: capture.into(),
            flows: many,
            sets: Vec::new(),
        });
        s.take();
        s.apply(Action::Share);
        let out = s.take();
        assert!(
            !events(&out).iter().any(|e| matches!(e, Event::Permalink(_))),
            "no link too long to open"
        );
        assert!(events(&out)
            .iter()
            .any(|e| matches!(e, Event::Banner(Some(m)) if m.contains("download its scenario"))));
    }

    #[test]
    fn views_come_one_per_frame_the_page_has_drawn() {
        let mut s = Session::default();
        s.apply(Action::OpenLesson("rss-basics".into()));
        let out = s.take();
        assert_eq!(views(&out).len(), 1, "the first view");
        let rare = &views(&out)[0].rare[0];
        assert!(
            rare.scenario_json.is_some() && rare.console.is_some() && rare.lesson.is_some(),
            "the first view carries every rare part: the scenario for the download, the console, the lesson"
        );
        assert!(events(&out).contains(&&Event::Lesson("rss-basics".into())));
        let mut t = 0.0;
        s.apply(Action::Speed(SPEEDS.len() - 1));
        s.pump(&mut clock(&mut t, 1.0), 8.0);
        assert!(views(&s.take()).is_empty(), "no view until the page has drawn the last");
        s.apply(Action::ViewShown);
        let out = s.take();
        assert_eq!(views(&out).len(), 1);
        let rare = &views(&out)[0].rare[0];
        assert!(
            rare.scenario_json.is_none() && rare.console.is_none() && rare.xps.is_none(),
            "sent once: {rare:?}"
        );
        s.apply(Action::ViewShown);
        assert!(views(&s.take()).is_empty(), "nothing changed: no view");
    }

    #[test]
    fn a_console_command_round_trips_and_refusals_go_where_they_came_from() {
        let mut s = Session::default();
        s.take();
        s.apply(Action::Command {
            host: 0,
            line: "ethtool -X eth0 equal 2".into(),
            from: Origin::Console,
        });
        s.apply(Action::ViewShown);
        let out = s.take();
        let console = views(&out)[0].rare[0]
            .console
            .clone()
            .expect("a changed console is sent");
        let line = console.lines.last().unwrap().clone();
        assert_eq!(
            (line.command.as_str(), line.output.is_ok()),
            ("ethtool -X eth0 equal 2", true)
        );
        assert!(events(&out).iter().any(|e| matches!(e, Event::Host(m) if host(m)["kind"] == "command" && host(m)["detail"]["command"] == "ethtool -X eth0 equal 2")));
        s.apply(Action::Command {
            host: 0,
            line: "ethtool -X eth0 equal 99".into(),
            from: Origin::Embed,
        });
        let out = s.take();
        assert!(events(&out).iter().any(|e| matches!(e, Event::Host(m) if host(m)["kind"] == "error" && host(m)["message"].as_str().unwrap().contains("equal 99"))));
        s.apply(Action::Command {
            host: 0,
            line: "thread migrate 99 1".into(),
            from: Origin::Control,
        });
        assert!(events(&s.take())
            .iter()
            .any(|e| matches!(e, Event::Banner(Some(m)) if m.contains("99"))));
        s.apply(Action::Command {
            host: 7,
            line: "ethtool -x eth0".into(),
            from: Origin::Embed,
        });
        assert!(events(&s.take())
            .iter()
            .any(|e| matches!(e, Event::Host(m) if host(m)["message"].as_str().unwrap().contains("no host 7"))));
        s.apply(Action::OpenLesson("nope".into()));
        assert!(events(&s.take())
            .iter()
            .any(|e| matches!(e, Event::Banner(Some(m)) if m.contains("opened the default lesson"))));
        s.apply(Action::GetState);
        assert!(events(&s.take())
            .iter()
            .any(|e| matches!(e, Event::Host(m) if host(m)["type"] == "steerlab:state")));
    }

    /// Step back, a permalink restored by the pump, and run to the end, through actions.
    #[test]
    fn step_back_restore_and_run_to_end_through_actions() {
        let mut s = Session::default();
        let mut t = 0.0;
        s.apply(Action::Speed(SPEEDS.len() - 1));
        drive(&mut s, &mut t, 0.01, 0.0, 700, 10_000);
        s.apply(Action::Pause);
        s.apply(Action::Command {
            host: 0,
            line: "thread migrate 0 3".into(),
            from: Origin::Console,
        });
        let at = (now_ms(&s), digest(&s));
        s.apply(Action::Step);
        assert_ne!(digest(&s), at.1);
        s.apply(Action::StepBack);
        assert_eq!(
            (now_ms(&s), digest(&s)),
            at,
            "one step back is the state before the step"
        );
        s.apply(Action::Share);
        let link = events(&s.take())
            .into_iter()
            .find_map(|e| {
                if let Event::Permalink(l) = e {
                    Some(l.clone())
                } else {
                    None
                }
            })
            .unwrap();
        let mut r = Session::default();
        r.apply(Action::Restore(link));
        r.apply(Action::Command {
            host: 0,
            line: "ethtool -X eth0 equal 2".into(),
            from: Origin::Console,
        });
        drive(&mut r, &mut t, 0.01, 0.0, u64::MAX, 10_000);
        assert_eq!(
            (now_ms(&r), digest(&r)),
            at,
            "restored to the same state, the command refused while restoring"
        );
        assert!(!r.playing(), "opens paused");
        let speed = s.view().speed;
        s.apply(Action::RunToEnd);
        drive(&mut s, &mut t, 0.01, 0.0, u64::MAX, 100_000);
        let out = s.take();
        assert!(events(&out).contains(&&Event::RunEnded), "the quiet note");
        assert!(!s.playing(), "Run to end ends paused");
        assert_eq!(s.view().speed, speed, "back at the learner's speed");
        assert_eq!(now_ms(&s), s.host(0).unwrap().scenario().sim.duration_ms);
        assert_eq!(s.pump(&mut clock(&mut t, 0.01), 8.0), Next::Idle);
        assert!(s.view().run_ended);
        // The length is a suggestion: Play goes on past it, and Run to end has nothing to do.
        s.apply(Action::Play);
        drive(&mut s, &mut t, 0.01, 0.0, 10_500, 100_000);
        assert!(s.playing() && now_ms(&s) >= 10_500, "played on to {} ms", now_ms(&s));
        assert!(s.view().run_ended, "still past the length");
        s.apply(Action::Pause);
        s.apply(Action::RunToEnd);
        assert!(!s.playing());
        s.apply(Action::Seek(9_000));
        assert!(!s.view().run_ended, "before the length again");
        s.apply(Action::RunToEnd);
        drive(&mut s, &mut t, 0.01, 0.0, u64::MAX, 100_000);
        assert_eq!(now_ms(&s), 10_000, "from before the end, Run to end stops at it again");
        // Without the learner's commands, the worker's run is the CLI's run, byte for byte.
        let mut fresh = Session::default();
        fresh.apply(Action::RunToEnd);
        drive(&mut fresh, &mut t, 0.01, 0.0, u64::MAX, 100_000);
        let native = steerlab_scenario::load("rss-basics", &[]).unwrap().run().unwrap();
        assert_eq!(digest(&fresh), native.snapshot().digest.hex());
    }

    /// A restore replays at engine speed: the page gets a view as it starts, then one as
    /// its progress passes each tenth, then the view where it lands, and no other.
    #[test]
    fn a_restore_builds_a_view_per_tenth_of_its_progress() {
        let mut c = Controller::for_lesson("arfs-collision").unwrap();
        c.run_for(Nanos::from_secs(2));
        let (link, at) = (c.permalink(), c.sim().snapshot().digest.hex());
        let mut s = Session::default();
        let mut t = 0.0;
        s.apply(Action::Restore(link));
        let mut shown: Vec<_> = views(&s.take()).iter().map(|v| v.hosts[0].restoring).collect();
        for _ in 0..10_000 {
            s.apply(Action::ViewShown);
            // About a tick (a twentieth of the link) a pump.
            let next = s.pump(&mut clock(&mut t, 5.0), 8.0);
            shown.extend(views(&s.take()).iter().map(|v| v.hosts[0].restoring));
            if next == Next::Idle {
                break;
            }
        }
        s.apply(Action::ViewShown);
        shown.extend(views(&s.take()).iter().map(|v| v.hosts[0].restoring));
        assert!((3..=12).contains(&shown.len()), "{shown:?}");
        assert_eq!(shown.first(), Some(&Some(0)), "{shown:?}");
        assert_eq!(shown.last(), Some(&None), "the view where it lands: {shown:?}");
        assert_eq!(digest(&s), at);
    }

    /// Playing never stops by itself: at the fastest speed time passes 4.5 times the
    /// suggested length, the page hears once that the length passed, and a command typed
    /// while paused is applied and says that time is paused.
    #[test]
    fn time_never_stops_the_class() {
        let mut s = Session::default();
        let mut t = 0.0;
        s.apply(Action::Speed(SPEEDS.len() - 1));
        s.take();
        drive(&mut s, &mut t, 0.01, 0.0, 45_000, 1_000_000);
        assert!(s.playing() && now_ms(&s) >= 45_000, "played to {} ms", now_ms(&s));
        let ended = events(&s.take())
            .iter()
            .filter(|e| matches!(e, Event::RunEnded))
            .count();
        assert_eq!(ended, 1, "one quiet note when the length passed");
        assert!(s.view().run_ended);
        s.apply(Action::Pause);
        s.apply(Action::Command {
            host: 0,
            line: "ethtool -X eth0 equal 3".into(),
            from: Origin::Console,
        });
        let line = s.host(0).unwrap().view().console.lines.last().cloned().unwrap();
        assert!(line.output.is_ok() && line.note.as_deref().is_some_and(|n| n.starts_with("time is paused")));
        assert!(!s.playing(), "the command does not start time");
        // Back: a second back, paused.
        let at = now_ms(&s);
        s.apply(Action::Play);
        s.apply(Action::Back);
        assert!(!s.playing());
        assert_eq!(now_ms(&s), at - 1000);
        let line = s.host(0).unwrap().view().console.lines.last().cloned().unwrap();
        assert!(line.undone, "the command after the time gone back to is undone");
    }

    /// The compare view: two hosts in lockstep, a command on one changes only that one.
    #[test]
    fn compare_hosts_advance_in_lockstep_and_diverge_by_their_own_commands() {
        let mut s = Session::default();
        s.apply(Action::OpenCompare("rss-basics".into()));
        s.apply(Action::Command {
            host: 1,
            line: "ethtool -X eth0 equal 3".into(),
            from: Origin::Console,
        });
        s.apply(Action::Speed(SPEEDS.len() - 1));
        let mut t = 0.0;
        drive(&mut s, &mut t, 0.01, 0.0, 500, 10_000);
        s.apply(Action::Pause);
        let (a, b) = (s.host(0).unwrap(), s.host(1).unwrap());
        assert_eq!(a.sim().now(), b.sim().now(), "one clock");
        let rx3 = |c: &Controller| c.sim().snapshot().queues[3].packets;
        assert!(rx3(a) > 0 && rx3(b) == 0, "equal 3 empties B's rx-3 only");
        s.apply(Action::ViewShown);
        assert_eq!(views(&s.take())[0].hosts.len(), 2);
    }

    /// The frame's cost at 144 CPUs (issue 33): arfs-collision (seed 000's host) with a dozen
    /// commands typed, playing from 3 s at the default speed, page frames 16.7 ms of wall time
    /// apart, until 100 views were sent (this host ticks every 100 ms: a view per tick). Prints the bytes each frame carries to the page and the worker time
    /// to build and encode it; `scripts/bench-frame.sh` runs it in release. Not timed in CI:
    /// it asserts only that frames came.
    #[test]
    #[ignore = "a measurement: scripts/bench-frame.sh"]
    fn frame_bytes_and_worker_time_at_144_cpus() {
        let mut s = Session::default();
        s.apply(Action::OpenLesson("arfs-collision".into()));
        for line in [
            "ethtool -l eth0",
            "ethtool -x eth0",
            "ethtool -n eth0",
            "cat /proc/sys/net/core/rps_sock_flow_entries",
            "cat /sys/class/net/eth0/queues/rx-0/rps_flow_cnt",
            "ethtool -S eth0",
            "taskset -p 1",
            "flow random 16",
            "ethtool -k eth0",
            "cat /proc/net/softnet_stat",
            "nic driver ice",
            "kernel 6.18",
        ] {
            s.apply(Action::Command {
                host: 0,
                line: line.into(),
                from: Origin::Console,
            });
        }
        s.apply(Action::Pause);
        s.apply(Action::Seek(3000));
        assert!(s.pump_until_idle(100_000), "the seek lands");
        s.apply(Action::Play);
        s.take();
        let (mut t, mut frames, mut bytes, mut worker_s) = (0.0, 0u32, 0usize, 0.0f64);
        for _ in 0..1200 {
            if frames == 100 {
                break;
            }
            s.pump(&mut clock(&mut t, 0.5), 8.0);
            t += 16.7;
            s.apply(Action::ViewShown);
            let start = std::time::Instant::now();
            let sent: Vec<Vec<u8>> = s
                .take()
                .iter()
                .filter(|m| matches!(m, ToPage::View(_)))
                .map(crate::controller::encode)
                .collect();
            worker_s += start.elapsed().as_secs_f64();
            frames += sent.len() as u32;
            bytes += sent.iter().map(Vec::len).sum::<usize>();
        }
        assert_eq!(frames, 100, "a view per tick of this host (100 ms)");
        println!(
            "frame at 144 CPUs: {frames} frames to {} ms, {:.1} KB per frame, {:.2} ms of worker time per frame (view and encode)",
            now_ms(&s),
            bytes as f64 / f64::from(frames) / 1024.0,
            worker_s * 1000.0 / f64::from(frames)
        );
    }
}
