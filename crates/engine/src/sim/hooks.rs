//! The hooks a packet may meet on its way up: native XDP in the driver, tc ingress in the stack.

use crate::ledger::Stage;
use crate::tc::{Classify, FilterId, FilterSpec, SwResult, TcBlock};
use crate::xdp::{XdpAction, XdpProgram};

use super::event::Event;
use super::event::Fate;
use super::{Sim, SimError};

impl Sim {
    /// `ip link set dev DEV xdp obj PROGRAM` (`None` = `xdp off`). Native XDP only: every
    /// driver model here has it; kfuncs the driver lacks answer "not supported".
    pub fn set_xdp(&mut self, program: Option<XdpProgram>) {
        let costs = self.cfg.costs;
        self.xdp = program.map(|p| {
            let c = crate::xdp::cost(&p, self.cfg.driver, costs.xdp_kfunc_call_ps, costs.xdp_fallback_ps);
            (p, c)
        });
        let (calls, action) = self
            .xdp
            .as_ref()
            .map_or((0, 0), |(p, c)| (c.calls + 1, p.action as u64));
        self.record(Event::Xdp { calls, action });
    }

    /// The loaded XDP program, if any.
    pub fn xdp_program(&self) -> Option<&XdpProgram> {
        self.xdp.as_ref().map(|(p, _)| p)
    }

    /// `tc qdisc add dev DEV ingress|clsact`: an empty filter block. The NIC accepts tc
    /// offload (flower in hardware) on ice and mlx5, not on the generic and ixgbe models.
    pub fn tc_add_qdisc(&mut self) -> Result<(), SimError> {
        if self.tc.is_some() {
            return Err(SimError::QdiscExists);
        }
        self.tc = Some(TcBlock::new(self.cfg.tc_counting, self.cfg.driver.tc_offload()));
        Ok(())
    }

    /// `tc qdisc del dev DEV ingress`: the block and its filters are gone.
    pub fn tc_del_qdisc(&mut self) -> Result<(), SimError> {
        self.tc.take().map(drop).ok_or(SimError::NoQdisc)
    }

    /// `tc filter add dev DEV ingress ...`.
    pub fn tc_add(&mut self, spec: FilterSpec) -> Result<FilterId, SimError> {
        let block = self.tc.as_mut().ok_or(SimError::NoIngressBlock)?;
        let id = block.add(spec)?;
        self.record(Event::TcFilter {
            prio: u64::from(id.prio),
            handle: u64::from(id.handle),
        });
        Ok(id)
    }

    /// `tc filter del dev DEV ingress [prio P]`; returns the filters removed.
    pub fn tc_del(&mut self, prio: Option<u16>) -> Result<u32, SimError> {
        let block = self.tc.as_mut().ok_or(SimError::NoIngressBlock)?;
        let n = block.del(prio)?;
        self.record(Event::TcFilter {
            prio: u64::from(prio.unwrap_or(0)),
            handle: u64::MAX,
        });
        Ok(n)
    }

    /// `tc filter del dev DEV ingress prio P handle H flower`.
    pub fn tc_del_filter(&mut self, prio: u16, handle: u32) -> Result<(), SimError> {
        let block = self.tc.as_mut().ok_or(SimError::NoIngressBlock)?;
        block.del_filter(prio, handle)?;
        self.record(Event::TcFilter {
            prio: u64::from(prio),
            handle: u64::from(handle),
        });
        Ok(())
    }

    /// The ingress block.
    pub fn tc_block(&self) -> Option<&TcBlock> {
        self.tc.as_ref()
    }

    /// Selects which kernel's block counters decide the bypass (`tc.counting`).
    pub fn set_tc_counting(&mut self, counting: crate::tc::Counting) {
        self.cfg.tc_counting = counting;
        if let Some(b) = &mut self.tc {
            b.set_counting(counting);
        }
    }

    /// The loaded XDP program.
    pub fn xdp(&self) -> Option<&XdpProgram> {
        self.xdp.as_ref().map(|(p, _)| p)
    }

    /// Native XDP, in the driver's poll before the skb and before RPS, for `m` packets on
    /// queue `q`: kfunc calls and costs, and the fate of a verdict that ends the path there.
    /// Out of line: the steering path of a host without XDP stays small.
    #[inline(never)]
    pub(super) fn run_xdp(&mut self, irq: u16, q: u16, m: u64) -> Option<Fate> {
        let (action, cost) = self.xdp.as_ref().map(|(p, c)| (p.action, *c))?;
        self.counters.xdp_kfunc_calls += u64::from(cost.calls) * m;
        self.counters.xdp_unsupported += u64::from(cost.unsupported) * m;
        self.charge(irq, Stage::XdpKfunc, cost.kfunc_ps * m);
        match action {
            XdpAction::Pass => None,
            XdpAction::Drop | XdpAction::Aborted => {
                self.counters.xdp_drop += m;
                Some(Fate::XdpDrop { queue: q })
            }
            XdpAction::Tx | XdpAction::Redirect => {
                if action == XdpAction::Tx {
                    self.counters.xdp_tx += m
                } else {
                    self.counters.xdp_redirect += m
                }
                self.counters.delivered += m;
                Some(Fate::XdpOut { queue: q })
            }
        }
    }

    /// tc ingress in software for `m` packets on `cpu`, with the block's decision `c`: hit
    /// counters, the bypass counters and the classification cost. Returns whether a tc action
    /// dropped them. Out of line, like [`Sim::run_xdp`].
    #[inline(never)]
    pub(super) fn tc_ingress(&mut self, c: Classify, cpu: u16, m: u64) -> bool {
        if let Some(b) = self.tc.as_mut() {
            b.count(&c, m);
        }
        match c.sw {
            SwResult::Bypassed { missed } => {
                self.counters.tc_bypassed += m;
                if missed {
                    self.counters.tc_sw_missed += m;
                }
            }
            SwResult::Classified { action, lookups, .. } => {
                self.counters.tc_sw_classified += m;
                self.charge(cpu, Stage::TcClassify, u64::from(lookups) * m);
                if action == Some(crate::tc::Action::Drop) {
                    self.counters.tc_drop += m;
                    return true;
                }
            }
            SwResult::DroppedInHw => {}
        }
        false
    }
}
