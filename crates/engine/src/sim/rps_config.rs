//! RPS and RFS settings: `rps_cpus`, `rps_flow_cnt`, `rps_sock_flow_entries`, the RPS flow
//! limit (`flow_limit_cpu_bitmap`, `flow_limit_table_len`), the kernel generation and the record
//! policy; each setter's check on its own, for [`Sim::check_setting`].

use crate::config::RecordPolicy;
use crate::cpuset::CpuSet;
use crate::flow_limit::FlowLimit;
use crate::kernel::Kernel;
use crate::rps::{DevFlowTable, SockFlowTable};
use alloc::boxed::Box;

use super::{range_err, Sim, SimError};

impl Sim {
    /// The flow table of RX queue `q` (`rps_flow_cnt` entries), if RFS is on there.
    pub fn dev_flow_table(&self, q: u16) -> Option<&DevFlowTable> {
        self.queues.get(usize::from(q))?.table.as_ref()
    }

    /// The global `rps_sock_flow_table`, if RFS is on.
    pub fn sock_flow_table(&self) -> Option<&SockFlowTable> {
        self.sock.as_ref()
    }

    /// `echo N > /sys/class/net/DEV/queues/rx-Q/rps_flow_cnt` (queue `None` = every queue).
    pub fn set_flow_cnt(&mut self, queue: Option<u16>, count: u32) -> Result<(), SimError> {
        self.check_flow_cnt(queue, count)?;
        for q in self.queue_range(queue)? {
            self.queues[q].table = (count > 0).then(|| DevFlowTable::new(count));
        }
        if queue.is_none() {
            self.cfg.flow_cnt = count;
        }
        Ok(())
    }

    /// `store_rps_dev_flow_table_cnt` (net/core/net-sysfs.c) takes any count whose power of
    /// two fits its `u32` mask and `vmalloc`; the sandbox bounds a queue's table so that every
    /// queue of the device could hold one as big ([`crate::rps::MAX_FLOW_ENTRIES`]): its
    /// limit, not the kernel's. The bound does not depend on the other queues' tables, so a
    /// line of many writes checked before any is made (the console's loops) stays all or
    /// nothing.
    pub(super) fn check_flow_cnt(&self, queue: Option<u16>, count: u32) -> Result<(), SimError> {
        if count > crate::rps::MAX_FLOW_CNT {
            return Err(range_err(
                "rps_flow_cnt",
                "0..=1048576 in the sandbox (the kernel: what memory allows)",
            ));
        }
        self.queue_range(queue)?;
        let size = u64::from(count.next_power_of_two()) * u64::from(count > 0);
        if size * u64::from(self.cfg.rx_queues) > crate::rps::MAX_FLOW_ENTRIES {
            return Err(range_err(
                "rps_flow_cnt",
                "a table every RX queue could hold within 4194304 entries in the sandbox (48 MB; the kernel: what memory allows)",
            ));
        }
        Ok(())
    }

    /// `rps_flow_cnt` of a queue (0 when off).
    pub fn flow_cnt(&self, queue: u16) -> u32 {
        self.queues
            .get(usize::from(queue))
            .and_then(|q| q.table.as_ref())
            .map_or(0, DevFlowTable::size)
    }

    /// `echo MASK > .../rx-Q/rps_cpus` (queue `None` = every queue); empty = RPS off.
    pub fn set_rps_cpus(&mut self, queue: Option<u16>, cpus: CpuSet) -> Result<(), SimError> {
        self.check_rps_cpus(queue, cpus)?;
        for q in self.queue_range(queue)? {
            self.queues[q].rps_map = cpus.iter().collect();
        }
        Ok(())
    }

    pub(super) fn check_rps_cpus(&self, queue: Option<u16>, cpus: CpuSet) -> Result<(), SimError> {
        if cpus.end() > self.cfg.cpus {
            return Err(range_err("rps_cpus", "CPUs of this host"));
        }
        self.queue_range(queue).map(drop)
    }

    /// `rps_cpus` of a queue.
    pub fn rps_cpus(&self, queue: u16) -> CpuSet {
        let mut s = CpuSet::EMPTY;
        if let Some(q) = self.queues.get(usize::from(queue)) {
            q.rps_map.iter().for_each(|&c| s.insert(c));
        }
        s
    }

