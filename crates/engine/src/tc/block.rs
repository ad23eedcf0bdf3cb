//! The block's commands (net/sched/cls_api.c: `tc_new_tfilter`, `tc_del_tfilter`, the offload
//! playback) and the counters of both kernels they keep.

use alloc::vec::Vec;

use super::{
    Counting, Filter, FilterId, FilterRow, FilterSpec, MaskRef, TcBlock, TcError, Tp, TpView, AUTO_PRIO_FIRST,
    AUTO_PRIO_FLOOR,
};

impl TcBlock {
    /// An empty ingress block (`tc qdisc add dev DEV ingress`); `hw_offload` is whether the
    /// device accepts tc offload (`ethtool -K DEV hw-tc-offload on` on a capable NIC).
    pub fn new(counting: Counting, hw_offload: bool) -> TcBlock {
        TcBlock {
            counting,
            hw_offload,
            tps: Vec::new(),
            filtercnt: 0,
            skipswcnt: 0,
            bypass_wanted: false,
            useswcnt: 0,
            offloadcnt: 0,
        }
    }

    /// The counting scheme that decides the bypass.
    pub fn counting(&self) -> Counting {
        self.counting
    }

    /// Selects which kernel's counters decide the bypass. Both sets are kept up to date on
    /// every add and delete, so switching shows what the other kernel would do with the same
    /// block right now.
    pub fn set_counting(&mut self, counting: Counting) {
        self.counting = counting;
    }

    /// Whether the device offloads tc filters.
    pub fn hw_offload(&self) -> bool {
        self.hw_offload
    }

    /// `tc filter add` (net/sched/cls_api.c: `tc_new_tfilter`; net/sched/cls_flower.c:
    /// `fl_change`). Without a prio the filter gets a new tp with pref one below the first tp
    /// at or above 32768, or 49152 if there is none (`tcf_auto_prio`): 49152, 49151, … for a
    /// block of automatic filters. With a prio it joins that tp or creates it.
    ///
    /// Counters: legacy — `skipswcnt` +1 if the filter is `skip_sw` and in hardware
    /// (`tcf_block_offload_inc`), then `filtercnt` +1 if the tp was not yet counted, then
    /// `bypass_wanted` recomputed (`tcf_block_filter_cnt_update`); v6.14 — `tp.usesw` set if the
    /// filter is not (`skip_sw` and in hardware) (`tcf_proto_update_usesw`), then the tp counted
    /// in `useswcnt` if it uses software and was not yet counted (`tcf_proto_count_usesw`).
    pub fn add(&mut self, spec: FilterSpec) -> Result<FilterId, TcError> {
        if spec.prio == Some(0) {
            return Err(TcError::PrioZero);
        }
        spec.matches.validate()?;
        let (prio, existing) = match spec.prio {
            Some(p) => (p, self.tps.iter().position(|tp| tp.prio == p)),
            None => (self.auto_prio()?, None),
        };
        if spec.skip_sw && spec.skip_hw {
            return Err(TcError::BothSkipFlags);
        }
        if let Some(t) = existing.and_then(|i| self.tps.get(i)) {
            if let Some(f) = t.filters.iter().find(|f| f.matches == spec.matches) {
                return Err(TcError::Exists { prio, handle: f.handle });
            }
        }
        let in_hw = self.hw_offload && !spec.skip_hw;
        if spec.skip_sw && !in_hw {
            return Err(TcError::SkipSwWithoutOffload);
        }
        let handle = match existing.and_then(|i| self.tps.get(i)) {
            Some(t) => t.free_handle().ok_or(TcError::HandlesExhausted { prio })?,
            None => 1,
        };

        // Accepted: from here on nothing can fail.
        let ti = match existing {
            Some(i) => i,
            None => {
                let at = self.tps.iter().position(|tp| tp.prio > prio).unwrap_or(self.tps.len());
                let tp = Tp {
                    prio,
                    filters: Vec::new(),
                    masks: Vec::new(),
                    legacy_counted: false,
                    // tcf_proto_create: flower has a reoffload op, so usesw starts false.
                    usesw: false,
                    usesw_counted: false,
                };
                self.tps.insert(at, tp);
                at
            }
        };
        let filter = Filter {
            handle,
            matches: spec.matches,
            mask: spec.matches.mask(),
            action: spec.action,
            skip_sw: spec.skip_sw,
            skip_hw: spec.skip_hw,
            in_hw,
            hits_hw: 0,
            hits_sw: 0,
        };
        let Some(tp) = self.tps.get_mut(ti) else {
            return Err(TcError::NoSuchPrio { prio });
        };
        // fl_check_assign_mask: share an equal mask or append a new one.
        match tp.masks.iter_mut().find(|m| m.mask == filter.mask) {
            Some(m) => m.refs += 1,
            None => tp.masks.push(MaskRef {
                mask: filter.mask,
                refs: 1,
            }),
        }
        // fl_hw_replace_filter → tcf_block_offload_inc.
        count_offload(&mut self.offloadcnt, &mut self.skipswcnt, &filter, true);
        // v6.14 fl_change → tcf_proto_update_usesw.
        if !filter.skipsw_in_hw() {
            tp.usesw = true;
        }
        let at = tp
            .filters
            .iter()
            .position(|f| f.handle > handle)
            .unwrap_or(tp.filters.len());
        tp.filters.insert(at, filter);

        // Legacy tc_new_tfilter → tcf_block_filter_cnt_update(block, &tp->counted, true).
        if !tp.legacy_counted {
            tp.legacy_counted = true;
            self.filtercnt += 1;
        }
        // v6.14 tc_new_tfilter → tcf_proto_count_usesw(tp, true).
        if tp.usesw && !tp.usesw_counted {
            tp.usesw_counted = true;
            self.useswcnt += 1;
        }
        self.maintain_bypass();
        Ok(FilterId { prio, handle })
    }

