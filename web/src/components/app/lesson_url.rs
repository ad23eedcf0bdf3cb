//! `?lesson-url=URL`: a trainer's own lesson file, fetched by the page from its own origin or
//! one the embed's `?origin=` allows (`embed::lesson_url_allowed`), at most a scenario's size,
//! then opened as an uploaded scenario would be (the worker validates it and says what is
//! wrong). A relative URL is read against the page: `?lesson-url=lessons/mine.json` is a file
//! beside the sandbox. Its `next` lesson may be a URL too: [`next_url`].

use wasm_bindgen::JsCast;
use yew::Callback;

use crate::protocol::{Action, Origin};

/// The lesson file's URL resolved against the page (`None`: not a URL).
pub(crate) fn resolve(url: &str) -> Option<web_sys::Url> {
    let here = web_sys::window()?.location().href().ok()?;
    web_sys::Url::new_with_base(url, &here).ok()
}

/// Fetches the lesson file and opens it, then whatever must follow it (`then`: the learner's
/// variant, the challenge form); a refusal is said on `banner`.
pub(crate) fn open(
    url: String,
    allow: &[String],
    dispatch: Callback<Action>,
    then: Vec<Action>,
    banner: Callback<String>,
) {
    let resolved = resolve(&url);
    let fail = move |why: String| banner.emit(format!("?lesson-url={url}: {why}"));
    let Some(resolved) = resolved else {
        return fail("not a URL".into());
    };
    let page = web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default();
    if let Err(why) = crate::protocol::embed::lesson_url_allowed(&page, allow, &resolved.origin()) {
        return fail(why);
    }
    let href = resolved.href();
    wasm_bindgen_futures::spawn_local(async move {
        match fetch(&href).await {
            Ok(text) => {
                dispatch.emit(Action::Load {
                    text,
                    from: Origin::Control,
                });
                then.into_iter().for_each(|a| dispatch.emit(a));
            }
            Err(why) => fail(why),
        }
    });
}

/// The text at `href`, at most a scenario's size.
async fn fetch(href: &str) -> Result<String, String> {
    let w = web_sys::window().ok_or("no window")?;
    let resp = wasm_bindgen_futures::JsFuture::from(w.fetch_with_str(href))
        .await
        .map_err(|_| "it could not be fetched (offline, or the server refused it)".to_string())?;
    let resp: web_sys::Response = resp.dyn_into().map_err(|_| "no response")?;
    if !resp.ok() {
        return Err(format!("the server answered {} {}", resp.status(), resp.status_text()));
    }
    let text = wasm_bindgen_futures::JsFuture::from(resp.text().map_err(|_| "no text")?)
        .await
        .map_err(|_| "its text could not be read".to_string())?
        .as_string()
        .unwrap_or_default();
    if text.len() > crate::protocol::MAX_BYTES {
        return Err(format!(
            "{} bytes; a lesson file is at most {}",
            text.len(),
            crate::protocol::MAX_BYTES
        ));
    }
    Ok(text)
}

/// The page's URL for a lesson's `next` given as a URL: `?lesson-url=` of it read against
/// the current lesson file's URL, the page's other parameters kept (`embed`, `origin`,
/// `student`, `mode`).
pub(crate) fn next_url(next: &str) -> Option<String> {
    let w = web_sys::window()?;
    let search = w.location().search().ok()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    let base = params.get("lesson-url").and_then(|u| resolve(&u)).map(|u| u.href());
    let target = match base {
        Some(b) => web_sys::Url::new_with_base(next, &b).ok()?.href(),
        None => resolve(next)?.href(),
    };
    params.set("lesson-url", &target);
    params.delete("lesson");
    let path = w.location().pathname().ok()?;
    Some(format!("{path}?{}", String::from(params.to_string())))
}
