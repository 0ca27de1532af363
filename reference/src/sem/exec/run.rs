//! Running a case: the public entry points (the text's reading, silicon's, every order), the
//! schedules of its concurrent steps, and the step loop that executes one schedule step by step
//! (a PTX statement dispatched to its instruction family, a `wait_parity` step, a `store` step).

use super::async_ops::Past;
use super::operands::store_address;
use super::predict::{situation_prediction, Prediction};
use super::{concurrent, tensor, ub, Machine, Stop, R};
use super::{ErrorKind, ExecError, ExecOptions, Execution, Outcome, TouchKind, TraceDetail};
use crate::case_model::names::ParsedSteps;
use crate::case_model::{Case, StepOp};
use crate::ptx::operand::Address;
use crate::ptx::{Instruction, Statement};

/// Runs the case under the text's reading ([`ExecOptions::default`]). Err only for case-level
/// errors; UB is an [`Outcome`].
pub fn execute(case: &Case) -> Result<Execution, ExecError> {
    execute_with(case, ExecOptions::default())
}

/// Runs the case with `opts`: once, or once per order of its concurrent steps, merged
/// (A-EXEC-CONCURRENT-INTERLEAVINGS).
pub fn execute_with(case: &Case, opts: ExecOptions) -> Result<Execution, ExecError> {
    let reduction = concurrent::Reduction::Commute;
    let mut ex = execute_reduced(case, opts, reduction, (Reading::Text, Keep::All, LANDS))?;
    // What silicon does with UB it has a reading of is what the program does under that reading.
    if has_silicon_reading(&ex) {
        // The text's run stands whatever the second one meets.
        if let Ok(silicon) = execute_silicon(case, opts) {
            // A situation's own outcomes stay allowed beside the run-on's: silicon gave them
            // in programs of the situation where the run-on predicts otherwise
            // (A-BULK-SELF-CLUSTER-LAUNCH-HW).
            let p = match &ex.outcome {
                Outcome::Undefined { ub: u, .. } => match u.situation {
                    Some(s) => silicon.prediction.union(&situation_prediction(s)),
                    None => silicon.prediction,
                },
                _ => silicon.prediction,
            };
            ex.expected_hw = p.coarse();
            ex.prediction = p;
            ex.readings = silicon.readings;
        }
    }
    Ok(ex)
}

/// How the executor reads the UB that sm_90 silicon was seen to run in one definite way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reading {
    /// The text's: the UB stops the run.
    Text,
    /// Silicon's: a tensor map is checked only against the rules the driver enforces
    /// (A-TENSOR-ACCEPTED-MAP-HW), a bulk size that is not a multiple of 16 is rounded down
    /// to one (A-BULK-SIZE-ROUNDS-DOWN), and a tensor unit that leaves its shared region inside
    /// the CTA's allocation lands there (A-OUT-OF-REGION-LANDS-HW), an mbarrier operation
    /// after mbarrier.inval runs on the object inval left (A-MB-INVAL-KEEPS-HW), and a
    /// .shared::cluster copy into the executing CTA of a cluster launch runs as a copy
    /// (A-BULK-SELF-CLUSTER-LAUNCH-HW), a bulk copy or tensor load whose .shared::cta
    /// destination is in another CTA of the cluster runs as the .shared::cluster form
    /// (A-BULK-DST-OTHER-CTA-HW),
    /// a blocking wait that never completes gives up and
    /// the program goes on (A-WAIT-RUNS-ON-HW), a data race with an asynchronous operation's
    /// memory goes on (A-DATA-RACE-RUNS-ON-HW), an arrive-on before a wait observed the
    /// preceding phase, or `.noComplete` and completing it, or an arrive_drop of every
    /// expected arrival, counts (A-MB-ARRIVE-COUNTS-HW), copies in flight signal before an
    /// arrive-on that would pass the pending count of the phase they owe
    /// (A-MB-COPIES-FIRST-HW), what is in flight lands before or after a parity wait it races
    /// with (A-WAIT-PARITY-RACE), copies that race a phase's completion signal at the wait or
    /// before the next use of their object (A-TX-RACE-HW), the arrive-ons of
    /// cp.async.mbarrier.arrive fire at the next use of their object or later
    /// (A-ASYNC-ARRIVE-LANDS-HW), and those still pending at the end happen there, or are lost
    /// when the last step issued them (A-ASYNC-ARRIVE-AT-EXIT-HW).
    Silicon,
}

