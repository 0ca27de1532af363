//! Glue between in-flight copies and the mbarriers they signal: which copies perform a
//! complete-tx on which object, and which cp.async.mbarrier.arrive arrive-ons wait for which
//! cp.async operations. The executor decides *when* a copy lands; this records *what follows*.
//!
//! Order when a copy lands (§9.7.9.25.4.1 "upon completion … the complete-tx operation will be
//! performed"): its destination write completes and its source read finishes first, then the
//! complete-tx, so a phase never completes while a write it tracks is still in flight.

use std::collections::BTreeMap;

use super::groups::AsyncOp;
use super::mbarrier::{PendingAsyncArrive, PhaseCompleted, Slot};
use super::memory::{MemError, Memory};
use super::ub::{TxRace, Ub};

/// Failure of a composed step: a classified UB or a memory bookkeeping error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SemError {
    Ub(Ub),
    Mem(MemError),
    /// No slot for the location the copy signals.
    NoBarrier(u64),
}

impl From<Ub> for SemError {
    fn from(u: Ub) -> SemError {
        SemError::Ub(u)
    }
}

impl From<MemError> for SemError {
    fn from(e: MemError) -> SemError {
        SemError::Mem(e)
    }
}

/// A copy whose completion performs complete-tx(`tx_bytes`) on the mbarrier at `barrier`
/// (one entry per signalled barrier; multicast registers one per destination CTA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrackedCopy {
    pub op: AsyncOp,
    pub barrier: u64,
    pub tx_bytes: u32,
    /// The program step that issued it.
    pub issued_at: usize,
    pub kind: CopyKind,
}

/// The kind of copy a tracked complete-tx comes from, where silicon's side of a race depends on
/// it (A-TX-RACE-HW).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyKind {
    /// A tensor load in `.im2col` mode (the `::w` modes are sm_100's, never run here).
    Im2colLoad,
    Other,
}

/// In-flight mbarrier-tracked work of a whole launch.
#[derive(Clone, Debug, Default)]
pub struct Tracking {
    copies: Vec<TrackedCopy>,
    arrives: Vec<(PendingAsyncArrive, Vec<AsyncOp>)>,
}

impl Tracking {
    pub fn new() -> Tracking {
        Tracking::default()
    }

    pub fn track_copy(&mut self, c: TrackedCopy) {
        self.copies.push(c);
    }

    /// cp.async.mbarrier.arrive: `ops` are the thread's outstanding cp.async operations
    /// ([`super::groups::GroupQueue::outstanding`]) at the time it executed.
    pub fn track_cp_async_arrive(&mut self, p: PendingAsyncArrive, ops: Vec<AsyncOp>) {
        self.arrives.push((p, ops));
    }

    /// Copies still to land on `barrier`.
    pub fn copies_for(&self, barrier: u64) -> impl Iterator<Item = &TrackedCopy> {
        self.copies.iter().filter(move |c| c.barrier == barrier)
    }

    /// Lands every tracked copy that signals `barrier`, in issue order: completes its write,
    /// releases its source, then performs its complete-tx. Returns the phases completed.
    /// A reduction's update must have been landed with [`Memory::complete_update`] first.
    /// `unordered(a, b)`: the steps that issued two copies are concurrent, so either may have
    /// issued first (their pieces are left out of each other's race, A-TX-RACE).
    /// A piece that completes a phase with pieces still to come is a race: with `go_on` the
    /// landing goes on in this order and returns the first race, otherwise it is the error.
    pub fn land_copies(
        &mut self,
        barrier: u64,
        (slots, mem): (&mut BTreeMap<u64, Slot>, &mut Memory),
        unordered: impl Fn(usize, usize) -> bool,
        go_on: bool,
    ) -> Result<(Vec<PhaseCompleted>, Option<Ub>), SemError> {
        let (now, later): (Vec<_>, Vec<_>) = self.copies.iter().partition(|c| c.barrier == barrier);
        self.copies = later;
        let (mut done, mut race) = (vec![], None);
        for (i, c) in now.iter().enumerate() {
            land(&c.op, mem)?;
            let slot = slots
                .get_mut(&c.barrier)
                .ok_or(SemError::NoBarrier(c.barrier))?;
            let Some(d) = slot.complete_tx(c.tx_bytes)? else {
                continue;
            };
            // A-TX-RACE: pieces still to land could have landed first and skipped zero.
            let left: u64 = now[i + 1..]
                .iter()
                .filter(|o| o.issued_at == c.issued_at || !unordered(o.issued_at, c.issued_at))
                .map(|o| u64::from(o.tx_bytes))
                .sum();
            if left > 0 {
                let u = Ub::tx_race(
                    TxRace::PieceReachedZero,
                    format!(
                        "a complete-tx of {} bytes completed phase {} with {left} bytes of \
                         issued copies still to signal it",
                        c.tx_bytes, d.phase
                    ),
                );
                if !go_on {
                    return Err(SemError::Ub(u));
                }
                race.get_or_insert(u);
            }
            done.push(d);
        }
        Ok((done, race))
    }

