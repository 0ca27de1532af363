//! mbarrier instructions (§9.7.13.15) on the `sem::mbarrier` state machine. Waits land what
//! signals the barrier first (A-EXEC-WAIT-LANDS) and are single probes (A-EXEC-PROBE).

use super::async_ops::{concurrent, Past};
use super::{mbar_key, Machine, Reg, R};
use crate::ptx::mbarrier::{ArriveMode, Dest, MbarSpace, MbarrierOp, TxOp, WaitOn};
use crate::ptx::operand::{Address, Value};
use crate::sem::mbarrier::{pending_count, Arrive, Arrived, PhaseCompleted, MAX_COUNT};
use crate::sem::tracking::{CopyKind, TrackedCopy};
use crate::sem::ub::{self, Situation, TxRace, Ub};

impl Machine<'_> {
    /// `.shared::cluster` operands may name another CTA of the cluster; `.shared{::cta}` and
    /// generic ones (A-EXEC-GENERIC-SHARED) the executing CTA only.
    fn mbar_operand(&self, space: Option<MbarSpace>, addr: &Address) -> R<(u32, u64)> {
        self.mbar(addr, space == Some(MbarSpace::SharedCluster))
    }

    fn out_reg(&mut self, v: &Value, r: Reg) {
        if let Value::Reg(name) = v {
            self.set_reg(name, r);
        }
    }

    /// The copies still to signal `b` that steps ordered before this one issued. A copy issued
    /// in this step's concurrent group is left to the reduction's assumption
    /// (A-EXEC-CONCURRENT-MBAR-COMMUTE): races are judged between ordered steps only.
    fn owed(&self, b: (u32, u64)) -> impl Iterator<Item = &TrackedCopy> {
        self.tracking
            .copies_for(mbar_key(b.0, b.1))
            .filter(|c| !concurrent(&self.case.program, c.issued_at, self.step))
    }

    /// A-TX-RACE: a phase of `b` that an instruction completed while issued copies it tracks
    /// still have complete-tx to perform. Any of them may land before the instruction (§9.7.13.15.5:
    /// a copy signals on its completion, at no stated time), and then the phase does not complete
    /// here: the run depends on an order the text leaves open ([`crate::sem::ub::MBAR_TX_RACE`]).
    fn phase_done(&mut self, b: (u32, u64), done: Option<PhaseCompleted>) -> R {
        let Some(d) = done else {
            return Ok(());
        };
        let owed: Vec<&TrackedCopy> = self.owed(b).collect();
        let left: u64 = owed.iter().map(|c| u64::from(c.tx_bytes)).sum();
        if left == 0 {
            return Ok(());
        }
        let u = Ub::tx_race(
            TxRace::ArrivalFirst,
            format!(
                "phase {} completed with {left} bytes of issued copies still to signal it",
                d.phase
            ),
        );
        // A-TX-RACE-HW: silicon's arrival has always come first where only im2col loads owed
        // the phase their complete-tx.
        let u = if owed.iter().all(|c| c.kind == CopyKind::Im2colLoad) {
            u.in_situation(Situation::Im2colArrivalFirst)
        } else {
            u
        };
        self.run_past(Past::TxRace, u)
    }

    /// A-TX-RANGE-HW in the other order: copies still in flight to `b` may signal before this
    /// complete-tx of `tx` (§9.7.13.15.5: at no stated time), and then it takes the tx-count
    /// below the range, where silicon traps. The run goes on in its own order (the copies
    /// signal at a wait); the prediction gains the trap.
    fn complete_tx_after_copies(&mut self, b: (u32, u64), tx: u32) {
        let Some(m) = self.slot(b).object() else {
            return;
        };
        let now = i64::from(m.tx_count);
        let owed: i64 = self.owed(b).map(|c| i64::from(c.tx_bytes)).sum();
        let first = now - i64::from(tx);
        if owed > 0 && first >= -i64::from(MAX_COUNT) && first - owed < -i64::from(MAX_COUNT) {
            self.tx_range_if_copies_first = true;
        }
    }

    /// A-TX-RACE-HW's and A-ASYNC-ARRIVE-LANDS-HW's other order
    /// ([`super::run::CopyOrder::BeforeNextUse`]): the copies in flight to `b` signal, and the
    /// pending cp.async.mbarrier.arrive arrive-ons on it fire, before this operation on it. In
    /// the run's own order a pending arrive-on met here calls for that other run.
    fn land_before_use(&mut self, b: (u32, u64)) -> R {
        let key = mbar_key(b.0, b.1);
        let arrive_owed = self.async_arrives.iter().any(|(k, _)| *k == key);
        match self.orders.copies {
            super::run::CopyOrder::BeforeNextUse => {
                if self.owed(b).any(|c| c.tx_bytes > 0) {
                    self.land_for_barrier(b)?;
                } else if arrive_owed {
                    self.land_arrive_ops(Some(key))?;
                }
            }
            super::run::CopyOrder::AtWait => {
                self.arrive_owed_at_use |= arrive_owed && self.reading == super::Reading::Silicon;
            }
        }
        Ok(())
    }

    /// A-MB-COPIES-FIRST-HW: an arrive-on past the pending count of a phase whose arrivals are
    /// all in and that copies in flight still owe complete-tx is UB only in the order where the
    /// copies have not signalled yet (§9.7.13.15.5: at no stated time). In the other they
    /// complete the phase and the arrive-on counts on the next one. The text's run stops in the
    /// situation; the silicon run lands the copies first and goes on, the trap kept beside.
    fn arrive(&mut self, b: (u32, u64), a: Arrive) -> R<Arrived> {
        self.land_before_use(b)?;
        let u = match self.slot(b).arrive(a) {
            Err(u) if u.rule == ub::MBAR_PENDING_RANGE.id => u,
            r => return Ok(r?),
        };
        let open = self.slot(b).object().is_some_and(|m| m.pending == 0);
        if !open || self.owed(b).all(|c| c.tx_bytes == 0) {
            return Err(u.into());
        }
        if self.reading == super::Reading::Text {
            return Err(u.in_situation(Situation::CopiesOwed).into());
        }
        self.pending_range_if_copies_late = true;
        self.land_for_barrier(b)?;
        Ok(self.slot(b).arrive(a)?)
    }

    pub(super) fn mbarrier(&mut self, op: &MbarrierOp) -> R {
        match op {
            MbarrierOp::Init { space, addr, count } => {
                let b = self.mbar_operand(*space, addr)?;
                let n = self.u32_operand(count, "count")?;
                self.land_before_use(b)?;
                // The object's bytes must not be in use by an asynchronous operation.
                self.slot(b).init(n)?;
                self.init_done(b);
                Ok(())
            }
            MbarrierOp::Inval { space, addr } => {
                let b = self.mbar_operand(*space, addr)?;
                self.land_before_use(b)?;
                Ok(self.slot(b).inval()?)
            }
            MbarrierOp::Tx {
                op,
                space,
                addr,
                tx_count,
                ..
            } => {
                let b = self.mbar_operand(*space, addr)?;
                let tx = self.u32_operand(tx_count, "txCount")?;
                self.land_before_use(b)?;
                if *op == TxOp::CompleteTx {
                    self.complete_tx_after_copies(b, tx);
                }
                let s = self.slot(b);
                let done = match op {
                    TxOp::ExpectTx => s.expect_tx(tx)?,
                    TxOp::CompleteTx => s.complete_tx(tx)?,
                };
                self.phase_done(b, done)
            }
            MbarrierOp::Arrive {
                drop,
                mode,
                space,
                dest,
                addr,
                ..
            } => {
                let b = self.mbar_operand(*space, addr)?;
                let mut a = match mode {
                    ArriveMode::Plain { count: None } => Arrive::one(),
                    ArriveMode::Plain { count: Some(c) } => {
                        Arrive::count(self.u32_operand(c, "count")?)
                    }
                    ArriveMode::ExpectTx { tx_count } => {
                        Arrive::expect_tx(self.u32_operand(tx_count, "txCount")?)
                    }
                    ArriveMode::NoComplete { count } => {
                        Arrive::count(self.u32_operand(count, "count")?).no_complete()
                    }
                };
                if *drop {
                    a = a.dropping();
                }
                let done = self.arrive(b, a)?;
                if let Dest::State(v) = dest {
                    self.out_reg(v, Reg::State(done.state));
                }
                self.phase_done(b, done.completed)
            }
            MbarrierOp::Wait {
                space,
                wait_complete,
                addr,
                on,
                ..
            } => {
                let b = self.mbar_operand(*space, addr)?;
                if let WaitOn::Parity(v) = on {
                    let p = self.u32_operand(v, "phaseParity")?;
                    if self.parity_race(b, p, "mbarrier.test_wait/try_wait")? {
                        self.land_for_barrier(b)?;
                    }
                }
                let probe = |m: &mut Self| -> Result<bool, super::Stop> {
                    Ok(match on {
                        WaitOn::State(v) => {
                            let st = m.state(v)?;
                            m.slot(b).test_wait(st)?
                        }
                        WaitOn::Parity(v) => {
                            let p = m.u32_operand(v, "phaseParity")?;
                            m.slot(b).test_wait_parity(p)?
                        }
                    })
                };
                // A-EXEC-WAIT-LANDS: land what signals the barrier only if the wait needs it.
                let ok = if probe(self)? {
                    true
                } else {
                    self.land_for_barrier(b)?;
                    probe(self)?
                };
                self.out_reg(wait_complete, Reg::Pred(ok));
                Ok(())
            }
            MbarrierOp::PendingCount { count, state } => {
                let st = self.state(state)?;
                let n = pending_count(st)?;
                self.out_reg(count, Reg::Int(i64::from(n)));
                Ok(())
            }
        }
    }
}