    pub(super) fn queue_range(&self, queue: Option<u16>) -> Result<core::ops::Range<usize>, SimError> {
        match queue {
            None => Ok(0..self.queues.len()),
            Some(q) if q < self.cfg.rx_queues => Ok(usize::from(q)..usize::from(q) + 1),
            Some(_) => Err(range_err("queue", "an RX queue of this device")),
        }
    }

    /// `sysctl -w net.core.rps_sock_flow_entries=N`: every write resets the table.
    pub fn set_sock_flow_entries(&mut self, n: u32) -> Result<(), SimError> {
        check_sock_flow_entries(n)?;
        self.sock = (n > 0).then(|| SockFlowTable::new(n));
        self.note_sock_cells();
        self.cfg.sock_flow_entries = n;
        Ok(())
    }

    /// `rps_sock_flow_entries` in force (rounded), 0 when off.
    pub fn sock_flow_entries(&self) -> u32 {
        self.sock.as_ref().map_or(0, |s| s.mask + 1)
    }

    /// Selects the kernel generation's rules.
    pub fn set_kernel(&mut self, kernel: Kernel) {
        self.cfg.kernel = kernel;
    }

    /// `sysctl -w net.core.flow_limit_cpu_bitmap=MASK`: CPUs newly in the set get a table of
    /// `flow_limit_table_len` buckets, CPUs out of it lose theirs, the others keep theirs and
    /// its history (`flow_limit_cpu_sysctl`, net/core/sysctl_net_core.c).
    pub fn set_flow_limit_cpus(&mut self, cpus: CpuSet) -> Result<(), SimError> {
        self.check_flow_limit_cpus(cpus)?;
        let len = self.cfg.flow_limit_table_len;
        for (c, cpu) in self.cpus.iter_mut().enumerate() {
            match (cpus.contains(c as u16), cpu.flow_limit.is_some()) {
                (true, false) => cpu.flow_limit = Some(Box::new(FlowLimit::new(len))),
                (false, true) => {
                    // The CPU's drops stay counted (softnet_stat keeps flow_limit_count).
                    self.counters.flow_limit += cpu.flow_limit.take().map_or(0, |fl| fl.count);
                }
                _ => {}
            }
        }
        self.cfg.flow_limit_cpus = cpus.to_list();
        Ok(())
    }

    pub(super) fn check_flow_limit_cpus(&self, cpus: CpuSet) -> Result<(), SimError> {
        if cpus.end() > self.cfg.cpus {
            return Err(range_err("net.core.flow_limit_cpu_bitmap", "CPUs of this host"));
        }
        Ok(())
    }

    /// `net.core.flow_limit_cpu_bitmap` in force.
    pub fn flow_limit_cpus(&self) -> CpuSet {
        let mut s = CpuSet::EMPTY;
        (0..self.cfg.cpus)
            .filter(|&c| self.cpus[usize::from(c)].flow_limit.is_some())
            .for_each(|c| s.insert(c));
        s
    }

    /// `sysctl -w net.core.flow_limit_table_len=N`: the size of tables allocated from now on.
    /// `flow_limit_table_len_sysctl` (net/core/sysctl_net_core.c) puts the old value back and
    /// answers EINVAL unless the new one is a power of two.
    pub fn set_flow_limit_table_len(&mut self, n: u32) -> Result<(), SimError> {
        check_flow_limit_table_len(n)?;
        self.cfg.flow_limit_table_len = n;
        Ok(())
    }

    /// Selects the RFS record policy.
    pub fn set_record(&mut self, record: RecordPolicy) {
        self.cfg.record = record;
    }
}

pub(super) fn check_sock_flow_entries(n: u32) -> Result<(), SimError> {
    if n > crate::rps::MAX_SOCK_FLOW_ENTRIES {
        return Err(range_err(
            "net.core.rps_sock_flow_entries",
            "0..=4194304 in the sandbox (kernel: 2^29)",
        ));
    }
    Ok(())
}

pub(super) fn check_flow_limit_table_len(n: u32) -> Result<(), SimError> {
    if !n.is_power_of_two() || n > crate::flow_limit::MAX_TABLE_LEN {
        return Err(range_err(
            "net.core.flow_limit_table_len",
            "a power of two, 1..=1048576 in the sandbox",
        ));
    }
    Ok(())
}
