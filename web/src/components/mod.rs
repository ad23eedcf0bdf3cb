//! The page's components: each renders a slice of the view model and emits callbacks.

pub mod add_flow;
pub mod app;
pub mod chart;
pub mod compare;
pub mod console;
pub mod features;
pub mod host;
pub mod icon;
pub mod lesson;
pub mod matrix;
pub mod migrate;
pub mod panels;
pub mod pictures;
pub mod tables;
pub mod trace;
pub mod transport;
pub mod wire;
pub mod your_host;

/// The page's clock (`performance.now()`), real milliseconds: animation only, never the engine.
pub(crate) fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// `1 flow`, `2 flows`: a count with its noun (plural by adding `s`).
pub(crate) fn count(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// The text of the file an `<input type="file">` change picked, handed to `cb` once read (an
/// upload of a scenario, a capture, a flow list).
pub(crate) fn read_picked_file(e: &yew::Event, cb: &yew::Callback<String>) {
    use yew::TargetCast;
    let el: web_sys::HtmlInputElement = e.target_unchecked_into();
    let Some(file) = el.files().and_then(|f| f.get(0)) else {
        return;
    };
    let cb = cb.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let text = wasm_bindgen_futures::JsFuture::from(file.text())
            .await
            .ok()
            .and_then(|v| v.as_string());
        cb.emit(text.unwrap_or_default());
    });
}
