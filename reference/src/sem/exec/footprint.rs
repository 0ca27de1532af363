//! Conservative footprints of steps, for the partial-order reduction of concurrent groups
//! (A-EXEC-CONCURRENT-INTERLEAVINGS, A-EXEC-CONCURRENT-MBAR-COMMUTE).
//!
//! A footprint lists every byte a step may read or write, including the writes of the
//! asynchronous copies it issues, and every mbarrier it touches. Anything the footprint cannot
//! name before the run (an operand held in a register, a wait that may land other threads'
//! copies, a fence, the Tensor Memory and tensor-map families) is [`Footprint::Everything`],
//! which conflicts with every step of another thread. A thread's own async-group queues need no
//! entry: only its own steps use them, and those keep program order anyway.

use std::ops::Range;

use super::{Machine, R};
use crate::case_model::StepOp;
use crate::layout::MBARRIER_BYTES;
use crate::ptx::bulk::{BulkOp, CopyDir};
use crate::ptx::cp_async::CpAsyncOp;
use crate::ptx::mbarrier::{ArriveMode, MbarSpace, MbarrierOp};
use crate::ptx::{Instruction, Statement};
use crate::sem::memory::RegionId;
use crate::sem::ub as rules;

/// How a step uses a byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Use {
    Read,
    Write,
    /// An update of the mbarrier at these bytes that only adds to its counts (arrive-on,
    /// expect-tx, complete-tx, cp.async.mbarrier.arrive, which may arrive at once) and whose
    /// result nothing in the group reads (A-EXEC-CONCURRENT-MBAR-COMMUTE).
    Arrive,
    /// A copy issued with this mbarrier as its completion mechanism: it changes no count now
    /// (its complete-tx comes when it lands, A-EXEC-EVENTUAL), so it commutes like an update.
    Track,
    /// Any other use of an mbarrier (init, inval, .noComplete arrive).
    Barrier,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Access {
    pub region: RegionId,
    pub range: Range<u64>,
    pub usage: Use,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Footprint {
    Everything,
    Accesses(Vec<Access>),
}

impl Footprint {
    /// Do two steps of different threads possibly not commute? `commute`: do arrive-type
    /// updates of one mbarrier commute (the reduction's assumption, checked after the run)?
    pub fn conflicts(&self, other: &Footprint, commute: bool) -> bool {
        let (Footprint::Accesses(a), Footprint::Accesses(b)) = (self, other) else {
            return true;
        };
        a.iter().any(|x| b.iter().any(|y| x.conflicts(y, commute)))
    }

    /// The mbarriers (region, offset) this footprint uses commutatively, and whether the use
    /// is an update of its counts ([`Use::Arrive`]) rather than a tracked copy.
    pub fn arrives(&self) -> impl Iterator<Item = (RegionId, u64, bool)> + '_ {
        let v = match self {
            Footprint::Everything => &[][..],
            Footprint::Accesses(a) => &a[..],
        };
        v.iter()
            .filter(|x| matches!(x.usage, Use::Arrive | Use::Track))
            .map(|x| (x.region, x.range.start, x.usage == Use::Arrive))
    }
}

impl Access {
    fn conflicts(&self, o: &Access, commute: bool) -> bool {
        let overlap = self.region == o.region
            && self.range.start < o.range.end
            && o.range.start < self.range.end;
        let commutes = match (self.usage, o.usage) {
            (Use::Read, Use::Read) => true,
            (Use::Arrive | Use::Track, Use::Arrive | Use::Track) => commute,
            _ => false,
        };
        overlap && !commutes
    }
}

/// Collects accesses; any operand it cannot place makes the step [`Footprint::Everything`].
struct Collect<'m, 'c> {
    m: &'m Machine<'c>,
    out: Vec<Access>,
}

impl Collect<'_, '_> {
    fn bytes(&mut self, l: &super::operands::Loc, len: u64, usage: Use) -> R {
        let a = self
            .m
            .check_range(l, len, &rules::ADDRESS_OUT_OF_REGION, "footprint")?;
        self.out.push(Access {
            region: a.region,
            range: a.offset..a.offset + len,
            usage,
        });
        Ok(())
    }

    fn mbar(&mut self, (cta, off): (u32, u64), usage: Use) {
        self.out.push(Access {
            region: RegionId::Shared { cta },
            range: off..off + MBARRIER_BYTES,
            usage,
        });
    }

