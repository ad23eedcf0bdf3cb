//! A UDP socket's receive buffer, for a flow whose reader has work of its own per message
//! (`app_ns`): what arrives while the reader is busy waits in `sk_receive_queue`, charged at
//! each packet's `truesize` against `sk_rcvbuf`, and what a full buffer cannot take is
//! dropped and counted as `Udp: RcvbufErrors` (and `InErrors`), as `nstat` and `netstat -su`
//! show them.
//!
//! The kernel's rules followed:
//! - `__udp_enqueue_schedule_skb` (net/ipv4/udp.c, 6.18): a packet is taken when
//!   `sk_rmem_alloc + truesize <= sk_rcvbuf`, or when the queue is empty ("Accept the packet
//!   if queue is empty"); else `UDP_MIB_RCVBUFERRORS` and `UDP_MIB_INERRORS` count it.
//!   Checked on this testbed's 6.18 (loopback, 1400-byte datagrams): an `SO_RCVBUF` of 106496
//!   (`sk_rcvbuf` 212992) holds 92 datagrams, one of 2048 (4096) holds one.
//! - `sk_rcvbuf` is `rmem_default` when the socket is made (`sock_init_data`), and
//!   `SO_RCVBUF` sets `max(min(val, rmem_max) * 2, SOCK_MIN_RCVBUF)` (net/core/sock.c
//!   `__sock_set_rcvbuf`): raising `rmem_default` changes no open socket.
//! - One `recvmsg` returns one datagram: the reader reads at most `avail / (read + app_ns)`
//!   a tick, where `avail` is what the CPU's softirqs left of it.
//!
//! Simplifications: the buffer is a fluid: over a tick the packets that reached the socket
//! and the reader's reads are both spread evenly, so the queue grows or shrinks in a line
//! and what exceeds the buffer at the tick's end is dropped (not the burst the tick loop
//! delivers at once). `truesize` is as 6.18 charges it on loopback and veth ([`truesize`]); a
//! NIC's page-fragment buffers differ by driver.
//! The reader's CPU time is what its CPU's softirqs left in the tick (softirq preempts it;
//! `ksoftirqd` sharing the CPU with it is not modelled). TCP's window holds its sender back,
//! so only UDP flows have a bounded buffer here.

use crate::config::SOCK_MIN_RCVBUF;
use crate::ledger::Stage;

use super::{Sim, SimError};
use crate::error::range_err;

/// A flow's socket receive buffer and its reader's work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SockBuf {
    /// The reader's own work per datagram, ns (besides the read itself).
    pub(super) app_ns: u32,
    /// `sk_rcvbuf`, bytes.
    pub(super) rcvbuf: u32,
    /// `skb->truesize` of the flow's datagrams.
    pub(super) truesize: u32,
    /// Datagrams in `sk_receive_queue`.
    pub(super) queued: u64,
    /// Datagrams that reached the socket this tick (taken or not).
    pub(super) arrived: u64,
    /// The reader's time not yet a whole read, ns.
    pub(super) carry_ns: u64,
    /// Datagrams the buffer dropped.
    pub(super) drops: u64,
}

impl SockBuf {
    /// Datagrams the buffer holds: as many whole truesizes as fit, and at least one.
    fn room(&self) -> u64 {
        u64::from(self.rcvbuf / self.truesize).max(1)
    }
}

/// `skb->truesize` of a `bytes`-byte datagram, as 6.18 charges it on loopback and veth: its
/// data buffer (the datagram, its headers, headroom and `skb_shared_info`: 406 bytes more)
/// rounded up to a kmalloc size, plus the `sk_buff` (256); 832 for the smallest. Fits the
/// five sizes measured (64: 832, 512: 1280, 1400: 2304 on loopback and veth, 3000: 4352 on
/// veth at MTU 9000; kernel-check.sh).
pub fn truesize(bytes: u32) -> u32 {
    match bytes {
        0..=128 => 832,
        _ => (bytes + 406).next_power_of_two() + 256,
    }
}

/// What a socket of a flow shows: its buffer, what it holds, what it dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SocketView {
    /// `sk_rcvbuf`, bytes (`ss -m`'s `rb`).
    pub rcvbuf: u32,
    /// Bytes queued (`ss -m`'s `r`, `sk_rmem_alloc`).
    pub rmem: u64,
    /// Datagrams dropped at the buffer (`ss -m`'s `d`, `sk_drops`).
    pub drops: u64,
    /// The reader's work per datagram, ns.
    pub app_ns: u32,
}

