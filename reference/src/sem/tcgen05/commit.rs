//! Completion of asynchronous tcgen05 operations, per issuing thread (§9.7.16.6.2.1, §9.7.16.8.5,
//! §9.7.16.12.1): a small event-driven state machine the executor drives.
//!
//! - `tcgen05.{mma,cp,shift}` complete through `tcgen05.commit`: the mbarrier tracks the
//!   completion of *all prior* such operations of the thread with the same `.cta_group`, and on
//!   completion receives an arrive-on with count 1 at cluster scope. Unlike
//!   `cp.async.mbarrier.arrive` without `.noinc`, nothing says the commit increments the pending
//!   count first, so the arrive decrements the pending count of the then-current phase: the
//!   mbarrier's expected count must include it ([`CommitArrive::increments_pending`] is always false).
//! - `tcgen05.{ld,st}` complete through `tcgen05.wait::ld` / `::st`: the thread blocks until all
//!   its prior loads (stores) have completed.
//!
//! The executor issues operations ([`Tracker::issue`]), decides when each completes
//! ([`Tracker::complete`], any order: "may execute and complete in a different order than they
//! were issued"), and applies the returned [`CommitArrive`] events to its mbarrier model.

use crate::ptx::common::CtaGroup;
use crate::sem::ub::Ub;
use crate::sem::ub::TCGEN05_CTA_GROUP_MIXED;
use std::collections::BTreeSet;

/// Positions taken where the manual is silent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Assumption {
    /// A commit with nothing outstanding arrives at once (its tracked set is empty, so "upon the
    /// completion of the tracked operations" holds immediately).
    EmptyCommitArrivesAtOnce,
    /// An operation already complete at the time of the commit is not waited for again: the commit
    /// tracks the outstanding prior operations, and an operation may be tracked by several commits.
    CommitTracksOutstandingOnly,
    /// The `.multicast::cluster` form sends one arrive (count 1) to the mbarrier at the same offset
    /// in each CTA whose bit is set in ctaMask, all when the tracked set completes.
    MulticastOneArrivePerCta,
}

/// The asynchronous tcgen05 operations (§9.7.16.6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AsyncKind {
    Mma,
    Cp,
    Shift,
    Ld,
    St,
}

impl AsyncKind {
    /// §9.7.16.6.2.1.1: completion observed through tcgen05.commit.
    pub fn tracked_by_commit(self) -> bool {
        matches!(self, AsyncKind::Mma | AsyncKind::Cp | AsyncKind::Shift)
    }
}

/// Handle of one issued asynchronous operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub u64);

/// Which mbarrier an arrive goes to: the commit's address operand and the CTA (cluster rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MbarTarget {
    /// `None`: the executing CTA (no `.multicast::cluster`).
    pub cta_rank: Option<u32>,
    /// The shared-memory offset of the mbarrier.
    pub addr: u64,
}

/// The event the executor applies to its mbarrier model. With main's `sem::mbarrier`, that is
/// `slot.arrive(mbarrier::Arrive::one())` on the target's slot when the event is returned (not
/// `cp_async_arrive(false)`, which would add the pending-count increment tcgen05.commit lacks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommitArrive {
    pub target: MbarTarget,
    /// Always 1 (`.mbarrier::arrive::one`).
    pub count: u32,
    /// Always false: no pending-count increment precedes the arrive.
    pub increments_pending: bool,
}

#[derive(Clone, Debug)]
struct PendingCommit {
    waits_on: BTreeSet<OpId>,
    targets: Vec<MbarTarget>,
}

/// Whether a `tcgen05.wait` may proceed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WaitState {
    Ready,
    /// Blocked on these outstanding operations.
    Blocked(Vec<OpId>),
}

/// One thread's outstanding asynchronous tcgen05 operations and commits.
#[derive(Clone, Debug, Default)]
pub struct Tracker {
    next: u64,
    outstanding: Vec<(OpId, AsyncKind, CtaGroup)>,
    commits: Vec<PendingCommit>,
    /// The kernel's `.cta_group`, fixed by the first instruction that names one.
    cta: Option<CtaGroup>,
}

impl Tracker {
    pub fn new() -> Tracker {
        Tracker::default()
    }

    /// "All tcgen05 instructions within a kernel must specify the same value for the .cta_group
    /// qualifier" (§9.7.16.9.2 and the other tcgen05 pages). Checked per thread here; the
    /// executor may share one `Tracker` per kernel to check it kernel-wide.
    fn same_cta_group(&mut self, cta: CtaGroup) -> Result<(), Ub> {
        match self.cta {
            Some(c) if c != cta => Err(Ub::new(
                &TCGEN05_CTA_GROUP_MIXED,
                format!("{} after {} in the same kernel", cta.ptx(), c.ptx()),
            )),
            _ => {
                self.cta = Some(cta);
                Ok(())
            }
        }
    }

