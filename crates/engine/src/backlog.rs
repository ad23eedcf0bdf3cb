//! A CPU's RPS backlog: `softnet_data`'s `input_pkt_queue` with its `input_queue_head` and
//! `input_queue_tail` counters (net/core/dev.c: `enqueue_to_backlog`, `process_backlog`,
//! `rps_input_queue_tail_incr`, `rps_input_queue_head_add`).
//!
//! The sandbox does not keep the packets, only their timing: the backlog is processed in
//! order, one packet per `each` nanoseconds (what a packet costs the CPU: the stack, the
//! dequeue and the penalties, napi.rs `backlog_pace`), so the head at any
//! instant of a tick follows from when each run of packets was queued. `get_rps_cpu`'s in-order
//! rule and `rps_may_expire_flow` read that head. As `process_backlog` does since 6.10, the
//! head moves once per poll: by [`BACKLOG_QUOTA`] packets, or by what was left when the queue
//! empties (`rps_input_queue_head_add(sd, work)`), so other CPUs see it jump in batches.
//!
//! `enqueue_to_backlog` tests the length of `input_pkt_queue` alone: `process_backlog` moves
//! all of it onto its private `process_queue` (`skb_queue_splice_tail_init`) when it starts and
//! each time that queue runs dry, so packets already taken for processing no longer count
//! towards `netdev_max_backlog` or the flow limit's half-full mark ([`Backlog::qlen`]).

/// Packets one `process_backlog` call processes before it returns and publishes them:
/// `dev_rx_weight` = `weight_p` (64) × `dev_weight_rx_bias` (1), net/core/hotdata.c.
pub const BACKLOG_QUOTA: u32 = 64;

/// One CPU's backlog within a tick (times are ns from the tick's start).
///
/// Packets are processed back to back from when a run of them is queued behind the work before
/// it, so the backlog is runs of packets; the sandbox keeps only the last one. Every time it
/// is asked about is the present of the tick (the flows run in order, each at its instant), so
/// when a run starts after an idle gap, every run before it is processed by then: those
/// packets are kept as a count (`done`) until the next [`Backlog::head_at`] dequeues them. A
/// run of `n` packets is dequeued packet by packet as time passes, so one run of `n` and `n`
/// runs of one give the same head at every instant (packet and aggregate modes agree).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    /// Packets processed so far (the head a per-packet kernel would show).
    head: u32,
    /// `input_queue_tail` when the backlog was last scheduled from idle: polls count their
    /// quota from there.
    busy_from: u32,
    /// `input_queue_tail`: packets enqueued so far.
    tail: u32,
    /// `input_queue_tail` at `process_backlog`'s last splice: the packets up to it have left
    /// `input_pkt_queue` for `process_queue`.
    spliced: u32,
    /// When the next splice happens (ns from the tick's start): the instant `process_queue`
    /// runs dry, or the instant an enqueue woke the backlog; `None` while it is idle.
    splice_at: Option<u64>,
    /// When the work queued so far ends.
    work_end: u64,
    /// Packets of earlier runs, all processed before the last run began, not yet dequeued.
    done: u32,
    /// The last run's packets not yet dequeued (they end the queue: the first is packet
    /// `tail - n`), and when the first of them starts.
    n: u32,
    begin: u64,
    /// The CPU's time per backlog packet, ns ([`Backlog::set_each`]).
    each: u64,
}

/// What an enqueue did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enqueued {
    /// `input_queue_tail` after it (the flow entry's `last_qtail`).
    pub tail: u32,
    /// The backlog was idle: this enqueue scheduled its NAPI again (`napi_schedule_rps`), which
    /// costs an IPI when the CPU is another one.
    pub woke: bool,
}

impl Backlog {
    /// An empty backlog whose CPU takes `each` ns a packet.
    pub fn with_each(each: u64) -> Backlog {
        Backlog {
            each: each.max(1),
            ..Backlog::default()
        }
    }

    /// The CPU's time per backlog packet from now on, ns: `process_backlog` runs the stack
    /// for each packet on this CPU, so it drains at what the CPU pays per packet. Set between
    /// ticks (the caller measures it over the last one); the packets carried over from the
    /// last tick are re-timed from the present at the new pace.
    pub fn set_each(&mut self, each: u64) {
        let each = each.max(1);
        if each == self.each {
            return;
        }
        self.each = each;
        if self.n > 0 {
            self.work_end = self.begin + each * u64::from(self.n);
        }
    }

    /// The CPU's time per backlog packet, ns.
    pub fn each(&self) -> u64 {
        self.each
    }

    /// `input_queue_head` as last published ([`Backlog::head_at`] advances it): the packets of
    /// finished polls, whole quotas while the backlog is busy, everything once it is idle.
    #[inline]
    pub fn head(&self) -> u32 {
        if self.n == 0 {
            return self.head;
        }
        let done = self.head.wrapping_sub(self.busy_from);
        self.busy_from.wrapping_add(done - done % BACKLOG_QUOTA)
    }

