//! ntuple (n-tuple) rules: NIC filters set with `ethtool -N DEV flow-type …`, and
//! ethtool's rules for their locations (ethtool's `rxclass.c`: `rmgr_find_empty_slot` takes the
//! highest free location; a rule table of 1024 slots, as `ethtool -n` reports on ice).

use crate::error::SimError;
use crate::flow::{FlowKey, FlowType};

/// Locations in the NIC's rule table (`0..RULE_SLOTS`).
pub const RULE_SLOTS: u32 = 1024;

/// What `ethtool -N … loc` asks for: a given location, or none (ethtool picks).
pub const ANY_LOCATION: u32 = u32::MAX;

/// A NIC rule (`ethtool -N DEV flow-type ... action Q loc L`); absent fields match anything, a
/// present one compares the bits its mask does not ignore.
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
    /// Bits of each present field that are not compared (all zero: an exact match).
    pub masks: Masks,
}

/// The bits of a rule's fields that are not compared, in ethtool's sense: `ethtool -N … src-ip A
/// m M` and `ethtool -n` both show the ignored bits (rxclass.c inverts them to and from the
/// kernel's `ethtool_rx_flow_spec.m_u`, whose set bits are the compared ones). Addresses are
/// their integer value (an IPv4 mask in the low 32 bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Masks {
    /// Of the source address.
    pub src: u128,
    /// Of the destination address.
    pub dst: u128,
    /// Of the source port.
    pub sport: u16,
    /// Of the destination port.
    pub dport: u16,
}

/// An address as the integer its mask applies to.
pub fn ip_bits(a: core::net::IpAddr) -> u128 {
    match a {
        core::net::IpAddr::V4(v) => u128::from(u32::from(v)),
        core::net::IpAddr::V6(v) => u128::from(v),
    }
}

impl NtupleRule {
    /// Whether the rule matches a packet of flow `k`.
    pub fn matches(&self, k: &FlowKey) -> bool {
        let m = &self.masks;
        let ip = |want: Option<core::net::IpAddr>, got: core::net::IpAddr, ignored: u128| {
            want.is_none_or(|a| (ip_bits(a) ^ ip_bits(got)) & !ignored == 0)
        };
        let port = |want: Option<u16>, got: u16, ignored: u16| want.is_none_or(|p| (p ^ got) & !ignored == 0);
        self.flow_type == k.flow_type()
            && ip(self.src, k.src(), m.src)
            && ip(self.dst, k.dst(), m.dst)
            && port(self.sport, k.sport(), m.sport)
            && port(self.dport, k.dport(), m.dport)
    }
}

impl NtupleRule {
    /// Whether the rule matches on the whole 4-tuple, every bit: ice's "perfect" input set
    /// (`ice_set_fdir_ip4_seg` / `ice_set_fdir_ip6_seg` set `perfect_fltr` only when both
    /// addresses and both ports are fully masked, drivers/net/ethernet/intel/ice/
    /// ice_ethtool_fdir.c), the only one aRFS filters can use.
    pub fn perfect(&self) -> bool {
        self.src.is_some()
            && self.dst.is_some()
            && self.sport.is_some()
            && self.dport.is_some()
            && self.masks == Masks::default()
    }
}

/// The location a new rule takes among `rules`: `loc` if given (any in `0..RULE_SLOTS`, a used
/// one to be replaced), else the highest free one, as ethtool's `rmgr_find_empty_slot` does.
pub fn place(rules: &[NtupleRule], loc: u32) -> Result<u32, SimError> {
    if loc == ANY_LOCATION {
        let taken = |l: u32| rules.iter().any(|r| r.loc == l);
        return (0..RULE_SLOTS)
            .rev()
            .find(|&l| !taken(l))
            .ok_or(SimError::NtupleTableFull);
    }
    if loc >= RULE_SLOTS {
        return Err(SimError::NtupleLocation { loc, slots: RULE_SLOTS });
    }
    Ok(loc)
}

/// The rule that decides flow `key`: the matching rule at the lowest location wins.
pub fn rule_for<'a>(rules: &'a [NtupleRule], key: &FlowKey) -> Option<&'a NtupleRule> {
    rules.iter().filter(|r| r.matches(key)).min_by_key(|r| r.loc)
}

/// The queue the rules send flow `key` to.
pub fn queue_for(rules: &[NtupleRule], key: &FlowKey) -> Option<u16> {
    rule_for(rules, key).map(|r| r.queue)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::Proto;

    fn key(src: &str, sport: u16) -> FlowKey {
        FlowKey::new(
            src.parse().unwrap(),
            "10.0.0.2".parse().unwrap(),
            sport,
            443,
            Proto::Tcp,
        )
        .unwrap()
    }

    /// A mask's set bits are ignored (ethtool's sense): `src-ip 192.0.2.0 m 0.0.0.255` takes the
    /// whole /24, `src-port 0x1000 m 0x0fff` ports 0x1000..=0x1fff; a zero mask is exact.
    #[test]
    fn masks_ignore_their_set_bits() {
        let rule = NtupleRule {
            loc: 5,
            flow_type: FlowType::Tcp4,
            src: Some("192.0.2.0".parse().unwrap()),
            dst: None,
            sport: Some(0x1000),
            dport: None,
            queue: 1,
            masks: Masks {
                src: 0xff,
                sport: 0x0fff,
                ..Masks::default()
            },
        };
        assert!(rule.matches(&key("192.0.2.77", 0x1abc)));
        assert!(!rule.matches(&key("192.0.3.77", 0x1abc)), "outside the /24");
        assert!(!rule.matches(&key("192.0.2.77", 0x2000)), "outside the port block");
        let exact = NtupleRule {
            masks: Masks::default(),
            ..rule.clone()
        };
        assert!(!exact.matches(&key("192.0.2.77", 0x1000)));
        assert!(exact.matches(&key("192.0.2.0", 0x1000)));
    }
}
