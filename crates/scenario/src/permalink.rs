//! Permalinks: the whole state of a session (the scenario, the commands applied and when, the
//! simulated time, the view) in a URL fragment `#s=...`, compressed and URL-safe, with a
//! schema version so that every link ever shared keeps loading.
//!
//! Format, version 1: `1.` then base64url (no padding) of raw DEFLATE of the JSON of
//! [`State`]. A future version 2 gets its own prefix and its own decoder here; version 1's
//! decoder stays. Damaged or oversized links are refused with a message, never a panic.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};

use crate::ScenarioError;

/// Longest fragment accepted (characters after `#s=`).
pub const MAX_LINK: usize = 64 * 1024;
/// Largest decompressed state accepted.
pub const MAX_STATE: usize = 2 * 1024 * 1024;

/// Where the session's host comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A built-in lesson id.
    Lesson(String),
    /// A whole scenario's JSON text (uploaded or edited).
    Scenario(String),
}

/// A learner command at a simulated time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applied {
    /// Simulated time the command ran at, ns.
    pub at_ns: u64,
    /// The command line.
    pub command: String,
}

/// A session's state, as a link carries it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    /// The host.
    pub source: Source,
    /// Commands the learner applied, in order.
    pub commands: Vec<Applied>,
    /// Simulated time to restore, ns.
    pub t_ns: u64,
    /// View name (`sandbox`, `compare`), for the page.
    #[serde(default)]
    pub view: String,
}

/// The fragment value (without `#s=`) for `state`.
pub fn encode(state: &State) -> String {
    let json = serde_json::to_vec(state).expect("State serialises");
    let deflated = miniz_oxide::deflate::compress_to_vec(&json, 9);
    format!("1.{}", URL_SAFE_NO_PAD.encode(deflated))
}

/// Parses a fragment value made by any version.
pub fn decode(link: &str) -> Result<State, ScenarioError> {
    let bad = |why: &str| {
        ScenarioError(format!(
            "this link is damaged ({why}); opened the default lesson instead"
        ))
    };
    if link.len() > MAX_LINK {
        return Err(ScenarioError(format!(
            "this link is {} characters; at most {MAX_LINK} are accepted",
            link.len()
        )));
    }
    let (version, body) = link.split_once('.').ok_or_else(|| bad("no version prefix"))?;
    match version {
        "1" => {
            let bytes = URL_SAFE_NO_PAD.decode(body).map_err(|_| bad("not base64url"))?;
            let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&bytes, MAX_STATE)
                .map_err(|_| bad("does not decompress, or is larger than 2 MB"))?;
            serde_json::from_slice(&json).map_err(|e| bad(&format!("state: {e}")))
        }
        v => Err(ScenarioError(format!(
            "this link has version {v:?}; this build reads version 1 (is the sandbox older than the link?)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> State {
        State {
            source: Source::Lesson("rss-basics".into()),
            commands: vec![Applied {
                at_ns: 1_500_000_000,
                command: "ethtool -X eth0 equal 3".into(),
            }],
            t_ns: 4_000_000_000,
            view: "sandbox".into(),
        }
    }

    #[test]
    fn round_trips_and_is_url_safe() {
        let link = encode(&sample());
        assert!(link.starts_with("1."));
        assert!(
            link.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)),
            "{link}"
        );
        assert_eq!(decode(&link).unwrap(), sample());
    }

    /// Links made by each released version keep loading (fixtures are never regenerated).
    #[test]
    fn version_1_fixture_loads() {
        let fixture = include_str!("../tests/permalink-v1.txt").trim();
        let s = decode(fixture).unwrap();
        assert_eq!(s, sample());
    }

    #[test]
    fn damaged_and_oversized_links_are_refused() {
        let link = encode(&sample());
        for bad in ["", "1", "1.", "1.!!!", "9.abc", &link[..link.len() - 5], "1.AAAA"] {
            assert!(decode(bad).is_err(), "{bad:?}");
        }
        assert!(decode(&"a".repeat(MAX_LINK + 1)).unwrap_err().0.contains("at most"));
        // A small link that inflates past the limit (a zip bomb) is refused.
        let bomb = miniz_oxide::deflate::compress_to_vec(&vec![b' '; MAX_STATE + 10], 9);
        let link = format!("1.{}", URL_SAFE_NO_PAD.encode(bomb));
        assert!(link.len() < MAX_LINK);
        assert!(decode(&link).is_err());
    }
}
