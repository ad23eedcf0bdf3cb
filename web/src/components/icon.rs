//! Icons as inline SVG: the page needs no emoji or symbol font (⏭, ⏮ and 🔗 are empty boxes
//! on systems without one). Each is a 16×16 path in the text's colour, hidden from screen
//! readers: the button's text or label says what it does.

use yew::prelude::*;

/// The page's icons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Icon {
    /// Play.
    Play,
    /// Pause.
    Pause,
    /// One tick forward.
    Step,
    /// One tick back.
    Back,
    /// Run to the end.
    End,
    /// Reset.
    Reset,
    /// Permalink.
    Link,
    /// Next step.
    Next,
}

/// The SVG path of an icon (viewBox 0 0 16 16).
fn path(i: Icon) -> &'static str {
    match i {
        Icon::Play => "M4 2l10 6-10 6z",
        Icon::Pause => "M3 2h4v12H3zM9 2h4v12H9z",
        Icon::Step => "M2 2l8 6-8 6zM11 2h3v12h-3z",
        Icon::Back => "M14 2L6 8l8 6zM2 2h3v12H2z",
        Icon::End => "M1 2l7 6-7 6zM7 2l7 6-7 6zM13 2h2v12h-2z",
        Icon::Reset => "M3 8a5 5 0 1 0 1.5-3.5M4.5 1.5v3h3",
        Icon::Link => "M6.5 9.5l3-3M7 4l1.5-1.5a3 3 0 0 1 4.2 4.2L11 8.5M9 12l-1.5 1.5a3 3 0 0 1-4.2-4.2L5 7.5",
        Icon::Next => "M2 7h9V3l5 5-5 5V9H2z",
    }
}

/// An icon, sized to the text.
pub fn icon(i: Icon) -> Html {
    // The link and reset icons are drawn with strokes, the others filled.
    let (fill, stroke) = if matches!(i, Icon::Link | Icon::Reset) {
        ("none", "currentColor")
    } else {
        ("currentColor", "none")
    };
    html! {
        <svg class="icon" viewBox="0 0 16 16" width="1em" height="1em" aria-hidden="true" focusable="false">
            <path d={path(i)} fill={fill} stroke={stroke} stroke-width="1.8" stroke-linecap="round" />
        </svg>
    }
}
