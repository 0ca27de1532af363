//! Per-thread async-group queues (§9.7.9.25.1.1): the cp.async-group of cp.async
//! (§9.7.9.25.3.2–.3) and the bulk async-group of cp{.reduce}.async.bulk{.tensor}
//! (§9.7.9.25.6). A queue only decides *which* operations a wait completes; the caller applies
//! the returned [`Release`] to [`Memory`].
//!
//! Model positions (named):
//! - A-GRP-EMPTY-COUNTS: `wait_group N` leaves exactly the N most recently committed groups
//!   pending, counting empty groups as positions. Empty groups are "trivially complete"
//!   (§9.7.9.25.3.3), but groups complete in commit order (§9.7.9.25.1.1), so an empty group
//!   cannot let an older non-empty group stay pending in its place.
//! - A-GRP-READ: `cp.async.bulk.wait_group.read N` (§9.7.9.25.6.2) only guarantees that the
//!   source reads of the older groups finished: their source holds are released (the source may
//!   be reused) but their destination writes stay in flight, so destination bytes remain
//!   {old, new} until a later full wait completes them. The groups stay queued and still count.
//! - A-GRP-ORDER: within a group there is no order (§9.7.9.25.1.1); completions are returned in
//!   issue order, and overlapping writes are left to [`Memory`]'s concurrency rule.

use std::collections::VecDeque;

use super::memory::{MemError, Memory, ReadHoldId, WriteId};
use crate::sem::mutant::{self, Mutant as M};

/// What one asynchronous operation needs completed: its destination write and its source read
/// (either may be absent, e.g. cp.async with ignore-src has no read, a prefetch neither).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AsyncOp {
    pub write: Option<WriteId>,
    pub read: Option<ReadHoldId>,
}

/// What a wait makes happen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Release {
    pub complete_writes: Vec<WriteId>,
    pub release_reads: Vec<ReadHoldId>,
}

impl Release {
    fn add(&mut self, op: &AsyncOp, writes: bool) {
        if writes {
            self.complete_writes.extend(op.write);
        }
        self.release_reads.extend(op.read);
    }

    /// Applies it: completes the writes and frees the sources. A write completed or a source
    /// released already by another mechanism (an op tracked by both) is fine.
    pub fn apply(&self, mem: &mut Memory) -> Result<(), MemError> {
        for r in &self.release_reads {
            if mem.is_held(*r) {
                mem.release_source(*r)?;
            }
        }
        for w in &self.complete_writes {
            mem.complete(*w)?;
        }
        Ok(())
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Group {
    ops: Vec<AsyncOp>,
    reads_released: bool,
}

/// One thread's queue of one kind (cp.async or bulk; §9.7.9.25.1.1 keeps them separate).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupQueue {
    uncommitted: Vec<AsyncOp>,
    committed: VecDeque<Group>,
}

impl GroupQueue {
    pub fn new() -> GroupQueue {
        GroupQueue::default()
    }

    /// An operation tracked by this queue's mechanism was initiated.
    pub fn issue(&mut self, op: AsyncOp) {
        self.uncommitted.push(op);
    }

    /// commit_group: all uncommitted operations form a new group (possibly empty).
    pub fn commit(&mut self) {
        let ops = std::mem::take(&mut self.uncommitted);
        if ops.is_empty() && mutant::on(M::EmptyGroupNotCounted) {
            return;
        }
        self.committed.push_back(Group {
            ops,
            reads_released: false,
        });
    }

    /// Committed groups not yet completed by a wait (empty ones included, A-GRP-EMPTY-COUNTS).
    pub fn committed_groups(&self) -> usize {
        self.committed.len()
    }

    /// Operations initiated but not committed.
    pub fn uncommitted(&self) -> &[AsyncOp] {
        &self.uncommitted
    }

    /// Every operation not yet completed by a wait, committed or not (what
    /// cp.async.mbarrier.arrive tracks: "all prior cp.async operations", §9.7.13.15.15).
    pub fn outstanding(&self) -> Vec<AsyncOp> {
        self.committed
            .iter()
            .flat_map(|g| g.ops.iter().copied())
            .chain(self.uncommitted.iter().copied())
            .collect()
    }

    /// wait_group N (§9.7.9.25.3.3, §9.7.9.25.6.2): all but the N most recent groups complete.
    pub fn wait_group(&mut self, n: usize) -> Release {
        let mut rel = Release::default();
        let n = match n {
            0 if mutant::on(M::WaitGroupZeroWaitsNothing) => usize::MAX,
            n => n + usize::from(mutant::on(M::WaitGroupKeepsOneMore)),
        };
        while self.committed.len() > n {
            if let Some(g) = self.committed.pop_front() {
                for op in &g.ops {
                    if g.reads_released {
                        rel.complete_writes.extend(op.write);
                    } else {
                        rel.add(op, true);
                    }
                }
            }
        }
        rel
    }

    /// cp.async.wait_all = commit_group; wait_group 0 (§9.7.9.25.3.3).
    pub fn wait_all(&mut self) -> Release {
        if !mutant::on(M::WaitAllSkipsUncommitted) {
            self.commit();
        }
        self.wait_group(0)
    }

