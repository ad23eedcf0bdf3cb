//! The host's configuration: what a scenario sets before the run and the console can change
//! during it. Every field has a range; [`HostConfig::validate`] names the first bad field.

use alloc::string::String;

use crate::costs::Costs;
use crate::cpuset::MAX_CPUS;
use crate::driver::Driver;
use crate::error::ConfigError;
use crate::kernel::Kernel;
use crate::names::named_enum;
use crate::rps::{MAX_FLOW_CNT, MAX_FLOW_ENTRIES, MAX_SOCK_FLOW_ENTRIES};

/// Most RX (and TX) queues a NIC may have in the sandbox.
pub const MAX_QUEUES: u16 = 512;
/// Most flows in one host.
pub const MAX_FLOWS: u32 = 1_000_000;
/// Most threads in one host.
pub const MAX_THREADS: u32 = 65_536;

named_enum! {
    /// When a reading thread records its CPU in `rps_sock_flow_table`.
    RecordPolicy {
        /// Every read (`sock_rps_record_flow`, the kernel's rule).
        Always = "always",
        /// Seed 002's proposal: not when the recorded CPU is already in the reader's allowed CPUs.
        Cpuset = "cpuset",
    }
}

named_enum! {
    /// How packets are advanced.
    Mode {
        /// One packet at a time (animation, small scenarios).
        Packet = "packet",
        /// Runs of identical packets applied at once; the same counters as `packet`.
        Aggregate = "aggregate",
    }
}

named_enum! {
    /// The XPS maps a host starts with (`xps.map`).
    XpsMap {
        /// No maps: every pick falls back to `skb_tx_hash`.
        None = "none",
        /// Driver default from IRQ affinity: CPU q uses TX queue q for q < tx_queues; other CPUs
        /// have no map (ixgbe before seed 003's patch, for every CPU beyond the queue count).
        Irq = "irq",
        /// Every CPU mapped: CPU c uses TX queue c % tx_queues (`netif_set_xps_queue` for all).
        All = "all",
    }
}

named_enum! {
    /// How an idle CPU waits (`host.idle`), which decides whether waking it costs an IPI.
    /// `call_function_single_prep_ipi` (kernel/sched/core.c) sends none to a CPU whose idle
    /// task has `TIF_POLLING_NRFLAG` set (`set_nr_if_polling`): it watches its flags and sees
    /// the wake-up by itself.
    Idle {
        /// MWAIT or the poll state keep the polling flag (`intel_idle` on bare metal, the
        /// cpuidle poll state, KVM's haltpoll): no IPI. The kernel's behaviour on the seeds'
        /// hosts, and the default.
        Poll = "poll",
        /// HLT without polling (`idle=halt`, most VMs without haltpoll): every wake-up of an
        /// idle CPU is an IPI.
        Halt = "halt",
    }
}

/// Most microseconds of interrupt moderation (`ethtool -C DEV rx-usecs`): ice's ITR maximum
/// (`ICE_ITR_MAX`, 8160 us, drivers/net/ethernet/intel/ice/ice_txrx.h), rounded up.
pub const MAX_RX_USECS: u32 = 10_000;
/// The most `rx-frames` the sandbox takes (mlx5's `cq_max_count` is a 16-bit field).
pub const MAX_RX_FRAMES: u32 = 65_535;

/// The host's `CONFIG_HZ`: a jiffy is 4 ms (these testbeds' kernels, and Ubuntu's and
/// Debian's; RHEL builds 1000). `net_rx_action`'s time limit is counted in jiffies.
pub const HZ: u32 = 250;

/// `SK_RMEM_MAX` (include/net/sock.h): the default `rmem_default` and `rmem_max`, 212992
/// bytes (`_SK_MEM_OVERHEAD * _SK_MEM_PACKETS`).
pub const SK_RMEM_MAX: u32 = 212_992;

/// `SOCK_MIN_RCVBUF` on x86-64 (`2048 + sizeof(struct sk_buff)`, rounded as the kernel
/// does): the least `sk_rcvbuf`, and the least `rmem_default`/`rmem_max` the sysctl takes
/// (measured on 6.18: 2303 is refused, 2304 taken).
pub const SOCK_MIN_RCVBUF: u32 = 2304;

