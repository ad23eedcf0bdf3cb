//! The embedding page API (product brief §4): which origins may drive an embed, what they may
//! send, and what the embed answers. Pure, so that every rule is tested natively; the App
//! wires it to `window.postMessage`.
//!
//! In: `steerlab:command {command}`, `steerlab:load {scenario}`, `steerlab:get-state`,
//! `steerlab:play`, `steerlab:pause`, `steerlab:step`. Out: `steerlab:ready`, `steerlab:state`,
//! `steerlab:event {kind, ...}`, `steerlab:resize {height}`. Messages go only to the embedding
//! origin, and only when it is on the allow-list (`?origin=A,B`).
#![forbid(unsafe_code)]

use serde_json::{json, Value};

use crate::controller::{Action, Origin};

/// Largest message accepted (a scenario is at most this big).
pub const MAX_MESSAGE: usize = steerlab_scenario::MAX_BYTES;

/// A validated message from the host page.
#[derive(Clone, Debug, PartialEq)]
pub enum HostMessage {
    /// Run a console command.
    Command(String),
    /// Replace the host with a scenario (JSON text).
    Load(String),
    /// Answer with `steerlab:state`.
    GetState,
    /// Start time.
    Play,
    /// Stop time.
    Pause,
    /// One tick.
    Step,
}

/// The `?origin=` allow-list: exact origins (`https://example.org`), comma-separated.
/// An origin that is not `scheme://host[:port]` is dropped, so a typo never allows `*`.
pub fn parse_allow_list(param: Option<&str>) -> Vec<String> {
    param
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|o| {
            let host = o.strip_prefix("https://").or_else(|| o.strip_prefix("http://"));
            host.is_some_and(|h| !h.is_empty() && !h.contains(['/', '*', '?', '#', ' ']))
        })
        .map(String::from)
        .collect()
}

/// Whether `origin` may drive this embed.
pub fn allowed(list: &[String], origin: &str) -> bool {
    list.iter().any(|o| o == origin)
}

/// Whether a lesson file from `url_origin` may be opened by `?lesson-url=` on a page of
/// `page_origin`: the page's own origin, or one the embed's `?origin=` allow-list names (a
/// course site that hosts its lesson files). Anything else is refused, naming what is
/// accepted: a lesson file is untrusted input, and a link must not make a page fetch from
/// wherever it says.
pub fn lesson_url_allowed(page_origin: &str, allow: &[String], url_origin: &str) -> Result<(), String> {
    if url_origin == page_origin || allowed(allow, url_origin) {
        return Ok(());
    }
    Err(format!(
        "a lesson file is opened only from this page's origin ({page_origin}) or one its ?origin= allows ({}), not {url_origin}",
        if allow.is_empty() { "none".to_string() } else { allow.join(", ") }
    ))
}

/// Checks a message's size, in bytes of JSON. `Err` carries the error event's message.
pub fn check_size(size: usize) -> Result<(), String> {
    if size > MAX_MESSAGE {
        return Err(format!("message of {size} bytes; at most {MAX_MESSAGE} accepted"));
    }
    Ok(())
}

/// Checks a message's shape. `Err` carries the error event to answer with.
pub fn parse_message(data: &Value) -> Result<HostMessage, String> {
    check_size(data.to_string().len())?;
    let obj = data.as_object().ok_or("a message must be an object with a \"type\"")?;
    let ty = obj
        .get("type")
        .and_then(Value::as_str)
        .ok_or("a message needs a string \"type\"")?;
    let string_field = |name: &str| -> Result<String, String> {
        match obj.get(name) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(v @ Value::Object(_)) if name == "scenario" => Ok(v.to_string()),
            _ => Err(format!("{ty} needs a string \"{name}\"")),
        }
    };
    Ok(match ty {
        "steerlab:command" => HostMessage::Command(string_field("command")?),
        "steerlab:load" => HostMessage::Load(string_field("scenario")?),
        "steerlab:get-state" => HostMessage::GetState,
        "steerlab:play" => HostMessage::Play,
        "steerlab:pause" => HostMessage::Pause,
        "steerlab:step" => HostMessage::Step,
        other => {
            return Err(format!(
                "unknown message type {other:?} (accepted: steerlab:command, steerlab:load, steerlab:get-state, steerlab:play, steerlab:pause, steerlab:step)"
            ))
        }
    })
}

