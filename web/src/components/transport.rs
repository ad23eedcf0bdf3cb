//! Play, pause, step, speed, reset, the simulated clock and the run's progress.

use yew::prelude::*;

use crate::components::icon::{icon, Icon};
use crate::protocol::SPEEDS;

/// Properties of [`Transport`].
#[derive(Properties, PartialEq)]
pub struct TransportProps {
    /// Time is running.
    pub playing: bool,
    /// Index into [`SPEEDS`].
    pub speed: usize,
    /// Simulated time text.
    pub sim_time: AttrValue,
    /// Progress through the scenario, per mille.
    pub progress: u32,
    /// Play (true) or pause (false).
    pub on_play: Callback<bool>,
    /// One tick.
    pub on_step: Callback<()>,
    /// New speed index.
    pub on_speed: Callback<usize>,
    /// Back to the start.
    pub on_reset: Callback<()>,
    /// Run to the scenario's end as fast as possible (pause cancels).
    #[prop_or_default]
    pub on_run_end: Option<Callback<()>>,
    /// Estimated real time left, when running to the end.
    #[prop_or_default]
    pub eta: Option<AttrValue>,
    /// The rate time really runs at, when short of the speed asked for.
    #[prop_or_default]
    pub behind: Option<AttrValue>,
}

/// The transport bar.
#[component]
pub fn Transport(p: &TransportProps) -> Html {
    // Play and Pause are one toggle for the keyboard: the one pressed is disabled once the
    // worker answers, so focus moves to the other rather than falling back to the page; but
    // only if focus is still there. A learner who clicked Pause and moved on to the console
    // before the answer came lost the focus to Play, and their next Enter pressed it.
    let (play_ref, pause_ref) = (use_node_ref(), use_node_ref());
    let pressed = use_mut_ref(|| false);
    {
        let (play_ref, pause_ref, pressed) = (play_ref.clone(), pause_ref.clone(), pressed.clone());
        use_effect_with(p.playing, move |playing| {
            if std::mem::take(&mut *pressed.borrow_mut()) {
                let (from, to) = if *playing {
                    (&play_ref, &pause_ref)
                } else {
                    (&pause_ref, &play_ref)
                };
                let doc = web_sys::window().and_then(|w| w.document());
                let active = doc.as_ref().and_then(|d| d.active_element());
                let body = doc.as_ref().and_then(|d| d.body()).map(web_sys::Element::from);
                let still_there = active.is_none() || active == body || active == from.cast::<web_sys::Element>();
                if let Some(b) = to.cast::<web_sys::HtmlElement>().filter(|_| still_there) {
                    let _ = b.focus();
                }
            }
        });
    }
    let play = {
        let pressed = pressed.clone();
        p.on_play.reform(move |_: MouseEvent| {
            *pressed.borrow_mut() = true;
            true
        })
    };
    let pause = p.on_play.reform(move |_: MouseEvent| {
        *pressed.borrow_mut() = true;
        false
    });
    let step = p.on_step.reform(|_: MouseEvent| ());
    let reset = p.on_reset.reform(|_: MouseEvent| ());
    let speed = p.on_speed.reform(|e: Event| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        el.value().parse().unwrap_or(1)
    });
    html! {
        <nav class="transport" aria-label="transport">
            <button data-testid="play" ref={play_ref} onclick={play} disabled={p.playing}>{ icon(Icon::Play) }{ "Play" }</button>
            <button data-testid="pause" ref={pause_ref} onclick={pause} disabled={!p.playing}>{ icon(Icon::Pause) }{ "Pause" }</button>
            <button data-testid="step" onclick={step} title="one tick forward">{ icon(Icon::Step) }{ "Step" }</button>
            <label>{ "Speed " }
                <select data-testid="speed" onchange={speed} aria-label="speed: simulated seconds per real second">
                    { for SPEEDS.iter().enumerate().map(|(i, (name, _))| html! {
                        <option value={i.to_string()} selected={i == p.speed}>{ *name }</option>
                    }) }
                </select>
            </label>
            <button data-testid="reset" onclick={reset}>{ icon(Icon::Reset) }{ "Reset" }</button>
            if let Some(cb) = &p.on_run_end {
                <button data-testid="run-to-end" onclick={cb.reform(|_: MouseEvent| ())} title="to the suggested length at full speed (Pause cancels)">{ icon(Icon::End) }{ "Run to end" }</button>
            }
            if let Some(b) = &p.behind {
                <span class="behind" data-testid="speed-behind" role="status">{ b.clone() }</span>
            }
            <span class="sim-time" aria-label="simulated time">
                { "t = " }<span data-testid="sim-time">{ p.sim_time.clone() }</span>
            </span>
            <progress data-testid="progress" max="1000" value={p.progress.to_string()} aria-label="progress through the scenario"></progress>
            if let Some(eta) = &p.eta {
                <span class="eta" data-testid="eta" aria-live="polite">{ eta.clone() }</span>
            }
        </nav>
    }
}
