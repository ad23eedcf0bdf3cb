//! Each section's defaults: the engine's own ([`HostConfig::default`]), so a scenario that
//! leaves a field out runs what the engine would.

use steerlab_engine::xdp::Strategy;
use steerlab_engine::{HostConfig, Kernel};

use super::schema::{
    FlowGroup, HostSection, Named, NetSection, NicSection, RfsSection, SimSection, TcSection, ThreadGroup, TxGroup,
    XdpSection, XpsSection,
};

/// The engine's defaults, which every section's default follows.
fn d() -> HostConfig {
    HostConfig::default()
}

/// The kernel a scenario runs when it names none: the engine's default.
pub(super) fn kernel() -> Named<Kernel> {
    Named(d().kernel)
}

impl Default for HostSection {
    fn default() -> Self {
        HostSection {
            cpus: d().cpus,
            numa_nodes: d().numa_nodes,
            idle: Named(d().idle),
        }
    }
}
impl Default for NicSection {
    fn default() -> Self {
        let c = d();
        NicSection {
            driver: Named(c.driver),
            rx_queues: c.rx_queues,
            tx_queues: c.tx_queues,
            ring_size: c.ring_size,
            reta_size: c.reta_size,
            ntuple: c.ntuple,
            max_hw_filters: c.max_hw_filters,
            rx_usecs: c.rx_usecs,
            rx_frames: c.rx_frames,
            rss_key: String::new(),
            indir: Vec::new(),
        }
    }
}
impl Default for RfsSection {
    fn default() -> Self {
        RfsSection {
            flow_cnt: d().flow_cnt,
            sock_flow_entries: d().sock_flow_entries,
            record: Named(d().record),
        }
    }
}
impl Default for NetSection {
    fn default() -> Self {
        NetSection {
            netdev_max_backlog: d().netdev_max_backlog,
            flow_limit_cpus: d().flow_limit_cpus,
            flow_limit_table_len: d().flow_limit_table_len,
            netdev_budget: d().netdev_budget,
            netdev_budget_usecs: d().netdev_budget_usecs,
            dev_weight: d().dev_weight,
            rmem_default: d().rmem_default,
            rmem_max: d().rmem_max,
        }
    }
}
impl Default for XpsSection {
    fn default() -> Self {
        XpsSection {
            map: Named(d().xps_map),
            atr_sample_rate: d().atr_sample_rate,
        }
    }
}
impl Default for XdpSection {
    fn default() -> Self {
        XdpSection {
            program: String::new(),
            kfuncs: None,
            strategy: Named(Strategy::Call),
            action: None,
        }
    }
}
impl Default for SimSection {
    fn default() -> Self {
        SimSection {
            tick_ns: d().tick_ns,
            mode: Named(d().mode),
            seed: d().seed,
            duration_ms: 1000,
        }
    }
}
impl Default for ThreadGroup {
    fn default() -> Self {
        ThreadGroup {
            count: 1,
            cpus: "0".into(),
            pin: false,
            cpuset: String::new(),
            migrate_every_ms: 0,
        }
    }
}
impl Default for FlowGroup {
    fn default() -> Self {
        FlowGroup {
            count: 1,
            proto: "tcp".into(),
            src: "10.0.0.1".into(),
            dst: "192.168.0.1".into(),
            sport: 40000,
            dport: 80,
            random: false,
            rate_pps: 1000,
            bytes: 1500,
            readers_per_flow: 0,
            tx: None,
            app_ns: None,
            rcvbuf: None,
            reader_base: None,
        }
    }
}

impl Default for TcSection {
    fn default() -> Self {
        TcSection {
            counting: Named(d().tc_counting),
            insert_threads: 16,
            insert_rules: 100_000,
        }
    }
}

impl Default for TxGroup {
    fn default() -> Self {
        TxGroup {
            rate_pps: 0,
            bytes: 1,
            connected: false,
        }
    }
}

/// `evidence[i].rate`: a counter shows as its rate unless the lesson says otherwise.
pub(super) fn yes() -> bool {
    true
}