    /// cp.async.bulk.wait_group.read N (A-GRP-READ): only the source reads of all but the N most
    /// recent groups finish.
    pub fn wait_group_read(&mut self, n: usize) -> Release {
        let mut rel = Release::default();
        let older = self.committed.len().saturating_sub(n);
        for g in self.committed.iter_mut().take(older) {
            if !g.reads_released {
                for op in &g.ops {
                    rel.add(op, mutant::on(M::WaitReadCompletesWrites));
                }
                g.reads_released = true;
            }
        }
        rel
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sem::memory::{Addr, Byte, RegionId};
    use proptest::prelude::*;

    fn op(i: u64) -> AsyncOp {
        AsyncOp {
            write: Some(WriteId(i)),
            read: Some(ReadHoldId(100 + i)),
        }
    }
    fn writes(r: &Release) -> Vec<u64> {
        r.complete_writes.iter().map(|w| w.0).collect()
    }

    #[test]
    fn spec_example_wait_group_1() {
        // §9.7.9.25.3.3 example: three groups, wait_group 1 completes groups 1 and 2.
        let mut q = GroupQueue::new();
        q.issue(op(1));
        q.commit();
        q.issue(op(2));
        q.commit();
        q.issue(op(3));
        q.commit();
        assert_eq!(writes(&q.wait_group(1)), vec![1, 2]);
        assert_eq!(q.committed_groups(), 1);
        assert_eq!(writes(&q.wait_group(1)), Vec::<u64>::new());
    }

    #[test]
    fn wait_all_commits_first_and_uncommitted_not_waited() {
        let mut q = GroupQueue::new();
        q.issue(op(1));
        q.commit();
        q.issue(op(2));
        // wait_group 0 does not cover uncommitted ops
        assert_eq!(writes(&q.wait_group(0)), vec![1]);
        assert_eq!(q.outstanding(), vec![op(2)]);
        assert_eq!(writes(&q.wait_all()), vec![2]);
        assert!(q.outstanding().is_empty());
    }

    #[test]
    fn empty_groups_count_as_positions() {
        let mut q = GroupQueue::new();
        q.issue(op(1));
        q.commit();
        q.commit(); // empty
        assert_eq!(q.committed_groups(), 2);
        // A-GRP-EMPTY-COUNTS: the empty group is the most recent; group 1 must complete.
        assert_eq!(writes(&q.wait_group(1)), vec![1]);
    }

    #[test]
    fn bulk_read_wait_keeps_destination_uncertain() {
        let g = RegionId::Global(0);
        let s = RegionId::Shared { cta: 0 };
        let mut mem = Memory::new();
        mem.add_region(g, vec![0; 16]);
        mem.add_region(s, vec![5; 16]);
        let src = mem.read(Addr::new(s, 0), 16).unwrap();
        let hold = mem.hold_source(Addr::new(s, 0), 16).unwrap();
        let w = mem.begin_async_write(Addr::new(g, 0), src).unwrap();
        let mut q = GroupQueue::new();
        q.issue(AsyncOp {
            write: Some(w),
            read: Some(hold),
        });
        q.commit();
        let r = q.wait_group_read(0);
        assert_eq!(r.complete_writes, vec![]);
        r.apply(&mut mem).unwrap();
        assert!(
            mem.holds_overlapping(Addr::new(s, 0), 16).is_empty(),
            "source reusable"
        );
        assert!(mem.is_in_flight(w), "destination still in flight");
        assert_eq!(
            mem.read(Addr::new(g, 0), 1).unwrap()[0],
            Byte::Known(0).union(Byte::Known(5))
        );
        // a second .read wait releases nothing twice
        assert_eq!(q.wait_group_read(0), Release::default());
        let r = q.wait_group(0);
        assert_eq!(r.release_reads, vec![]);
        r.apply(&mut mem).unwrap();
        assert_eq!(
            mem.read_known(Addr::new(g, 0), 16).unwrap(),
            Some(vec![5; 16])
        );
    }

    proptest! {
        /// wait_group N leaves exactly min(N, groups) groups; completed ops come out oldest first,
        /// each exactly once over the queue's life.
        #[test]
        fn each_op_completed_once(script in proptest::collection::vec(0u8..4, 1..60)) {
            let mut q = GroupQueue::new();
            let (mut next, mut done) = (0u64, vec![]);
            for s in script {
                match s {
                    0 => { q.issue(op(next)); next += 1; }
                    1 => q.commit(),
                    2 => { let before = q.committed_groups(); let n = (next % 3) as usize;
                           done.extend(writes(&q.wait_group(n)));
                           prop_assert_eq!(q.committed_groups(), before.min(n)); }
                    _ => { done.extend(writes(&q.wait_all())); prop_assert_eq!(q.committed_groups(), 0); }
                }
            }
            done.extend(writes(&q.wait_all()));
            prop_assert_eq!(done, (0..next).collect::<Vec<_>>());
        }
    }
}
