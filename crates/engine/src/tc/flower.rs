//! flower's side of a filter (net/sched/cls_flower.c): what a match compares, its mask, and the
//! order in which a tp's filters are met.

use core::fmt;
use core::net::IpAddr;

use crate::flow::FlowKey;

use super::{Filter, Match, TcError, Tp, MAX_HANDLE};

impl Match {
    /// True if the packet of `key` has every field this match names (net/sched/cls_flower.c:
    /// `fl_classify` comparing the masked key).
    pub fn matches(&self, key: &FlowKey) -> bool {
        self.src_ip.is_none_or(|ip| ip == key.src())
            && self.dst_ip.is_none_or(|ip| ip == key.dst())
            && self.src_port.is_none_or(|p| p == key.sport())
            && self.dst_port.is_none_or(|p| p == key.dport())
            && self.ip_proto.is_none_or(|p| p == key.proto())
    }

    /// Which fields are set, and the address family of each address: flower's mask. Filters of
    /// one tp with equal masks share one `fl_flow_mask` and its hash table.
    pub(super) fn mask(&self) -> u8 {
        let family = |ip: Option<IpAddr>, v4: u8, v6: u8| match ip {
            None => 0,
            Some(IpAddr::V4(_)) => v4,
            Some(IpAddr::V6(_)) => v6,
        };
        family(self.src_ip, 1, 2)
            | family(self.dst_ip, 4, 8)
            | (u8::from(self.src_port.is_some()) << 4)
            | (u8::from(self.dst_port.is_some()) << 5)
            | (u8::from(self.ip_proto.is_some()) << 6)
    }

    /// Refuses what iproute2 or flower would refuse before anything is created.
    pub(super) fn validate(&self) -> Result<(), TcError> {
        if let (Some(s), Some(d)) = (self.src_ip, self.dst_ip) {
            if s.is_ipv4() != d.is_ipv4() {
                return Err(TcError::MixedFamilies);
            }
        }
        if self.ip_proto.is_none() && (self.src_port.is_some() || self.dst_port.is_some()) {
            return Err(TcError::PortWithoutIpProto);
        }
        Ok(())
    }
}

impl fmt::Display for Match {
    /// The matches as iproute2's flower printer orders them (`ip_proto`, `dst_ip`, `src_ip`,
    /// `dst_port`, `src_port`); an empty match prints nothing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        let mut item = |f: &mut fmt::Formatter<'_>, name: &str, value: &dyn fmt::Display| {
            let r = write!(f, "{sep}{name} {value}");
            sep = " ";
            r
        };
        if let Some(p) = self.ip_proto {
            item(f, "ip_proto", &p.name())?;
        }
        if let Some(ip) = self.dst_ip {
            item(f, "dst_ip", &ip)?;
        }
        if let Some(ip) = self.src_ip {
            item(f, "src_ip", &ip)?;
        }
        if let Some(p) = self.dst_port {
            item(f, "dst_port", &p)?;
        }
        if let Some(p) = self.src_port {
            item(f, "src_port", &p)?;
        }
        Ok(())
    }
}

impl Filter {
    /// Counted by the legacy `skipswcnt` (`tcf_block_offload_inc` on a SKIP_SW filter).
    pub(super) fn skipsw_in_hw(&self) -> bool {
        self.skip_sw && self.in_hw
    }
}

impl Tp {
    /// The filters in the order software and hardware meet them: masks in creation order, and
    /// within a mask by handle. A key matches at most one filter per mask, so this linear order
    /// gives `fl_classify`'s verdict.
    pub(super) fn walk(&self) -> impl Iterator<Item = &Filter> + '_ {
        self.masks
            .iter()
            .flat_map(move |m| self.filters.iter().filter(move |f| f.mask == m.mask))
    }

    /// The lowest free handle from 1 (`idr_alloc_u32(…, &handle = 1, INT_MAX)`).
    pub(super) fn free_handle(&self) -> Option<u32> {
        let mut want = 1u32;
        for f in &self.filters {
            if f.handle != want {
                break;
            }
            want = want.checked_add(1)?;
        }
        (want <= MAX_HANDLE).then_some(want)
    }
}
