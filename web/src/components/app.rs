//! The top-level component: owns the controller, runs the animation timer, lays out the page.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::timers::callback::Interval;
use yew::prelude::*;

use crate::components::add_flow::AddFlow;
use crate::components::queues::Queues;
use crate::components::rx_chart::RxChart;
use crate::controller::{Controller, FlowForm, ViewModel};

/// The sandbox page.
#[component]
pub fn App() -> Html {
    let controller = use_mut_ref(Controller::new_default);
    let view = use_state(|| controller.borrow().view());
    let error = use_state(|| None::<String>);

    // One timer drives the animation; dropping it (on unmount) stops it.
    {
        let controller = controller.clone();
        let view = view.clone();
        use_effect_with((), move |_| {
            let interval = Interval::new(50, move || {
                controller.borrow_mut().frame();
                view.set(controller.borrow().view());
            });
            move || drop(interval)
        });
    }

    let refresh = |c: &Rc<RefCell<Controller>>, v: &UseStateHandle<ViewModel>| v.set(c.borrow().view());
    let on_add = {
        let (controller, view, error) = (controller.clone(), view.clone(), error.clone());
        Callback::from(move |form: FlowForm| {
            let result = controller.borrow_mut().add_flow(&form);
            error.set(result.err());
            refresh(&controller, &view);
        })
    };
    let on_play = {
        let (controller, view) = (controller.clone(), view.clone());
        Callback::from(move |_| {
            controller.borrow_mut().set_playing(true);
            refresh(&controller, &view);
        })
    };
    let on_pause = {
        let (controller, view) = (controller.clone(), view.clone());
        Callback::from(move |_| {
            controller.borrow_mut().set_playing(false);
            refresh(&controller, &view);
        })
    };
    let on_step = {
        let (controller, view) = (controller.clone(), view.clone());
        Callback::from(move |_| {
            controller.borrow_mut().step();
            refresh(&controller, &view);
        })
    };

    let packets: Vec<u64> = view.queues.iter().map(|q| q.packets).collect();
    html! {
        <main class="sandbox">
            <header class="topbar">
                <h1>{ "steerlab" }</h1>
                <nav class="transport" aria-label="transport">
                    <button data-testid="play" onclick={on_play} disabled={view.playing}>{ "▶ Play" }</button>
                    <button data-testid="pause" onclick={on_pause} disabled={!view.playing}>{ "❚❚ Pause" }</button>
                    <button data-testid="step" onclick={on_step}>{ "Step" }</button>
                    <span class="sim-time" aria-label="simulated time">
                        { "t = " }<span data-testid="sim-time">{ &view.sim_time }</span>
                    </span>
                </nav>
            </header>
            if let Some(message) = &*error {
                <p class="error" role="alert" data-testid="error-banner">{ message }</p>
            }
            <section class="panel">
                <h2>{ "RX queues" }</h2>
                <p>{ "Flows: " }<span data-testid="flow-count">{ view.flow_count }</span></p>
                <Queues queues={view.queues.clone()} />
                <RxChart {packets} />
            </section>
            <section class="panel">
                <h2>{ "Add a flow" }</h2>
                <AddFlow on_submit={on_add} />
            </section>
        </main>
    }
}
