//! What the NIC and `tc_run` (net/core/dev.c) do with a packet at the block, and the hits they
//! count on the filters that decided it.

use crate::flow::FlowKey;

use super::{Action, Classify, Counting, Filter, FilterId, SwResult, TcBlock, Walk};

impl TcBlock {
    /// Whether `tc_run` skips this block (net/core/dev.c: `tc_run`; include/net/pkt_cls.h:
    /// `tcf_block_bypass_sw`). Legacy: `bypass_wanted` (the global key
    /// `tcf_bypass_check_needed_key` is on whenever a block wants bypass). v6.14:
    /// `useswcnt == 0` (covers both the global `tcf_sw_enabled_key` and the block bypass). An
    /// empty block: legacy no, v6.14 yes (nothing to run).
    pub fn bypass_sw(&self) -> bool {
        match self.counting {
            Counting::Legacy => self.bypass_wanted,
            Counting::Usesw => self.useswcnt == 0,
        }
    }

    /// What the NIC and `tc_run` do with a packet of `key`; counters are not touched. The NIC
    /// applies the first in-hardware filter that matches, in priority order; a hardware drop
    /// ends there. Otherwise software either bypasses the block or runs `tcf_classify`: tps in
    /// priority order, the first matching filter that is not `skip_sw` decides
    /// (net/sched/cls_flower.c: `fl_classify` skips `skip_sw` filters it finds).
    ///
    /// Simplification: a filter both in hardware and in software that passes the packet in the
    /// NIC is met again in software, as in the kernel; one that drops it decides in the NIC, so
    /// software never sees the packet.
    pub fn classify(&self, key: &FlowKey) -> Classify {
        self.decide(key).0
    }

    /// [`TcBlock::classify`], and adds `n` packets to the hit counters of the filters that
    /// decided in the NIC and in software (shown by [`TcBlock::filters`]).
    pub fn classify_and_count(&mut self, key: &FlowKey, n: u64) -> Classify {
        let (c, hw, sw) = self.decide(key);
        if let Some(f) = hw.and_then(|at| self.filter_mut(at)) {
            f.hits_hw = f.hits_hw.saturating_add(n);
        }
        if let Some(f) = sw.and_then(|at| self.filter_mut(at)) {
            f.hits_sw = f.hits_sw.saturating_add(n);
        }
        c
    }

    /// Books `n` packets on the filters that decided `c` (a decision from [`TcBlock::classify`]
    /// on this block, unchanged since): the same counts as [`TcBlock::classify_and_count`]
    /// without walking the filters again.
    pub fn count(&mut self, c: &Classify, n: u64) {
        let sw = match c.sw {
            SwResult::Classified { filter, .. } => filter,
            _ => None,
        };
        for (id, hw) in [(c.hw_filter, true), (sw, false)] {
            let Some(id) = id else { continue };
            let found = self
                .tps
                .iter_mut()
                .find(|tp| tp.prio == id.prio)
                .and_then(|tp| tp.filters.iter_mut().find(|f| f.handle == id.handle));
            if let Some(f) = found {
                let hits = if hw { &mut f.hits_hw } else { &mut f.hits_sw };
                *hits = hits.saturating_add(n);
            }
        }
    }

    /// Walks the block for one side: `hw` = in-hardware filters (the NIC), otherwise the
    /// software filters (not `skip_sw`).
    fn walk(&self, key: &FlowKey, hw: bool) -> Walk {
        let mut w = Walk {
            hit: None,
            walked: 0,
            lookups: 0,
        };
        for (ti, tp) in self.tps.iter().enumerate() {
            w.lookups += tp.masks.len() as u32;
            for f in tp.walk() {
                let runs = if hw { f.in_hw } else { !f.skip_sw };
                if !runs {
                    continue;
                }
                w.walked += 1;
                if f.matches.matches(key) {
                    // Only the masks up to this filter's were probed.
                    let probed = tp.masks.iter().position(|m| m.mask == f.mask).map_or(0, |i| i + 1);
                    w.lookups = w.lookups - tp.masks.len() as u32 + probed as u32;
                    let fi = tp.filters.iter().position(|g| g.handle == f.handle).unwrap_or(0);
                    w.hit = Some((ti, fi));
                    return w;
                }
            }
        }
        w
    }

    fn filter_mut(&mut self, at: (usize, usize)) -> Option<&mut Filter> {
        self.tps.get_mut(at.0)?.filters.get_mut(at.1)
    }

    fn filter_at(&self, at: (usize, usize)) -> Option<(FilterId, Action)> {
        let tp = self.tps.get(at.0)?;
        let f = tp.filters.get(at.1)?;
        Some((
            FilterId {
                prio: tp.prio,
                handle: f.handle,
            },
            f.action,
        ))
    }

    /// The packet's fate and the positions of the filters that decided it (hardware, software).
    #[allow(clippy::type_complexity)]
    fn decide(&self, key: &FlowKey) -> (Classify, Option<(usize, usize)>, Option<(usize, usize)>) {
        let hw = self.walk(key, true).hit;
        let hw_hit = hw.and_then(|at| self.filter_at(at));
        let hw_action = hw_hit.map(|(_, a)| a);
        let hw_filter = hw_hit.map(|(id, _)| id);
        if hw_action == Some(Action::Drop) {
            return (
                Classify {
                    hw: hw_action,
                    hw_filter,
                    sw: SwResult::DroppedInHw,
                },
                hw,
                None,
            );
        }
        let sw = self.walk(key, false);
        if self.bypass_sw() {
            let sw_result = SwResult::Bypassed {
                missed: sw.hit.is_some(),
            };
            return (
                Classify {
                    hw: hw_action,
                    hw_filter,
                    sw: sw_result,
                },
                hw,
                None,
            );
        }
        let sw_hit = sw.hit.and_then(|at| self.filter_at(at));
        let sw_result = SwResult::Classified {
            action: sw_hit.map(|(_, a)| a),
            filter: sw_hit.map(|(id, _)| id),
            walked: sw.walked,
            lookups: sw.lookups,
        };
        (
            Classify {
                hw: hw_action,
                hw_filter,
                sw: sw_result,
            },
            hw,
            sw.hit,
        )
    }
}