/// Whether the run stopped at UB that [`Reading::Silicon`] runs on: a tensor map the driver
/// encodes against the text, a bulk size off the 16-byte granule, a shared access out of its
/// region inside the CTA's allocation (only tensor units run on; the others stop again), an
/// mbarrier operation after inval, a .shared::cluster copy into the executing CTA of a
/// cluster launch, a .shared::cta destination in another CTA, a blocking wait that never
/// completes, a data race with an asynchronous operation's memory, an arrive-on before a
/// wait observed the preceding phase, a `.noComplete` arrive-on that completes its phase, an
/// arrive_drop of every expected arrival, an arrive-on past the pending count of a phase that
/// copies in flight still owe, or a parity wait whose phase what is in flight may move past.
pub fn has_silicon_reading(ex: &Execution) -> bool {
    let Outcome::Undefined { ub: u, .. } = &ex.outcome else {
        return false;
    };
    (ex.driver_rejects.is_empty() && tensor::is_encode_rejection(&ex.outcome))
        || u.rule == ub::BULK_SIZE_MULTIPLE_16.id
        || u.situation == Some(ub::Situation::ClusterLaunch)
        || u.rule == ub::BULK_DST_NOT_OWN_CTA.id
        || u.rule == ub::TENSOR_DST_NOT_OWN_CTA.id
        || (u.rule == ub::MBAR_NOT_INITIALIZED.id
            && u.situation != Some(ub::Situation::NeverInitialized))
        || (u.rule == ub::ADDRESS_OUT_OF_REGION.id
            && u.shared_access
                .is_some_and(|a| !super::predict::leaves_allocation(&a)))
        || runs_on_past(u)
        || RACES.iter().any(|r| r.id == u.rule)
        || u.rule == ub::MBAR_TX_RACE.id
        || COUNTED_ARRIVES.iter().any(|r| r.id == u.rule)
        || u.situation == Some(ub::Situation::CopiesOwed)
        || u.rule == ub::MBAR_PARITY_WAIT_RACE.id
}

/// The arrive-on UB that silicon counts as a defined arrive-on (A-MB-ARRIVE-COUNTS-HW).
const COUNTED_ARRIVES: [&ub::UbRule; 3] = [
    &ub::MBAR_ARRIVE_BEFORE_WAIT,
    &ub::MBAR_NOCOMPLETE_COMPLETES,
    &ub::MBAR_EXPECTED_RANGE,
];

/// The data races silicon runs past (A-DATA-RACE-RUNS-ON-HW, `Machine::race`).
const RACES: [&ub::UbRule; 3] = [
    &ub::ASYNC_SRC_MODIFIED,
    &ub::ASYNC_DST_READ,
    &ub::ASYNC_DST_WRITTEN,
];

/// Whether silicon, as the harness runs it, goes on past this UB (A-WAIT-RUNS-ON-HW): a
/// blocking wait on a phase that never completes gives up at its bound and the kernel runs the
/// steps after it. A phase its copies overshot too, when silicon does not complete it
/// (A-TX-OVERSHOT-HW): the other branch, that it completes, is the overshot set's.
fn runs_on_past(u: &ub::Ub) -> bool {
    u.rule == ub::WAIT_NEVER_COMPLETES.id
}

