//! The seam between the page and its simulation worker: everything that crosses it, in one
//! place. The page's module (`main.rs`: `components`, `client`, `chart`) reaches worker-side
//! code (`controller`, `worker`) and the engine, console and scenario crates only through this
//! module; `tests/it/tidy.rs` (`the_page_reaches_the_worker_only_through_the_protocol`) holds
//! that rule with no exceptions.
//!
//! What crosses:
//! - messages: the page sends [`Action`]s (`client.rs` posts them, [`encode`]d); the worker
//!   answers [`ToPage`] frames ([`decode`]d) carrying a [`SessionView`] of one or two hosts'
//!   [`ViewModel`]s, [`Event`]s and the rare parts the page keeps ([`Kept`]);
//! - the view's parts, which the worker computes and the page only draws;
//! - the rules both sides apply: the embedding page's origins and messages ([`embed`]) and the
//!   wire view's geometry ([`wire`]);
//! - the few pure helpers the page calls itself: Tab completion ([`complete`], the console's
//!   own, so that it answers as the worker would), number wording ([`human`], [`ratio_text`]),
//!   a CPU mask's text ([`all_cpus_mask`]), a `data-testid`'s check ([`is_testid`]).
//!
//! The load path that brings the two modules up (boot, preload, worker start, first screen,
//! takeover) and its globals are in ARCHITECTURE.md, "The two threads".

pub mod embed;
pub mod wire;

pub use crate::controller::frame::Kept;
pub use crate::controller::{
    decode, driver_names, encode, human, ratio_text, Action, ChallengeView, CompleteView, ConsoleView, CpuView, Event,
    EvidenceView, Fates, Figures, FilterRow, FlowForm, GoalPart, HostId, LessonView, MatrixView, Origin, PredictView,
    QueueView, RfsView, Score, Series, SessionView, StepView, TcEnd, TcPicture, ThreadView, ToPage, Trend, TxPicture,
    ViewModel, XdpView, XpsRow, DEFAULT_LESSON, SPEEDS,
};
pub use steerlab_console::complete;
pub use steerlab_engine::{DropPoint, FlowTrace, FlowView, QueueRule};
pub use steerlab_scenario::capture::{Assumption, Observation};
pub use steerlab_scenario::predict::Predicted;
pub use steerlab_scenario::{is_testid, Better, MAX_BYTES};

/// Every CPU of a host of `cpus` as the hex mask `rps_cpus` takes (`f` for 4 CPUs).
pub fn all_cpus_mask(cpus: u16) -> String {
    steerlab_engine::CpuSet::range(0, cpus).to_hex(cpus)
}