    /// Packets queued and not yet dequeued (`input_pkt_queue` and `process_queue`) as of the
    /// last [`Backlog::head_at`].
    pub fn in_flight(&self) -> u64 {
        u64::from(self.tail.wrapping_sub(self.head))
    }

    /// `skb_queue_len(&sd->input_pkt_queue)`, the length `enqueue_to_backlog` compares with
    /// `netdev_max_backlog` (net/core/dev.c): the packets enqueued since the last splice, as
    /// of the last [`Backlog::head_at`] or [`Backlog::enqueue`] (splices only shorten it as
    /// time passes, so this is an upper bound of the length at any later instant).
    #[inline]
    pub fn qlen(&self) -> u64 {
        u64::from(self.tail.wrapping_sub(self.spliced))
    }

    /// [`Backlog::qlen`] after the splices before `at`, the present: what an enqueue at `at`
    /// finds in `input_pkt_queue` (it splices first).
    #[inline]
    pub fn qlen_at(&mut self, at: u64) -> u64 {
        self.splice_until(at);
        self.qlen()
    }

    /// `process_backlog`'s splices before `now`: each takes the whole of `input_pkt_queue`
    /// (everything enqueued up to its instant) and runs dry `each` ns a packet later, where the
    /// next one happens; one that finds `input_pkt_queue` empty leaves the backlog idle
    /// (`napi_complete`). Packets enqueued at a splice's own instant join it, so a burst
    /// enqueued at one instant counts whole against the limit whether it is applied packet by
    /// packet or as one run.
    #[inline]
    fn splice_until(&mut self, now: u64) {
        let each = self.each;
        while let Some(at) = self.splice_at {
            if at >= now {
                break;
            }
            let n = self.tail.wrapping_sub(self.spliced);
            self.spliced = self.tail;
            self.splice_at = (n > 0).then(|| at + each * u64::from(n));
        }
    }

    /// `enqueue_to_backlog` of `m` packets (at least one) at time `at`, the present (the
    /// caller dequeued up to `at` and checked `qlen`): they are processed after everything
    /// queued before them, `each` ns apiece.
    #[inline]
    pub fn enqueue(&mut self, at: u64, m: u64) -> Enqueued {
        debug_assert!(m > 0);
        let each = self.each;
        self.splice_until(at);
        // process_backlog has emptied the queue and cleared NAPI_STATE_SCHED: this enqueue
        // schedules the backlog again.
        let woke = self.work_end <= at;
        if woke {
            self.busy_from = self.tail;
        }
        if self.splice_at.is_none() {
            // The poll it schedules splices what it finds when it starts.
            self.splice_at = Some(at);
        }
        self.tail = self.tail.wrapping_add(m as u32);
        let begin = self.work_end.max(at);
        // The last run ends at `work_end`: packets that start there extend it. Otherwise the
        // backlog was idle since `work_end`, before `begin`: every queued packet is processed.
        if begin == self.work_end && self.n > 0 {
            self.n += m as u32;
        } else {
            self.done += self.n;
            (self.begin, self.n) = (begin, m as u32);
        }
        self.work_end = begin + each * m;
        Enqueued { tail: self.tail, woke }
    }

    /// `input_queue_head` at time `now`, the present ([`Backlog::head`]): the packets whose
    /// processing has ended by then are dequeued (`process_backlog`). Returns the head and how
    /// many packets this dequeued.
    #[inline]
    pub fn head_at(&mut self, now: u64) -> (u32, u64) {
        let each = self.each;
        self.splice_until(now);
        if self.n == 0 {
            return (self.head, 0);
        }
        // The earlier runs ended before the last one began, at or before `now`.
        let processed = if now >= self.begin + each * u64::from(self.n) {
            self.n
        } else {
            (now.saturating_sub(self.begin) / each) as u32
        };
        let dequeued = u64::from(core::mem::take(&mut self.done)) + u64::from(processed);
        self.begin += u64::from(processed) * each;
        self.n -= processed;
        self.head = self.tail.wrapping_sub(self.n);
        (self.head(), dequeued)
    }

