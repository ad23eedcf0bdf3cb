//! What a frame carries from the worker to the page (issue 33), in one place. A host's view
//! has parts that change every tick (queues, CPUs, the matrix, the charts) and parts that
//! change only now and then: the console, the lesson panel, the permalink, the scenario's
//! JSON, the trace panel's flow list and the XPS map. At seed 000's 144 CPUs those rare parts
//! were 60 % of a frame's 88 KB (the console alone 32 KB). [`RareParts`] names them: the
//! worker sends each only when it differs from the one it sent last ([`Sent::changes`]), and
//! the page keeps the last it got ([`Kept::fill`]). In the [`ViewModel`] they are `Rc`s that
//! serde skips, so no other part of a frame can carry them by mistake.
//!
//! A part added to the view belongs here when a frame would otherwise repeat it: add it to
//! [`RareParts`] and [`Kept`], give its `ViewModel` field `#[serde(skip)]`, and list it in
//! the two functions below.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::console::ConsoleView;
use super::view::{LessonView, ViewModel, XpsRow};

/// One host's rare parts in a frame: each `Some` only when it changed since the frame before
/// (all of them in the first frame, and after [`super::Action::SendAll`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RareParts {
    /// The console's lines and the commands typed.
    pub console: Option<Rc<ConsoleView>>,
    /// The lesson panel.
    pub lesson: Option<Rc<LessonView>>,
    /// The permalink of the state (`#s=` + this).
    pub permalink: Option<Rc<str>>,
    /// The scenario's JSON (the download).
    pub scenario_json: Option<Rc<str>>,
    /// The trace panel's flows.
    pub flow_labels: Option<Rc<Vec<(u32, String)>>>,
    /// The XPS map.
    pub xps: Option<Rc<Vec<XpsRow>>>,
}

/// The rare parts one end holds of a host.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Kept {
    console: Rc<ConsoleView>,
    lesson: Rc<LessonView>,
    permalink: Rc<str>,
    scenario_json: Rc<str>,
    flow_labels: Rc<Vec<(u32, String)>>,
    xps: Rc<Vec<XpsRow>>,
}

/// The worker's record of what the page holds of a host: `None` until a frame went out (or
/// when the page asked for everything again).
pub type Sent = Option<Kept>;

/// `now` when it differs from `held` (which becomes it), else `None`.
fn changed<T: PartialEq + ?Sized>(held: &mut Rc<T>, now: &Rc<T>, all: bool) -> Option<Rc<T>> {
    if !all && (Rc::ptr_eq(held, now) || **held == **now) {
        return None;
    }
    *held = now.clone();
    Some(now.clone())
}

/// The worker's side: the parts of `view` the page does not hold yet, recorded in `sent`.
pub fn changes(sent: &mut Sent, view: &ViewModel) -> RareParts {
    let all = sent.is_none();
    let k = sent.get_or_insert_with(Kept::default);
    RareParts {
        console: changed(&mut k.console, &view.console, all),
        lesson: changed(&mut k.lesson, &view.lesson, all),
        permalink: changed(&mut k.permalink, &view.permalink, all),
        scenario_json: changed(&mut k.scenario_json, &view.scenario_json, all),
        flow_labels: changed(&mut k.flow_labels, &view.flow_labels, all),
        xps: changed(&mut k.xps, &view.xps, all),
    }
}

/// `new` when the frame carried it (it is kept), else what was kept.
fn keep<T: ?Sized>(kept: &mut Rc<T>, new: Option<Rc<T>>, into: &mut Rc<T>) {
    if let Some(n) = new {
        *kept = n;
    }
    *into = kept.clone();
}

impl Kept {
    /// The page's side: `view`'s rare parts from the frame's `parts`, or as kept.
    pub fn fill(&mut self, view: &mut ViewModel, parts: RareParts) {
        keep(&mut self.console, parts.console, &mut view.console);
        keep(&mut self.lesson, parts.lesson, &mut view.lesson);
        keep(&mut self.permalink, parts.permalink, &mut view.permalink);
        keep(&mut self.scenario_json, parts.scenario_json, &mut view.scenario_json);
        keep(&mut self.flow_labels, parts.flow_labels, &mut view.flow_labels);
        keep(&mut self.xps, parts.xps, &mut view.xps);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::{decode, encode, Action, Origin, Session, SessionView, ToPage};

    /// The frames of `out`: as the worker built them, and as the page gets them (encoded,
    /// decoded).
    fn frames(out: Vec<ToPage>) -> Vec<(SessionView, SessionView)> {
        out.into_iter()
            .filter_map(|m| {
                let ToPage::View(built) = m else { return None };
                match decode::<ToPage>(&encode(&ToPage::View(built.clone()))) {
                    Ok(ToPage::View(got)) => Some((*built, *got)),
                    other => panic!("{other:?}"),
                }
            })
            .collect()
    }

    /// Through commands, time, a step back and another lesson, the page that fills each frame
    /// from what it kept draws exactly the view the worker built; the rare parts cross only
    /// when they change, and all of them after `SendAll`.
    #[test]
    fn the_page_draws_what_the_worker_built_and_rare_parts_cross_once() {
        let mut s = Session::default();
        let mut kept = Kept::default();
        let (mut frames_seen, mut consoles) = (0, 0);
        let mut step = |s: &mut Session, a: Action, kept: &mut Kept| {
            s.apply(a);
            s.apply(Action::ViewShown);
            for (built, mut got) in frames(s.take()) {
                let rare = std::mem::take(&mut got.rare);
                consoles += usize::from(rare[0].console.is_some());
                kept.fill(&mut got.hosts[0], rare.into_iter().next().unwrap());
                assert_eq!(got.hosts[0], built.hosts[0]);
                frames_seen += 1;
            }
        };
        let command = |line: &str| Action::Command {
            host: 0,
            line: line.into(),
            from: Origin::Console,
        };
        step(&mut s, Action::OpenLesson("rss-basics".into()), &mut kept);
        step(&mut s, command("ethtool -X eth0 equal 2"), &mut kept);
        step(&mut s, Action::Step, &mut kept);
        step(&mut s, Action::Step, &mut kept);
        step(&mut s, command("flow random 4"), &mut kept);
        step(&mut s, Action::Back, &mut kept);
        step(&mut s, Action::SendAll, &mut kept);
        step(&mut s, Action::OpenLesson("xps-pick-tx".into()), &mut kept);
        step(&mut s, Action::Step, &mut kept);
        assert_eq!(frames_seen, 9, "a frame after each action");
        // The first, each command, Back (it marks the undone command), SendAll, the new lesson.
        assert_eq!(consoles, 6, "the console crosses when it changes, not with each step");
    }
}
