//! A/B compare (`?view=compare`): the same scenario on two hosts side by side, one transport.
//! Change the driver, or type a command in one side's console, and watch the two diverge.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::timers::callback::Interval;
use yew::prelude::*;

use crate::chart::ChartData;
use crate::components::chart::Chart;
use crate::components::console::Console;
use crate::components::host::Host;
use crate::components::panels::{Metrics, Settings};
use crate::components::transport::Transport;
use crate::components::wire::Wire;
use crate::controller::{Controller, ViewModel};

/// Properties of [`Compare`].
#[derive(Properties, PartialEq)]
pub struct CompareProps {
    /// Lesson both hosts run.
    pub lesson: AttrValue,
}

fn side((label, id): (&'static str, &'static str), v: &ViewModel, c: &Rc<RefCell<Controller>>, set: &UseStateHandle<(ViewModel, ViewModel)>, b: bool) -> Html {
    // Applies `f` to this side's host and refreshes its view.
    let apply = |f: fn(&mut Controller, &str)| {
        let (c, set) = (c.clone(), set.clone());
        Callback::from(move |arg: String| {
            f(&mut c.borrow_mut(), &arg);
            let mut both = (*set).clone();
            if b { both.1 = c.borrow().view() } else { both.0 = c.borrow().view() }
            set.set(both);
        })
    };
    let on_driver = apply(|c, d| drop(c.set_driver(d)));
    // A refused command shows its error in this side's console, in the tool's words.
    let on_command = apply(|c, line| drop(c.command(line)));
    let rxq = ChartData::Bars { title: "packets per RX queue", x: "RX queue", y: "packets", values: v.queues.iter().map(|q| q.packets).collect(), warn: v.queues.iter().map(|q| q.drops > 0).collect() };
    html! {
        <section class="panel" aria-label={format!("host {label}")} data-testid={format!("compare-{id}")}>
            <h2>{ format!("Host {label}") }</h2>
            <Settings driver={v.driver.to_string()} {on_driver} />
            <Metrics local={v.local} remote={v.remote} arfs_update={v.arfs_update} flow_count={v.flow_count} />
            if let Some(wire) = &v.wire {
                <Wire view={wire.clone()} on_select={Callback::noop()} />
            }
            <Host queues={v.queues.clone()} cpus={v.cpus.clone()} on_migrate={Callback::noop()} />
            <Chart testid={format!("chart-rxq-{id}")} label={format!("packets per RX queue, host {label}")} data={rxq} />
            <Console lines={v.console.clone()} typed={c.borrow().typed().to_vec()} {on_command}
                testid={format!("console-{id}")} title={format!("Console, host {label}")} />
        </section>
    }
}

/// Two hosts, one clock.
#[component]
pub fn Compare(p: &CompareProps) -> Html {
    let make = || Controller::for_lesson(&p.lesson).unwrap_or_else(|_| Controller::new_default());
    let a = use_mut_ref(make);
    let b = use_mut_ref(make);
    let views = use_state(|| (a.borrow().view(), b.borrow().view()));
    {
        let (a, b, views) = (a.clone(), b.clone(), views.clone());
        use_effect_with((), move |_| {
            let mut frame = 0u64;
            // Both hosts advance tick by tick in lockstep, in slices of flows, within the same
            // per-frame budget as the sandbox (heavy lessons never block a frame for long).
            let mut a_ahead = false;
            let interval = Interval::new(16, move || {
                frame += 1;
                let now = || web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now());
                let (t0, wanted) = (now(), a.borrow().wanted_ticks(frame));
                let mut ran = 0u64;
                while ran < wanted && now() - t0 < 6.0 {
                    if !a_ahead {
                        if a.borrow_mut().step_part(1024) {
                            a_ahead = true;
                        } else if !a.borrow().sim().in_tick() {
                            break; // the scenario's end
                        }
                    } else if b.borrow_mut().step_part(1024) {
                        a_ahead = false;
                        ran += 1;
                    }
                }
                if ran > 0 {
                    views.set((a.borrow().view(), b.borrow().view()));
                }
            });
            move || drop(interval)
        });
    }
    let both = |f: Rc<dyn Fn(&mut Controller)>| {
        let (a, b, views) = (a.clone(), b.clone(), views.clone());
        move || {
            f(&mut a.borrow_mut());
            f(&mut b.borrow_mut());
            views.set((a.borrow().view(), b.borrow().view()));
        }
    };
    let on_play = {
        let (a, b, views) = (a.clone(), b.clone(), views.clone());
        Callback::from(move |play: bool| {
            a.borrow_mut().set_playing(play);
            b.borrow_mut().set_playing(play);
            views.set((a.borrow().view(), b.borrow().view()));
        })
    };
    let on_speed = {
        let (a, b, views) = (a.clone(), b.clone(), views.clone());
        Callback::from(move |s: usize| {
            a.borrow_mut().set_speed(s);
            b.borrow_mut().set_speed(s);
            views.set((a.borrow().view(), b.borrow().view()));
        })
    };
    let on_step = {
        let run = both(Rc::new(|c| c.step()));
        Callback::from(move |()| run())
    };
    let on_reset = {
        let run = both(Rc::new(|c| c.reset()));
        Callback::from(move |()| run())
    };
    let (va, vb) = &*views;
    html! {
        <main class="sandbox compare">
            <header class="topbar">
                <h1>{ "steerlab: A/B" }</h1>
                <Transport playing={va.playing} speed={va.speed} sim_time={va.sim_time.clone()} progress={va.progress_permille}
                    {on_play} {on_step} {on_speed} {on_reset} />
            </header>
            { side(("A", "a"), va, &a, &views, false) }
            { side(("B", "b"), vb, &b, &views, true) }
        </main>
    }
}
