//! The mbarrier object of §9.7.13.15.2–.7 as a pure state machine.
//!
//! A [`Slot`] is the 8-byte shared-memory location: either no valid object or a [`Mbarrier`].
//! Every operation checks the spec's undefined-behaviour rules first and returns [`Ub`] without
//! changing state when one applies. Phase completions are returned as [`PhaseCompleted`] events so
//! the executor can complete the asynchronous writes tracked by that phase.
//!
//! Model positions where the spec is silent (named, see `ASSUMPTIONS`):
//! - A-MB-EXPECT-TX-COMPLETES: §9.7.13.15.5.1 lists no "potentially completing" step for expect-tx,
//!   but §9.7.13.15.6 states completion as a condition on the counts; the model completes the
//!   phase on any update that leaves pending == 0 and tx-count == 0 (expect-tx included).
//! - A-MB-ARRIVE-COUNT: the arrive count operand "must be in the range as specified in Contents";
//!   the model uses the expected-arrival range [1, 2^20-1] (0 is UB).
//! - A-MB-TX-OPERAND: txCount operands are range-checked only through the resulting tx-count.
//! - A-MB-PARITY-PREINIT: parity 1 on a fresh object (phase 0) names the non-existent phase −1;
//!   the model treats it as complete (waitComplete = True).
//! - A-MB-STALE-PARITY: parity cannot name a phase older than the preceding one; the model answers
//!   from the current phase's parity (so a stale parity equal to the current one reads False).
//! - A-MB-WAIT-ANY-THREAD: the §9.7.13.15.4 rule "at least one test_wait/try_wait returning True
//!   before an arrive-on in the subsequent phase" is satisfied by a successful wait of any thread;
//!   the async arrive-on of cp.async.mbarrier.arrive is subject to it like any arrive-on.
//! - A-MB-STATE-INVALID-UB: waits on a state that is not of the current/preceding phase of this
//!   object ("valid only for") are classified as UB.

use super::mutant::{self, Mutant as M};
use super::ub::{self, Ub};

/// 2^20 − 1: the bound of every count (§9.7.13.15.2).
pub const MAX_COUNT: u32 = (1 << 20) - 1;

/// Names the model's positions on this object where the spec is silent.
pub const ASSUMPTIONS: &[&str] = &[
    "A-MB-EXPECT-TX-COMPLETES",
    "A-MB-ARRIVE-COUNT",
    "A-MB-TX-OPERAND",
    "A-MB-PARITY-PREINIT",
    "A-MB-STALE-PARITY",
    "A-MB-WAIT-ANY-THREAD",
    "A-MB-STATE-INVALID-UB",
];

/// Identity of one mbarrier *incarnation*: the location plus how many times it was initialized,
/// so a state token from before an inval/init pair is recognised as foreign.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Incarnation {
    pub location: u64,
    pub generation: u32,
}

/// The opaque 64-bit `state` returned by arrive: the phase before the arrive-on (§9.7.13.15.13),
/// plus what pending_count needs (§9.7.13.15.17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StateToken {
    pub of: Incarnation,
    pub phase: u64,
    /// Pending count before the arrive-on; only readable when `no_complete`.
    pub pending_before: u32,
    pub no_complete: bool,
}

/// A phase of an mbarrier incarnation completed (observable event).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PhaseCompleted {
    pub of: Incarnation,
    /// The phase number that completed (the object is now in `phase + 1`).
    pub phase: u64,
}

/// Contents of a valid mbarrier object (§9.7.13.15.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mbarrier {
    pub of: Incarnation,
    /// Current phase number (its parity is what `.parity` waits name).
    pub phase: u64,
    pub pending: u32,
    pub expected: u32,
    pub tx_count: i32,
    /// Has some wait returned True for the phase preceding the current one? (§9.7.13.15.4)
    pub preceding_observed: bool,
}

/// Arguments of one arrive-on issued by an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrive {
    /// Arrival count (defaults to 1; forced to 1 with `.expect_tx`, §9.7.13.15.13).
    pub count: u32,
    /// `.expect_tx` operand: an expect-tx performed before the arrive-on.
    pub expect_tx: Option<u32>,
    /// `arrive_drop`: also decrement the expected count for subsequent phases (§9.7.13.15.14).
    pub drop: bool,
    /// `.noComplete`: must not complete the phase (§9.7.13.15.13).
    pub no_complete: bool,
}