/// Everything that shapes the host, with its defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostConfig {
    /// Kernel generation of the RPS/RFS rules.
    pub kernel: Kernel,
    /// Number of CPUs (1..=1024).
    pub cpus: u16,
    /// NUMA nodes; CPUs are split into equal contiguous blocks (1..=cpus).
    pub numa_nodes: u16,
    /// RX queues (1..=512); queue `q`'s IRQ is affined to CPU `q % cpus`.
    pub rx_queues: u16,
    /// TX queues (1..=512).
    pub tx_queues: u16,
    /// Descriptors per RX ring (`ethtool -G DEV rx N`; `None`: the driver's,
    /// [`Driver::rx_ring`]): what a queue holds while its interrupt waits out its moderation
    /// (sim/napi.rs, [`HostConfig::ring_size`]).
    pub ring_size: Option<u32>,
    /// RSS indirection table entries (power of two, 8..=2048).
    pub reta_size: u32,
    /// NIC driver model.
    pub driver: Driver,
    /// `ethtool -K DEV ntuple on` (aRFS needs it).
    pub ntuple: bool,
    /// `rps_cpus` of every RX queue, as a CPU list (`""` = RPS off).
    pub rps_cpus: String,
    /// `rps_flow_cnt` of every RX queue (0 = RFS off; rounded up to a power of two).
    pub flow_cnt: u32,
    /// `net.core.rps_sock_flow_entries` (0 = RFS off; rounded up to a power of two).
    pub sock_flow_entries: u32,
    /// When readers record their CPU.
    pub record: RecordPolicy,
    /// `net.core.netdev_max_backlog` (default 1000, net/core/hotdata.c).
    pub netdev_max_backlog: u32,
    /// `net.core.flow_limit_cpu_bitmap` as a CPU list: CPUs whose enqueues apply the flow
    /// limit (`""` = none, the kernel's default).
    pub flow_limit_cpus: String,
    /// `net.core.flow_limit_table_len` (default 4096, a power of two): buckets of a table
    /// allocated from now on.
    pub flow_limit_table_len: u32,
    /// `net.core.netdev_budget` (default 300): packets one `net_rx_action` run may poll
    /// before it stops and counts `time_squeeze` (net/core/dev.c).
    pub netdev_budget: u32,
    /// `net.core.netdev_budget_usecs` (default `2 * USEC_PER_SEC / HZ`: 8000 at the testbeds'
    /// HZ = 250, [`HZ`]): the time one run may take, in whole jiffies.
    pub netdev_budget_usecs: u32,
    /// `net.core.dev_weight` (default 64): packets one NAPI poll may take (`napi_poll`), and
    /// the backlog's weight (`dev_rx_weight`).
    pub dev_weight: u32,
    /// `net.core.rmem_default` (default 212992, `SK_RMEM_MAX`): a new socket's `sk_rcvbuf`.
    pub rmem_default: u32,
    /// `net.core.rmem_max` (default 212992): the most `SO_RCVBUF` may ask (the socket gets
    /// twice what it asks, net/core/sock.c `__sock_set_rcvbuf`).
    pub rmem_max: u32,
    /// Hardware filter capacity shared by ntuple rules and aRFS.
    pub max_hw_filters: u32,
    /// Interrupt moderation (`ethtool -C DEV rx-usecs`): the least time between two
    /// interrupts of a queue, so the packets of that interval reach the stack in one NAPI poll
    /// (0..=10000 us; `None`: the driver's default, [`Driver::default_rx_usecs`]).
    pub rx_usecs: Option<u32>,
    /// `ethtool -C DEV rx-frames N` (0..=65535; `None`: the driver's default,
    /// [`Driver::default_rx_frames`]): the packets after which the vector fires before its
    /// interval ends, on the drivers that count them.
    pub rx_frames: Option<u32>,
    /// How an idle CPU waits: whether waking it costs an IPI.
    pub idle: Idle,
    /// Simulated time advanced per engine step, in ns (10 µs..=1 s).
    pub tick_ns: u64,
    /// Initial XPS maps.
    pub xps_map: XpsMap,
    /// ixgbe ATR: one transmitted TCP packet in this many programs a filter (1..=1000;
    /// `atr_sample_rate`, default 20, ixgbe_main.c).
    pub atr_sample_rate: u32,
    /// Which kernel's tc block counters decide the software bypass (`tc.counting`).
    pub tc_counting: crate::tc::Counting,
    /// Packet or aggregate mode.
    pub mode: Mode,
    /// Seed of the run's generator.
    pub seed: u64,
    /// The cost table (ns per stage).
    pub costs: Costs,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            kernel: Kernel::V6_18,
            cpus: 4,
            numa_nodes: 1,
            rx_queues: 4,
            tx_queues: 4,
            ring_size: None,
            reta_size: 128,
            driver: Driver::Generic,
            ntuple: false,
            rps_cpus: String::new(),
            flow_cnt: 0,
            sock_flow_entries: 0,
            record: RecordPolicy::Always,
            netdev_max_backlog: 1000,
            flow_limit_cpus: String::new(),
            flow_limit_table_len: crate::flow_limit::DEFAULT_TABLE_LEN,
            netdev_budget: 300,
            netdev_budget_usecs: 2 * 1_000_000 / HZ,
            dev_weight: 64,
            rmem_default: SK_RMEM_MAX,
            rmem_max: SK_RMEM_MAX,
            max_hw_filters: 8192,
            rx_usecs: None,
            rx_frames: None,
            idle: Idle::Poll,
            tick_ns: 1_000_000,
            xps_map: XpsMap::Irq,
            atr_sample_rate: 20,
            tc_counting: crate::tc::Counting::Usesw,
            mode: Mode::Aggregate,
            seed: 1,
            costs: Costs::default(),
        }
    }
}