/// Runs the case as sm_90 silicon runs the UB it has one reading of ([`Reading::Silicon`]):
/// tensor maps as encoded, bulk sizes rounded down to 16 bytes. Equal to [`execute_with`] for a
/// case without such UB. A run whose parity waits raced is run again in the other order, one
/// whose copies raced a phase's completion, or that met a cp.async.mbarrier.arrive's arrive-on
/// still pending at an operation on its object, in the order where they signal before the next
/// use of their object, one that fired arrive-ons its last step issued at the end without them,
/// and the prediction joins them (its bytes and trace are the first run's).
pub fn execute_silicon(case: &Case, opts: ExecOptions) -> Result<Execution, ExecError> {
    let reduction = concurrent::Reduction::Commute;
    let run = |order| execute_reduced(case, opts, reduction, (Reading::Silicon, Keep::All, order));
    let mut ex = run(LANDS)?;
    // A-WAIT-PARITY-RACE: the order in which the racing waits poll first goes on too, and its
    // outcomes stand beside (A-MB-PARITY-PASSED-HW). A-TX-RACE-HW: so does the order in which
    // the racing copies signal before the next operation on their object.
    let others = [
        (
            ex.raced_wait,
            Orders {
                wait: WaitOrder::PollsFirst,
                ..LANDS
            },
        ),
        (
            ex.copies_raced || ex.arrive_owed_at_use,
            Orders {
                copies: CopyOrder::BeforeNextUse,
                ..LANDS
            },
        ),
        (
            ex.exit_may_lose_arrives,
            Orders {
                exit: ExitOrder::LosesLast,
                ..LANDS
            },
        ),
    ];
    for (raced, order) in others {
        if !raced {
            continue;
        }
        if let Ok(other) = run(order) {
            ex.prediction = ex.prediction.union(&other.prediction);
            ex.expected_hw = ex.prediction.coarse();
            ex.readings.extend(other.readings);
            super::in_assumption_order(&mut ex.readings);
        }
    }
    Ok(ex)
}

/// The orders a run takes where the text leaves one open and silicon was seen to take either.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Orders {
    pub wait: WaitOrder,
    pub copies: CopyOrder,
    pub exit: ExitOrder,
}

/// When copies in flight signal their mbarrier (§9.7.13.15.5: at no stated time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CopyOrder {
    /// At the wait that needs them (A-EXEC-WAIT-LANDS), unless a run-on position lands them
    /// sooner.
    AtWait,
    /// Before the next arrive-on, expect-tx, complete-tx, init or inval on their object: a copy
    /// signals a few steps after its issue (A-MB-COPIES-FIRST-HW's probes), so a phase its
    /// bytes overshoot may never complete (A-TX-RACE-HW); a cp.async.mbarrier.arrive's
    /// arrive-on fires then too (A-ASYNC-ARRIVE-LANDS-HW).
    BeforeNextUse,
}

/// What becomes of the arrive-ons of cp.async.mbarrier.arrive still pending when the program
/// ends (A-ASYNC-ARRIVE-AT-EXIT-HW).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ExitOrder {
    /// They fire at the CTA's exit.
    Fires,
    /// None fires: where the program's last step issued one, the CTA may exit before its copies
    /// land.
    LosesLast,
}

/// Where a parity wait (the blocking step or one probe) races with what signals its object
/// (A-WAIT-PARITY-RACE): what is in flight lands before the wait polls, or after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitOrder {
    LandsFirst,
    PollsFirst,
}

/// The orders a run takes unless it runs another on purpose.
pub(crate) const LANDS: Orders = Orders {
    wait: WaitOrder::LandsFirst,
    copies: CopyOrder::AtWait,
    exit: ExitOrder::Fires,
};

/// The outcome [`execute`] finds, and the same errors, without what only a reader of the whole
/// execution wants: the trace (every step's text and mbarrier states) and the final state (every
/// region's bytes) are not kept, and the silicon reading (which changes only the prediction) is
/// not run. A CPU oracle over generated programs reads nothing else, and these were about half
/// of its run.
pub(crate) fn execute_outcome(case: &Case) -> Result<Outcome, ExecError> {
    let reduction = concurrent::Reduction::Commute;
    let opts = ExecOptions::default();
    execute_reduced(case, opts, reduction, (Reading::Text, Keep::Outcome, LANDS)).map(|e| e.outcome)
}