    /// `tc filter del dev DEV ingress [prio P]` (net/sched/cls_api.c: `tc_del_tfilter`): with a
    /// prio, destroys that whole tp with all its filters; without, flushes the chain
    /// (`tcf_chain_flush`), destroying every tp. Returns the number of filters removed; an
    /// empty block flushes to `Ok(0)`.
    pub fn del(&mut self, prio: Option<u16>) -> Result<u32, TcError> {
        match prio {
            Some(p) => {
                let i = self
                    .tps
                    .iter()
                    .position(|tp| tp.prio == p)
                    .ok_or(TcError::NoSuchPrio { prio: p })?;
                let tp = self.tps.remove(i);
                Ok(self.destroy(tp))
            }
            None => {
                let tps = core::mem::take(&mut self.tps);
                Ok(tps.into_iter().map(|tp| self.destroy(tp)).sum())
            }
        }
    }

    /// `tc filter del dev DEV ingress prio P handle H flower` (net/sched/cls_flower.c:
    /// `fl_delete`). Legacy: `skipswcnt` −1 if the filter was `skip_sw` in hardware
    /// (`tcf_block_offload_dec`); `bypass_wanted` is **not** recomputed. v6.14: `tp.usesw` stays
    /// set. When the tp's last filter goes, the tp is destroyed
    /// (`tcf_chain_tp_delete_empty` → `tcf_proto_destroy`): legacy `filtercnt` −1 and
    /// `bypass_wanted` recomputed, v6.14 `useswcnt` −1 if the tp was counted.
    pub fn del_filter(&mut self, prio: u16, handle: u32) -> Result<(), TcError> {
        let ti = self
            .tps
            .iter()
            .position(|tp| tp.prio == prio)
            .ok_or(TcError::NoSuchPrio { prio })?;
        let Some(tp) = self.tps.get_mut(ti) else {
            return Err(TcError::NoSuchPrio { prio });
        };
        let fi = tp
            .filters
            .iter()
            .position(|f| f.handle == handle)
            .ok_or(TcError::NoSuchFilter { prio, handle })?;
        let f = tp.filters.remove(fi);
        // fl_mask_put: the mask goes with its last filter.
        if let Some(mi) = tp.masks.iter().position(|m| m.mask == f.mask) {
            if let Some(m) = tp.masks.get_mut(mi) {
                m.refs = m.refs.saturating_sub(1);
                if m.refs == 0 {
                    tp.masks.remove(mi);
                }
            }
        }
        let empty = tp.filters.is_empty();
        self.unoffload(&f);
        if empty {
            let tp = self.tps.remove(ti);
            self.destroy(tp);
        }
        Ok(())
    }

    /// Legacy `block->filtercnt` (tps counted since their first successful add). Maintained
    /// whatever [`Counting`] is selected: the value the v6.10–v6.13 kernel would hold after the
    /// same commands.
    pub fn filtercnt(&self) -> u32 {
        self.filtercnt
    }

    /// Legacy `block->skipswcnt` (`skip_sw` filters in hardware); maintained for both countings.
    pub fn skipswcnt(&self) -> u32 {
        self.skipswcnt
    }

    /// Legacy `block->bypass_wanted` (as last recomputed); maintained for both countings.
    pub fn bypass_wanted(&self) -> bool {
        self.bypass_wanted
    }

    /// v6.14 `block->useswcnt` (tps counted as software users); maintained for both countings:
    /// the value the v6.14 kernel would hold after the same commands.
    pub fn useswcnt(&self) -> u32 {
        self.useswcnt
    }

    /// `block->offloadcnt`: filters flagged IN_HW.
    pub fn offloadcnt(&self) -> u32 {
        self.offloadcnt
    }

    /// Number of filters in the block.
    pub fn len(&self) -> u32 {
        self.tps.iter().map(|tp| tp.filters.len() as u32).sum()
    }

    /// True if the block has no filter.
    pub fn is_empty(&self) -> bool {
        self.tps.is_empty()
    }

