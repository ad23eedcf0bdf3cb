//! The NIC driver models: which aRFS (or ATR) behaviour and which offloads the NIC has.

use crate::names::named_enum;

named_enum! {
    /// The NIC driver model: which aRFS (or ATR) behaviour the NIC has.
    Driver {
        /// No aRFS: `ndo_rx_flow_steer` absent.
        Generic = "generic",
        /// ice before "net: ice: Perform accurate aRFS flow match": entries found by flow_id only.
        IceHashMatch = "ice-hash-match",
        /// ice with the fix: flow_id and the full tuple (`ice_arfs_cmp`).
        Ice = "ice",
        /// mlx5: full-tuple rules, one `arfs_lock` for every update, expiry only from its work.
        Mlx5 = "mlx5",
        /// ixgbe: no aRFS; Flow Director ATR samples transmitted packets instead.
        Ixgbe = "ixgbe",
    }
}

impl Driver {
    /// The name the model's real driver registers (`ethtool -i`'s `driver:`, the module's
    /// name); the sandbox's generic NIC has none of its own and says `steerlab`.
    pub const fn module(self) -> &'static str {
        match self {
            Driver::Ice | Driver::IceHashMatch => "ice",
            Driver::Mlx5 => "mlx5_core",
            Driver::Ixgbe => "ixgbe",
            Driver::Generic => "steerlab",
        }
    }

    /// The model of the driver `module` (`ethtool -i`'s name): ice with its aRFS fix, as
    /// current kernels have it.
    pub fn of_module(module: &str) -> Option<Driver> {
        Driver::ALL
            .iter()
            .copied()
            .filter(|&d| d != Driver::IceHashMatch)
            .find(|d| d.module() == module)
    }

    /// The driver's interrupt moderation at load (`ethtool -c`'s `rx-usecs`). Simplification:
    /// ice's, ixgbe's and mlx5's adaptive moderation (DIM, dynamic ITR) is taken at the interval
    /// it starts from.
    /// - ice: `ICE_DFLT_RX_ITR` = `ICE_ITR_20K`, 50 us (ice_txrx.h);
    /// - ixgbe: dynamic ITR starting at `IXGBE_20K_ITR`, 50 us (ixgbe.h, ixgbe_main.c);
    /// - mlx5: `MLX5E_PARAMS_DEFAULT_RX_CQ_MODERATION_USEC_FROM_CQE`, 3 us, on devices that
    ///   start the period from the CQE (en/params.c);
    /// - the sandbox's generic NIC: none, every packet interrupts (virtio_net's default).
    pub const fn default_rx_usecs(self) -> u32 {
        match self {
            Driver::Ice | Driver::IceHashMatch | Driver::Ixgbe => 50,
            Driver::Mlx5 => 3,
            Driver::Generic => 0,
        }
    }

    /// The driver's `rx-frames` at load (`ethtool -c`), or `None` where the driver does not
    /// take the parameter (not in its `supported_coalesce_params`: ice, ixgbe). mlx5 starts
    /// at `MLX5E_PARAMS_DEFAULT_RX_CQ_MODERATION_PKTS`, 32 completions (en/params.c);
    /// virtio_net's notification coalescing (`VIRTIO_NET_F_NOTF_COAL`) at 0, none.
    pub const fn default_rx_frames(self) -> Option<u32> {
        match self {
            Driver::Mlx5 => Some(32),
            Driver::Generic => Some(0),
            Driver::Ice | Driver::IceHashMatch | Driver::Ixgbe => None,
        }
    }

    /// The RX ring's descriptors at load and the most the driver takes (`ethtool -g`'s
    /// "Current hardware settings" and "Pre-set maximums"; TX rings are the same size):
    /// - ice: `ICE_DFLT_NUM_RX_DESC` 2048, `ICE_MAX_NUM_DESC_E810` 8160 (ice.h);
    /// - ixgbe: `IXGBE_DEFAULT_RXD` 512, `IXGBE_MAX_RXD` 4096 (ixgbe.h);
    /// - mlx5: `MLX5E_PARAMS_DEFAULT_LOG_RQ_SIZE` 2^10, `MLX5E_PARAMS_MAXIMUM_LOG_RQ_SIZE`
    ///   2^13 (en.h);
    /// - the generic NIC as virtio_net under QEMU: the device's `rx_queue_size`, 256 by
    ///   default, at most `VIRTQUEUE_MAX_SIZE` 1024.
    pub const fn rx_ring(self) -> (u32, u32) {
        match self {
            Driver::Ice | Driver::IceHashMatch => (2048, 8160),
            Driver::Ixgbe => (512, 4096),
            Driver::Mlx5 => (1024, 8192),
            Driver::Generic => (256, 1024),
        }
    }

    /// The ring `ethtool -G DEV rx N` gives, as the driver rounds it, or why it refuses.
    /// The ethtool core first refuses more than the maximum (`ethnl_set_rings`,
    /// net/ethtool/rings.c: "requested ring size exceeds maximum"); then
    /// - ice (`ice_set_ringparam`): at least `ICE_MIN_NUM_DESC` 64, rounded up to
    ///   `ICE_REQ_DESC_MULTIPLE` 32;
    /// - ixgbe (`ixgbe_set_ringparam`): clamped to `IXGBE_MIN_RXD` 64, aligned up to
    ///   `IXGBE_REQ_RX_DESCRIPTOR_MULTIPLE` 8;
    /// - mlx5 (`mlx5e_ethtool_set_ringparam`): at least 2^`MLX5E_PARAMS_MINIMUM_LOG_RQ_SIZE`
    ///   (64), rounded up to a power of two (`order_base_2`);
    /// - virtio_net (`virtnet_set_ringparam`, a split virtqueue): a power of two
    ///   (`vring_alloc_queue_split`); the sandbox takes 64 at least.
    pub fn set_rx_ring(self, n: u32) -> Result<u32, &'static str> {
        let max = self.rx_ring().1;
        if n > max {
            return Err("requested ring size exceeds maximum");
        }
        let at_least_64 = |n: u32| if n < 64 { Err("Invalid argument") } else { Ok(n) };
        match self {
            Driver::Ice | Driver::IceHashMatch => at_least_64(n).map(|n| n.next_multiple_of(32).min(max)),
            Driver::Ixgbe => Ok(n.max(64).next_multiple_of(8)),
            Driver::Mlx5 => at_least_64(n).map(u32::next_power_of_two),
            Driver::Generic if n.is_power_of_two() => at_least_64(n),
            Driver::Generic => Err("Invalid argument"),
        }
    }

    /// The `ethtool -S` counter that counts the packets its full RX rings dropped, as the
    /// driver names it: mlx5 `rx_out_of_buffer` (en_stats.c, the queue counter of a ring
    /// without descriptors); ixgbe `rx_missed_errors` (ixgbe_ethtool.c: the packet buffer's
    /// missed count, where a full ring ends when the queue does not drop on its own); ice and
    /// the generic NIC `rx_dropped` (the netdev's count).
    pub const fn ring_drop_counter(self) -> &'static str {
        match self {
            Driver::Mlx5 => "rx_out_of_buffer",
            Driver::Ixgbe => "rx_missed_errors",
            Driver::Ice | Driver::IceHashMatch | Driver::Generic => "rx_dropped",
        }
    }

    /// Whether the driver's NAPI poll checks that it still runs on its vector's CPU and, if
    /// not, completes so the next interrupt lands on the new one: mlx5 does
    /// (en_txrx.c `mlx5e_napi_poll`: `mlx5e_channel_no_affinity_change`, `ch_stats->aff_change`);
    /// ice (`ice_napi_poll`), ixgbe (`ixgbe_poll`) and virtio_net (`virtnet_poll`) return their
    /// budget and keep polling where they are.
    pub const fn polls_check_affinity(self) -> bool {
        matches!(self, Driver::Mlx5)
    }

    /// Whether the NIC offloads tc flower filters (`hw-tc-offload`): ice and mlx5 do; the
    /// sandbox's generic NIC and its ixgbe model (Flow Director, no flower offload) do not.
    pub const fn tc_offload(self) -> bool {
        matches!(self, Driver::Ice | Driver::IceHashMatch | Driver::Mlx5)
    }
}
