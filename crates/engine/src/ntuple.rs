//! ntuple (n-tuple) rules: exact-match NIC filters set with `ethtool -N DEV flow-type …`, and
//! ethtool's rules for their locations (ethtool's `rxclass.c`: `rmgr_find_empty_slot` takes the
//! highest free location; a rule table of 1024 slots, as `ethtool -n` reports on ice).

use crate::error::{range_err, SimError};
use crate::flow::{FlowKey, FlowType};

/// Locations in the NIC's rule table (`0..RULE_SLOTS`).
pub const RULE_SLOTS: u32 = 1024;

/// What `ethtool -N … loc` asks for: a given location, or none (ethtool picks).
pub const ANY_LOCATION: u32 = u32::MAX;

/// An exact-match NIC rule (`ethtool -N DEV flow-type ... action Q loc L`); absent fields match
/// anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NtupleRule {
    /// Location in the rule table (lower wins).
    pub loc: u32,
    /// Flow type.
    pub flow_type: FlowType,
    /// Source address.
    pub src: Option<core::net::IpAddr>,
    /// Destination address.
    pub dst: Option<core::net::IpAddr>,
    /// Source port.
    pub sport: Option<u16>,
    /// Destination port.
    pub dport: Option<u16>,
    /// Target RX queue.
    pub queue: u16,
}

impl NtupleRule {
    /// Whether the rule matches a packet of flow `k`.
    pub fn matches(&self, k: &FlowKey) -> bool {
        self.flow_type == k.flow_type()
            && self.src.is_none_or(|a| a == k.src())
            && self.dst.is_none_or(|a| a == k.dst())
            && self.sport.is_none_or(|p| p == k.sport())
            && self.dport.is_none_or(|p| p == k.dport())
    }
}

/// The location a new rule takes among `rules`: `loc` if given (a free one in
/// `0..RULE_SLOTS`), else the highest free one, as ethtool's `rmgr_find_empty_slot` does.
pub fn place(rules: &[NtupleRule], loc: u32) -> Result<u32, SimError> {
    let taken = |l: u32| rules.iter().any(|r| r.loc == l);
    if loc == ANY_LOCATION {
        return (0..RULE_SLOTS).rev().find(|&l| !taken(l)).ok_or(SimError::NtupleTableFull);
    }
    if loc >= RULE_SLOTS || taken(loc) {
        return Err(range_err("loc", "a free location in 0..=1023"));
    }
    Ok(loc)
}

/// The queue the rules send flow `key` to: the matching rule at the lowest location wins.
pub fn queue_for(rules: &[NtupleRule], key: &FlowKey) -> Option<u16> {
    rules.iter().filter(|r| r.matches(key)).min_by_key(|r| r.loc).map(|r| r.queue)
}
