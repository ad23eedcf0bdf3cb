//! Integration tests of the whole workspace (one binary, so one link step).

mod golden;
mod seeds;
mod tidy;