    /// The rows of `tc -s filter show dev DEV ingress`: by pref, then handle.
    pub fn filters(&self) -> Vec<FilterRow> {
        self.tps
            .iter()
            .flat_map(|tp| {
                tp.filters.iter().map(move |f| FilterRow {
                    prio: tp.prio,
                    handle: f.handle,
                    matches: f.matches,
                    action: f.action,
                    skip_sw: f.skip_sw,
                    skip_hw: f.skip_hw,
                    in_hw: f.in_hw,
                    hits_hw: f.hits_hw,
                    hits_sw: f.hits_sw,
                })
            })
            .collect()
    }

    /// The tps with their counting state, by pref.
    pub fn tps(&self) -> Vec<TpView> {
        self.tps
            .iter()
            .map(|tp| TpView {
                prio: tp.prio,
                filters: tp.filters.len() as u32,
                skipsw_in_hw: tp.filters.iter().filter(|f| f.skipsw_in_hw()).count() as u32,
                legacy_counted: tp.legacy_counted,
                usesw: tp.usesw,
                usesw_counted: tp.usesw_counted,
            })
            .collect()
    }

    /// `tcf_auto_prio(tcf_chain_tp_prev(...))` after `tcf_chain_tp_find(…, 0x8000, true)`.
    fn auto_prio(&self) -> Result<u16, TcError> {
        match self.tps.iter().find(|tp| tp.prio >= AUTO_PRIO_FLOOR) {
            None => Ok(AUTO_PRIO_FIRST),
            Some(tp) if tp.prio == AUTO_PRIO_FLOOR => Err(TcError::AutoPrioTaken),
            Some(tp) => Ok(tp.prio - 1),
        }
    }

    /// Legacy `tcf_maintain_bypass`.
    fn maintain_bypass(&mut self) {
        self.bypass_wanted = self.filtercnt > 0 && self.filtercnt == self.skipswcnt;
    }

    /// The block's device changed (a NIC with or without tc offload): every filter that may be
    /// in hardware is played back to it (net/sched/cls_api.c: `tcf_block_playback_offloads` →
    /// net/sched/cls_flower.c: `fl_reoffload`, which skips `skip_hw` filters). A filter taken by
    /// the new device is flagged IN_HW (`tcf_block_offload_inc`: `offloadcnt` +1, legacy
    /// `skipswcnt` +1 for `skip_sw`); one the old device held and the new cannot is unflagged
    /// (`tcf_block_offload_dec`). Neither path recomputes legacy `bypass_wanted` nor v6.14
    /// `usesw` (both are updated only when filters or tps come and go), so a `skip_sw` filter
    /// left `not_in_hw` matches nothing anywhere, as on a real host. Returns how many filters
    /// changed.
    pub fn reoffload(&mut self, hw_offload: bool) -> u32 {
        if hw_offload == self.hw_offload {
            return 0;
        }
        self.hw_offload = hw_offload;
        let mut changed = 0;
        let (offloadcnt, skipswcnt) = (&mut self.offloadcnt, &mut self.skipswcnt);
        for f in self
            .tps
            .iter_mut()
            .flat_map(|tp| tp.filters.iter_mut())
            .filter(|f| !f.skip_hw && f.in_hw != hw_offload)
        {
            changed += 1;
            if hw_offload {
                f.in_hw = true;
                count_offload(offloadcnt, skipswcnt, f, true);
            } else {
                count_offload(offloadcnt, skipswcnt, f, false);
                f.in_hw = false;
            }
        }
        changed
    }

    /// A filter leaves hardware (`fl_hw_destroy_filter` → `tcf_block_offload_dec`).
    fn unoffload(&mut self, f: &Filter) {
        count_offload(&mut self.offloadcnt, &mut self.skipswcnt, f, false);
    }

    /// `tcf_proto_destroy` of a tp already unlinked from the chain: its filters leave hardware
    /// (`fl_destroy`), then legacy `tcf_block_filter_cnt_update(…, false)` and v6.14
    /// `tcf_proto_count_usesw(tp, false)`. Returns the number of filters it held.
    fn destroy(&mut self, tp: Tp) -> u32 {
        for f in &tp.filters {
            self.unoffload(f);
        }
        if tp.legacy_counted {
            self.filtercnt = self.filtercnt.saturating_sub(1);
        }
        self.maintain_bypass();
        if tp.usesw && tp.usesw_counted {
            self.useswcnt = self.useswcnt.saturating_sub(1);
        }
        tp.filters.len() as u32
    }
}

/// `tcf_block_offload_inc` (`up`) / `tcf_block_offload_dec`: a filter flagged IN_HW counts in
/// `offloadcnt`, and in legacy `skipswcnt` when it is also `skip_sw`.
fn count_offload(offloadcnt: &mut u32, skipswcnt: &mut u32, f: &Filter, up: bool) {
    let (hw, skipsw) = (u32::from(f.in_hw), u32::from(f.skipsw_in_hw()));
    if up {
        *offloadcnt += hw;
        *skipswcnt += skipsw;
    } else {
        *offloadcnt = offloadcnt.saturating_sub(hw);
        *skipswcnt = skipswcnt.saturating_sub(skipsw);
    }
}
