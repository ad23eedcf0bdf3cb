//! Receive-side scaling: which fields are hashed, the Toeplitz hash over them, and the
//! indirection table (RETA) that turns the hash into an RX queue.
//!
//! Kernel and tool sources: the input layout is the packet's own byte order
//! (Documentation/networking/scaling.rst, RSS section); the default table is
//! `ethtool_rxfh_indir_default` (include/linux/ethtool.h); `equal` and `weight` are computed by
//! ethtool (`ethtool.c`: `fill_indir_table`) and validated by the kernel
//! (net/ethtool/ioctl.c: `ethtool_copy_validate_indir`).

use core::fmt;

use alloc::vec::Vec;

use crate::flow::{put_ip, FlowKey};

/// The `rx-flow-hash` field selection of one flow type (`ethtool -N DEV rx-flow-hash tcp4 sdfn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HashFields {
    /// `s`: source IP address.
    pub src_ip: bool,
    /// `d`: destination IP address.
    pub dst_ip: bool,
    /// `f`: L4 bytes 0-1 (the source port).
    pub src_port: bool,
    /// `n`: L4 bytes 2-3 (the destination port).
    pub dst_port: bool,
}

impl HashFields {
    /// Addresses and ports (`sdfn`), the usual default for TCP.
    pub const FOUR_TUPLE: HashFields = HashFields {
        src_ip: true,
        dst_ip: true,
        src_port: true,
        dst_port: true,
    };
    /// Addresses only (`sd`): ixgbe's default for UDP (`ixgbe_setup_mrqc` adds UDP ports only on request).
    pub const TWO_TUPLE: HashFields = HashFields {
        src_ip: true,
        dst_ip: true,
        src_port: false,
        dst_port: false,
    };

    /// Parses ethtool's letters; only `s`, `d`, `f`, `n` are modelled.
    pub fn parse(letters: &str) -> Option<HashFields> {
        let mut fields = HashFields {
            src_ip: false,
            dst_ip: false,
            src_port: false,
            dst_port: false,
        };
        for c in letters.chars() {
            match c {
                's' => fields.src_ip = true,
                'd' => fields.dst_ip = true,
                'f' => fields.src_port = true,
                'n' => fields.dst_port = true,
                _ => return None,
            }
        }
        Some(fields)
    }

    /// True when the ports are part of the hash: the NIC reports an L4 hash
    /// (`PKT_HASH_TYPE_L4`), which the stack keeps (`skb->l4_hash`, include/linux/skbuff.h).
    pub const fn is_l4(self) -> bool {
        self.src_port && self.dst_port
    }

    /// Whether the NIC accepts this selection: both addresses, and both ports or neither
    /// (`sd` or `sdfn`; the drivers modelled here refuse other sets with `-EINVAL`).
    pub const fn nic_accepts(self) -> bool {
        self.src_ip && self.dst_ip && self.src_port == self.dst_port
    }
}

