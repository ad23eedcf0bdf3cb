//! The messages between the page and the worker. [`Action`] is the only way to change the
//! simulation: every control, every console line, every embed API message and both hosts of
//! the compare view. The worker answers with [`ToPage`]: view snapshots (at most one per
//! display frame: the page asks for the next with [`Action::ViewShown`]) and events.
//!
//! Both sides encode them with postcard (compact bytes, sent as a `Uint8Array`); a message
//! that does not decode is refused with the reason, never acted on.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{FlowForm, ViewModel};

/// A host of the session: 0, or 0 and 1 in the compare view (A and B).
pub type HostId = u8;

/// Where an action came from: it decides where a refusal is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Origin {
    /// Typed in a console: the refusal shows there, in the tool's words.
    Console,
    /// A control of the page: the refusal shows in the error banner.
    Control,
    /// The embedding page's API: the refusal is answered with an error event.
    Embed,
}

/// A change the learner (or the embedding page) asks of the simulation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Action {
    /// Opens a built-in lesson on one host (an unknown id opens the default lesson and says so).
    OpenLesson(String),
    /// Opens a lesson on two hosts side by side, one clock.
    OpenCompare(String),
    /// Replaces the host with a scenario's JSON text (an upload, or `steerlab:load`).
    Load { text: String, from: Origin },
    /// Opens the state a permalink names (`#s=`), replayed a slice at a time.
    Restore(String),
    /// Starts time.
    Play,
    /// Stops time (between ticks, so that a link names the state shown).
    Pause,
    /// One tick.
    Step,
    /// One tick back (snapshot and replay).
    StepBack,
    /// A second back, paused there (the page's Back button).
    Back,
    /// Back to the start, same seed.
    Reset,
    /// To the scenario's suggested length as fast as the engine runs; ends paused there
    /// (nothing to do past it). The only thing that stops time by itself.
    RunToEnd,
    /// Playback speed (index into `SPEEDS`).
    Speed(usize),
    /// To a simulated time, ms.
    Seek(u64),
    /// A console command on a host.
    Command { host: HostId, line: String, from: Origin },
    /// Several commands from one control (each echoed; the first refusal stops the rest).
    Commands { host: HostId, lines: Vec<String> },
    /// The add-flow form.
    AddFlow(FlowForm),
    /// The flow the trace panel follows.
    Trace(u32),
    /// The RX queue whose RFS flow table is shown.
    RfsQueue(u16),
    /// The first row of the aRFS table's scroll window.
    FilterWindow(u32),
    /// Select a cell of the host matrix (RX queue, CPU), or none: its busiest flows are listed.
    MatrixCell(Option<(u16, u16)>),
    /// The same on one host of the compare view.
    MatrixCellOf(HostId, Option<(u16, u16)>),
    /// The lesson's next step.
    NextStep,
    /// The learner's answer to the lesson's question (an index into its choices).
    Predict(usize),
    /// The lesson's challenge form on or off (`?mode=challenge`).
    Challenge(bool),
    /// A learner's own variant of the open lesson (`?student=NAME`): its seed from the name.
    Student(String),
    /// One more hint of the challenge.
    Hint,
    /// Answer with `steerlab:state` for the embedding page.
    GetState,
    /// A message from an allowed embedding page, as the JSON text the browser gave: checked
    /// here, in the worker (`embed::parse_message`, so that the page's module carries no JSON
    /// parser), then its actions and `steerlab:state`; or a `steerlab:event` error.
    FromHostPage(String),
    /// Answer with the permalink of the state now.
    Share,
    /// The page has drawn the last view: the next may come.
    ViewShown,
    /// The page holds none of the views' rare parts (it has just adopted the first screen's
    /// worker, whose earlier frames it never saw): the next frame carries all of them
    /// (`frame.rs`).
    SendAll,
    /// "Your host": a real host's capture (`scripts/capture-host.sh`) and flows on it (lines
    /// or `ss -tn` output, may be empty), with the learner's corrections of what was assumed
    /// (`FIELD=VALUE`, as `steerlab import --set`): the host is built with the flows to play,
    /// and their predictions come back as [`Event::HostImported`], or the reason as
    /// [`Event::HostRefused`].
    ImportHost {
        capture: String,
        flows: String,
        sets: Vec<String>,
    },
    /// The importer's answer to [`Action::ImportHost`]: in the page, the worker loads the
    /// importer's own module on first use, runs it, and applies its answer as this action.
    HostBuilt(Result<steerlab_importer::ImportedHost, String>),
}

