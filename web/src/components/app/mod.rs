//! The top-level component: reads what the URL asks for (a lesson, a permalink, embed mode,
//! the compare view), starts the simulation worker through [`use_session`] and hands its
//! views to the [`Page`]. It holds no simulation state of its own.
//!
//! | file | holds |
//! |---|---|
//! | `mod.rs` | [`App`] (a click-to-start embed, the compare view, the sandbox) and [`Sandbox`] (the worker's events) |
//! | `url.rs` | the URL's parameters and permalink, rewritten without a reload |
//! | `host_page.rs` | the embedding page's messages, both ways |
//! | `page.rs` | the layout: every panel drawn from the view, every control an [`Action`] |

use std::rc::Rc;

use yew::prelude::*;

use crate::client::use_session;
use crate::components::your_host::Built;
use crate::protocol::{Action, Event as SimEvent};

pub(crate) mod host_page;
mod lesson_url;
mod page;
pub(crate) mod url;

pub use page::{Page, PageProps};

use host_page::{post_json_to_parent, post_to_parent};
use url::{base_url, challenge_mode, initial_action, set_url_lesson, url_param};

/// The page: the sandbox, or in embed mode with `?start=click` a light placeholder until the
/// learner starts it (a page with many embeds stays light: no worker, no engine).
#[component]
pub fn App() -> Html {
    let embed = url_param("embed").as_deref() == Some("1");
    let click = url_param("start").as_deref() == Some("click");
    let started = use_state(|| !click);
    // A click-to-start embed still tells its host page it is there (not started yet).
    use_effect_with((), move |_| {
        if click {
            let allow = crate::protocol::embed::parse_allow_list(url_param("origin").as_deref());
            post_to_parent(&allow, &[("type", "steerlab:ready".into()), ("started", false.into())]);
        }
    });
    if !*started {
        let start = {
            let started = started.clone();
            Callback::from(move |_| started.set(true))
        };
        return html! {
            <main class={classes!("sandbox", embed.then_some("embed"))}>
                <button class="start" data-testid="embed-start" onclick={start}>{ "▶ Start the steerlab sandbox" }</button>
            </main>
        };
    }
    if url_param("view").as_deref() == Some("compare") {
        let lesson = url_param("lesson").unwrap_or_else(|| crate::protocol::DEFAULT_LESSON.to_string());
        return html! { <crate::components::compare::Compare {lesson} /> };
    }
    html! { <Sandbox {embed} /> }
}

/// Properties of [`Sandbox`].
#[derive(Properties, PartialEq)]
pub struct SandboxProps {
    /// Embed mode: no page chrome, compact, an "open full sandbox" link.
    pub embed: bool,
}

/// The sandbox itself.
#[component]
pub fn Sandbox(props: &SandboxProps) -> Html {
    let error = use_state(|| None::<String>);
    let allow = use_memo((), |_| {
        crate::protocol::embed::parse_allow_list(url_param("origin").as_deref())
    });
    let copied = use_state(|| false);
    let built = use_state(|| None::<Built>);
    let host_error = use_state(|| None::<String>);
    let on_event = {
        let (error, allow, copied, built) = (error.clone(), allow.clone(), copied.clone(), built.clone());
        let host_error = host_error.clone();
        Callback::from(move |e: SimEvent| match e {
            SimEvent::Banner(b) => error.set(b),
            SimEvent::Host(msg) => post_json_to_parent(&allow, &msg),
            SimEvent::Permalink(link) => {
                let Some(w) = web_sys::window() else { return };
                let _ = w.location().set_hash(&format!("s={link}"));
                let _ = w
                    .navigator()
                    .clipboard()
                    .write_text(&format!("{}#s={link}", base_url()));
                // "copied" for two seconds beside the share link.
                copied.set(true);
                let copied = copied.clone();
                gloo::timers::callback::Timeout::new(2000, move || copied.set(false)).forget();
            }
            SimEvent::Lesson(id) => {
                // Another lesson: the last captured host's predictions no longer apply, and it
                // opens at its top (its title and first step), wherever the page was scrolled.
                built.set(None);
                set_url_lesson(&id);
                if let Some(w) = web_sys::window() {
                    w.scroll_to_with_x_and_y(0.0, 0.0);
                }
            }
            SimEvent::HostImported {
                rows,
                assumptions,
                observed,
                rx_queues,
            } => {
                host_error.set(None);
                built.set(Some(Built {
                    rows: Rc::new(rows),
                    assumptions: Rc::new(assumptions),
                    observed: Rc::new(observed),
                    rx_queues,
                }));
            }
            SimEvent::HostRefused(why) => host_error.set(Some(why)),
            SimEvent::Ready | SimEvent::RunEnded => {}
        })
    };
    let session = use_session(initial_action(), on_event);
    let dispatch = session.dispatch.clone();
    // `?lesson-url=`: a trainer's lesson file, fetched and opened; then `?student=NAME`, the
    // learner's own variant (it reopens the lesson), and `?mode=challenge`, its challenge form.
    {
        let (dispatch, allow, error) = (dispatch.clone(), allow.clone(), error.clone());
        use_effect_with((), move |_| {
            let mut then = Vec::new();
            if let Some(name) = url_param("student") {
                then.push(Action::Student(name));
            }
            if challenge_mode() {
                then.push(Action::Challenge(true));
            }
            match url_param("lesson-url") {
                Some(url) => {
                    let banner = Callback::from(move |m: String| error.set(Some(m)));
                    lesson_url::open(url, &allow, dispatch, then, banner);
                }
                None => then.into_iter().for_each(|a| dispatch.emit(a)),
            }
        });
    }
    let lesson_id = session
        .view
        .as_ref()
        .and_then(|v| v.hosts.first())
        .map(|h| h.lesson.id.clone());

    // The embedding page's messages, and the embed's ready and resize messages to it.
    crate::components::app::host_page::use_host_page(dispatch.clone(), allow.clone(), lesson_id);

    let embed = props.embed;
    let Some(view) = session.view else {
        if error.is_none() && crate::client::first_screen_shown() {
            return html! {};
        }
        return html! {
            <main class={classes!("sandbox", embed.then_some("embed"))}>
                if let Some(message) = &*error {
                    <p class="error" role="alert" data-testid="error-banner">{ message }</p>
                }
                <p class="notice" role="status" data-testid="loading">{ "Starting the simulation…" }</p>
            </main>
        };
    };
    html! { <Page {view} error={(*error).clone()} {dispatch} {embed} copied={*copied} built={(*built).clone()} host_error={(*host_error).clone()} /> }
}
