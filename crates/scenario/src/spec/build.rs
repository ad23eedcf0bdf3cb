//! A scenario as the engine's configuration, and as a host at time 0 with its threads and flows.

use std::net::IpAddr;

use steerlab_engine::rng::Rng;
use steerlab_engine::xdp::{XdpAction, XdpProgram};
use steerlab_engine::{CpuSet, FlowKey, FlowSpec, HostConfig, Nanos, Proto, Sim, ThreadSpec, TxSpec};

use super::{err, Scenario};
use crate::ScenarioError;

impl Scenario {
    /// The engine configuration this scenario describes.
    pub fn host_config(&self) -> Result<HostConfig, ScenarioError> {
        let mut costs = steerlab_engine::costs::Costs::default();
        for (name, &v) in &self.cost {
            costs.set(name, v).map_err(|e| ScenarioError(e.to_string()))?;
        }
        Ok(HostConfig {
            kernel: self.kernel.0,
            cpus: self.host.cpus,
            numa_nodes: self.host.numa_nodes,
            rx_queues: self.nic.rx_queues,
            tx_queues: self.nic.tx_queues,
            ring_size: self.nic.ring_size,
            reta_size: self.nic.reta_size,
            driver: self.nic.driver.0,
            ntuple: self.nic.ntuple,
            rps_cpus: self.rps.cpus.clone(),
            flow_cnt: self.rfs.flow_cnt,
            sock_flow_entries: self.rfs.sock_flow_entries,
            record: self.rfs.record.0,
            netdev_max_backlog: self.net.netdev_max_backlog,
            flow_limit_cpus: self.net.flow_limit_cpus.clone(),
            flow_limit_table_len: self.net.flow_limit_table_len,
            netdev_budget: self.net.netdev_budget,
            netdev_budget_usecs: self.net.netdev_budget_usecs,
            dev_weight: self.net.dev_weight,
            rmem_default: self.net.rmem_default,
            rmem_max: self.net.rmem_max,
            max_hw_filters: self.nic.max_hw_filters,
            rx_usecs: self.nic.rx_usecs,
            rx_frames: self.nic.rx_frames,
            idle: self.host.idle.0,
            tick_ns: self.sim.tick_ns,
            xps_map: self.xps.map.0,
            atr_sample_rate: self.xps.atr_sample_rate,
            tc_counting: self.tc.counting.0,
            mode: self.sim.mode.0,
            seed: self.sim.seed,
            costs,
        })
    }

