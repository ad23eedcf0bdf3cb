//! Integration tests of the whole workspace (one binary, so one link step).

mod golden;
mod kernel_check;
mod seeds;
mod tidy;
