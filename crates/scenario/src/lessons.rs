//! The built-in lessons (product brief §2), one JSON scenario each in `lessons/`.

/// Lesson ids and their scenario text, in teaching order.
pub const LESSONS: &[(&str, &str)] = &[
    ("rss-basics", include_str!("../lessons/rss-basics.json")),
    ("arfs-collision", include_str!("../lessons/arfs-collision.json")),
    ("tc-bypass", include_str!("../lessons/tc-bypass.json")),
    ("rfs-thread-churn", include_str!("../lessons/rfs-thread-churn.json")),
    ("xps-pick-tx", include_str!("../lessons/xps-pick-tx.json")),
    ("xdp-kfunc-cost", include_str!("../lessons/xdp-kfunc-cost.json")),
];

/// The scenario text of a built-in lesson.
pub fn lesson(id: &str) -> Option<&'static str> {
    LESSONS.iter().find(|(i, _)| *i == id).map(|(_, t)| *t)
}

/// The built-in lesson ids.
pub fn lesson_ids() -> impl Iterator<Item = &'static str> {
    LESSONS.iter().map(|(i, _)| *i)
}