fn check(ok: bool, field: &str, accepted: &str) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError {
            field: field.into(),
            accepted: accepted.into(),
        })
    }
}

impl HostConfig {
    /// Checks every range; the first bad field is named.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check((1..=MAX_CPUS).contains(&self.cpus), "host.cpus", "1..=1024")?;
        check(
            (1..=self.cpus).contains(&self.numa_nodes) && self.cpus % self.numa_nodes == 0,
            "host.numa_nodes",
            "1..=cpus, dividing cpus",
        )?;
        check((1..=MAX_QUEUES).contains(&self.rx_queues), "nic.rx_queues", "1..=512")?;
        check((1..=MAX_QUEUES).contains(&self.tx_queues), "nic.tx_queues", "1..=512")?;
        check(
            self.ring_size.is_none_or(|n| self.driver.set_rx_ring(n) == Ok(n)),
            "nic.ring_size",
            "a ring the driver takes as it is (ethtool -g's maximum at most; see Driver::set_rx_ring)",
        )?;
        check(
            self.reta_size.is_power_of_two() && (8..=2048).contains(&self.reta_size),
            "nic.reta_size",
            "a power of two in 8..=2048",
        )?;
        check(
            self.flow_cnt <= MAX_FLOW_CNT
                && u64::from(self.flow_cnt.next_power_of_two()) * u64::from(self.rx_queues) <= MAX_FLOW_ENTRIES,
            "rfs.flow_cnt",
            "0..=1048576, and at most 4194304 entries over all RX queues (the sandbox's memory)",
        )?;
        check(
            self.sock_flow_entries <= MAX_SOCK_FLOW_ENTRIES,
            "rfs.sock_flow_entries",
            "0..=4194304",
        )?;
        check(
            (1..=1_000_000).contains(&self.netdev_max_backlog),
            "net.netdev_max_backlog",
            "1..=1000000",
        )?;
        // proc_dointvec takes any int for netdev_budget (a negative one stops every run after
        // its first poll, as 0 does); the sandbox takes 0..=INT_MAX.
        check(
            self.netdev_budget <= i32::MAX as u32,
            "net.netdev_budget",
            "0..=2147483647",
        )?;
        check(
            self.netdev_budget_usecs <= i32::MAX as u32,
            "net.netdev_budget_usecs",
            "0..=2147483647 (proc_dointvec_minmax, extra1 = 0)",
        )?;
        check(
            (1..=i32::MAX as u32).contains(&self.dev_weight),
            "net.dev_weight",
            "1..=2147483647 (proc_do_dev_weight, extra1 = 1)",
        )?;
        for (v, name) in [(self.rmem_default, "net.rmem_default"), (self.rmem_max, "net.rmem_max")] {
            check(
                (SOCK_MIN_RCVBUF..=i32::MAX as u32).contains(&v),
                name,
                "2304..=2147483647 (bytes; SOCK_MIN_RCVBUF is the least)",
            )?;
        }
        check(self.max_hw_filters <= 1_000_000, "nic.max_hw_filters", "0..=1000000")?;
        check(
            self.rx_usecs.is_none_or(|u| u <= MAX_RX_USECS),
            "nic.rx_usecs",
            "0..=10000 (microseconds)",
        )?;
        check(
            self.rx_frames
                .is_none_or(|f| f <= MAX_RX_FRAMES && self.driver.default_rx_frames().is_some()),
            "nic.rx_frames",
            "0..=65535, on a driver that counts frames (mlx5, generic)",
        )?;
        check(
            (10_000..=1_000_000_000).contains(&self.tick_ns),
            "sim.tick_ns",
            "10000..=1000000000",
        )?;
        check(
            (1..=1000).contains(&self.atr_sample_rate),
            "xps.atr_sample_rate",
            "1..=1000",
        )?;
        check(
            self.flow_limit_table_len.is_power_of_two()
                && self.flow_limit_table_len <= crate::flow_limit::MAX_TABLE_LEN,
            "net.flow_limit_table_len",
            "a power of two, 1..=1048576",
        )?;
        if !self.flow_limit_cpus.is_empty() {
            let set = crate::cpuset::CpuSet::parse_list(&self.flow_limit_cpus).map_err(|e| ConfigError {
                field: "net.flow_limit_cpus".into(),
                accepted: e.0,
            })?;
            check(set.end() <= self.cpus, "net.flow_limit_cpus", "CPUs of this host")?;
        }
        if !self.rps_cpus.is_empty() {
            let set = crate::cpuset::CpuSet::parse_list(&self.rps_cpus).map_err(|e| ConfigError {
                field: "rps.cpus".into(),
                accepted: e.0,
            })?;
            check(set.end() <= self.cpus, "rps.cpus", "CPUs of this host")?;
        }
        self.costs.validate()
    }

    /// The interrupt moderation in force: the configured `rx-usecs`, else the driver's.
    pub fn rx_usecs(&self) -> u32 {
        self.rx_usecs.unwrap_or(self.driver.default_rx_usecs())
    }

    /// The `rx-frames` in force: the configured count, else the driver's; 0 (none) on a
    /// driver that does not count frames.
    pub fn rx_frames(&self) -> u32 {
        self.driver
            .default_rx_frames()
            .map_or(0, |d| self.rx_frames.unwrap_or(d))
    }

    /// How long a queue's vector waits between interrupts when `per_tick` packets a tick
    /// come: its `rx-usecs`, cut short once `rx-frames` packets have come (whichever comes
    /// first: mlx5's CQ moderation `cq_period`/`cq_max_count`, virtio's `max_usecs`/
    /// `max_packets`). With `rx-usecs` 0 every packet interrupts, whatever `rx-frames` says
    /// (a simplification: a frame count alone is not modelled as a wait).
    pub fn moderation_ns(&self, per_tick: u64) -> u64 {
        let usecs = u64::from(self.rx_usecs()) * 1000;
        let frames = u64::from(self.rx_frames());
        if usecs == 0 || frames == 0 || per_tick == 0 {
            return usecs;
        }
        usecs.min(frames * self.tick_ns / per_tick)
    }

    /// Descriptors per RX ring in force: the configured size, else the driver's.
    pub fn ring_size(&self) -> u32 {
        self.ring_size.unwrap_or(self.driver.rx_ring().0)
    }

    /// NUMA node of `cpu`.
    pub fn node_of(&self, cpu: u16) -> u16 {
        cpu / (self.cpus / self.numa_nodes)
    }
}
