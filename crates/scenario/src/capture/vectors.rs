//! Interrupt vectors by name (`/proc/interrupts`' last column): which RX queue a vector serves
//! and whose it is, as each driver names them:
//!
//! | name | driver (the function that names it) | owner |
//! |---|---|---|
//! | `IF-TxRx-N`, `IF-rx-N` | ixgbe, igb, bnxt (`ixgbe_request_msix_irqs`, `igb_request_msix`) | interface |
//! | `DRV-IF-TxRx-N` | i40e, ice, iavf, idpf (`i40e_vsi_request_irq_msix`, `ice_vsi_req_irq_msix`) | interface |
//! | `hns3-BUS-TxRx-N` | hns3 (`hns3_nic_init_irq`) | bus device |
//! | `IF-Tx-Rx-N` | ena (`ena_setup_io_intr`) | interface |
//! | `IF-rxtx-N` | vmxnet3 (`vmxnet3_request_irqs`) | interface |
//! | `IF-fp-N` | bnx2x, qede (`bnx2x_req_msix_irqs`, `qede_req_msix_irqs`) | interface |
//! | `IF-N` | sfc (`efx_set_channel_names`) | interface |
//! | `mlx5_compN@pci:BUS` | mlx5 (`mlx5_irq_request`, comp vector N serves channel N) | bus device |
//! | `mana_qN@pci:BUS` | mana (`mana_gd_setup_irqs`) | bus device |
//! | `virtioD-input.N` | virtio_net (`vp_find_vqs_msix`: the virtqueue's name) | virtio device |
//! | `gve-ntfy-blkN@pci:BUS` | gve (`gve_alloc_notify_blocks`; RX queue q on block `blocks/2 + q`, `gve_rx_idx_to_ntfy`) | bus device |

/// What a vector's name says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Vector {
    /// The number in the name: the queue, or (gve) the notification block.
    pub index: u16,
    /// Whose vector it is: an interface name or a bus device (`0000:3b:00.0`, `virtio2`).
    pub owner: String,
    /// gve's notification blocks: the RX queues are the upper half.
    pub gve_block: bool,
    /// The driver the name gives away, when only one names its vectors this way.
    pub driver: Option<&'static str>,
}

/// The drivers whose vectors are `DRIVER-IF-TxRx-N`, and the prefix.
const DRIVER_PREFIXES: &[(&str, &str)] = &[
    ("i40e-", "i40e"),
    ("ice-", "ice"),
    ("iavf-", "iavf"),
    ("idpf-", "idpf"),
    ("hns3-", "hns3"),
];

/// The vector `name` describes, if it serves an RX queue.
pub(super) fn parse(name: &str) -> Option<Vector> {
    let vector = |index: u16, owner: &str, gve_block: bool, driver: Option<&'static str>| {
        Some(Vector {
            index,
            owner: owner.to_string(),
            gve_block,
            driver,
        })
    };
    if let Some((head, dev)) = name.split_once('@') {
        let dev = dev.strip_prefix("pci:").unwrap_or(dev);
        for (prefix, driver, gve) in [
            ("mlx5_comp", "mlx5_core", false),
            ("mana_q", "mana", false),
            ("gve-ntfy-blk", "gve", true),
        ] {
            if let Some(n) = head.strip_prefix(prefix).and_then(|n| n.parse().ok()) {
                return vector(n, dev, gve, Some(driver));
            }
        }
        return None;
    }
    if let Some((dev, q)) = name.rsplit_once("-input.") {
        return match q.parse() {
            Ok(q) if dev.starts_with("virtio") => vector(q, dev, false, Some("virtio_net")),
            _ => None,
        };
    }
    if let Some((head, n)) = name.rsplit_once("-ntfy-block.") {
        return vector(n.parse().ok()?, head, true, Some("gve"));
    }
    let (head, q) = name.rsplit_once('-')?;
    let q: u16 = q.parse().ok()?;
    for (tag, driver) in [
        ("-Tx-Rx", Some("ena")),
        ("-TxRx", None),
        ("-rxtx", Some("vmxnet3")),
        ("-rx", None),
        ("-fp", None),
    ] {
        if let Some(owner) = head.strip_suffix(tag) {
            let prefixed = DRIVER_PREFIXES
                .iter()
                .find_map(|(p, d)| owner.strip_prefix(p).map(|o| (o, *d)));
            return match prefixed {
                Some((o, d)) => vector(q, o, false, Some(d)),
                None => vector(q, owner, false, driver),
            };
        }
    }
    // sfc's `IF-N`: only names that look like an interface's, so that another device's
    // numbered vectors (`xhci_hcd-3`) are not taken for queues.
    let netdev = ["eth", "en", "ens", "eno", "enp", "p", "em", "bond"]
        .iter()
        .any(|p| head.starts_with(p) && head[p.len()..].starts_with(|c: char| c.is_ascii_digit() || c == 's'));
    (netdev && !head.ends_with("-tx") && !head.ends_with("-Tx") && !head.contains('-'))
        .then(|| vector(q, head, false, None))
        .flatten()
}

/// Whether a vector of `owner` is the captured interface's: named after the interface, or
/// after its bus device (`ethtool -i`'s `bus-info`, `readlink`'s last part).
pub(super) fn owned_by(owner: &str, iface: Option<&str>, device: Option<&str>) -> bool {
    iface == Some(owner) || device == Some(owner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(name: &str) -> Option<(u16, String)> {
        parse(name).map(|v| (v.index, v.owner))
    }

    #[test]
    fn every_common_driver_names_its_queue_vectors() {
        let s = |q: u16, o: &str| Some((q, o.to_string()));
        assert_eq!(q("eth0-TxRx-7"), s(7, "eth0"));
        assert_eq!(q("eth5-rx-3"), s(3, "eth5"));
        assert_eq!(q("eth5-tx-3"), None);
        assert_eq!(q("i40e-enP1s15-TxRx-2"), s(2, "enP1s15"));
        assert_eq!(q("ice-ens1f0-TxRx-0"), s(0, "ens1f0"));
        assert_eq!(q("hns3-0000:7d:00.0-TxRx-4"), s(4, "0000:7d:00.0"));
        assert_eq!(q("ens5-Tx-Rx-1"), s(1, "ens5"));
        assert_eq!(q("ens192-rxtx-0"), s(0, "ens192"));
        assert_eq!(q("eth0-fp-3"), s(3, "eth0"));
        assert_eq!(q("eth2-10"), s(10, "eth2"));
        assert_eq!(q("mlx5_comp3@pci:0000:08:00.0"), s(3, "0000:08:00.0"));
        assert_eq!(q("virtio5-input.2"), s(2, "virtio5"));
        assert_eq!(q("virtio5-output.2"), None);
        assert_eq!(q("gve-ntfy-blk1@pci:0000:00:04.0"), s(1, "0000:00:04.0"));
        assert_eq!(q("gve-mgmnt@pci:0000:00:04.0"), None);
        assert_eq!(q("ena-mgmnt@pci:0000:00:05.0"), None);
        assert_eq!(q("i40e-0001:00:0f.0:misc"), None);
        assert_eq!(q("nvme0q1"), None);
        assert_eq!(q("xhci_hcd-3"), None);
        assert!(owned_by("0000:3b:00.0", Some("ens1f0"), Some("0000:3b:00.0")));
        assert!(!owned_by("0000:3b:00.1", Some("ens1f0"), Some("0000:3b:00.0")));
    }
}