    fn statement(&mut self, st: &Statement) -> R<bool> {
        let m = self.m;
        match &st.instr {
            Instruction::CpAsync(op) => match op {
                CpAsyncOp::Copy(c) => {
                    let n = c.size.bytes() as u64;
                    self.bytes(&m.resolve(&c.dst)?, n, Use::Write)?;
                    self.bytes(&m.resolve(&c.src)?, n, Use::Read)?;
                }
                CpAsyncOp::CommitGroup => {}
                CpAsyncOp::MbarrierArrive { addr, .. } => {
                    self.mbar(m.mbar(addr, false)?, Use::Arrive)
                }
                // A wait lands and fires what it releases: not placed before the run.
                CpAsyncOp::WaitGroup(_) | CpAsyncOp::WaitAll => return Ok(false),
            },
            Instruction::Bulk(BulkOp::Copy(c)) => {
                let size = u64::try_from(m.value(&c.size)?).unwrap_or(0);
                let src = m.resolve(&c.src)?;
                self.bytes(&src, size, Use::Read)?;
                let dst = m.resolve(&c.dst)?;
                match &c.dir {
                    CopyDir::GlobalToCta { mbar, .. } => {
                        self.bytes(&dst, size, Use::Write)?;
                        self.mbar(m.mbar(mbar, false)?, Use::Track);
                    }
                    CopyDir::GlobalToCluster { cta_mask, mbar } => {
                        let (_, off) = m.mbar(mbar, true)?;
                        for cta in m.cluster_destinations(&dst, cta_mask.as_ref())? {
                            self.bytes(&dst.in_cta(cta), size, Use::Write)?;
                            self.mbar((cta, off), Use::Track);
                        }
                    }
                    CopyDir::CtaToCluster { mbar } => {
                        let (_, off) = m.mbar(mbar, true)?;
                        self.bytes(&dst, size, Use::Write)?;
                        if let Some(cta) = dst.cta() {
                            self.mbar((cta, off), Use::Track);
                        }
                    }
                    CopyDir::CtaToGlobal { .. } => self.bytes(&dst, size, Use::Write)?,
                }
            }
            Instruction::Bulk(BulkOp::Prefetch(_) | BulkOp::CommitGroup) => {}
            Instruction::Mbarrier(op) => {
                let cluster = |s: &Option<MbarSpace>| *s == Some(MbarSpace::SharedCluster);
                match op {
                    MbarrierOp::Init { space, addr, .. } | MbarrierOp::Inval { space, addr } => {
                        self.mbar(m.mbar(addr, cluster(space))?, Use::Barrier)
                    }
                    MbarrierOp::Tx { space, addr, .. } => {
                        self.mbar(m.mbar(addr, cluster(space))?, Use::Arrive)
                    }
                    // .noComplete is UB exactly when its arrive completes the phase: which one
                    // comes last matters, so it does not commute.
                    MbarrierOp::Arrive {
                        mode, space, addr, ..
                    } => {
                        let usage = match mode {
                            ArriveMode::NoComplete { .. } => Use::Barrier,
                            _ => Use::Arrive,
                        };
                        self.mbar(m.mbar(addr, cluster(space))?, usage)
                    }
                    // Reads only the thread's own register.
                    MbarrierOp::PendingCount { .. } => {}
                    // A wait observes the phase and lands other threads' copies (A-EXEC-WAIT-LANDS).
                    MbarrierOp::Wait { .. } => return Ok(false),
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The footprint of step `op` run by `thread` of `cta`, resolved on `m` (a machine in its
/// initial state: addresses depend only on the layout and the params).
pub(super) fn of(
    m: &mut Machine<'_>,
    op: &StepOp,
    parsed: Option<&Statement>,
    cta: u32,
    thread: u32,
) -> Footprint {
    m.cta = cta;
    m.thread = thread;
    let mut c = Collect { m, out: Vec::new() };
    let placed = match (op, parsed) {
        (_, Some(st)) => c.statement(st),
        (StepOp::Store { at, bytes }, _) => super::operands::store_address(at)
            .and_then(|a| c.m.resolve(&a))
            .and_then(|l| c.bytes(&l, bytes.len() as u64, Use::Write))
            .map(|()| true),
        _ => Ok(false),
    };
    match placed {
        Ok(true) => Footprint::Accesses(c.out),
        _ => Footprint::Everything,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(start: u64, usage: Use) -> Access {
        Access {
            region: RegionId::Shared { cta: 0 },
            range: start..start + 8,
            usage,
        }
    }

    #[test]
    fn conflicts_by_overlap_and_use() {
        let f = |v: Vec<Access>| Footprint::Accesses(v);
        let r = f(vec![acc(0, Use::Read)]);
        let w = f(vec![acc(4, Use::Write)]);
        let a = f(vec![acc(0, Use::Arrive)]);
        let far = f(vec![acc(16, Use::Write)]);
        assert!(!r.conflicts(&r, true));
        assert!(r.conflicts(&w, true) && w.conflicts(&r, false));
        assert!(!w.conflicts(&far, true));
        assert!(!a.conflicts(&a, true) && a.conflicts(&a, false));
        assert!(a.conflicts(&r, true));
        let t = f(vec![acc(0, Use::Track)]);
        assert!(!t.conflicts(&a, true) && t.conflicts(&a, false));
        assert!(f(vec![acc(0, Use::Barrier)]).conflicts(&a, true));
        assert!(Footprint::Everything.conflicts(&far, true));
        assert!(far.conflicts(&Footprint::Everything, true));
    }
}