impl Arrive {
    pub fn one() -> Arrive {
        Arrive {
            count: 1,
            expect_tx: None,
            drop: false,
            no_complete: false,
        }
    }
    pub fn count(count: u32) -> Arrive {
        Arrive {
            count,
            ..Arrive::one()
        }
    }
    /// `.expect_tx` form: count is 1 (§9.7.13.15.13 "assumed to be 1").
    pub fn expect_tx(tx: u32) -> Arrive {
        Arrive {
            expect_tx: Some(tx),
            ..Arrive::one()
        }
    }
    pub fn dropping(self) -> Arrive {
        Arrive { drop: true, ..self }
    }
    pub fn no_complete(self) -> Arrive {
        Arrive {
            no_complete: true,
            ..self
        }
    }
}

/// Result of an arrive: the state token and the phase it completed, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrived {
    pub state: StateToken,
    pub completed: Option<PhaseCompleted>,
}

/// Handle of an arrive-on that cp.async.mbarrier.arrive scheduled; fire it with
/// [`Slot::fire_cp_async_arrive`] when all tracked cp.async operations complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PendingAsyncArrive {
    pub of: Incarnation,
    pub noinc: bool,
}

/// The 8-byte location that may hold an mbarrier object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    location: u64,
    generations: u32,
    state: Option<Mbarrier>,
    /// The object the last mbarrier.inval left in memory.
    left: Option<Mbarrier>,
    /// sm_90 silicon's reading ([`Slot::read_as_silicon`]).
    silicon: bool,
    /// The first arrive-on UB the silicon reading counted as a defined arrive-on
    /// (A-MB-ARRIVE-COUNTS-HW), until [`Slot::take_counted`].
    counted: Option<Ub>,
}

fn not_init(op: &str) -> Ub {
    Ub::new(
        &ub::MBAR_NOT_INITIALIZED,
        format!("{op} on a location without a valid mbarrier object"),
    )
}

/// `not_init` where no object was ever initialized at the location (A-MB-NEVER-INIT-HW).
fn never_init(op: &str) -> Ub {
    Ub::new(
        &ub::MBAR_NOT_INITIALIZED,
        format!("{op} on a location no mbarrier object was ever initialized at"),
    )
    .in_situation(ub::Situation::NeverInitialized)
}

impl Slot {
    /// A location (e.g. its shared-memory byte offset) holding no object yet.
    pub fn new(location: u64) -> Slot {
        Slot {
            location,
            generations: 0,
            state: None,
            left: None,
            silicon: false,
            counted: None,
        }
    }

    /// Run later operations as sm_90 silicon does (positions in `exec::predict`): operations
    /// other than init on the object the last mbarrier.inval left as on a valid one
    /// (A-MB-INVAL-KEEPS-HW), and an arrive-on that is UB only for when it happens, or an
    /// arrive_drop of every expected arrival, counted as a defined one, its UB kept for
    /// [`Slot::take_counted`] (A-MB-ARRIVE-COUNTS-HW).
    pub fn read_as_silicon(&mut self) {
        self.silicon = true;
    }

    /// The first arrive-on UB the silicon reading counted since the last call: an arrive-on in
    /// a phase whose preceding one no wait observed (`mbarrier.arrive_before_wait`), or a
    /// `.noComplete` one that completed its phase (`mbarrier.nocomplete_completes`).
    pub fn take_counted(&mut self) -> Option<Ub> {
        self.counted.take()
    }

    /// No object was ever initialized here (the harness zeroes the location).
    pub fn never_initialized(&self) -> bool {
        self.generations == 0
    }

    pub fn object(&self) -> Option<&Mbarrier> {
        self.state.as_ref()
    }

    fn valid(&mut self, op: &str) -> Result<&mut Mbarrier, Ub> {
        let never = self.generations == 0;
        let left = self.left.as_mut().filter(|_| self.silicon);
        self.state
            .as_mut()
            .or(left)
            .ok_or_else(|| if never { never_init(op) } else { not_init(op) })
    }

    /// mbarrier.init (§9.7.13.15.9): phase 0, expected = pending = count, tx-count 0.
    pub fn init(&mut self, count: u32) -> Result<Incarnation, Ub> {
        if self.state.is_some() {
            return Err(Ub::new(
                &ub::MBAR_INIT_ON_VALID,
                "init on a valid mbarrier object",
            ));
        }
        if !(1..=MAX_COUNT).contains(&count) {
            return Err(Ub::new(
                &ub::MBAR_INIT_COUNT_RANGE,
                format!("count {count}"),
            ));
        }
        self.generations += 1;
        self.left = None;
        let of = Incarnation {
            location: self.location,
            generation: self.generations,
        };
        self.state = Some(Mbarrier {
            of,
            phase: 0,
            pending: count,
            expected: count,
            tx_count: 0,
            preceding_observed: false,
        });
        Ok(of)
    }

    /// mbarrier.inval (§9.7.13.15.10).
    pub fn inval(&mut self) -> Result<(), Ub> {
        self.valid("mbarrier.inval")?;
        if let Some(m) = self.state.take() {
            self.left = Some(m);
        }
        Ok(())
    }