impl Sim {
    /// Flow `flow`'s reader does `app_ns` of its own work per datagram: its socket's buffer
    /// is modelled from now on (with `rmem_default`'s size, if no `SO_RCVBUF` set it).
    pub fn set_reader_work(&mut self, flow: u32, app_ns: u32) -> Result<(), SimError> {
        if app_ns > 10_000_000 {
            return Err(range_err("flow app_ns", "0..=10000000 (ns of work per datagram)"));
        }
        self.bounded_socket(flow)?.app_ns = app_ns;
        Ok(())
    }

    /// `setsockopt(SO_RCVBUF, bytes)` on flow `flow`'s socket (net/core/sock.c
    /// `__sock_set_rcvbuf`): returns the `sk_rcvbuf` it gets.
    pub fn set_rcvbuf(&mut self, flow: u32, bytes: u32) -> Result<u32, SimError> {
        let asked = bytes.min(self.cfg.rmem_max).min(i32::MAX as u32 / 2);
        let rcvbuf = (asked * 2).max(SOCK_MIN_RCVBUF);
        self.bounded_socket(flow)?.rcvbuf = rcvbuf;
        Ok(rcvbuf)
    }

    /// What flow `flow`'s socket buffer shows, if it is modelled.
    pub fn socket_view(&self, flow: u32) -> Option<SocketView> {
        let s = self.info.get(flow as usize)?.sock.as_ref()?;
        Some(SocketView {
            rcvbuf: s.rcvbuf,
            rmem: s.queued * u64::from(s.truesize),
            drops: s.drops,
            app_ns: s.app_ns,
        })
    }

    /// Flow `flow`'s modelled socket, made now if it was not: a UDP flow with a reader.
    fn bounded_socket(&mut self, flow: u32) -> Result<&mut SockBuf, SimError> {
        let f = flow as usize;
        let Some(fl) = self.flows.get(f) else {
            return Err(SimError::NoFlow(flow));
        };
        if !fl.udp {
            return Err(range_err(
                "flow",
                "a UDP flow (TCP's receive window holds its sender back: the sandbox models the buffer of UDP sockets)",
            ));
        }
        if fl.readers == 0 {
            return Err(range_err("flow", "a flow with a reader thread (its socket is read)"));
        }
        let made = SockBuf {
            app_ns: 0,
            rcvbuf: self.cfg.rmem_default,
            truesize: truesize(fl.bytes),
            queued: 0,
            arrived: 0,
            carry_ns: 0,
            drops: 0,
        };
        if self.info[f].sock.is_none() {
            let at = self.bounded.partition_point(|&g| g < flow);
            self.bounded.insert(at, flow);
        }
        Ok(self.info[f].sock.get_or_insert(made))
    }

    /// The tick's reads of every modelled socket, at its end: what arrived and what was
    /// queued, less what the reader had time to read, beyond the buffer's room, is dropped.
    pub(super) fn read_sockets(&mut self) {
        let tick = self.cfg.tick_ns;
        let read_ns = self.cfg.costs.app_read_ns;
        for i in 0..self.bounded.len() {
            let f = self.bounded[i] as usize;
            let reader = match self.flows[f].reader {
                u32::MAX => self.flows[f].first_reader,
                r => r,
            };
            let Some(cpu) = self.threads.get(reader as usize).map(|t| t.cpu) else {
                continue;
            };
            let busy = u64::from(self.softirq[usize::from(cpu)].busy_ppm);
            let Some(s) = self.info[f].sock.as_mut() else {
                continue;
            };
            let avail = tick * (1_000_000 - busy) / 1_000_000 + s.carry_ns;
            let per_read = read_ns + u64::from(s.app_ns);
            let arrived = core::mem::take(&mut s.arrived);
            let have = s.queued + arrived;
            let reads = have.min(avail / per_read);
            s.carry_ns = if reads < have { avail % per_read } else { 0 };
            let left = have - reads;
            let drops = left.saturating_sub(s.room());
            s.queued = left - drops;
            s.drops += drops;
            // What stays queued waits for the reader's next reads: at this tick's pace (a
            // reader that read nothing, a tick a read at least).
            let taken = arrived.saturating_sub(drops);
            if s.queued > 0 && taken > 0 {
                self.latency.waited(s.queued * tick / reads.max(1), taken);
            }
            let app = reads * u64::from(s.app_ns);
            self.counters.socket_drop += drops;
            self.counters.udp_in_datagrams += reads;
            self.counters.delivered -= drops;
            self.charge(cpu, Stage::AppRead, reads);
            self.charge(cpu, Stage::SysRead, reads);
            self.charge(cpu, Stage::AppWork, app);
        }
    }
}
