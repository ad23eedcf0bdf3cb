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

    /// Whether the NIC offloads tc flower filters (`hw-tc-offload`): ice and mlx5 do; the
    /// sandbox's generic NIC and its ixgbe model (Flow Director, no flower offload) do not.
    pub const fn tc_offload(self) -> bool {
        matches!(self, Driver::Ice | Driver::IceHashMatch | Driver::Mlx5)
    }
}