/// What an execution keeps of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keep {
    All,
    /// The outcome, notes and departures; an empty trace and final state, unless a reduction
    /// is still in flight at the end (settling it may fail) or several orders are merged (the
    /// merge compares their final states).
    Outcome,
}

/// Runs the case in every interleaving of its concurrent groups, without the partial-order
/// reduction (to test the reduction against; bounded like the reduced run).
pub fn execute_every_order(case: &Case) -> Result<Execution, ExecError> {
    execute_reduced(
        case,
        ExecOptions::default(),
        concurrent::Reduction::Off,
        (Reading::Text, Keep::All, LANDS),
    )
}

fn execute_reduced(
    case: &Case,
    opts: ExecOptions,
    reduction: concurrent::Reduction,
    (reading, keep, order): (Reading, Keep, Orders),
) -> Result<Execution, ExecError> {
    let _mutant = crate::sem::mutant::Scope::enter(opts.mutant);
    let parsed = crate::case_model::names::parsed_steps(case);
    if let Some((i, e)) = parsed
        .iter()
        .enumerate()
        .find_map(|(i, st)| Some((i, st.as_deref()?.as_ref().err()?)))
    {
        return Err(ExecError {
            step: Some(i),
            kind: ErrorKind::Parse(e.to_string()),
        });
    }
    let launch = |kind| ExecError { step: None, kind };
    // Runs every order of a plan; None when a run found A-EXEC-CONCURRENT-MBAR-COMMUTE
    // unjustified.
    let run = |plan: &concurrent::Plan| -> Result<Option<Vec<Execution>>, ExecError> {
        // Several orders are merged by their final states: each keeps everything.
        let keep = if plan.orders.len() > 1 {
            Keep::All
        } else {
            keep
        };
        plan.orders
            .iter()
            .map(|s| execute_schedule(case, (opts, reading, keep, order), &parsed, s, &plan.checks))
            .collect()
    };
    let mut plan = concurrent::plan(case, reduction).map_err(launch)?;
    let runs = match run(&plan)? {
        Some(runs) => runs,
        None => {
            plan = concurrent::plan(case, concurrent::Reduction::Footprints).map_err(launch)?;
            run(&plan)?.expect("nothing to check without the assumption")
        }
    };
    if runs.len() == 1 {
        return Ok(runs.into_iter().next().expect("one run"));
    }
    concurrent::merge(case, &plan.orders, runs)
}