    /// mbarrier.expect_tx (§9.7.13.15.11, expect-tx §9.7.13.15.5.1).
    pub fn expect_tx(&mut self, tx: u32) -> Result<Option<PhaseCompleted>, Ub> {
        let m = self.valid("mbarrier.expect_tx")?;
        m.tx_count = add_tx(m.tx_count, tx as i64)?;
        if mutant::on(M::ExpectTxNeverCompletes) {
            return Ok(None);
        }
        Ok(m.maybe_complete())
    }

    /// mbarrier.complete_tx or the complete-tx of a finished async copy (§9.7.13.15.5.2).
    pub fn complete_tx(&mut self, tx: u32) -> Result<Option<PhaseCompleted>, Ub> {
        let m = self.valid("complete-tx")?;
        m.tx_count = add_tx(m.tx_count, -(tx as i64))?;
        Ok(m.maybe_complete())
    }

    /// mbarrier.arrive / arrive_drop, with optional .expect_tx / .noComplete
    /// (§9.7.13.15.13, .14; arrive-on §9.7.13.15.7).
    pub fn arrive(&mut self, a: Arrive) -> Result<Arrived, Ub> {
        let silicon = self.silicon;
        let m = self.valid(if a.drop {
            "mbarrier.arrive_drop"
        } else {
            "mbarrier.arrive"
        })?;
        let once = a.expect_tx.is_some() || mutant::on(M::ArriveCountIgnored);
        let count = if once { 1 } else { a.count };
        if count > MAX_COUNT {
            return Err(Ub::trapping(
                &ub::MBAR_ARRIVE_COUNT_RANGE,
                format!("count {count}"),
            ));
        }
        if count == 0 {
            return Err(Ub::new(&ub::MBAR_ARRIVE_COUNT_RANGE, "count 0"));
        }
        // Validate everything on a copy so UB leaves the object untouched.
        let mut next = m.clone();
        // The expect-tx precedes the arrive-on (§9.7.13.15.13); the mutant has them the other
        // way round.
        let late_tx = mutant::on(M::TxArriveBeforeExpect);
        if let (Some(tx), false) = (a.expect_tx, late_tx) {
            next.tx_count = add_tx(next.tx_count, tx as i64)?;
        }
        let mut dropped_to_zero = None;
        if a.drop && !mutant::on(M::ArriveDropKeepsExpected) {
            if next.expected <= count {
                let u = Ub::new(
                    &ub::MBAR_EXPECTED_RANGE,
                    format!(
                        "arrive_drop of {count} with expected count {}",
                        next.expected
                    ),
                );
                // Silicon drops the expected count to zero and counts the arrive-on: the phases
                // after it expect nothing, so any arrive-on on them passes the pending count
                // (A-MB-ARRIVE-COUNTS-HW). A drop past zero stays the text's.
                if !silicon || next.expected < count {
                    return Err(u);
                }
                dropped_to_zero = Some(u);
            }
            next.expected -= count;
        }
        let state = StateToken {
            of: m.of,
            phase: m.phase,
            pending_before: m.pending,
            no_complete: a.no_complete,
        };
        let (completed, early) = next.arrive_on(count, silicon)?;
        if let (Some(tx), true) = (a.expect_tx, late_tx) {
            next.tx_count = add_tx(next.tx_count, tx as i64)?;
        }
        let mut counted = dropped_to_zero.or(early);
        if a.no_complete && completed.is_some() && !mutant::on(M::NoCompleteNotChecked) {
            let u = Ub::new(
                &ub::MBAR_NOCOMPLETE_COMPLETES,
                format!("phase {} would complete", m.phase),
            );
            // Silicon completes the phase as a plain arrive-on would (A-MB-ARRIVE-COUNTS-HW).
            if !silicon {
                return Err(u);
            }
            counted.get_or_insert(u);
        }
        *m = next;
        self.keep_counted(counted);
        Ok(Arrived { state, completed })
    }

    /// cp.async.mbarrier.arrive{.noinc} issue (§9.7.13.15.15): without .noinc the pending count
    /// is incremented now; the arrive-on itself happens later via [`Slot::fire_cp_async_arrive`].
    pub fn cp_async_arrive(&mut self, noinc: bool) -> Result<PendingAsyncArrive, Ub> {
        let m = self.valid("cp.async.mbarrier.arrive")?;
        if noinc == mutant::on(M::CpAsyncArriveNoincInverted) {
            if m.pending >= MAX_COUNT {
                return Err(Ub::new(
                    &ub::MBAR_CP_ASYNC_INC_OVERFLOW,
                    format!("pending {} + 1", m.pending),
                ));
            }
            m.pending += 1;
        }
        Ok(PendingAsyncArrive { of: m.of, noinc })
    }

