//! The built-in lessons (product brief §2), one JSON scenario each in `lessons/`.
//!
//! Natively (the CLI, the tests) their texts are compiled in (feature `embedded-lessons`). The
//! page's module leaves them out: they were a sixth of its compressed size, and the page shows
//! one lesson at a time. Its worker fetches `lessons/ID.json` (Trunk copies the directory into
//! `dist/`) and [`register`]s the text before it opens the lesson; the page's first screen
//! reads the same file before the module has loaded.

/// Lesson ids and titles, in teaching order (what the lesson list and an ending's "next
/// lesson" show without the lesson's text; a test checks them against the files).
pub const LESSON_TITLES: [(&str, &str); 6] = [
    ("rss-basics", "RSS: the Toeplitz hash and the indirection table"),
    ("arfs-collision", "aRFS: when the driver matches filters by hash only"),
    ("tc-bypass", "tc: when skip_sw skips filters it should not"),
    (
        "rfs-thread-churn",
        "RFS churn: several epoll readers per socket, migrating",
    ),
    (
        "xps-pick-tx",
        "XPS: choosing a transmit queue without hashing every packet",
    ),
    (
        "xdp-kfunc-cost",
        "XDP metadata kfuncs: what a function call per packet costs",
    ),
];

/// The lessons' texts, compiled in, in the order of [`LESSON_TITLES`].
#[cfg(feature = "embedded-lessons")]
const TEXTS: [&str; 6] = [
    include_str!("../lessons/rss-basics.json"),
    include_str!("../lessons/arfs-collision.json"),
    include_str!("../lessons/tc-bypass.json"),
    include_str!("../lessons/rfs-thread-churn.json"),
    include_str!("../lessons/xps-pick-tx.json"),
    include_str!("../lessons/xdp-kfunc-cost.json"),
];

/// Texts registered at run time (the page's worker fetches them), by index in
/// [`LESSON_TITLES`]. Leaked once each: six texts at most, for the life of the worker.
#[cfg(not(feature = "embedded-lessons"))]
static REGISTERED: std::sync::Mutex<[Option<&'static str>; 6]> = std::sync::Mutex::new([None; 6]);

fn index(id: &str) -> Option<usize> {
    LESSON_TITLES.iter().position(|(i, _)| *i == id)
}

/// The scenario text of a built-in lesson (`None` for an unknown id, or, in the page, one
/// not fetched yet).
pub fn lesson(id: &str) -> Option<&'static str> {
    let i = index(id)?;
    #[cfg(feature = "embedded-lessons")]
    {
        Some(TEXTS[i])
    }
    #[cfg(not(feature = "embedded-lessons"))]
    {
        REGISTERED.lock().ok()?[i]
    }
}

/// Registers a lesson's text fetched at run time (the page's worker). Refuses an id that is
/// not a lesson; a text registered already stays (the first one wins).
pub fn register(id: &str, text: String) -> Result<(), String> {
    let i = index(id).ok_or_else(|| format!("no lesson {id:?}"))?;
    #[cfg(feature = "embedded-lessons")]
    {
        let _ = (i, text);
        Ok(())
    }
    #[cfg(not(feature = "embedded-lessons"))]
    {
        let mut texts = REGISTERED
            .lock()
            .map_err(|_| "the lesson store is poisoned".to_string())?;
        if texts[i].is_none() {
            texts[i] = Some(Box::leak(text.into_boxed_str()));
        }
        Ok(())
    }
}

/// The built-in lesson ids.
pub fn lesson_ids() -> impl Iterator<Item = &'static str> {
    LESSON_TITLES.iter().map(|(i, _)| *i)
}

/// A lesson's title (without its text).
pub fn lesson_title(id: &str) -> Option<&'static str> {
    index(id).map(|i| LESSON_TITLES[i].1)
}

#[cfg(all(test, feature = "embedded-lessons"))]
mod tests {
    use super::*;

    #[test]
    fn the_titles_are_the_files_titles() {
        for (id, title) in LESSON_TITLES {
            let v: serde_json::Value = serde_json::from_str(lesson(id).unwrap()).unwrap();
            assert_eq!(v["lesson"]["title"], title, "{id}");
            assert_eq!(v["id"], id);
        }
    }
}