/// Runs one schedule of the case's steps (`parsed`: each `ptx` step's statement).
fn execute_schedule(
    case: &Case,
    (opts, reading, keep, order): (ExecOptions, Reading, Keep, Orders),
    parsed: &ParsedSteps,
    sched: &[concurrent::Unit],
    checks: &[concurrent::Check],
) -> Result<Option<Execution>, ExecError> {
    let mut m = Machine::new(case, opts).map_err(|kind| ExecError { step: None, kind })?;
    m.reading = reading;
    m.orders = order;
    if reading == Reading::Silicon {
        m.slots.values_mut().for_each(|s| s.read_as_silicon());
    }
    let mut outcome = Outcome::Defined;
    let mut trace = Vec::new();
    let mut watch = concurrent::Watch::new(checks, reading == Reading::Silicon);
    for (pos, &concurrent::Unit { step: i, cta }) in sched.iter().enumerate() {
        watch.before(pos, &m.slots);
        let step = &case.program[i];
        let parsed = parsed[i].as_deref();
        let err = |kind| ExecError {
            step: Some(i),
            kind,
        };
        if cta >= m.ctas || step.thread >= case.launch.threads {
            return Err(err(ErrorKind::Launch(format!(
                "cta {cta} / thread {} outside the launch",
                step.thread
            ))));
        }
        m.step = i;
        m.cta = cta;
        m.thread = step.thread;
        m.touched.clear();
        let res = match (&step.op, parsed) {
            (_, Some(Ok(st))) => m.statement(st),
            (StepOp::WaitParity { mbar, parity }, _) => m.wait_parity_confirming(mbar, *parity),
            (StepOp::Store { at, bytes }, _) => m.store(at, bytes),
            (StepOp::Ptx(_), _) => unreachable!("parsed above"),
        };
        if keep == Keep::All && !matches!(res, Err(Stop::Err(_))) {
            // The step as the case wrote it (rendering the parsed statement again cost a tenth
            // of a generated program's execution).
            let text = (m.detail == TraceDetail::Full).then(|| match &step.op {
                StepOp::Ptx(text) => text.trim().to_string(),
                StepOp::WaitParity { mbar, parity } => format!("wait_parity [{mbar}], {parity}"),
                StepOp::Store { at, bytes } => format!("store [{at}], {} bytes", bytes.len()),
            });
            trace.push(m.trace_step(text));
        }
        if reading == Reading::Silicon {
            m.keep_counted_arrives(i);
        }
        match res {
            Ok(()) => {
                if !watch.after(pos, sched[pos], &m.slots) {
                    return Ok(None);
                }
            }
            Err(Stop::Ub(u)) => {
                outcome = Outcome::Undefined { ub: u, step: i };
                break;
            }
            Err(Stop::Err(k)) => return Err(err(k)),
        }
    }
    let mut arrives_at_exit = false;
    let mut exit_may_lose_arrives = false;
    if outcome == Outcome::Defined {
        arrives_at_exit = reading == Reading::Silicon && !m.async_arrives.is_empty();
        exit_may_lose_arrives =
            arrives_at_exit && m.async_arrive_step == sched.last().map(|u| u.step);
        let exit = m.tc_exit().and_then(|()| match (reading, m.orders.exit) {
            (Reading::Silicon, ExitOrder::Fires) => m.land_arrives_at_exit(),
            _ => Ok(()),
        });
        if reading == Reading::Silicon {
            m.keep_counted_arrives(case.program.len());
        }
        match exit {
            Ok(()) => {}
            Err(Stop::Ub(u)) => {
                outcome = Outcome::Undefined {
                    ub: u,
                    step: case.program.len(),
                }
            }
            Err(Stop::Err(kind)) => return Err(ExecError { step: None, kind }),
        }
    }
    // Read before the outcome takes what the run went past.
    let readings = m.readings(arrives_at_exit);
    // What silicon does at the CTAs' exit comes before a race it ran past decides the outcome.
    // Where only im2col loads owed the phase, silicon's arrival has always come first.
    let copies_raced = m
        .tx_raced
        .as_ref()
        .is_some_and(|(u, _)| u.situation != Some(ub::Situation::Im2colArrivalFirst));
    let tx_race = m
        .tx_raced
        .take()
        .map(|(ub, step)| Outcome::Undefined { ub, step });
    if outcome == Outcome::Defined {
        // Otherwise the first of the UB it ran past, which silicon completes alone.
        let first = [m.raced.take(), m.counted_arrive.take()]
            .into_iter()
            .flatten()
            .min_by_key(|(_, step)| *step);
        if let Some(o) = tx_race.clone() {
            outcome = o;
        } else if let Some((u, step)) = first {
            outcome = Outcome::Undefined { ub: u, step };
        }
    }
    let final_state = if keep == Keep::All || !m.updates.is_empty() {
        m.final_state()
            .map_err(|kind| ExecError { step: None, kind })?
    } else {
        Default::default()
    };
    let mut departures = m.departures;
    departures.sort_by_key(|p| {
        crate::sem::profile::POSITIONS
            .iter()
            .position(|q| q.id == p.id)
    });
    departures.dedup();
    let driver_rejects = tensor::driver_refusals(case);
    let mut prediction = Prediction::of(&outcome, !driver_rejects.is_empty());
    if let Some(o) = &tx_race {
        // The other order of the race leaves the phase incomplete, and the program goes on
        // from there (A-TX-RACE-HW run on): its outcomes stay beside this order's.
        prediction = prediction.union(&Prediction::of(o, false));
    }
    if !m.timed_out.is_empty() {
        let waits_completed = prediction.clone();
        prediction = prediction.after_timed_out_wait();
        // Each wait may have seen the phase it waits for go by (A-MB-PARITY-PASSED-HW).
        if m.timed_out.iter().all(|s| m.passed_waits.contains(s)) {
            prediction = prediction.union(&waits_completed);
        }
    }
    if m.ran_past_overshot {
        // Silicon may instead have completed the overshot phase; what the program does after
        // that completion is not run (A-TX-OVERSHOT-HW).
        prediction = prediction.union(&super::predict::overshot_prediction());
    }
    if m.signals_never_initialized {
        prediction = prediction.with(super::predict::NEVER_INITIALIZED_TRAP);
    }
    if m.tx_range_if_copies_first {
        prediction = prediction.with(super::predict::TX_RANGE_TRAP);
    }
    if m.pending_range_if_copies_late {
        prediction = prediction.with(super::predict::COPIES_LATE_TRAP);
    }
    if m.granule_cluster_copy {
        prediction = prediction.with(super::predict::GRANULE_CLUSTER_TRAP);
    }
    Ok(Some(Execution {
        expected_hw: prediction.coarse(),
        prediction,
        outcome,
        trace,
        final_state,
        profile: opts.profile,
        mutant: opts.mutant,
        departures,
        readings,
        raced_wait: m.raced_wait,
        copies_raced,
        arrive_owed_at_use: m.arrive_owed_at_use,
        exit_may_lose_arrives,
        notes: m.notes,
        driver_rejects,
    }))
}

