//! The reader of a flow's socket: whether it sleeps between its packets, how often a packet
//! processed elsewhere wakes it, its `recvmsg` and the `sock_rps_record_flow` each read (or
//! send) makes (include/net/rps.h, net/ipv4/af_inet.c, kernel/sched/core.c). `receive.rs` calls
//! these for each burst.

use crate::config::RecordPolicy;
use crate::ledger::Stage;
use crate::rps::SockFlowTable;

use super::event::Event;
use super::receive::Burst;
use super::Sim;

impl Sim {
    /// Whether flow `f`'s reader sleeps between its packets: a read (`app_read_ns`) takes less
    /// than the gap between two packets. Otherwise it never sleeps: it reads as fast as it can,
    /// several packets a read, and nothing has to wake it. (Rates are at most 1e8 pps and costs
    /// 1e7 ns, so the product fits: no overflow check, which wasm pays for with a 128-bit
    /// multiply.) Departs from the kernel (FIDELITY.md, `threads-sleep-judged-per-thread`):
    /// each flow is judged alone, so a thread reading many slow sockets whose reads together
    /// keep it busy is still taken to sleep between each one's packets (and to be woken).
    #[inline]
    pub(super) fn reader_sleeps(&self, f: usize) -> bool {
        self.flows[f].rate_pps * self.cfg.costs.app_read_ns <= 1_000_000_000
    }

    /// How many times `m` packets of flow `f`, processed on a CPU other than its sleeping
    /// reader's, wake the reader from there: once per NAPI poll that carries them. A flow
    /// slower than the queue's interrupts (interrupt moderation, `rx-usecs`) has each packet
    /// in a poll of its own; a faster one shares a poll's wake-up with the packets that came
    /// in the same interval, `1e6 / rx-usecs` wake-ups a second (the carried remainder keeps
    /// packet and aggregate modes equal).
    ///
    /// What a wake-up from another CPU costs (kernel/sched/core.c): `try_to_wake_up` ->
    /// `ttwu_queue_wakelist` hands the task to the reader's CPU when that CPU shares no cache
    /// with the waker or has nothing to run, "so the wakee incurs the cost of the wakeup
    /// instead of the waker" (the activation is part of the reader's `app_read`); the waker
    /// only queues it, and `call_function_single_prep_ipi` sends an IPI only when the idle CPU
    /// is not polling (`host.idle = halt`). Simplification: the reader's CPU is idle while its
    /// reader sleeps (the sandbox has no run queues), so every such wake-up takes the wake
    /// list, whatever the cache sharing, and the direct activation of a busy CPU's task is
    /// not modelled.
    ///
    /// Inline, the common answer (seed 000 and rfs-thread-churn: every call); out of line,
    /// the count a fast flow carries ([`Sim::carried_wakes`]): a call for every remote
    /// delivery took 3.4 % of rfs-thread-churn's engine in wasm.
    #[inline]
    pub(super) fn remote_wakes(&mut self, f: usize, m: u64) -> u64 {
        let usecs = u64::from(self.cfg.rx_usecs());
        let rate = self.flows[f].rate_pps;
        if usecs == 0 || rate * usecs <= 1_000_000 {
            return m;
        }
        self.carried_wakes(f, m, usecs, rate)
    }

    /// [`Sim::remote_wakes`] for a flow faster than its queue's interrupts.
    #[inline(never)]
    pub(super) fn carried_wakes(&mut self, f: usize, m: u64, usecs: u64, rate: u64) -> u64 {
        // Polls a second that carry the flow, as a share of its packets: m * polls / rate.
        let polls = 1_000_000 / usecs;
        let carry = &mut self.info[f].wake_carry;
        let total = *carry + m * polls;
        *carry = total % rate;
        total / rate
    }

