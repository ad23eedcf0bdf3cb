//! Helpers shared by the capture tests.

use steerlab_scenario::capture::Imported;

/// Everything an import said, one assumption a line.
pub(crate) fn said(imported: &Imported) -> String {
    imported
        .assumptions
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}