    /// The system-triggered arrive-on (count 1) of an earlier cp.async.mbarrier.arrive, once all
    /// cp.async operations it tracks have completed.
    pub fn fire_cp_async_arrive(
        &mut self,
        p: PendingAsyncArrive,
    ) -> Result<Option<PhaseCompleted>, Ub> {
        let silicon = self.silicon;
        let m = self.valid("cp.async.mbarrier.arrive (async arrive-on)")?;
        if m.of != p.of {
            return Err(not_init(
                "cp.async.mbarrier.arrive arrive-on after the object was invalidated",
            ));
        }
        let mut next = m.clone();
        let (done, early) = next.arrive_on(1, silicon)?;
        *m = next;
        self.keep_counted(early);
        Ok(done)
    }

    fn keep_counted(&mut self, u: Option<Ub>) {
        if self.counted.is_none() {
            self.counted = u;
        }
    }

    /// mbarrier.test_wait / try_wait with a state token (§9.7.13.15.16). Returns waitComplete.
    pub fn test_wait(&mut self, s: StateToken) -> Result<bool, Ub> {
        let m = self.valid("mbarrier.test_wait")?;
        if s.of != m.of {
            return Err(Ub::new(
                &ub::MBAR_WAIT_FOREIGN_STATE,
                format!("state of {:?}, object is {:?}", s.of, m.of),
            ));
        }
        if s.phase == m.phase {
            Ok(false)
        } else if s.phase + 1 == m.phase {
            m.preceding_observed = true;
            Ok(true)
        } else {
            Err(Ub::new(
                &ub::MBAR_WAIT_STALE_STATE,
                format!("state of phase {}, current phase {}", s.phase, m.phase),
            ))
        }
    }

    /// mbarrier.test_wait.parity / try_wait.parity (§9.7.13.15.16). Returns waitComplete.
    pub fn test_wait_parity(&mut self, parity: u32) -> Result<bool, Ub> {
        let m = self.valid("mbarrier.test_wait.parity")?;
        if parity > 1 {
            return Err(Ub::new(
                &ub::MBAR_PARITY_VALUE,
                format!("phaseParity {parity}"),
            ));
        }
        // Parity of the current phase: incomplete. Otherwise it names the preceding phase
        // (A-MB-PARITY-PREINIT: phase −1 of a fresh object counts as complete).
        let current = u64::from(parity) == m.phase & 1;
        let preinit_incomplete = m.phase == 0 && mutant::on(M::ParityPreinitIncomplete);
        if current != mutant::on(M::ParityInverted) || preinit_incomplete {
            Ok(false)
        } else {
            if m.phase > 0 {
                m.preceding_observed = true;
            }
            Ok(true)
        }
    }
}

/// mbarrier.pending_count (§9.7.13.15.17): the pending count before the arrive-on that produced
/// `s`; only defined for states of .noComplete arrives.
pub fn pending_count(s: StateToken) -> Result<u32, Ub> {
    if !s.no_complete {
        return Err(Ub::new(
            &ub::MBAR_PENDING_COUNT_STATE,
            "state not from arrive{_drop}.noComplete",
        ));
    }
    Ok(s.pending_before)
}

fn add_tx(tx: i32, delta: i64) -> Result<i32, Ub> {
    let v = tx as i64 + delta;
    if v.abs() > MAX_COUNT as i64 || (v < 0 && mutant::on(M::TxNegativeIsUb)) {
        let detail = format!("tx-count {tx} {delta:+} = {v}");
        return Err(if silicon_traps_at_tx(v) {
            Ub::trapping(&ub::MBAR_TX_RANGE, detail)
        } else {
            Ub::new(&ub::MBAR_TX_RANGE, detail)
        });
    }
    Ok(v as i32)
}

/// Whether sm_90 silicon traps on an object whose tx-count became `v`, outside the range
/// (A-TX-RANGE-HW in `exec::predict`): below it, and above 2^20, one past its end; at 2^20 it
/// runs on.
fn silicon_traps_at_tx(v: i64) -> bool {
    v < 0 || v > MAX_COUNT as i64 + 1
}

impl Mbarrier {
    /// Arrive-on (§9.7.13.15.7): pending −= count, then potentially complete the phase. An
    /// arrive-on before a wait observed the preceding phase is UB (§9.7.13.15.4); `silicon`
    /// counts it as any other and returns the UB beside the result (A-MB-ARRIVE-COUNTS-HW).
    fn arrive_on(
        &mut self,
        count: u32,
        silicon: bool,
    ) -> Result<(Option<PhaseCompleted>, Option<Ub>), Ub> {
        let early = (self.phase > 0 && !self.preceding_observed).then(|| {
            Ub::new(
                &ub::MBAR_ARRIVE_BEFORE_WAIT,
                format!(
                    "arrive-on in phase {} before any wait observed phase {}",
                    self.phase,
                    self.phase - 1
                ),
            )
        });
        let early = match (early, silicon) {
            (Some(u), false) => return Err(u),
            (early, _) => early,
        };
        if count > self.pending {
            return Err(Ub::new(
                &ub::MBAR_PENDING_RANGE,
                format!("arrive of {count} with {} pending", self.pending),
            ));
        }
        self.pending -= count;
        Ok((self.maybe_complete(), early))
    }