impl fmt::Display for HashFields {
    /// ethtool's letters, e.g. `sdfn`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (on, c) in [
            (self.src_ip, 's'),
            (self.dst_ip, 'd'),
            (self.src_port, 'f'),
            (self.dst_port, 'n'),
        ] {
            if on {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

/// An RSS key as `ethtool -x` prints it and `ethtool -X hkey` takes it: hex byte pairs
/// separated by colons (`6d:5a:56:…`); `None` for anything else. The length is the caller's
/// rule (the device's key size).
pub fn parse_key(text: &str) -> Option<Vec<u8>> {
    text.split(':')
        .map(|b| {
            if b.len() == 2 {
                u8::from_str_radix(b, 16).ok()
            } else {
                None
            }
        })
        .collect()
}

/// The hash input for `flow` under `fields`, in packet byte order: source address, destination
/// address, source port, destination port, each only if selected. Returns the buffer and length.
pub fn hash_input(flow: &FlowKey, fields: HashFields) -> ([u8; 36], usize) {
    let mut buf = [0u8; 36];
    let mut len = 0;
    if fields.src_ip {
        len = put_ip(&mut buf, len, flow.src());
    }
    if fields.dst_ip {
        len = put_ip(&mut buf, len, flow.dst());
    }
    if fields.src_port {
        buf[len..len + 2].copy_from_slice(&flow.sport().to_be_bytes());
        len += 2;
    }
    if fields.dst_port {
        buf[len..len + 2].copy_from_slice(&flow.dport().to_be_bytes());
        len += 2;
    }
    (buf, len)
}

/// Why an indirection table cannot be set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RetaError {
    /// `equal 0`.
    EqualZero,
    /// All weights are zero (ethtool: "At least one weight must be non-zero").
    AllWeightsZero,
    /// ethtool: "Total weight exceeds the size of the indirection table".
    WeightExceedsSize {
        /// Sum of the weights.
        total: u32,
        /// Table size.
        size: u32,
    },
    /// An entry names a queue the device does not have (kernel `-EINVAL`).
    QueueOutOfRange {
        /// The offending queue.
        queue: u32,
        /// Number of RX rings.
        rings: u32,
    },
    /// The table size is not a power of two in the supported range.
    BadSize(u32),
}

impl fmt::Display for RetaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RetaError::EqualZero => f.write_str("equal needs at least 1 queue"),
            RetaError::AllWeightsZero => f.write_str("At least one weight must be non-zero"),
            RetaError::WeightExceedsSize { total, size } => {
                write!(
                    f,
                    "Total weight exceeds the size of the indirection table (total {total}, size {size})"
                )
            }
            RetaError::QueueOutOfRange { queue, rings } => {
                write!(
                    f,
                    "indirection table entry {queue} is not below the number of RX rings ({rings})"
                )
            }
            RetaError::BadSize(n) => write!(f, "indirection table size {n} is not a power of two in 8..=2048"),
        }
    }
}

/// The RSS indirection table: `queue = entries[hash & (size - 1)]`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Reta {
    entries: Vec<u16>,
    /// Set once the user configured the table (`IFF_RXFH_CONFIGURED`); a default table is
    /// regenerated by drivers when the queue count changes, a configured one is kept.
    user_configured: bool,
}

impl Reta {
    /// Largest table modelled (ice PF LUT, `ICE_LUT_PF_SIZE`).
    pub const MAX_SIZE: u32 = 2048;

    /// The kernel default fill `entries[i] = i % rings` (`ethtool_rxfh_indir_default`).
    pub fn new_default(size: u32, rings: u32) -> Result<Reta, RetaError> {
        if !size.is_power_of_two() || !(8..=Reta::MAX_SIZE).contains(&size) {
            return Err(RetaError::BadSize(size));
        }
        let rings = rings.max(1);
        let entries = (0..size).map(|i| (i % rings) as u16).collect();
        Ok(Reta {
            entries,
            user_configured: false,
        })
    }

    /// A table as a device holds it (`ethtool -x` of a real host, a scenario's `nic.indir`):
    /// the default fill is a default table, anything else counts as user-configured.
    pub fn from_entries(entries: &[u16], rings: u32) -> Result<Reta, RetaError> {
        let default = Reta::new_default(entries.len() as u32, rings)?;
        if default.entries == entries {
            return Ok(default);
        }
        default.configured(&entries.iter().map(|&q| u32::from(q)).collect::<Vec<_>>(), rings)
    }

    /// Number of entries.
    pub fn size(&self) -> u32 {
        self.entries.len() as u32
    }

    /// The entries, in index order.
    pub fn entries(&self) -> &[u16] {
        &self.entries
    }

    /// True once set by `ethtool -X` with anything but `default`.
    pub fn user_configured(&self) -> bool {
        self.user_configured
    }

    /// The table index the NIC uses for `hash`: its low bits.
    pub fn index(&self, hash: u32) -> u32 {
        hash & (self.size() - 1)
    }

    /// The RX queue for `hash`.
    pub fn queue(&self, hash: u32) -> u16 {
        self.entries[self.index(hash) as usize]
    }

    /// `ethtool -X DEV equal N [start S]`: `entries[i] = start + i % n`.
    pub fn equal(&self, n: u32, start: u32, rings: u32) -> Result<Reta, RetaError> {
        if n == 0 {
            return Err(RetaError::EqualZero);
        }
        let entries: Vec<u32> = (0..self.size()).map(|i| start + i % n).collect();
        self.configured(&entries, rings)
    }

