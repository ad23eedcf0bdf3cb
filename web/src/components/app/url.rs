//! What the page's URL asks for (`?lesson=`, `?mode=`, `?embed=`, `#s=` …: product brief §
//! URL parameters), and rewriting it without a reload as the learner moves on.

use crate::protocol::Action;

/// A `?name=` parameter of the page's URL.
pub(crate) fn url_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search).ok()?.get(name)
}

/// The `#s=` permalink of the page's URL.
fn url_state() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    hash.strip_prefix("#s=").map(String::from)
}

/// This page's URL without query and fragment.
pub(crate) fn base_url() -> String {
    web_sys::window()
        .and_then(|w| {
            Some(format!(
                "{}{}",
                w.location().origin().ok()?,
                w.location().pathname().ok()?
            ))
        })
        .unwrap_or_default()
}

/// Rewrites `?lesson=` without reloading (history.replaceState), keeping the other parameters
/// (`embed`, `origin`, ...) and dropping a permalink fragment that described the old lesson.
pub(crate) fn set_url_lesson(id: &str) {
    let Some(w) = web_sys::window() else { return };
    let path = w.location().pathname().unwrap_or_default();
    let search = w.location().search().unwrap_or_default();
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else {
        return;
    };
    params.set("lesson", id);
    if let Ok(h) = w.history() {
        let query: String = params.to_string().into();
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("{path}?{query}")));
    }
}

/// `?mode=challenge`: lessons open in their challenge form.
pub(crate) fn challenge_mode() -> bool {
    url_param("mode").as_deref() == Some("challenge")
}

/// Rewrites `?mode=` without reloading (the challenge form on or off).
pub(crate) fn set_url_mode(challenge: bool) {
    let Some(w) = web_sys::window() else { return };
    let (path, search) = (
        w.location().pathname().unwrap_or_default(),
        w.location().search().unwrap_or_default(),
    );
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&search) else {
        return;
    };
    if challenge {
        params.set("mode", "challenge");
    } else {
        params.delete("mode");
    }
    if let Ok(h) = w.history() {
        let query: String = params.to_string().into();
        let hash = w.location().hash().unwrap_or_default();
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("{path}?{query}{hash}")));
    }
}

/// What the page opens with: the permalink of the URL's fragment, else its `?lesson=`.
pub(crate) fn initial_action() -> Action {
    match url_state() {
        Some(link) => Action::Restore(link),
        None => Action::OpenLesson(url_param("lesson").unwrap_or_else(|| crate::protocol::DEFAULT_LESSON.to_string())),
    }
}
