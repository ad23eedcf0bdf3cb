//! The built-in lessons (product brief §2), one JSON scenario each in `lessons/`.
//!
//! Natively (the CLI, the tests) their texts are compiled in (feature `embedded-lessons`). The
//! page's module leaves them out: they were a sixth of its compressed size, and the page shows
//! one lesson at a time. Its worker fetches `lessons/ID.json` (Trunk copies the directory into
//! `dist/`) and [`register`]s the text before it opens the lesson; the page's first screen
//! reads the same file before the module has loaded.

// LESSON_COUNT, LESSON_TITLES and (with `embedded-lessons`) TEXTS, from the files of
// `lessons/` (build.rs): adding a lesson is adding its file.
include!(concat!(env!("OUT_DIR"), "/lessons.rs"));

/// Texts registered at run time (the page's worker fetches them), by index in
/// [`LESSON_TITLES`]. Leaked once each: one text per lesson at most, for the life of the worker.
#[cfg(not(feature = "embedded-lessons"))]
static REGISTERED: std::sync::Mutex<[Option<&'static str>; LESSON_COUNT]> = std::sync::Mutex::new([None; LESSON_COUNT]);

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

/// What a built-in lesson rests on (docs/fidelity/rules.json, FIDELITY.md): how many rules
/// match the kernel, how many are stated simplifications, how many depart.
pub fn lesson_fidelity(id: &str) -> Option<[u16; 3]> {
    index(id).map(|i| FIDELITY[i])
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