    /// Issues an asynchronous operation. ld/st carry no `.cta_group`: pass `None`.
    pub fn issue(&mut self, kind: AsyncKind, cta: Option<CtaGroup>) -> Result<OpId, Ub> {
        if let Some(c) = cta {
            self.same_cta_group(c)?;
        }
        let id = OpId(self.next);
        self.next += 1;
        self.outstanding
            .push((id, kind, cta.unwrap_or(CtaGroup::One)));
        Ok(id)
    }

    /// `tcgen05.commit.cta_group.mbarrier::arrive::one [mbar] {, ctaMask}`: the arrives due now
    /// (when nothing is outstanding), otherwise none until [`Tracker::complete`] finishes the set.
    /// `cta_mask` is the `.multicast::cluster` mask (bit i = %cluster_ctarank i).
    pub fn commit(
        &mut self,
        cta: CtaGroup,
        mbar_addr: u64,
        cta_mask: Option<u16>,
    ) -> Result<Vec<CommitArrive>, Ub> {
        self.same_cta_group(cta)?;
        let targets: Vec<MbarTarget> = match cta_mask {
            None => vec![MbarTarget {
                cta_rank: None,
                addr: mbar_addr,
            }],
            Some(m) => (0..16)
                .filter(|i| m >> i & 1 == 1)
                .map(|i| MbarTarget {
                    cta_rank: Some(i),
                    addr: mbar_addr,
                })
                .collect(),
        };
        // §9.7.16.12.1: ".cta_group::1 tracks ... all prior asynchronous tcgen05 operations with
        // .cta_group::1 issued by the current thread".
        let waits_on: BTreeSet<OpId> = self
            .outstanding
            .iter()
            .filter(|(_, k, c)| k.tracked_by_commit() && *c == cta)
            .map(|(id, _, _)| *id)
            .collect();
        if waits_on.is_empty() {
            return Ok(arrives(&targets));
        }
        self.commits.push(PendingCommit { waits_on, targets });
        Ok(Vec::new())
    }

    /// The operation `id` completed: the arrives of every commit whose tracked set is now done.
    pub fn complete(&mut self, id: OpId) -> Vec<CommitArrive> {
        self.outstanding.retain(|(o, _, _)| *o != id);
        let mut out = Vec::new();
        self.commits.retain_mut(|c| {
            c.waits_on.remove(&id);
            if c.waits_on.is_empty() {
                out.extend(arrives(&c.targets));
                false
            } else {
                true
            }
        });
        out
    }

    /// `tcgen05.wait::ld` (`kind = Ld`) or `tcgen05.wait::st` (`kind = St`).
    pub fn wait(&self, kind: AsyncKind) -> WaitState {
        let pending: Vec<OpId> = self
            .outstanding
            .iter()
            .filter(|(_, k, _)| *k == kind)
            .map(|(id, _, _)| *id)
            .collect();
        if pending.is_empty() {
            WaitState::Ready
        } else {
            WaitState::Blocked(pending)
        }
    }

    /// Outstanding operations, oldest first.
    pub fn outstanding(&self) -> impl Iterator<Item = (OpId, AsyncKind)> + '_ {
        self.outstanding.iter().map(|(id, k, _)| (*id, *k))
    }
}