    /// Phase completion (§9.7.13.15.6): pending == 0 and tx-count == 0 → next phase, pending
    /// reinitialized to the expected count.
    fn maybe_complete(&mut self) -> Option<PhaseCompleted> {
        let tx_pending = self.tx_count != 0 && !mutant::on(M::TxIgnoredForPhase);
        if self.pending != 0 || tx_pending {
            return None;
        }
        let done = PhaseCompleted {
            of: self.of,
            phase: self.phase,
        };
        self.phase += 1;
        self.pending = self.expected;
        self.preceding_observed = false;
        Some(done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fresh(count: u32) -> Slot {
        let mut s = Slot::new(0x100);
        s.init(count).unwrap();
        s
    }

    #[test]
    fn silicon_runs_on_the_object_inval_left() {
        let mut text = fresh(1);
        text.inval().unwrap();
        let e = text.arrive(Arrive::one()).unwrap_err();
        assert_eq!((e.rule, e.situation), (ub::MBAR_NOT_INITIALIZED.id, None));

        let mut s = fresh(1);
        s.read_as_silicon();
        s.inval().unwrap();
        let done = s.arrive(Arrive::one()).unwrap().completed;
        assert_eq!(
            done.map(|c| c.phase),
            Some(0),
            "phase 0 of the old object completes"
        );
        // A new init is not an init on a valid object, and forgets the old one.
        let of = s.init(2).unwrap();
        assert_eq!(of.generation, 2);
        assert_eq!(s.object().map(|m| (m.phase, m.pending)), Some((0, 2)));

        let mut never = Slot::new(0x100);
        never.read_as_silicon();
        let e = never.arrive(Arrive::one()).unwrap_err();
        assert_eq!(e.situation, Some(ub::Situation::NeverInitialized));
    }

    #[test]
    fn init_ranges() {
        assert_eq!(
            Slot::new(0).init(0).unwrap_err().rule,
            "mbarrier.init_count_range"
        );
        assert_eq!(
            Slot::new(0).init(MAX_COUNT + 1).unwrap_err().rule,
            "mbarrier.init_count_range"
        );
        let mut s = Slot::new(0);
        s.init(MAX_COUNT).unwrap();
        let m = s.object().unwrap();
        assert_eq!(
            (m.phase, m.pending, m.expected, m.tx_count),
            (0, MAX_COUNT, MAX_COUNT, 0)
        );
        assert_eq!(s.init(1).unwrap_err().rule, "mbarrier.init_on_valid");
    }

    #[test]
    fn uninitialized_and_inval() {
        let mut s = Slot::new(8);
        assert_eq!(
            s.arrive(Arrive::one()).unwrap_err().rule,
            "mbarrier.not_initialized"
        );
        assert_eq!(s.inval().unwrap_err().rule, "mbarrier.not_initialized");
        assert_eq!(
            s.test_wait_parity(0).unwrap_err().rule,
            "mbarrier.not_initialized"
        );
        s.init(1).unwrap();
        s.inval().unwrap();
        assert_eq!(
            s.complete_tx(1).unwrap_err().rule,
            "mbarrier.not_initialized"
        );
        s.init(2).unwrap();
    }

    #[test]
    fn phase_flips_when_pending_reaches_zero() {
        let mut s = fresh(2);
        let a = s.arrive(Arrive::one()).unwrap();
        assert!(a.completed.is_none());
        assert!(!s.test_wait(a.state).unwrap());
        let b = s.arrive(Arrive::one()).unwrap();
        assert_eq!(b.completed.map(|c| c.phase), Some(0));
        let m = s.object().unwrap();
        assert_eq!((m.phase, m.pending), (1, 2));
        assert!(s.test_wait(a.state).unwrap());
        assert!(s.test_wait_parity(0).unwrap());
        assert!(!s.test_wait_parity(1).unwrap());
    }

    #[test]
    fn tx_gates_completion() {
        let mut s = fresh(1);
        let a = s.arrive(Arrive::expect_tx(64)).unwrap();
        assert!(a.completed.is_none());
        assert_eq!(s.object().unwrap().pending, 0);
        assert!(s.complete_tx(32).unwrap().is_none());
        assert_eq!(s.complete_tx(32).unwrap().map(|c| c.phase), Some(0));
    }

    #[test]
    fn negative_tx_then_expect_completes() {
        // complete_tx before expect_tx: tx-count goes negative (allowed range), A-MB-EXPECT-TX-COMPLETES.
        let mut s = fresh(1);
        s.complete_tx(16).unwrap();
        assert_eq!(s.object().unwrap().tx_count, -16);
        assert!(s.arrive(Arrive::one()).unwrap().completed.is_none());
        assert_eq!(s.expect_tx(16).unwrap().map(|c| c.phase), Some(0));
    }

    #[test]
    fn tx_range() {
        let mut s = fresh(1);
        s.expect_tx(MAX_COUNT).unwrap();
        assert_eq!(s.expect_tx(1).unwrap_err().rule, "mbarrier.tx_count_range");
        assert_eq!(s.object().unwrap().tx_count, MAX_COUNT as i32);
        let mut s = fresh(1);
        s.complete_tx(MAX_COUNT).unwrap();
        assert_eq!(
            s.complete_tx(1).unwrap_err().rule,
            "mbarrier.tx_count_range"
        );
        assert_eq!(
            fresh(1)
                .arrive(Arrive::expect_tx(MAX_COUNT + 1))
                .unwrap_err()
                .rule,
            "mbarrier.tx_count_range"
        );
        // Silicon runs on at one past the range's end and traps beyond it, or below it
        // (A-TX-RANGE-HW).
        let situation = |tx: u32| {
            let mut s = fresh(1);
            s.expect_tx(MAX_COUNT).unwrap();
            s.expect_tx(tx).unwrap_err().situation
        };
        assert_eq!(situation(1), None);
        assert_eq!(situation(2), Some(ub::Situation::Traps));
        let mut s = fresh(1);
        s.complete_tx(MAX_COUNT).unwrap();
        assert_eq!(
            s.complete_tx(1).unwrap_err().situation,
            Some(ub::Situation::Traps)
        );
    }

    #[test]
    fn arrive_count_and_pending_range() {
        let mut s = fresh(3);
        assert_eq!(
            s.arrive(Arrive::count(0)).unwrap_err().rule,
            "mbarrier.arrive_count_range"
        );
        assert_eq!(
            s.arrive(Arrive::count(4)).unwrap_err().rule,
            "mbarrier.pending_count_range"
        );
        assert_eq!(s.object().unwrap().pending, 3, "UB must not change state");
        assert_eq!(
            s.arrive(Arrive::count(3))
                .unwrap()
                .completed
                .map(|c| c.phase),
            Some(0)
        );
    }

    #[test]
    fn arrive_drop_lowers_expected_for_next_phases() {
        let mut s = fresh(3);
        s.arrive(Arrive::one().dropping()).unwrap();
        let m = s.object().unwrap();
        assert_eq!((m.pending, m.expected), (2, 2));
        s.arrive(Arrive::one()).unwrap();
        let c = s.arrive(Arrive::one()).unwrap();
        assert!(c.completed.is_some());
        assert_eq!(s.object().unwrap().pending, 2);
        // Dropping to an expected count of 0 leaves the table's range.
        let mut s = fresh(1);
        assert_eq!(
            s.arrive(Arrive::one().dropping()).unwrap_err().rule,
            "mbarrier.expected_count_range"
        );
    }

    #[test]
    fn no_complete() {
        let mut s = fresh(3);
        let a = s.arrive(Arrive::count(2).no_complete()).unwrap();
        assert_eq!(pending_count(a.state), Ok(3));
        assert_eq!(
            s.arrive(Arrive::count(1).no_complete()).unwrap_err().rule,
            "mbarrier.nocomplete_completes"
        );
        let b = s.arrive(Arrive::one()).unwrap();
        assert_eq!(
            pending_count(b.state).unwrap_err().rule,
            "mbarrier.pending_count_state"
        );
    }

    #[test]
    fn cp_async_arrive_inc_and_noinc() {
        // Default: +1 now, −1 later: zero net change; the phase still needs the thread arrive.
        let mut s = fresh(1);
        let p = s.cp_async_arrive(false).unwrap();
        assert_eq!(s.object().unwrap().pending, 2);
        assert!(s.arrive(Arrive::one()).unwrap().completed.is_none());
        assert_eq!(s.fire_cp_async_arrive(p).unwrap().map(|c| c.phase), Some(0));
        // .noinc: the init count must account for the async arrive.
        let mut s = fresh(2);
        let p = s.cp_async_arrive(true).unwrap();
        assert_eq!(s.object().unwrap().pending, 2);
        s.arrive(Arrive::one()).unwrap();
        assert!(s.fire_cp_async_arrive(p).unwrap().is_some());
        // Overflow of the increment.
        let mut s = fresh(MAX_COUNT);
        assert_eq!(
            s.cp_async_arrive(false).unwrap_err().rule,
            "mbarrier.cp_async_arrive_overflow"
        );
    }

    /// A-MB-ARRIVE-COUNTS-HW: under the silicon reading an early arrive-on and a `.noComplete`
    /// one that completes its phase count as defined ones, and the slot keeps the first UB.
    #[test]
    fn silicon_counts_early_and_no_complete_arrives() {
        let mut s = fresh(1);
        s.read_as_silicon();
        s.arrive(Arrive::one()).unwrap();
        let done = s.arrive(Arrive::one()).unwrap().completed;
        assert_eq!(done.map(|d| d.phase), Some(1));
        s.arrive(Arrive::one()).unwrap();
        assert_eq!(s.object().unwrap().phase, 3);
        let kept = s.take_counted().map(|u| u.rule);
        assert_eq!(kept, Some("mbarrier.arrive_before_wait"));
        assert!(s.take_counted().is_none());
        let mut s = fresh(2);
        s.read_as_silicon();
        let a = s.arrive(Arrive::count(2).no_complete()).unwrap();
        assert_eq!(a.completed.map(|d| d.phase), Some(0));
        let kept = s.take_counted().map(|u| u.rule);
        assert_eq!(kept, Some("mbarrier.nocomplete_completes"));
        // The text's reading stops at both, the object untouched.
        let mut s = fresh(2);
        let rule = s.arrive(Arrive::count(2).no_complete()).unwrap_err().rule;
        assert_eq!(rule, "mbarrier.nocomplete_completes");
        assert_eq!(s.object().unwrap().pending, 2);
    }

    #[test]
    fn wait_validity() {
        let mut s = fresh(1);
        // A-MB-PARITY-PREINIT
        assert!(s.test_wait_parity(1).unwrap());
        assert!(!s.test_wait_parity(0).unwrap());
        assert_eq!(
            s.test_wait_parity(2).unwrap_err().rule,
            "mbarrier.parity_value"
        );
        let a0 = s.arrive(Arrive::one()).unwrap().state;
        // phase 1: arrive before any wait observed phase 0
        assert_eq!(
            s.arrive(Arrive::one()).unwrap_err().rule,
            "mbarrier.arrive_before_wait"
        );
        assert!(s.test_wait(a0).unwrap());
        let _a1 = s.arrive(Arrive::one()).unwrap();
        assert!(s.test_wait_parity(1).unwrap());
        s.arrive(Arrive::one()).unwrap();
        // a0 is two phases old now
        assert_eq!(
            s.test_wait(a0).unwrap_err().rule,
            "mbarrier.wait_stale_state"
        );
        let mut other = Slot::new(0x200);
        other.init(1).unwrap();
        assert_eq!(
            other.test_wait(a0).unwrap_err().rule,
            "mbarrier.wait_foreign_state"
        );
        // Same location, re-initialized: the old token is foreign.
        s.inval().unwrap();
        s.init(1).unwrap();
        assert_eq!(
            s.test_wait(a0).unwrap_err().rule,
            "mbarrier.wait_foreign_state"
        );
    }

    /// Every rule of the Mbarrier layer is produced by some operation here.
    #[test]
    fn every_mbarrier_rule_is_reachable() {
        let mut hit = std::collections::HashSet::new();
        let mut note = |r: Result<(), Ub>| {
            hit.insert(r.unwrap_err().rule);
        };
        note(Slot::new(0).inval());
        note(fresh(1).init(1).map(|_| ()));
        note(Slot::new(0).init(0).map(|_| ()));
        note(fresh(1).arrive(Arrive::count(0)).map(|_| ()));
        note(fresh(1).arrive(Arrive::count(2)).map(|_| ()));
        note(fresh(1).arrive(Arrive::one().dropping()).map(|_| ()));
        note(fresh(1).complete_tx(MAX_COUNT + 1).map(|_| ()));
        note(fresh(MAX_COUNT).cp_async_arrive(false).map(|_| ()));
        note(fresh(1).arrive(Arrive::one().no_complete()).map(|_| ()));
        let mut s = fresh(1);
        let st = s.arrive(Arrive::one()).unwrap().state;
        note(pending_count(st).map(|_| ()));
        let mut other = Slot::new(0x300);
        other.init(1).unwrap();
        note(other.test_wait(st).map(|_| ()));
        note(s.test_wait_parity(7).map(|_| ()));
        note(s.arrive(Arrive::one()).map(|_| ()));
        s.test_wait(st).unwrap();
        s.arrive(Arrive::one()).unwrap();
        note(s.test_wait(st).map(|_| ()));
        for r in ub::of_layer(ub::Layer::Mbarrier) {
            assert!(hit.contains(r.id), "rule {} not reachable", r.id);
        }
        assert_eq!(hit.len(), ub::of_layer(ub::Layer::Mbarrier).count());
    }

    #[derive(Clone, Debug)]
    enum Op {
        Arrive(u32),
        ArriveTx(u32),
        Expect(u32),
        Complete(u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (1u32..4).prop_map(Op::Arrive),
            (0u32..300).prop_map(Op::ArriveTx),
            (0u32..300).prop_map(Op::Expect),
            (0u32..300).prop_map(Op::Complete),
        ]
    }

    #[derive(Clone, Debug)]
    enum Ev {
        Arrive,
        ArriveTx(u32),
        Complete(u32),
    }

    /// One phase's events: `expected` arrivals (some carrying expect_tx) and complete_tx chunks
    /// that sum to the expected bytes, in random order.
    fn phase_plan() -> impl Strategy<Value = (u32, Vec<Ev>)> {
        (
            1u32..6,
            proptest::collection::vec((any::<bool>(), 0u32..512), 6),
        )
            .prop_flat_map(|(n, txs)| {
                let mut evs = vec![];
                for (with_tx, t) in txs.into_iter().take(n as usize) {
                    if with_tx {
                        evs.push(Ev::ArriveTx(t));
                        evs.push(Ev::Complete(t / 3));
                        evs.push(Ev::Complete(t - t / 3));
                    } else {
                        evs.push(Ev::Arrive);
                    }
                }
                (Just(n), Just(evs).prop_shuffle())
            })
    }

    proptest! {
        /// The phase completes at exactly the first event after which every arrival has happened
        /// and Σexpect_tx == Σcomplete_tx; never earlier, never later.
        #[test]
        fn completes_exactly_when_balanced((n, evs) in phase_plan()) {
            let mut s = fresh(n);
            let (mut arrived, mut tx) = (0u32, 0i64);
            for e in evs {
                let done = match e {
                    Ev::Arrive => { arrived += 1; s.arrive(Arrive::one()).unwrap().completed }
                    Ev::ArriveTx(t) => { arrived += 1; tx += t as i64; s.arrive(Arrive::expect_tx(t)).unwrap().completed }
                    Ev::Complete(t) => { tx -= t as i64; s.complete_tx(t).unwrap() }
                };
                let balanced = arrived == n && tx == 0;
                prop_assert_eq!(done.is_some(), balanced);
                if balanced {
                    prop_assert_eq!(s.object().unwrap().phase, 1);
                    return Ok(());
                }
            }
            prop_assert!(false, "a full plan must complete the phase");
        }

        /// Per phase: Σexpect_tx == Σcomplete_tx exactly when it completes, arrivals == expected,
        /// and the phase flips exactly when both counts reach zero.
        #[test]
        fn tx_bookkeeping(expected in 1u32..5, ops in proptest::collection::vec(op(), 1..60)) {
            let mut s = fresh(expected);
            let (mut exp_sum, mut comp_sum, mut arrivals) = (0i64, 0i64, 0u32);
            for o in ops {
                let before = s.clone();
                let r = match o {
                    Op::Arrive(c) => s.arrive(Arrive::count(c)).map(|a| { arrivals += c; a.completed }),
                    Op::ArriveTx(t) => s.arrive(Arrive::expect_tx(t)).map(|a| { arrivals += 1; exp_sum += t as i64; a.completed }),
                    Op::Expect(t) => s.expect_tx(t).inspect(|_| exp_sum += t as i64),
                    Op::Complete(t) => s.complete_tx(t).inspect(|_| comp_sum += t as i64),
                };
                match r {
                    Err(_) => prop_assert_eq!(&s, &before),
                    Ok(done) => {
                        let m = s.object().unwrap().clone();
                        let b = before.object().unwrap();
                        prop_assert_eq!(m.tx_count as i64, if done.is_some() { 0 } else { exp_sum - comp_sum });
                        if let Some(d) = done {
                            prop_assert_eq!(d.phase, b.phase);
                            prop_assert_eq!(exp_sum, comp_sum);
                            prop_assert_eq!(arrivals, expected);
                            prop_assert_eq!(m.phase, b.phase + 1);
                            prop_assert_eq!(m.pending, expected);
                            prop_assert_eq!(m.tx_count, 0);
                            exp_sum = 0; comp_sum = 0; arrivals = 0;
                            // let the next phase proceed
                            prop_assert!(s.test_wait_parity((b.phase & 1) as u32).unwrap());
                        } else {
                            prop_assert_eq!(m.phase, b.phase);
                            prop_assert!(m.pending != 0 || m.tx_count != 0);
                            prop_assert_eq!(m.pending, expected - arrivals);
                        }
                    }
                }
            }
        }
    }
}