/// The actions a message asks for; every message is answered with `steerlab:state` after
/// them.
pub fn actions(msg: HostMessage) -> Vec<Action> {
    let first = match msg {
        HostMessage::Command(line) => Some(Action::Command {
            host: 0,
            line,
            from: Origin::Embed,
        }),
        HostMessage::Load(text) => Some(Action::Load {
            text,
            from: Origin::Embed,
        }),
        HostMessage::GetState => None,
        HostMessage::Play => Some(Action::Play),
        HostMessage::Pause => Some(Action::Pause),
        HostMessage::Step => Some(Action::Step),
    };
    first.into_iter().chain([Action::GetState]).collect()
}

/// `steerlab:event` of kind `error`.
pub fn error_event(message: &str) -> Value {
    json!({"type": "steerlab:event", "kind": "error", "message": message})
}

/// `steerlab:event` of another kind (flow added, flow closed, thread migrated, goal met, command).
pub fn event(kind: &str, detail: Value) -> Value {
    json!({"type": "steerlab:event", "kind": kind, "detail": detail})
}

/// `steerlab:state`: what a host page needs to follow the embed.
pub fn state(
    lesson: &str,
    sim_time: &str,
    digest: &str,
    goal_met: Option<bool>,
    permalink: &str,
    metrics: &Value,
) -> Value {
    json!({"type": "steerlab:state", "lesson": lesson, "sim_time": sim_time, "digest": digest,
           "goal_met": goal_met, "permalink": permalink, "metrics": metrics})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_list_is_exact_and_drops_malformed_entries() {
        let l = parse_allow_list(Some(
            "https://a.example, http://127.0.0.1:8080,*,https://b.example/path,ftp://x",
        ));
        assert_eq!(
            l,
            vec!["https://a.example".to_string(), "http://127.0.0.1:8080".to_string()]
        );
        assert!(allowed(&l, "https://a.example"));
        assert!(!allowed(&l, "https://a.example.evil"));
        assert!(parse_allow_list(None).is_empty());
    }

    #[test]
    fn a_lesson_file_comes_from_this_origin_or_an_allowed_one() {
        let allow = vec!["https://course.example".to_string()];
        assert!(lesson_url_allowed("https://lab.example", &allow, "https://lab.example").is_ok());
        assert!(lesson_url_allowed("https://lab.example", &allow, "https://course.example").is_ok());
        let e = lesson_url_allowed("https://lab.example", &allow, "https://evil.example").unwrap_err();
        assert!(
            e.contains("https://course.example") && e.contains("not https://evil.example"),
            "{e}"
        );
        assert!(
            lesson_url_allowed("https://lab.example", &[], "null").is_err(),
            "a data: or file: URL"
        );
    }

    #[test]
    fn messages_are_validated() {
        assert_eq!(
            parse_message(&json!({"type": "steerlab:command", "command": "ethtool -x eth0"})),
            Ok(HostMessage::Command("ethtool -x eth0".into()))
        );
        assert_eq!(parse_message(&json!({"type": "steerlab:play"})), Ok(HostMessage::Play));
        assert!(matches!(
            parse_message(&json!({"type": "steerlab:load", "scenario": {"schema": 1, "id": "x"}})),
            Ok(HostMessage::Load(_))
        ));
        for bad in [
            json!(1),
            json!("steerlab:play"),
            json!({"kind": "x"}),
            json!({"type": "steerlab:command"}),
            json!({"type": "steerlab:command", "command": 5}),
            json!({"type": "nope"}),
        ] {
            assert!(parse_message(&bad).is_err(), "{bad}");
        }
        assert!(parse_message(&json!({"type": "steerlab:nope"}))
            .unwrap_err()
            .contains("accepted"));
    }
}