    /// Whether the reader's read of the burst's flow would leave `rps_sock_flow_table` as it is.
    #[inline]
    pub(super) fn read_changes_nothing(&self, b: &Burst) -> bool {
        let (Some(sock), Some(cpu), true) = (&self.sock, b.reader_cpu, self.flows[b.f].established) else {
            return true;
        };
        sock.get(self.sock_cells[b.f]) == SockFlowTable::value(b.hash, cpu, self.cpu_mask)
    }

    /// The reader's reads of flow `f`'s `delivered` packets: user and sys time per read, one
    /// read a packet for a reader that sleeps between them, else as many as its time allows
    /// (at least one); and `sock_rps_record_flow` -> `rps_record_sock_flow`
    /// (include/net/rps.h), or under `rfs.record = cpuset` seed 002's rule.
    /// `_sock_rps_record_flow` records only a socket in `TCP_ESTABLISHED` (a TCP connection or
    /// a connected UDP socket): an unconnected UDP server socket leaves the table alone, and
    /// its packets follow plain RPS.
    /// `record`: the burst's first read could change the table (else `record_flow` would
    /// find its entry already holding the reader's CPU, and return).
    #[inline(always)]
    pub(super) fn recvmsg(&mut self, b: &Burst, delivered: u64, record: bool) {
        let Some(cpu) = b.reader_cpu else {
            return;
        };
        if self.flows[b.f].udp && self.udp_buffered(b.f, delivered) {
            if record {
                self.record_flow(b.f, b.reader as usize, cpu);
            }
            return;
        }
        let reads = if b.sleeps {
            delivered
        } else {
            // The packets came over `delivered / rate` s; a read takes `app_read_ns`.
            let per_read = u128::from(self.flows[b.f].rate_pps) * u128::from(self.cfg.costs.app_read_ns);
            ((u128::from(delivered) * 1_000_000_000 / per_read) as u64).max(1)
        };
        self.charge(cpu, Stage::AppRead, reads);
        self.charge(cpu, Stage::SysRead, reads);
        if record {
            self.record_flow(b.f, b.reader as usize, cpu);
        }
    }

    /// UDP flow `f`'s `delivered` datagrams: they join its socket's buffer if it is modelled
    /// (true: read at the tick's end, socket.rs), else are read now and counted as
    /// `InDatagrams`. Out of line: the TCP flows' reads stay one test.
    #[inline(never)]
    fn udp_buffered(&mut self, f: usize, delivered: u64) -> bool {
        if let Some(s) = self.info[f].sock.as_mut() {
            s.arrived += delivered;
            return true;
        }
        self.counters.udp_in_datagrams += delivered;
        false
    }

    /// `sock_rps_record_flow` for flow `f`'s socket from thread `tid` on `cpu`: a read
    /// (`inet_recvmsg`) or a send (`inet_sendmsg` -> `inet_send_prepare`, net/ipv4/af_inet.c)
    /// -> `rps_record_sock_flow` (include/net/rps.h), or under `rfs.record = cpuset` seed
    /// 002's rule. The caller knows the socket has its flow hash (`sk_rxhash`).
    #[inline]
    pub(super) fn record_flow(&mut self, f: usize, tid: usize, cpu: u16) {
        let hash = self.flows[f].skb_hash;
        let (Some(sock), true) = (self.sock.as_mut(), self.flows[f].established) else {
            return;
        };
        let cell = self.sock_cells[f];
        let val = SockFlowTable::value(hash, cpu, self.cpu_mask);
        let old = sock.get(cell);
        debug_assert_eq!(old, sock.entry(hash), "flow {f}'s cell is its entry");
        if old == val {
            return;
        }
        if self.cfg.record == RecordPolicy::Cpuset
            && (old ^ hash) & !self.cpu_mask == 0
            && self.threads[tid].allowed.contains((old & self.cpu_mask) as u16)
        {
            self.counters.sock_flow_skipped += 1;
            return;
        }
        sock.set(cell, val);
        self.counters.sock_flow_updates += 1;
        self.charge(cpu, Stage::SockRecord, 1);
        self.record(Event::SockRecord { flow: f, cpu });
    }
}
