//! Why a command was refused.

use alloc::string::String;
use core::fmt;

use crate::config::ConfigError;
use crate::rss::RetaError;

/// Why a command was refused. The state is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// A value is out of range.
    Config(ConfigError),
    /// The indirection table could not be set.
    Reta(RetaError),
    /// Something named does not exist or already exists.
    Invalid(String),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Config(e) => e.fmt(f),
            SimError::Reta(e) => e.fmt(f),
            SimError::Invalid(s) => f.write_str(s),
        }
    }
}

impl From<ConfigError> for SimError {
    fn from(e: ConfigError) -> Self {
        SimError::Config(e)
    }
}

pub(super) fn range_err(field: &str, accepted: &str) -> SimError {
    SimError::Config(ConfigError { field: field.into(), accepted: accepted.into() })
}
