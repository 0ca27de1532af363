//! Asynchronous operations on the machine: their sources read and held at issue, their writes and
//! reductions in flight, the mbarrier or async-group that tracks them, and landing them when a
//! wait guarantees them (A-EXEC-EVENTUAL, A-EXEC-WAIT-LANDS); with the proxy rules they meet.

use super::{mbar_key, ub, ErrorKind, Machine, Stop, TouchKind, R};
use crate::layout::MBARRIER_BYTES;
use crate::ptx::common::{RedOp, RedType};
use crate::sem::groups::{AsyncOp, GroupQueue, Release};
use crate::sem::memory::{Addr, Byte, Landing, ReadHoldId, RegionId, WriteId};
use crate::sem::profile::{Position, Profile};
use crate::sem::proxy::{self, Note, Proxy, ProxyRule};
use crate::sem::reduce::{Arith, ReduceForm};
use crate::sem::tracking::{self, CopyKind, TrackedCopy};

/// The kinds of UB the silicon run goes past ([`Machine::run_past`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Past {
    DataRace,
    TxRace,
    Counted,
}

/// A reduction in flight: what to compute when it lands.
#[derive(Clone, Debug)]
pub(super) struct Update {
    op: RedOp,
    ty: RedType,
    form: ReduceForm,
    src: Vec<Byte>,
}

/// The result of a landing reduction under `profile`; a position whose readings differ for these
/// operands is added to `departures`.
pub(super) fn reduce_update(
    profile: Profile,
    u: &Update,
    cur: &[Byte],
    departures: &mut Vec<&'static Position>,
) -> Result<Vec<Byte>, ErrorKind> {
    let arith = Arith {
        profile,
        form: u.form,
    };
    let r = crate::sem::reduce::apply_uncertain(arith, u.op, u.ty, cur, &u.src)
        .map_err(|e| ErrorKind::Internal(format!("{e:?}")))?;
    departures.extend(r.departs);
    Ok(r.bytes)
}