    /// Fires every scheduled cp.async arrive-on whose tracked operations have all landed
    /// (no write in flight). Returns the phases completed.
    pub fn fire_ready_arrives(
        &mut self,
        slots: &mut BTreeMap<u64, Slot>,
        mem: &Memory,
    ) -> Result<Vec<PhaseCompleted>, SemError> {
        let (ready, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.arrives)
            .into_iter()
            .partition(|(_, ops)| {
                ops.iter()
                    .all(|o| o.write.is_none_or(|w| !mem.is_in_flight(w)))
            });
        self.arrives = waiting;
        let mut done = vec![];
        for (p, _) in ready {
            let slot = slots
                .get_mut(&p.of.location)
                .ok_or(SemError::NoBarrier(p.of.location))?;
            done.extend(slot.fire_cp_async_arrive(p)?);
        }
        Ok(done)
    }
}

/// Completes one operation's write and releases its source (idempotent for the write).
pub fn land(op: &AsyncOp, mem: &mut Memory) -> Result<(), MemError> {
    if let Some(r) = op.read {
        // Already released (e.g. by a .read wait or another mechanism) is fine.
        if mem.is_held(r) {
            mem.release_source(r)?;
        }
    }
    if let Some(w) = op.write {
        mem.complete(w)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sem::groups::GroupQueue;
    use crate::sem::mbarrier::Arrive;
    use crate::sem::memory::{Addr, Byte, RegionId};

    const G: RegionId = RegionId::Global(0);
    const S: RegionId = RegionId::Shared { cta: 0 };
    const MB: u64 = 0x80;

    fn setup() -> (Memory, BTreeMap<u64, Slot>) {
        let mut mem = Memory::new();
        mem.add_region(G, (0..32).collect());
        mem.add_region(S, vec![0; 256]);
        let mut slots = BTreeMap::new();
        let mut s = Slot::new(MB);
        s.init(1).unwrap();
        slots.insert(MB, s);
        (mem, slots)
    }

    #[test]
    fn bulk_copy_lands_then_phase_completes() {
        let (mut mem, mut slots) = setup();
        let src = mem.read(Addr::new(G, 0), 32).unwrap();
        let hold = mem.hold_source(Addr::new(G, 0), 32).unwrap();
        let w = mem.begin_async_write(Addr::new(S, 0), src).unwrap();
        let mut t = Tracking::new();
        t.track_copy(TrackedCopy {
            op: AsyncOp {
                write: Some(w),
                read: Some(hold),
            },
            barrier: MB,
            tx_bytes: 32,
            issued_at: 0,
            kind: CopyKind::Other,
        });
        let a = slots
            .get_mut(&MB)
            .unwrap()
            .arrive(Arrive::expect_tx(32))
            .unwrap();
        assert!(a.completed.is_none());
        assert!(!slots.get_mut(&MB).unwrap().test_wait(a.state).unwrap());
        let (done, _) = t
            .land_copies(MB, (&mut slots, &mut mem), |_, _| false, false)
            .unwrap();
        assert_eq!(done.len(), 1);
        assert!(slots.get_mut(&MB).unwrap().test_wait(a.state).unwrap());
        assert_eq!(
            mem.read_known(Addr::new(S, 0), 32).unwrap(),
            Some((0..32).collect())
        );
        assert!(mem.holds_overlapping(Addr::new(G, 0), 32).is_empty());
        assert_eq!(t.copies_for(MB).count(), 0);
    }

    #[test]
    fn landing_more_bytes_than_expected_is_classified() {
        let (mut mem, mut slots) = setup();
        let w = mem
            .begin_async_write(Addr::new(S, 0), vec![Byte::Known(1); 16])
            .unwrap();
        let mut t = Tracking::new();
        t.track_copy(TrackedCopy {
            op: AsyncOp {
                write: Some(w),
                read: None,
            },
            barrier: MB,
            tx_bytes: (1 << 20) + 16,
            issued_at: 0,
            kind: CopyKind::Other,
        });
        assert!(
            matches!(t.land_copies(MB, (&mut slots, &mut mem), |_, _| false, false), Err(SemError::Ub(u)) if u.rule == "mbarrier.tx_count_range")
        );
    }

    #[test]
    fn cp_async_arrive_fires_after_its_copies() {
        let (mut mem, mut slots) = setup();
        let mut q = GroupQueue::new();
        let w = mem
            .begin_async_write(Addr::new(S, 0), vec![Byte::Known(7); 4])
            .unwrap();
        q.issue(AsyncOp {
            write: Some(w),
            read: None,
        });
        let p = slots.get_mut(&MB).unwrap().cp_async_arrive(false).unwrap();
        let mut t = Tracking::new();
        t.track_cp_async_arrive(p, q.outstanding());
        let st = slots.get_mut(&MB).unwrap().arrive(Arrive::one()).unwrap();
        assert!(st.completed.is_none());
        assert!(
            t.fire_ready_arrives(&mut slots, &mem).unwrap().is_empty(),
            "copy still in flight"
        );
        q.wait_all().apply(&mut mem).unwrap();
        assert_eq!(t.fire_ready_arrives(&mut slots, &mem).unwrap().len(), 1);
        assert!(
            t.fire_ready_arrives(&mut slots, &mem).unwrap().is_empty(),
            "fires once"
        );
    }
}