fn arrives(targets: &[MbarTarget]) -> Vec<CommitArrive> {
    targets
        .iter()
        .map(|&target| CommitArrive {
            target,
            count: 1,
            increments_pending: false,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Random programs of cp/ld issues and commits, completed in a random order: every commit
        /// arrives exactly once, never before the ops issued ahead of it have completed.
        #[test]
        fn every_commit_arrives_once_after_its_prior_ops(
            prog in prop::collection::vec(0u8..3, 1..30),
            order in prop::collection::vec(any::<prop::sample::Index>(), 30),
        ) {
            let mut t = Tracker::new();
            let mut ops = Vec::new(); // (id, kind)
            let mut commits = Vec::new(); // (mbar addr, cp ops issued before it)
            let mut arrived: Vec<u64> = Vec::new();
            for step in prog {
                match step {
                    0 => ops.push((t.issue(AsyncKind::Cp, Some(CtaGroup::One)).unwrap(), AsyncKind::Cp)),
                    1 => ops.push((t.issue(AsyncKind::Ld, None).unwrap(), AsyncKind::Ld)),
                    _ => {
                        let addr = commits.len() as u64;
                        let prior: Vec<OpId> = ops.iter().filter(|(_, k)| *k == AsyncKind::Cp).map(|(id, _)| *id).collect();
                        commits.push((addr, prior));
                        arrived.extend(t.commit(CtaGroup::One, addr, None).unwrap().iter().map(|a| a.target.addr));
                    }
                }
            }
            let mut remaining: Vec<OpId> = ops.iter().map(|(id, _)| *id).collect();
            let mut done: Vec<OpId> = Vec::new();
            for ix in order {
                if remaining.is_empty() {
                    break;
                }
                let id = remaining.remove(ix.index(remaining.len()));
                done.push(id);
                for a in t.complete(id) {
                    let (_, prior) = &commits[a.target.addr as usize];
                    prop_assert!(prior.iter().all(|p| done.contains(p)), "commit {} arrived early", a.target.addr);
                    prop_assert_eq!(a.count, 1);
                    arrived.push(a.target.addr);
                }
            }
            for id in remaining {
                arrived.extend(t.complete(id).iter().map(|a| a.target.addr));
            }
            arrived.sort();
            prop_assert_eq!(arrived, (0..commits.len() as u64).collect::<Vec<_>>());
        }
    }

    const ONE: CtaGroup = CtaGroup::One;
    const LOCAL: MbarTarget = MbarTarget {
        cta_rank: None,
        addr: 0x100,
    };

    #[test]
    fn commit_arrives_after_all_prior_cp() {
        let mut t = Tracker::new();
        let a = t.issue(AsyncKind::Cp, Some(ONE)).unwrap();
        let b = t.issue(AsyncKind::Shift, Some(ONE)).unwrap();
        assert!(t.commit(ONE, 0x100, None).unwrap().is_empty());
        // out of order completion
        assert!(t.complete(b).is_empty());
        let ev = t.complete(a);
        assert_eq!(
            ev,
            vec![CommitArrive {
                target: LOCAL,
                count: 1,
                increments_pending: false
            }]
        );
    }

    #[test]
    fn commit_ignores_ld_st_and_later_ops() {
        let mut t = Tracker::new();
        let ld = t.issue(AsyncKind::Ld, None).unwrap();
        let cp = t.issue(AsyncKind::Cp, Some(ONE)).unwrap();
        t.commit(ONE, 0x100, None).unwrap();
        let later = t.issue(AsyncKind::Cp, Some(ONE)).unwrap();
        assert!(t.complete(ld).is_empty());
        assert_eq!(t.complete(cp).len(), 1);
        assert!(t.complete(later).is_empty(), "the commit is already done");
    }

    #[test]
    fn two_commits_can_track_the_same_op() {
        let mut t = Tracker::new();
        let a = t.issue(AsyncKind::Mma, Some(ONE)).unwrap();
        t.commit(ONE, 0x100, None).unwrap();
        let b = t.issue(AsyncKind::Cp, Some(ONE)).unwrap();
        t.commit(ONE, 0x200, None).unwrap();
        assert_eq!(t.complete(a).len(), 1); // the first commit
        let ev = t.complete(b);
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].target.addr, 0x200);
    }

    #[test]
    fn empty_commit_arrives_at_once() {
        let mut t = Tracker::new();
        assert_eq!(t.commit(ONE, 0x100, None).unwrap().len(), 1);
    }

    #[test]
    fn multicast_commit_targets_mask_bits() {
        let mut t = Tracker::new();
        let a = t.issue(AsyncKind::Cp, Some(CtaGroup::Two)).unwrap();
        t.commit(CtaGroup::Two, 0x40, Some(0b1010_0000_0000_0011))
            .unwrap();
        let ranks: Vec<Option<u32>> = t.complete(a).iter().map(|e| e.target.cta_rank).collect();
        assert_eq!(ranks, vec![Some(0), Some(1), Some(13), Some(15)]);
    }

    #[test]
    fn mixed_cta_group_is_ub() {
        let mut t = Tracker::new();
        t.issue(AsyncKind::Cp, Some(ONE)).unwrap();
        assert_eq!(
            t.commit(CtaGroup::Two, 0, None).unwrap_err().rule,
            "tcgen05.cta_group_mixed"
        );
        assert_eq!(
            t.issue(AsyncKind::Shift, Some(CtaGroup::Two))
                .unwrap_err()
                .rule,
            "tcgen05.cta_group_mixed"
        );
    }

    #[test]
    fn wait_ld_and_st_are_separate() {
        let mut t = Tracker::new();
        let ld = t.issue(AsyncKind::Ld, None).unwrap();
        let st = t.issue(AsyncKind::St, None).unwrap();
        t.issue(AsyncKind::Cp, Some(ONE)).unwrap();
        assert_eq!(t.wait(AsyncKind::Ld), WaitState::Blocked(vec![ld]));
        assert_eq!(t.wait(AsyncKind::St), WaitState::Blocked(vec![st]));
        t.complete(ld);
        assert_eq!(t.wait(AsyncKind::Ld), WaitState::Ready);
        assert_eq!(t.wait(AsyncKind::St), WaitState::Blocked(vec![st]));
    }
}