impl Machine<'_> {
    /// A valid mbarrier object overlapping `[at, at+len)`.
    pub(super) fn object_overlapping(&self, at: Addr, len: u64) -> Option<u64> {
        let RegionId::Shared { cta } = at.region else {
            return None;
        };
        self.slots
            .iter()
            .filter(|(k, s)| (*k >> 32) as u32 == cta && s.object().is_some())
            .map(|(k, _)| k & 0xffff_ffff)
            .find(|off| *off < at.offset + len && at.offset < off + MBARRIER_BYTES)
    }

    /// Records that a proxy rule applied in the current step (once per rule, step and CTA).
    pub(crate) fn note(&mut self, rule: &ProxyRule, detail: impl Into<String>) {
        let (step, cta) = (self.step, self.cta);
        if !self
            .notes
            .iter()
            .any(|n| n.rule == rule.id && n.step == step && n.cta == cta)
        {
            self.notes.push(Note {
                rule: rule.id,
                section: rule.section,
                step,
                cta,
                detail: detail.into(),
            });
        }
    }

    /// Reads `[at, at+len)` through `proxy`, noting the rule of a crossing that widened bytes.
    fn read_in(&mut self, at: Addr, len: u64, proxy: Proxy) -> R<Vec<Byte>> {
        let (bytes, crossed) = self.mem.read_in(at, len, proxy)?;
        if crossed > 0 {
            let (rule, what) = match proxy {
                Proxy::Async => (
                    &proxy::GENERIC_WRITE_ASYNC_READ,
                    "written through the generic proxy with no fence.proxy.async since",
                ),
                Proxy::Generic => (
                    &proxy::ASYNC_WRITE_GENERIC_READ,
                    "written by an async-proxy operation whose completion was not observed",
                ),
            };
            self.note(
                rule,
                format!("{crossed} byte(s) read at {at:?} were {what}: old or new value"),
            );
        }
        Ok(bytes)
    }

    /// Reads an asynchronous operation's source through `proxy` now (A-MEM-SOURCE-AT-ISSUE)
    /// and holds it.
    pub(crate) fn read_source(
        &mut self,
        at: Addr,
        len: u64,
        proxy: Proxy,
    ) -> R<(Vec<Byte>, ReadHoldId)> {
        if let Some(w) = self.mem.in_flight_overlapping(at, len).first() {
            let detail = format!("source overlaps asynchronous write {w:?} still in flight");
            self.run_past(Past::DataRace, ub::Ub::new(&ub::ASYNC_DST_READ, detail))?;
        }
        let bytes = self.read_in(at, len, proxy)?;
        let hold = self.mem.hold_source(at, len)?;
        self.touch(at, len, TouchKind::Read);
        Ok((bytes, hold))
    }

    /// UB the text's run stops at and silicon runs past (`past` says which kind): the silicon
    /// run keeps the first of each kind with its step and goes on.
    /// - A data race between the program and an asynchronous operation's memory (§9.7.9.25.1,
    ///   A-DATA-RACE-RUNS-ON-HW): the run's outcome should nothing later stop it, its bytes not
    ///   claimed.
    /// - `mbarrier.complete_tx_race` (§9.7.13.15.5, A-TX-RACE-HW): the phase completes or not,
    ///   and silicon goes on either way; the run goes on in its own order and the race's
    ///   outcomes join its own.
    /// - `mbarrier.arrive_before_wait` (§9.7.13.15.4), `mbarrier.nocomplete_completes`
    ///   (§9.7.13.15.13) and an arrive_drop of every expected arrival
    ///   (`mbarrier.expected_count_range`, §9.7.13.15.2; A-MB-ARRIVE-COUNTS-HW): the arrive-on
    ///   counts as a defined one; the mbarrier slots keep the UB for
    ///   [`Machine::keep_counted_arrives`].
    pub(super) fn run_past(&mut self, past: Past, u: ub::Ub) -> R {
        if self.reading != super::Reading::Silicon {
            return Err(super::Stop::Ub(u));
        }
        let step = self.step;
        self.ran_past(past).get_or_insert((u, step));
        Ok(())
    }

    fn ran_past(&mut self, past: Past) -> &mut Option<(ub::Ub, usize)> {
        match past {
            Past::DataRace => &mut self.raced,
            Past::TxRace => &mut self.tx_raced,
            Past::Counted => &mut self.counted_arrive,
        }
    }

    /// Keeps the first arrive-on UB the silicon reading's slots counted, as met by `step`
    /// (A-MB-ARRIVE-COUNTS-HW): the steps that arrive on an mbarrier, and the waits and the
    /// CTAs' exit that fire cp.async.mbarrier.arrive arrive-ons.
    pub(super) fn keep_counted_arrives(&mut self, step: usize) {
        let mut first = None;
        for s in self.slots.values_mut() {
            if let Some(u) = s.take_counted() {
                first.get_or_insert(u);
            }
        }
        if let Some(u) = first {
            self.ran_past(Past::Counted).get_or_insert((u, step));
        }
    }

    /// Checks shared by every write into memory: no unfinished source read of another operation,
    /// no mbarrier object overwritten.
    pub(super) fn check_write(&mut self, at: Addr, len: u64) -> R {
        if !self.mem.holds_overlapping(at, len).is_empty() {
            let detail = "write to the source of an asynchronous operation before it was read";
            self.run_past(Past::DataRace, ub::Ub::new(&ub::ASYNC_SRC_MODIFIED, detail))?;
        }
        if let Some(off) = self.object_overlapping(at, len) {
            return ub(
                &ub::MBAR_NON_MBARRIER_ACCESS,
                format!("write over the mbarrier object at shared offset {off}"),
            );
        }
        Ok(())
    }

    /// Notes `proxy.generic_write_async_write` if an async write over `[at, at+len)` is
    /// unordered with an unfenced generic write (memory widens the bytes when it lands).
    fn note_async_over_generic(&mut self, at: Addr, len: u64) -> R {
        let n = self.mem.unfenced_count(at, len, Proxy::Generic)?;
        if n > 0 {
            self.note(
                &proxy::GENERIC_WRITE_ASYNC_WRITE,
                format!("{n} byte(s) at {at:?} written through the generic proxy with no fence.proxy.async since: either value may remain"),
            );
        }
        Ok(())
    }

    /// Starts an asynchronous write of `bytes` at `at` through `proxy`.
    pub(crate) fn begin_write(&mut self, at: Addr, bytes: Vec<Byte>, proxy: Proxy) -> R<WriteId> {
        let len = bytes.len() as u64;
        self.check_write(at, len)?;
        if proxy == Proxy::Async {
            self.note_async_over_generic(at, len)?;
        }
        let w = self.mem.begin_write_in(at, bytes, proxy)?;
        self.touch(at, len, TouchKind::Issue);
        Ok(w)
    }

    /// Starts an asynchronous reduction of `src` into `at`.
    pub(crate) fn begin_update(
        &mut self,
        at: Addr,
        (op, ty, form): (RedOp, RedType, ReduceForm),
        src: Vec<Byte>,
    ) -> R<WriteId> {
        let len = src.len() as u64;
        self.check_write(at, len)?;
        self.note_async_over_generic(at, len)?;
        let w = self.mem.begin_async_update(at, len)?;
        self.updates.insert(w, Update { op, ty, form, src });
        self.touch(at, len, TouchKind::Issue);
        Ok(w)
    }

    /// Registers a copy whose completion performs complete-tx(`tx`) on mbarrier `(cta, off)`.
    /// A copy issued now will signal complete-tx to `barrier`: silicon performs it whether or not
    /// the program waits for it, and on a location never initialized that may trap
    /// (A-MB-NEVER-INIT-HW); the silicon run's prediction takes the trap in.
    pub(crate) fn signals(&mut self, barrier: (u32, u64)) {
        if self.reading == super::Reading::Silicon && self.slot(barrier).never_initialized() {
            self.signals_never_initialized = true;
        }
    }

    pub(crate) fn track(&mut self, op: AsyncOp, barrier: (u32, u64), tx: u64) -> R {
        self.track_kind(op, barrier, tx, CopyKind::Other)
    }

    pub(crate) fn track_kind(
        &mut self,
        op: AsyncOp,
        barrier: (u32, u64),
        tx: u64,
        kind: CopyKind,
    ) -> R {
        let tx =
            u32::try_from(tx).or_else(|_| ub(&ub::MBAR_TX_RANGE, format!("copy of {tx} bytes")))?;
        self.signals(barrier);
        let key = mbar_key(barrier.0, barrier.1);
        if barrier.0 != self.cta {
            if let Some((cta, thread)) = self.unreleased_inits.get(&key).copied() {
                self.note(
                    &proxy::MBARRIER_INIT_UNRELEASED,
                    format!("complete-tx from CTA {} on the mbarrier CTA {cta} thread {thread} initialised with no fence.mbarrier_init.release.cluster since", self.cta),
                );
            }
        }
        self.tracking.track_copy(TrackedCopy {
            op,
            barrier: mbar_key(barrier.0, barrier.1),
            tx_bytes: tx,
            issued_at: self.step,
            kind,
        });
        Ok(())
    }

    pub(crate) fn cp_queue(&mut self) -> &mut GroupQueue {
        &mut self.queues.entry((self.cta, self.thread)).or_default().cp
    }
    pub(crate) fn bulk_queue(&mut self) -> &mut GroupQueue {
        &mut self.queues.entry((self.cta, self.thread)).or_default().bulk
    }

    /// Lands one write: a reduction computes its result from the destination now (read through
    /// the async proxy). Every landing in the executor is an observed completion (a group wait
    /// or a wait on the tracking mbarrier, A-EXEC-EVENTUAL), so an async write is followed by
    /// the implicit generic-async proxy fence (`proxy.completion_fence`).
    fn land_write(&mut self, w: WriteId) -> R {
        let Some((at, len)) = self.mem.target(w) else {
            return Ok(());
        };
        // An async write's observed completion fences its bytes (`proxy.completion_fence`).
        let landing = match self.mem.proxy_of(w) {
            Some(Proxy::Async) => Landing::Observed,
            _ => Landing::Unobserved,
        };
        match self.updates.remove(&w) {
            Some(u) => {
                let cur = self.read_in(at, len, Proxy::Async)?;
                let res = reduce_update(self.profile, &u, &cur, &mut self.departures)
                    .map_err(Stop::Err)?;
                self.mem.complete_update_as(w, res, landing)?;
            }
            None => {
                self.mem.complete_as(w, landing)?;
            }
        }
        self.touch(at, len, TouchKind::Land);
        Ok(())
    }

    /// Applies a group wait's release (sources freed first, then writes landed).
    pub(crate) fn apply_release(&mut self, rel: Release) -> R {
        for r in rel.release_reads {
            if self.mem.is_held(r) {
                self.mem.release_source(r)?;
            }
        }
        for w in rel.complete_writes {
            self.land_write(w)?;
        }
        self.fire_arrives()
    }

    /// Fires cp.async.mbarrier.arrive arrive-ons whose operations all landed.
    pub(super) fn fire_arrives(&mut self) -> R {
        self.tracking
            .fire_ready_arrives(&mut self.slots, &self.mem)?;
        let mem = &self.mem;
        self.async_arrives.retain(|(_, ops)| {
            ops.iter()
                .any(|o| o.write.is_some_and(|w| mem.is_in_flight(w)))
        });
        Ok(())
    }

    /// A-EXEC-WAIT-LANDS: lands everything that will signal mbarrier `(cta, off)`.
    pub(crate) fn land_for_barrier(&mut self, b: (u32, u64)) -> R {
        let key = mbar_key(b.0, b.1);
        let ws: Vec<WriteId> = self
            .tracking
            .copies_for(key)
            .filter_map(|c| c.op.write)
            .collect();
        for w in ws {
            self.land_write(w)?;
        }
        let program = &self.case.program;
        let unordered = |a: usize, b: usize| concurrent(program, a, b);
        let go_on = self.reading == super::Reading::Silicon;
        let (_, race) =
            self.tracking
                .land_copies(key, (&mut self.slots, &mut self.mem), unordered, go_on)?;
        if let Some(u) = race {
            self.run_past(Past::TxRace, u)?;
        }
        self.land_arrive_ops(Some(key))
    }

    /// Would landing what signals `b` first (copies' complete-tx, then the pending
    /// cp.async.mbarrier.arrive arrive-ons) turn a parity wait that completes now into one on
    /// the current, incomplete phase? Tried on a copy of the object, which counts an arrive-on
    /// as silicon does (A-MB-ARRIVE-COUNTS-HW: one before a wait observed the preceding phase
    /// counts too); the machine is untouched.
    pub(super) fn landing_passes_wait(&self, b: (u32, u64), parity: u32) -> bool {
        let key = mbar_key(b.0, b.1);
        let Some(mut s) = self.slots.get(&key).cloned() else {
            return false;
        };
        s.read_as_silicon();
        let txs: Vec<u32> = self.tracking.copies_for(key).map(|c| c.tx_bytes).collect();
        let arrives = self.async_arrives.iter().filter(|(k, _)| *k == key).count();
        if (txs.is_empty() && arrives == 0) || s.test_wait_parity(parity) != Ok(true) {
            return false;
        }
        let landed = txs.iter().all(|&tx| s.complete_tx(tx).is_ok())
            && (0..arrives).all(|_| s.arrive(crate::sem::mbarrier::Arrive::one()).is_ok());
        landed && s.test_wait_parity(parity) == Ok(false)
    }

    /// A-ASYNC-ARRIVE-AT-EXIT-HW: silicon completes a CTA's cp.async operations before the CTA
    /// exits, and the arrive-on of each cp.async.mbarrier.arrive that waits for them happens
    /// then. Under the text nothing lands at the end (A-EXEC-EVENTUAL); the silicon run lands
    /// them and fires the arrive-ons at the program's end.
    pub(crate) fn land_arrives_at_exit(&mut self) -> R {
        self.land_arrive_ops(None)
    }

    /// Lands the cp.async operations of the pending cp.async.mbarrier.arrive arrive-ons on
    /// mbarrier `key` (every mbarrier: `None`) and fires those arrive-ons.
    pub(super) fn land_arrive_ops(&mut self, key: Option<u64>) -> R {
        let ops: Vec<AsyncOp> = self
            .async_arrives
            .iter()
            .filter(|(k, _)| key.is_none_or(|key| *k == key))
            .flat_map(|(_, ops)| ops.iter().copied())
            .collect();
        for op in ops {
            if let Some(w) = op.write {
                self.land_write(w)?;
            }
            tracking::land(&op, &mut self.mem)?;
        }
        self.fire_arrives()
    }
}

/// Are program steps `a` and `b` of one concurrent group (unordered with each other)?
pub(super) fn concurrent(program: &[crate::case_model::Step], a: usize, b: usize) -> bool {
    let group = |i: usize| program.get(i).and_then(|s| s.concurrent.as_deref());
    group(a).is_some() && group(a) == group(b)
}
