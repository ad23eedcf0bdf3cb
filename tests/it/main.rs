//! Integration tests of the whole workspace (one binary, so one link step).

mod fidelity;
mod golden;
mod kernel_check;
mod seeds;
mod tidy;