/// What the page draws: every host, and the one transport they share.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionView {
    /// The hosts (one; two in the compare view), without their rare parts: those the frame
    /// carries are in `rare`, one per host, and the page fills them in (client.rs).
    pub hosts: Vec<ViewModel>,
    /// Each host's rare parts that changed since the last frame (`frame.rs`).
    pub rare: Vec<super::frame::RareParts>,
    /// Time runs.
    pub playing: bool,
    /// Index into `SPEEDS`.
    pub speed: usize,
    /// Real time left to the end at full speed, e.g. "about 3 s to the end".
    pub eta: Option<String>,
    /// The rate time really runs at, when it falls short of the speed asked for.
    pub behind: Option<String>,
    /// Time has passed the scenario's suggested length (it runs on: a quiet note).
    pub run_ended: bool,
}

impl SessionView {
    /// Time runs as fast as the engine can (the fastest speed, Run to end).
    pub fn full_speed(&self) -> bool {
        self.playing && super::pacer::unbounded(self.speed)
    }
}

/// Something the page should know that is not a view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Event {
    /// The worker is running and takes actions.
    Ready,
    /// The error banner's text after an action of the page's controls (`None` clears it).
    Banner(Option<String>),
    /// A message for the embedding page (`steerlab:event`, `steerlab:state`), as JSON text.
    Host(String),
    /// The permalink of the state now (`#s=` + this).
    Permalink(String),
    /// The open lesson changed (the page rewrites `?lesson=`).
    Lesson(String),
    /// Time passed the scenario's suggested length (nothing stops).
    RunEnded,
    /// A captured host was built: where each of its flows lands, and what was assumed.
    /// A capture or flows the importer refused: the error, naming and quoting the line.
    HostRefused(String),
    HostImported {
        rows: Vec<steerlab_scenario::predict::Predicted>,
        assumptions: Vec<steerlab_scenario::capture::Assumption>,
        /// What the capture's counters show (drops, softirq load).
        observed: Vec<steerlab_scenario::capture::Observation>,
        rx_queues: u16,
    },
}

/// A message from the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToPage {
    /// The state to draw.
    View(Box<SessionView>),
    /// An event.
    Event(Event),
}

/// Encodes a message for `postMessage`.
pub fn encode<T: Serialize>(msg: &T) -> Vec<u8> {
    // Into a growing vector: serialising cannot fail.
    postcard::to_allocvec(msg).unwrap_or_default()
}

/// Decodes a message, or says that it is not one. Both ends are this module, so a failure is a
/// bug, not input to explain: postcard's own wording (700 bytes of text) stays out of the bundle.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    postcard::from_bytes(bytes).map_err(|_| "not a steerlab message (postcard could not decode it)".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_round_trip_and_garbage_is_refused() {
        let a = Action::Command {
            host: 1,
            line: "ethtool -x eth0".into(),
            from: Origin::Embed,
        };
        assert_eq!(decode::<Action>(&encode(&a)), Ok(a.clone()));
        for bad in [&b""[..], b"\xff\xff\xff", &encode(&a)[..3]] {
            assert!(
                decode::<Action>(bad).unwrap_err().starts_with("not a steerlab message"),
                "{bad:?}"
            );
        }
    }
}