    /// A host with the scenario's threads and flows, at time 0.
    pub fn build(&self) -> Result<Sim, ScenarioError> {
        let cfg = self.host_config()?;
        let ncpus = cfg.cpus;
        let mut rng = Rng::new(cfg.seed).fork("workload");
        let mut sim = Sim::new(cfg).map_err(|e| ScenarioError(e.to_string()))?;
        if let Some(key) = self.rss_key()? {
            sim.set_rss_key(&key).map_err(|e| err("nic.rss_key", e))?;
        }
        if let Some(reta) = self.indir()? {
            sim.set_reta(reta).map_err(|e| err("nic.indir", e))?;
        }
        for (i, g) in self.threads.iter().enumerate() {
            let cpus: Vec<u16> = CpuSet::parse_list(&g.cpus)
                .map_err(|e| err(&format!("threads[{i}].cpus"), e))?
                .iter()
                .collect();
            for n in 0..g.count {
                let cpu = cpus[n as usize % cpus.len()];
                let allowed = if g.pin {
                    let mut s = CpuSet::EMPTY;
                    s.insert(cpu);
                    s
                } else if g.cpuset.is_empty() {
                    CpuSet::range(0, ncpus)
                } else {
                    CpuSet::parse_list(&g.cpuset).map_err(|e| err(&format!("threads[{i}].cpuset"), e))?
                };
                let spec = ThreadSpec {
                    cpu,
                    allowed,
                    migrate_every: Nanos::from_ms(g.migrate_every_ms),
                };
                sim.add_thread(spec).map_err(|e| err(&format!("threads[{i}]"), e))?;
            }
        }
        sim.set_xdp(self.xdp_program()?);
        let nthreads = sim.thread_count();
        let mut flow_index = 0u32;
        for (i, g) in self.flows.iter().enumerate() {
            let p = format!("flows[{i}]");
            let proto = if g.proto == "udp" { Proto::Udp } else { Proto::Tcp };
            let base: IpAddr = g.src.parse().map_err(|_| err(&format!("{p}.src"), "not an address"))?;
            let dst: IpAddr = g.dst.parse().map_err(|_| err(&format!("{p}.dst"), "not an address"))?;
            for n in 0..g.count {
                let (src, sport) = if g.random {
                    (
                        offset(base, rng.next_u32() & 0x00ff_ffff),
                        1024 + (rng.below(64_512) as u16),
                    )
                } else {
                    (offset(base, n), g.sport.wrapping_add(n as u16))
                };
                let key = FlowKey::new(src, dst, sport, g.dport, proto).map_err(|e| err(&p, e))?;
                let k = g.readers_per_flow;
                let (k64, n64) = (u64::from(k), u64::from(n));
                let readers = match g.reader_base {
                    // Threads base.. (cycling within them).
                    Some(b) => (0..k64)
                        .map(|j| b + ((n64 * k64 + j) % u64::from((nthreads - b).max(1))) as u32)
                        .collect(),
                    None => (0..k64)
                        .map(|j| ((u64::from(flow_index) * k64 + j) % u64::from(nthreads.max(1))) as u32)
                        .collect(),
                };
                let tx = g.tx.as_ref().map(|t| TxSpec {
                    rate_pps: t.rate_pps,
                    bytes: t.bytes,
                    connected: t.connected,
                });
                let spec = FlowSpec {
                    key,
                    rate_pps: g.rate_pps,
                    bytes: g.bytes,
                    readers,
                    tx,
                };
                match sim.add_flow(spec) {
                    Ok(id) => {
                        if let Some(ns) = g.app_ns {
                            sim.set_reader_work(id, ns)
                                .map_err(|e| err(&format!("{p}.app_ns"), e))?;
                        }
                        if let Some(b) = g.rcvbuf {
                            sim.set_rcvbuf(id, b).map_err(|e| err(&format!("{p}.rcvbuf"), e))?;
                        }
                    }
                    // Random tuples may repeat: draw again is not possible without changing
                    // the sequence, so a duplicate is skipped (and counted by the flow total).
                    Err(steerlab_engine::SimError::FlowExists(_)) if g.random => {}
                    Err(e) => return Err(err(&p, e)),
                }
                flow_index += 1;
            }
        }
        Ok(sim)
    }

    /// `nic.rss_key` as bytes (`None`: the default key).
    pub fn rss_key(&self) -> Result<Option<Vec<u8>>, ScenarioError> {
        if self.nic.rss_key.is_empty() {
            return Ok(None);
        }
        match steerlab_engine::rss::parse_key(&self.nic.rss_key) {
            Some(k) if k.len() == 40 => Ok(Some(k)),
            _ => Err(err(
                "nic.rss_key",
                "40 hex bytes separated by colons, as ethtool -x prints them (6d:5a:56:…)",
            )),
        }
    }

    /// `nic.indir` as a table (`None`: the default fill).
    pub fn indir(&self) -> Result<Option<steerlab_engine::rss::Reta>, ScenarioError> {
        if self.nic.indir.is_empty() {
            return Ok(None);
        }
        if self.nic.indir.len() != self.nic.reta_size as usize {
            return Err(err(
                "nic.indir",
                format!(
                    "{} entries; nic.reta_size is {}",
                    self.nic.indir.len(),
                    self.nic.reta_size
                ),
            ));
        }
        steerlab_engine::rss::Reta::from_entries(&self.nic.indir, u32::from(self.nic.rx_queues))
            .map(Some)
            .map_err(|e| err("nic.indir", e))
    }

    /// The XDP program the `xdp` section describes.
    pub fn xdp_program(&self) -> Result<Option<XdpProgram>, ScenarioError> {
        let x = &self.xdp;
        let strategy = x.strategy.0;
        let mut prog = match (x.program.as_str(), x.kfuncs) {
            ("", None) => return Ok(None),
            ("", Some(k)) => XdpProgram::with_kfuncs("custom", k, XdpAction::Drop, strategy),
            (name, k) => XdpProgram::named(name, strategy).and_then(|p| match k {
                Some(k) => XdpProgram::with_kfuncs(&p.name, k, p.action, strategy),
                None => Ok(p),
            }),
        }
        .map_err(|e| err("xdp", e))?;
        if let Some(a) = x.action {
            prog.action = a.0;
        }
        Ok(Some(prog))
    }
}

/// `base + n` for addresses.
fn offset(base: IpAddr, n: u32) -> IpAddr {
    match base {
        IpAddr::V4(a) => IpAddr::V4(u32::from(a).wrapping_add(n).into()),
        IpAddr::V6(a) => IpAddr::V6(u128::from(a).wrapping_add(u128::from(n)).into()),
    }
}
