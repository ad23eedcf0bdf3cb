//! A plotters chart on a canvas, redrawn when its data changes, with PNG and CSV export.

use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;
use yew::prelude::*;

use crate::chart::{draw, ChartData};

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
    {
        let canvas = canvas.clone();
        use_effect_with(props.data.clone(), move |data| {
            if let Some(el) = canvas.cast::<HtmlCanvasElement>() {
                if let Err(e) = draw(el, data) {
                    gloo::console::error!(e);
                }
            }
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
