//! A plotters chart on a canvas, redrawn when its data changes, with PNG and CSV export.

use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use crate::chart::{draw, ChartData, CssSize};

/// A canvas size cache that forgets when the window resizes.
#[hook]
pub fn use_css_size() -> std::rc::Rc<CssSize> {
    let size = use_memo((), |_| CssSize::default());
    {
        let size = size.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|w| gloo::events::EventListener::new(&w, "resize", move |_| size.forget()));
            move || drop(listener)
        });
    }
    size
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
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
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
    let size = use_css_size();
    {
        let canvas = canvas.clone();
        use_effect_with(props.data.clone(), move |data| {
            // Drawn once the browser has styled and laid out the page's changes: a canvas
            // resolves its font against the page's styles, so drawing text right after the
            // page changed makes the browser restyle the whole page first (for seed 000's
            // host, most of a frame). A newer draw replaces one still waiting.
            let data = data.clone();
            let frame = gloo::render::request_animation_frame(move |_| {
                let later = gloo::timers::callback::Timeout::new(0, move || {
                    if let Some(el) = canvas.cast::<HtmlCanvasElement>() {
                        let css = size.of(&el);
                        if let Err(e) = draw(el, css, &data) {
                            gloo::console::error!(e);
                        }
                    }
                });
                later.forget();
            });
            move || drop(frame)
        });
    }
    let png = {
        let (canvas, name) = (canvas.clone(), props.testid.clone());
        Callback::from(move |_| {
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