    /// `ethtool -X DEV weight W0 W1 ... [start S]`, as ethtool's `fill_indir_table` computes it:
    /// queue `j` gets a share of the entries proportional to `W[j]`, in queue order.
    pub fn weight(&self, weights: &[u32], start: u32, rings: u32) -> Result<Reta, RetaError> {
        let size = self.size();
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        if total == 0 {
            return Err(RetaError::AllWeightsZero);
        }
        if total > u64::from(size) {
            return Err(RetaError::WeightExceedsSize {
                total: total.min(u64::from(u32::MAX)) as u32,
                size,
            });
        }
        let mut entries = Vec::with_capacity(size as usize);
        let mut j: i64 = -1;
        let mut partial: u64 = 0;
        for i in 0..u64::from(size) {
            while i >= (u64::from(size) * partial) / total {
                j += 1;
                partial += u64::from(weights[j as usize]);
            }
            entries.push(start + j as u32);
        }
        self.configured(&entries, rings)
    }

    /// `ethtool -X DEV default`: back to `i % rings`, no longer user-configured.
    pub fn reset(&self, rings: u32) -> Reta {
        Reta::new_default(self.size(), rings).unwrap_or_else(|_| self.clone())
    }

    /// The highest queue any entry names (for `ethtool -L` checks, `ethtool_get_max_rxfh_channel`).
    pub fn max_queue(&self) -> u16 {
        self.entries.iter().copied().max().unwrap_or(0)
    }

    fn configured(&self, entries: &[u32], rings: u32) -> Result<Reta, RetaError> {
        if let Some(&queue) = entries.iter().find(|&&q| q >= rings) {
            return Err(RetaError::QueueOutOfRange { queue, rings });
        }
        Ok(Reta {
            entries: entries.iter().map(|&q| q as u16).collect(),
            user_configured: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reta(size: u32, rings: u32) -> Reta {
        Reta::new_default(size, rings).unwrap()
    }

    #[test]
    fn default_fill_is_modulo_rings() {
        let t = reta(8, 3);
        assert_eq!(t.entries(), &[0, 1, 2, 0, 1, 2, 0, 1]);
        assert!(!t.user_configured());
        assert_eq!(Reta::new_default(100, 4), Err(RetaError::BadSize(100)));
    }

    #[test]
    fn weight_examples_from_ethtool() {
        // Values computed from ethtool.c `fill_indir_table` (kernel-semantics.md §1.5).
        assert_eq!(
            reta(8, 4).weight(&[1, 2], 0, 4).unwrap().entries(),
            &[0, 0, 1, 1, 1, 1, 1, 1]
        );
        assert_eq!(
            reta(8, 4).weight(&[1, 0, 1], 0, 4).unwrap().entries(),
            &[0, 0, 0, 0, 2, 2, 2, 2]
        );
        let t = reta(128, 4).weight(&[1, 1, 2], 0, 4).unwrap();
        let count = |q| t.entries().iter().filter(|&&e| e == q).count();
        assert_eq!((count(0), count(1), count(2)), (32, 32, 64));
        assert_eq!(reta(8, 4).weight(&[0, 0], 0, 4), Err(RetaError::AllWeightsZero));
        assert!(matches!(
            reta(8, 4).weight(&[5, 5], 0, 4),
            Err(RetaError::WeightExceedsSize { .. })
        ));
    }

    #[test]
    fn equal_and_start_are_validated_against_rings() {
        let t = reta(8, 4).equal(2, 0, 4).unwrap();
        assert_eq!(t.entries(), &[0, 1, 0, 1, 0, 1, 0, 1]);
        assert!(t.user_configured());
        assert_eq!(reta(8, 4).equal(2, 2, 4).unwrap().entries(), &[2, 3, 2, 3, 2, 3, 2, 3]);
        // `equal 8` on a 4-ring device is refused by the kernel.
        assert_eq!(
            reta(8, 4).equal(8, 0, 4),
            Err(RetaError::QueueOutOfRange { queue: 4, rings: 4 })
        );
        assert_eq!(reta(8, 4).equal(0, 0, 4), Err(RetaError::EqualZero));
    }

    #[test]
    fn queue_uses_low_hash_bits() {
        // kernel-semantics.md §1.3 derived table: 0x51ccc178 & 127 = 120, default 4 queues -> 0.
        let t = reta(128, 4);
        assert_eq!(t.index(0x51cc_c178), 120);
        assert_eq!(t.queue(0x51cc_c178), 0);
        assert_eq!(t.queue(0xc626_b0ea), 2);
        assert_eq!(t.queue(0xafc7_327f), 3);
    }
}
