//! A plotters chart on a canvas, redrawn when its data changes, with PNG and CSV export.

use std::rc::Rc;

use wasm_bindgen::prelude::Closure;
use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use crate::chart::{draw, ChartData, CssSize};

/// Least real time between two draws of one chart, ms: its data changes up to every frame,
/// and a plotters draw (axes, labels, legend) takes most of a frame at 144 CPUs, so more than
/// two a second left the page dropping over 5 % of its frames.
const MIN_REDRAW_MS: f64 = 500.0;

/// A canvas size cache that forgets when the canvas's box changes size (a ResizeObserver:
/// the window resized, or the page's layout around it changed, as when a restored link's
/// progress notice goes), and a generation that counts those changes: a canvas's effects
/// depend on it, so that it is drawn again at its new size even while paused (a shared link
/// opened with stretched, blurred labels).
#[hook]
pub fn use_css_size(canvas: &NodeRef) -> (std::rc::Rc<CssSize>, u32) {
    let size = use_memo((), |_| CssSize::default());
    let generation = use_state(|| 0u32);
    {
        let (size, canvas, generation) = (size.clone(), canvas.clone(), generation.clone());
        use_effect_with((), move |_| {
            let last = std::cell::Cell::new((0.0, 0.0));
            let seen = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
                for e in entries.iter() {
                    let r = e.unchecked_into::<web_sys::ResizeObserverEntry>().content_rect();
                    let now = (r.width(), r.height());
                    if now != last.replace(now) {
                        size.forget();
                        generation.set(generation.wrapping_add(1));
                    }
                }
            });
            let observer = web_sys::ResizeObserver::new(seen.as_ref().unchecked_ref()).ok();
            if let (Some(o), Some(el)) = (&observer, canvas.cast::<web_sys::Element>()) {
                o.observe(&el);
            }
            move || {
                if let Some(o) = observer {
                    o.disconnect();
                }
                drop(seen);
            }
        });
    }
    (size, *generation)
}

/// Properties of [`Chart`].
#[derive(Properties, PartialEq)]
pub struct ChartProps {
    /// `data-testid` of the canvas.
    pub testid: AttrValue,
    /// Accessible description.
    pub label: AttrValue,
    /// What to draw.
    pub data: ChartData,
}

/// Starts a download of `href` as `name`.
fn download(href: &str, name: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Ok(a) = doc.create_element("a") {
        if let Ok(a) = a.dyn_into::<web_sys::HtmlAnchorElement>() {
            a.set_href(href);
            a.set_download(name);
            a.click();
        }
    }
}

/// A chart with its export buttons.
#[component]
pub fn Chart(props: &ChartProps) -> Html {
    let canvas = use_node_ref();
    let (size, generation) = use_css_size(&canvas);
    let last_draw = use_mut_ref(|| f64::NEG_INFINITY);
    let pending = use_mut_ref(|| None::<gloo::timers::callback::Timeout>);
    // Data not drawn because the chart was off screen: drawn when it scrolls into view.
    let stale = use_mut_ref(|| None::<ChartData>);
    let visible = use_memo((), |_| std::cell::Cell::new(true));
    let paint = {
        let (canvas, size, last_draw) = (canvas.clone(), size.clone(), last_draw.clone());
        Rc::new(move |data: &ChartData| {
            if let Some(el) = canvas.cast::<HtmlCanvasElement>() {
                *last_draw.borrow_mut() = crate::components::now_ms();
                let css = size.of(&el);
                if let Err(e) = draw(el, css, data) {
                    gloo::console::error!(e);
                }
            }
        })
    };
    {
        let (stale, paint, visible) = (stale.clone(), paint.clone(), visible.clone());
        use_effect_with((props.data.clone(), generation), move |(data, _)| {
            // Drawn once the browser has styled and laid out the page's changes: a canvas
            // resolves its font against the page's styles, so drawing text right after the
            // page changed makes the browser restyle the whole page first (for seed 000's
            // host, most of a frame). A newer draw replaces one still waiting; a chart is
            // drawn at most every MIN_REDRAW_MS, and only while on screen: at full speed every
            // view brings new samples, and five charts drawn per frame were most of a 144-CPU
            // frame.
            let data = data.clone();
            let wait = (*last_draw.borrow() + MIN_REDRAW_MS - crate::components::now_ms()).max(0.0);
            let frame = gloo::render::request_animation_frame(move |_| {
                // Replacing the pending draw cancels it.
                *pending.borrow_mut() = Some(gloo::timers::callback::Timeout::new(wait as u32, move || {
                    if visible.get() {
                        stale.borrow_mut().take();
                        paint(&data);
                    } else {
                        *stale.borrow_mut() = Some(data);
                    }
                }));
            });
            move || drop(frame)
        });
    }
    // Whether the chart is on screen, told by an IntersectionObserver (asking the layout,
    // getBoundingClientRect, forced a layout of the page per draw: 13 % of a 144-CPU run).
    {
        let (canvas, stale, paint, visible) = (canvas.clone(), stale.clone(), paint.clone(), visible.clone());
        use_effect_with((), move |_| {
            let seen = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
                for e in entries.iter() {
                    visible.set(
                        e.unchecked_into::<web_sys::IntersectionObserverEntry>()
                            .is_intersecting(),
                    );
                }
                if visible.get() {
                    if let Some(data) = stale.borrow_mut().take() {
                        paint(&data);
                    }
                }
            });
            let observer = web_sys::IntersectionObserver::new(seen.as_ref().unchecked_ref()).ok();
            if let (Some(o), Some(el)) = (&observer, canvas.cast::<web_sys::Element>()) {
                o.observe(&el);
            }
            move || {
                if let Some(o) = observer {
                    o.disconnect();
                }
                drop(seen);
            }
        });
    }
    let png = {
        let (canvas, name) = (canvas.clone(), props.testid.clone());
        let (stale, paint) = (stale.clone(), paint.clone());
        Callback::from(move |_| {
            // A chart off screen may hold older data: drawn first.
            if let Some(data) = stale.borrow_mut().take() {
                paint(&data);
            }
            if let Some(url) = canvas.cast::<HtmlCanvasElement>().and_then(|c| c.to_data_url().ok()) {
                download(&url, &format!("{name}.png"));
            }
        })
    };
    let csv = {
        let (data, name) = (props.data.clone(), props.testid.clone());
        Callback::from(move |_| {
            let body = js_sys::encode_uri_component(&data.to_csv());
            download(&format!("data:text/csv;charset=utf-8,{body}"), &format!("{name}.csv"));
        })
    };
    html! {
        <figure class="chart-box">
            <canvas ref={canvas} class="chart" data-testid={props.testid.clone()} role="img" aria-label={props.label.clone()}></canvas>
            <figcaption class="export">
                <button onclick={png} aria-label={format!("export {} as PNG", props.label)}>{ "PNG" }</button>
                <button onclick={csv} aria-label={format!("export {} as CSV", props.label)}>{ "CSV" }</button>
            </figcaption>
        </figure>
    }
}
