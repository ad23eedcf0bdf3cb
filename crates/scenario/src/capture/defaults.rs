//! What a driver does when nobody set it, for what a capture leaves out (each taken default is
//! said, with its source), and which version strings are kernel releases.

use steerlab_engine::Kernel;

/// A driver's defaults that a capture may not show.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct DriverDefaults {
    /// UDP over IPv4 and IPv6 hashed on the addresses only until `rx-flow-hash udp4 sdfn`;
    /// the source.
    pub udp_addresses_only: Option<&'static str>,
    /// The indirection table's size, and the source.
    pub table_size: Option<(u32, &'static str)>,
    /// The key the driver programs, when it is fixed; the source.
    pub key: Option<(&'static [u8; 40], &'static str)>,
}

/// The key ENA devices hardwire where the key cannot be changed: Microsoft's key rearranged
/// (amzn-ec2-ena-utilities, ena-toeplitz/toeplitz_calc.py `RSS_DEFAULT_KEY`).
pub(super) const ENA_HARDWIRED_KEY: [u8; 40] = [
    0xbe, 0xac, 0x01, 0xfa, 0x6a, 0x42, 0xb7, 0x3b, 0x80, 0x30, 0xf2, 0x0c, 0x77, 0xcb, 0x2d, 0xa3, 0xae, 0x7b, 0x30,
    0xb4, 0xd0, 0xca, 0x2b, 0xcb, 0x43, 0xa3, 0x8f, 0xb0, 0x41, 0x67, 0x25, 0x3d, 0x25, 0x5b, 0x0e, 0xc2, 0x6d, 0x5a,
    0x56, 0xda,
];

/// The defaults of the driver `module` (`ethtool -i`'s `driver:`).
pub(super) fn of(module: &str) -> DriverDefaults {
    match module {
        "ixgbe" => DriverDefaults {
            udp_addresses_only: Some("ixgbe's default (IXGBE_FLAG2_RSS_FIELD_IPV4_UDP off)"),
            table_size: Some((128, "ixgbe's (82599, X540)")),
            key: None,
        },
        "igb" => DriverDefaults {
            udp_addresses_only: Some("igb's default (IGB_FLAG_RSS_FIELD_IPV4_UDP off)"),
            table_size: Some((128, "igb's")),
            key: None,
        },
        "ena" => DriverDefaults {
            udp_addresses_only: None,
            table_size: Some((128, "ENA's")),
            key: Some((&ENA_HARDWIRED_KEY, "the key ENA hardwires where it cannot be set")),
        },
        "hv_netvsc" => DriverDefaults {
            udp_addresses_only: None,
            table_size: Some((128, "hv_netvsc's")),
            key: Some((
                &steerlab_engine::toeplitz::MS_VERIFICATION_KEY,
                "hv_netvsc's key, Microsoft's (netvsc_hash_key)",
            )),
        },
        _ => DriverDefaults::default(),
    }
}

/// Whether a version string is a kernel release, as in-tree drivers report it in `ethtool -i`
/// since the core fills in `UTS_RELEASE` (`6.8.0-45-generic`, `4.18.0-305.el8.x86_64`,
/// `6.1.0`); `None` for a driver's own version (`1.5.0g`, `2.4.6`, `5.3.7`, `5.1.0-k`,
/// `4.0-2.0.0 (28 Mar 2017)`). A bare `X.Y.Z` before 6.0 could be either (out-of-tree ixgbe
/// is at 5.x): not taken.
pub(super) fn kernel_release(version: &str) -> bool {
    let v = version.trim();
    let digits_end = v.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(v.len());
    let parts: Vec<&str> = v[..digits_end].split('.').collect();
    let [major, _, _] = parts.as_slice() else {
        return false;
    };
    let rest = &v[digits_end..];
    match rest.strip_prefix(['-', '+']) {
        // In-tree drivers' own versions ended in -k (`5.1.0-k`) before the core's release.
        Some(suffix) => !suffix.is_empty() && !suffix.eq_ignore_ascii_case("k") && !suffix.starts_with("NAPI"),
        None => rest.is_empty() && major.parse::<u32>().is_ok_and(|m| m >= 6),
    }
}

/// The first kernel release in `text` (`uname -r`, `uname -a`'s third word, `/proc/version`'s
/// `Linux version X`), without the heuristics of [`kernel_release`]: these name the kernel.
pub(super) fn release_numbers(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Some((major, minor, patch))
}

/// The kernel generation whose RPS/RFS rules a release runs (kernel.rs): 6.15 changed the
/// RFS slot hash, 6.16 made a close clear the sock-table entry, 6.18 (and 6.17.8) added the
/// active-flow check.
pub(super) fn kernel_of(major: u32, minor: u32, patch: u32) -> Kernel {
    match (major, minor) {
        (0..=5, _) | (6, 0..=14) => Kernel::V6_10,
        (6, 15) => Kernel::V6_15,
        (6, 17) if patch >= 8 => Kernel::V6_18,
        (6, 16..=17) => Kernel::V6_16,
        _ => Kernel::V6_18,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_releases_are_told_from_driver_versions() {
        for (v, want) in [
            ("6.8.0-45-generic", true),
            ("4.18.0-305.12.1.el8_4.x86_64", true),
            ("6.10.2-1-ec2", true),
            ("6.1.0", true),
            ("1.5.0g", false),
            ("2.2.10g", false),
            ("2.4.6", false),
            ("5.3.7", false),
            ("5.1.0-k", false),
            ("4.0-2.0.0 (28 Mar 2017)", false),
            ("5.3.18.1005", false),
            ("1.0.0", false),
        ] {
            assert_eq!(kernel_release(v), want, "{v}");
        }
        assert_eq!(release_numbers("5.15.0-91-generic"), Some((5, 15, 0)));
        assert_eq!(kernel_of(6, 17, 8), Kernel::V6_18);
        assert_eq!(kernel_of(6, 17, 7), Kernel::V6_16);
        assert_eq!(kernel_of(6, 16, 0), Kernel::V6_16);
        assert_eq!(kernel_of(6, 15, 3), Kernel::V6_15);
        assert_eq!(kernel_of(6, 14, 9), Kernel::V6_10);
    }
}
