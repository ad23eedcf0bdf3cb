//! Flows: the 5-tuple of a received stream, as a small value that cannot be invalid.

use core::fmt;
use core::net::IpAddr;

/// Transport protocol of a flow. The model covers what aRFS drivers steer (TCP and UDP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Proto {
    /// TCP (IP protocol 6).
    Tcp,
    /// UDP (IP protocol 17).
    Udp,
}

impl Proto {
    /// The IP protocol number.
    pub const fn ip_proto(self) -> u8 {
        match self {
            Proto::Tcp => 6,
            Proto::Udp => 17,
        }
    }

    /// `tcp` or `udp`.
    pub const fn name(self) -> &'static str {
        match self {
            Proto::Tcp => "tcp",
            Proto::Udp => "udp",
        }
    }
}

/// The ethtool flow type of a tuple: protocol and address family (`tcp4`, `udp6`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum FlowType {
    /// TCP over IPv4.
    Tcp4,
    /// UDP over IPv4.
    Udp4,
    /// TCP over IPv6.
    Tcp6,
    /// UDP over IPv6.
    Udp6,
}

impl FlowType {
    /// All flow types, in a fixed order (used to index per-type tables).
    pub const ALL: [FlowType; 4] = [FlowType::Tcp4, FlowType::Udp4, FlowType::Tcp6, FlowType::Udp6];

    /// The ethtool name (`tcp4`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            FlowType::Tcp4 => "tcp4",
            FlowType::Udp4 => "udp4",
            FlowType::Tcp6 => "tcp6",
            FlowType::Udp6 => "udp6",
        }
    }

    /// Parses an ethtool flow-type name.
    pub fn parse(name: &str) -> Option<FlowType> {
        FlowType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Index into [`FlowType::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The protocol.
    pub const fn proto(self) -> Proto {
        match self {
            FlowType::Tcp4 | FlowType::Tcp6 => Proto::Tcp,
            FlowType::Udp4 | FlowType::Udp6 => Proto::Udp,
        }
    }

    /// True for IPv6 types.
    pub const fn is_ipv6(self) -> bool {
        matches!(self, FlowType::Tcp6 | FlowType::Udp6)
    }
}

/// The 5-tuple of a flow as the receiving host sees it: `src` is the remote sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FlowKey {
    src: IpAddr,
    dst: IpAddr,
    sport: u16,
    dport: u16,
    proto: Proto,
}

/// Why a tuple is not a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKeyError {
    /// Source and destination are of different address families.
    MixedFamilies,
}

impl fmt::Display for FlowKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlowKeyError::MixedFamilies => f.write_str("source and destination must both be IPv4 or both be IPv6"),
        }
    }
}

impl FlowKey {
    /// A flow from `src:sport` to `dst:dport`; both addresses must be of one family.
    pub fn new(src: IpAddr, dst: IpAddr, sport: u16, dport: u16, proto: Proto) -> Result<FlowKey, FlowKeyError> {
        if src.is_ipv4() != dst.is_ipv4() {
            return Err(FlowKeyError::MixedFamilies);
        }
        Ok(FlowKey {
            src,
            dst,
            sport,
            dport,
            proto,
        })
    }

    /// Sender's address.
    pub const fn src(&self) -> IpAddr {
        self.src
    }
    /// Receiver's address.
    pub const fn dst(&self) -> IpAddr {
        self.dst
    }
    /// Sender's port.
    pub const fn sport(&self) -> u16 {
        self.sport
    }
    /// Receiver's port.
    pub const fn dport(&self) -> u16 {
        self.dport
    }
    /// Transport protocol.
    pub const fn proto(&self) -> Proto {
        self.proto
    }

    /// The ethtool flow type.
    pub const fn flow_type(&self) -> FlowType {
        match (self.proto, self.src.is_ipv4()) {
            (Proto::Tcp, true) => FlowType::Tcp4,
            (Proto::Udp, true) => FlowType::Udp4,
            (Proto::Tcp, false) => FlowType::Tcp6,
            (Proto::Udp, false) => FlowType::Udp6,
        }
    }
}

impl fmt::Display for FlowKey {
    /// `tcp 10.0.0.1:5000 -> 10.0.0.2:80`, with IPv6 addresses in brackets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ep = |f: &mut fmt::Formatter<'_>, ip: IpAddr, port: u16| match ip {
            IpAddr::V4(a) => write!(f, "{a}:{port}"),
            IpAddr::V6(a) => write!(f, "[{a}]:{port}"),
        };
        write!(f, "{} ", self.proto.name())?;
        ep(f, self.src, self.sport)?;
        f.write_str(" -> ")?;
        ep(f, self.dst, self.dport)
    }
}

/// Appends the network-order bytes of `ip` to `buf` at `len`, returning the new length.
pub(crate) fn put_ip(buf: &mut [u8; 36], len: usize, ip: IpAddr) -> usize {
    match ip {
        IpAddr::V4(a) => {
            buf[len..len + 4].copy_from_slice(&a.octets());
            len + 4
        }
        IpAddr::V6(a) => {
            buf[len..len + 16].copy_from_slice(&a.octets());
            len + 16
        }
    }
}