impl Machine<'_> {
    /// The silicon readings this run applied that only the run shows (the run-on positions of
    /// `exec::predict`), in [`super::ASSUMPTIONS`] order.
    fn readings(&self, arrives_at_exit: bool) -> Vec<&'static str> {
        let applied = [
            (!self.timed_out.is_empty(), "A-WAIT-RUNS-ON-HW"),
            (self.ran_past_overshot, "A-TX-OVERSHOT-HW"),
            (self.tx_raced.is_some(), "A-TX-RACE-HW"),
            (self.raced.is_some(), "A-DATA-RACE-RUNS-ON-HW"),
            (self.counted_arrive.is_some(), "A-MB-ARRIVE-COUNTS-HW"),
            (!self.passed_waits.is_empty(), "A-MB-PARITY-PASSED-HW"),
            (self.pending_range_if_copies_late, "A-MB-COPIES-FIRST-HW"),
            (self.signals_never_initialized, "A-MB-NEVER-INIT-HW"),
            (self.tx_range_if_copies_first, "A-TX-RANGE-HW"),
            (arrives_at_exit, "A-ASYNC-ARRIVE-AT-EXIT-HW"),
            (self.arrive_owed_at_use, "A-ASYNC-ARRIVE-LANDS-HW"),
            (self.granule_cluster_copy, "A-BULK-GRANULE-CLUSTER-HW"),
            (self.dst_other_cta, "A-BULK-DST-OTHER-CTA-HW"),
        ];
        let mut ids: Vec<&'static str> = applied
            .into_iter()
            .filter_map(|(on, id)| on.then_some(id))
            .collect();
        super::in_assumption_order(&mut ids);
        ids
    }

    fn statement(&mut self, st: &Statement) -> R {
        if let Some(g) = &st.guard {
            if self.pred(&g.pred)? == g.negated {
                return Ok(()); // guard false: not executed
            }
        }
        match &st.instr {
            Instruction::CpAsync(op) => self.cp_async(op),
            Instruction::Bulk(op) => self.bulk(op),
            Instruction::Mbarrier(op) => self.mbarrier(op),
            Instruction::Sync(op) => self.sync(op),
            Instruction::Tensor(op) => self.tensor(op),
            Instruction::Tcgen05(op) => self.tcgen05(op),
            Instruction::Tensormap(op) => self.tensormap(op),
        }
    }

    /// A-WAIT-PARITY-RACE: what signals `b` lands at no stated time; landed before a wait on
    /// `parity` polls, it may complete the current phase, and the parity then names the next.
    /// Under the text that is `mbarrier.parity_wait_race`; silicon's run takes the order its
    /// [`WaitOrder`] names (A-MB-PARITY-PASSED-HW). Whether what is in flight lands first.
    pub(super) fn parity_race(&mut self, b: (u32, u64), parity: u32, wait: &str) -> R<bool> {
        let racy = self.landing_passes_wait(b, parity);
        self.raced_wait |= racy;
        if racy && self.reading == Reading::Text {
            let detail = format!(
                "{wait} for parity {parity} sees its phase complete; what is in flight to it \
                 would complete the current phase first"
            );
            return Err(Stop::Ub(ub::Ub::new(&ub::MBAR_PARITY_WAIT_RACE, detail)));
        }
        Ok(racy && self.orders.wait == WaitOrder::LandsFirst)
    }

    /// The blocking `wait_parity` step: lands what signals the barrier, then the phase with
    /// `parity` must have completed, or nothing can complete it any more.
    pub(super) fn wait_parity_step(&mut self, mbar: &str, parity: u32) -> R {
        let b = self.mbar(&Address::reg(mbar), false)?;
        let before = self.slot(b).object().map(|m| m.phase);
        let lands_first = self.parity_race(b, parity, &format!("the wait on `{mbar}`"))?;
        // A phase that completed without the copies still in flight guarantees nothing about them
        // (A-EXEC-WAIT-LANDS): they stay uncertain.
        if !lands_first && self.slot(b).test_wait_parity(parity)? {
            return Ok(());
        }
        self.land_for_barrier(b)?;
        if !self.slot(b).test_wait_parity(parity)? {
            // The landing completed the waited phase and then the next, or completed the phase
            // after the one the wait would have seen (A-MB-PARITY-PASSED-HW).
            let after = self.slot(b).object().map(|m| m.phase);
            let passed = matches!((before, after), (Some(x), Some(y)) if y > x);
            let m = self.slot(b).object().cloned();
            let detail = m.as_ref().map_or("no object".to_string(), |m| {
                format!(
                    "phase {} (parity {}) pending {} tx-count {}",
                    m.phase,
                    m.phase & 1,
                    m.pending,
                    m.tx_count
                )
            });
            let mut u = ub::Ub::new(&ub::WAIT_NEVER_COMPLETES, format!("wait for parity {parity} on `{mbar}`: {detail}, nothing in flight can complete it"));
            u.phase = m.map(|m| ub::PhaseLeft {
                pending: m.pending,
                tx_count: m.tx_count,
            });
            if self.reading == Reading::Silicon && runs_on_past(&u) {
                self.timed_out.push(self.step);
                if passed {
                    self.passed_waits.push(self.step);
                }
                self.ran_past_overshot |= u.phase.is_some_and(|p| super::predict::overshot(&p));
                return Ok(());
            }
            return Err(Stop::Ub(u));
        }
        Ok(())
    }

    /// A plain store step.
    fn store(&mut self, at: &str, bytes: &[u8]) -> R {
        let l = self.resolve(&store_address(at)?)?;
        let len = bytes.len() as u64;
        let a = self.check_range(&l, len, &ub::ADDRESS_OUT_OF_REGION, "store")?;
        self.check_write(a, len)?;
        if !self.mem.in_flight_overlapping(a, len).is_empty() {
            let detail = format!("store to [{at}] while an asynchronous write to it is in flight");
            self.run_past(Past::DataRace, ub::Ub::new(&ub::ASYNC_DST_WRITTEN, detail))?;
        }
        self.mem.write_exact(a, bytes)?;
        self.touch(a, len, TouchKind::Store);
        Ok(())
    }
}