    /// The end of a tick of `tick` ns: the packets processed by then are dequeued, and what
    /// the CPU could not process in the tick stays queued for the next one, its times made
    /// relative to the next tick's start. So a backlog fed faster than its CPU processes it
    /// grows from tick to tick until `enqueue_to_backlog` finds `input_pkt_queue` past
    /// `netdev_max_backlog` and drops (softnet_stat's second column), as a CPU that cannot
    /// keep up does. Returns how many packets this dequeued.
    pub fn end_tick(&mut self, tick: u64) -> u64 {
        let (_, dequeued) = self.head_at(tick);
        if self.n == 0 {
            // Idle: both queues empty, NAPI complete.
            self.spliced = self.tail;
            (self.splice_at, self.work_end, self.begin) = (None, 0, 0);
            return dequeued;
        }
        // A packet under way at the tick's end starts the next tick (less than `each` early).
        self.begin = self.begin.saturating_sub(tick);
        self.work_end = self.work_end.saturating_sub(tick);
        self.splice_at = self.splice_at.map(|at| at.saturating_sub(tick));
        dequeued
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packets are dequeued in order, one per `each` ns after the work queued before them;
    /// a run of `m` and `m` runs of one give the same head at every instant.
    /// A backlog fed faster than it is processed keeps what the tick could not process: 150
    /// packets at 10 ns in a tick of 1,000 ns leave 50, processed first in the next tick,
    /// and `input_pkt_queue` (enqueued since the last splice) keeps counting against the limit.
    #[test]
    fn what_a_tick_cannot_process_waits_for_the_next() {
        let mut b = Backlog::with_each(10);
        b.enqueue(0, 150);
        assert_eq!(b.end_tick(1000), 100);
        assert_eq!(b.in_flight(), 50);
        // The next tick: 60 more at its start queue behind the 50 (500 ns of work ahead).
        let e = b.enqueue(0, 60);
        assert!(!e.woke, "still busy from the last tick");
        assert_eq!(b.qlen_at(0), 60, "the 150 were spliced; the 60 wait in input_pkt_queue");
        assert_eq!(b.head_at(500).1, 50);
        assert_eq!(b.end_tick(1000), 50);
        assert_eq!(b.in_flight(), 10);
    }

    #[test]
    fn the_head_follows_the_processing_time() {
        let mut b = Backlog::with_each(10);
        let e = b.enqueue(1000, 5);
        assert_eq!(e, Enqueued { tail: 5, woke: true });
        // Queued while busy (work ends at 1050): no new wake-up, starts at 1050.
        assert_eq!(b.enqueue(1020, 2), Enqueued { tail: 7, woke: false });
        // While busy the head stays at the last whole quota (none here); the packets count as
        // dequeued (delivered) as they are processed.
        assert_eq!(b.head_at(1009), (0, 0));
        assert_eq!(b.head_at(1030), (0, 3));
        assert_eq!(b.head_at(1065), (0, 3));
        assert_eq!(b.in_flight(), 1);
        // Idle: everything processed is published.
        assert_eq!(b.head_at(5000), (7, 1));
        // Idle again: the next enqueue wakes it.
        assert!(b.enqueue(6000, 1).woke);
        assert_eq!(b.end_tick(7000), 1);
        assert_eq!((b.head(), b.in_flight()), (8, 0));

        let mut one = Backlog::with_each(7);
        let mut singles = Backlog::with_each(7);
        one.enqueue(0, 4);
        for _ in 0..4 {
            singles.enqueue(0, 1);
        }
        for now in [0, 6, 7, 13, 14, 20, 21, 28, 100] {
            assert_eq!(one.head_at(now), singles.head_at(now), "at {now}");
        }
    }

    /// `process_backlog` publishes its work once per poll (6.10+): a busy backlog's head moves
    /// by whole quotas of 64, counted from when it was woken, and catches up when it empties.
    #[test]
    fn the_head_moves_once_per_poll() {
        let mut b = Backlog::with_each(1);
        b.enqueue(0, 10);
        b.head_at(10);
        assert_eq!(b.head(), 10, "idle: all published");
        b.enqueue(100, 200);
        assert_eq!(
            b.head_at(100 + 63).0,
            10,
            "63 of the new packets processed: not yet published"
        );
        assert_eq!(b.head_at(100 + 64).0, 74, "one quota");
        assert_eq!(b.head_at(100 + 199).0, 10 + 192, "three quotas");
        assert_eq!(b.head_at(100 + 200).0, 210, "empty: the last poll publishes its 8");
    }

    /// `enqueue_to_backlog` counts `input_pkt_queue` alone: what `process_backlog` has spliced
    /// onto its `process_queue` no longer counts, and a burst enqueued at one instant counts
    /// whole (the poll it wakes splices after it), packet by packet or as one run.
    #[test]
    fn the_limit_counts_the_input_queue_only() {
        let mut one = Backlog::with_each(10);
        one.enqueue(0, 300);
        assert_eq!(one.qlen(), 300, "the burst waits in input_pkt_queue");
        let mut singles = Backlog::with_each(10);
        for _ in 0..300 {
            singles.enqueue(0, 1);
        }
        assert_eq!(singles.qlen(), 300);
        // Later, the poll has spliced the burst: 200 more queue behind a process_queue of 300.
        one.enqueue(5, 200);
        assert_eq!((one.qlen(), one.in_flight()), (200, 500));
        // The 300 run dry at 3000 ns: the next splice takes the 200, input_pkt_queue is empty.
        one.head_at(3001);
        assert_eq!((one.qlen(), one.in_flight()), (0, 200));
        one.enqueue(3002, 7);
        assert_eq!(one.qlen(), 7);
        // Everything done: idle, and the next enqueue wakes a poll that splices it.
        one.head_at(10_000);
        assert_eq!(one.qlen(), 0);
        assert!(one.enqueue(20_000, 4).woke);
        assert_eq!(one.qlen(), 4);
    }
}
