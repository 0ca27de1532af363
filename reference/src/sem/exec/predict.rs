//! What sm_90 silicon is predicted to do with a case (A-EXEC-HW): a set of allowed outcomes, each
//! a class (completes, hangs, traps with a CUDA error kind, the driver refuses a tensor map). A
//! well defined case completes; an undefined one does what the recorded runs of its rule (and
//! situation) did. An outcome outside the set is a misprediction, which fails a run; a set of
//! more than one class (or of one class, several trap kinds) is undecided, and reported so.
//!
//! - A-TX-OVERSHOT-HW: a wait on a phase whose arrivals are all in and whose copies credited
//!   more complete-tx than it expects (tx-count below zero: the text's phase never completes) is
//!   predicted to complete or hang, undecided ([`overshot`], evidence in [`OVERSHOT_PHASE`]):
//!   H100 did both, and the final count does not tell which. When it hangs the kernel goes on
//!   (A-WAIT-RUNS-ON-HW), so the silicon run goes on past the wait with the phase as it is, and
//!   the prediction is that run's joined to the two outcomes (what a program does after the
//!   phase completed is not run): a later arrive past the pending count traps
//!   ([`OVERSHOT_RUNS_ON`]).
//!
//! - A-TX-RACE-HW: a phase the model's run completes while an issued copy still has complete-tx
//!   to perform on it (`mbarrier.complete_tx_race`: an expect-tx of 0 or below the copy's bytes)
//!   is predicted to complete or hang, undecided: H200 did both, the same configuration both
//!   from run to run ([`TX_RACE`]). Where an arrival completed the phase while only `.im2col`
//!   tensor loads owed it their complete-tx, the arrival has always come first on silicon: it
//!   completes. Either way the kernel goes on: the silicon run goes on past the race in its own
//!   order and keeps the race's outcomes beside the rest of the program's, and runs the program
//!   again in the order where every copy signals before the next arrive-on, expect-tx or
//!   complete-tx on its object (a copy signals a few steps after its issue), joining that run's
//!   prediction: a phase the copies overshoot there never completes ([`TX_RACE_RUNS_ON`]).
//!
//! - A-OUT-OF-REGION-LANDS-HW: a tensor load whose units leave their shared region but stay in
//!   the CTA's allocation is run on as silicon runs it (the units land next to the region, over
//!   an mbarrier object too, and count for complete-tx); the phase's tx logic then decides the
//!   prediction ([`OUT_OF_REGION_PHASE`]).
//!
//! - A-MB-NEVER-INIT-HW: an mbarrier operation on a location no object was ever initialized at
//!   (the harness zeroes it) is predicted to trap LaunchFailed or complete, undecided: the same
//!   program did both on one H200 ([`NEVER_INITIALIZED`]). A copy's complete-tx to such a
//!   location, which the model's run meets only if the program waits on it, adds the trap to
//!   the silicon run's prediction (silicon signals whether or not anyone waits).
//!
//! - A-MB-INVAL-KEEPS-HW: mbarrier.inval leaves the object in memory, and silicon runs a later
//!   operation on it as on a valid object; the model runs on so (`Reading::Silicon`) and the
//!   rest of the program decides the prediction ([`INVAL_KEEPS`]).
//!
//! - A-MB-ARRIVE-COUNTS-HW: an arrive-on that is UB only for when it happens counts on silicon
//!   as a defined one: in a phase whose preceding one no wait observed
//!   (`mbarrier.arrive_before_wait`, §9.7.13.15.4) it counts toward that phase and may complete
//!   it, and a `.noComplete` one that brings the pending count to zero completes the phase
//!   (`mbarrier.nocomplete_completes`, §9.7.13.15.13), and an arrive_drop of every arrival
//!   still expected counts and leaves the expected count zero (`mbarrier.expected_count_range`,
//!   §9.7.13.15.2): the phases after it expect nothing, so a later arrive-on passes the
//!   pending count (which traps) and a wait on them hangs. The silicon run counts them so and goes
//!   on; a run that ends defined ends at the first of them, its bytes not claimed. Under this
//!   reading a group of concurrent single arrivals (no tx-count, no arrive_drop, no state token
//!   kept) leaves one state in every order whatever phases it completes on the way
//!   ([`ARRIVE_COUNTS`]).
//!
//! - A-MB-PARITY-PASSED-HW: a blocking parity wait (§9.7.13.15.16) whose landing
//!   (A-EXEC-WAIT-LANDS: copies' complete-tx, cp.async.mbarrier.arrive arrive-ons, each at no
//!   stated time) completes the waited phase and then the next (only past
//!   A-MB-ARRIVE-COUNTS-HW) may poll between the two and complete, or after both and time out;
//!   a silicon run whose timed-out waits are all such predicts both ([`PARITY_PASSED`]). So may
//!   a wait that sees its phase complete while what is in flight would complete the current one
//!   (`mbarrier.parity_wait_race`, A-WAIT-PARITY-RACE): silicon's reading runs both orders,
//!   landed first (the wait times out and the run goes on) and polled first (it completes), and
//!   joins their predictions ([`LANDS_FIRST`]).
//!
//! - A-MB-COPIES-FIRST-HW: an arrive-on past the pending count of a phase whose arrivals are
//!   all in and that copies in flight still owe complete-tx (`mbarrier.pending_count_range`,
//!   §9.7.13.15.2) is UB only in the order where the copies have not signalled (§9.7.13.15.5:
//!   at no stated time); in the other they complete the phase and the arrive-on counts on the
//!   next. Silicon trapped where the arrive-on came right after the copy or after a wait that
//!   returned at once, and went on where a few stores came between. The model does not time
//!   copies: the silicon run lands them first and goes on, and the prediction keeps the trap
//!   ([`COPIES_FIRST`], [`COPIES_LATE_TRAP`]).
//!
//! - A-WAIT-RUNS-ON-HW: a blocking wait on a phase that never completes does not end the kernel
//!   as the harness runs it: its wait gives up at its bound, flags the step and the kernel goes
//!   on. The model runs on so (`Reading::Silicon`, the phase left as it is): the program's end
//!   decides the prediction, a trap of a later step a trap, a completion the wait's timeout
//!   ([`RUNS_ON`]). A phase its copies overshot runs on so too, beside its own outcomes
//!   (A-TX-OVERSHOT-HW).
//!
//! - A-DATA-RACE-RUNS-ON-HW: a data race between the program and an asynchronous operation's
//!   memory (§9.7.9.25.1: a source written before the copy read it, a destination written or
//!   read before the copy completed) leaves bytes unconstrained and does not stop silicon. The
//!   silicon run goes on past it (`Machine::race`); a later step's outcome decides the
//!   prediction, and a run that ends defined ends at the race, its bytes not claimed
//!   ([`DATA_RACE_RUNS_ON`]).
//!
//! - A-TX-RANGE-HW: silicon's tx-count holds one more than the PTX ISA's range: an expect-tx
//!   that takes it to exactly 2^20 completes and the object works on, one above 2^20 (or a
//!   complete-tx below -(2^20-1)) traps LaunchFailed whatever follows ([`TX_RANGE`]). The
//!   model's run stops at `mbarrier.tx_count_range` either way: past 2^20 in the trapping
//!   situation, so that a run gone on past a timed-out wait that meets it predicts the trap; at
//!   2^20 predicting completion (what follows is not run: one probe went on and completed).
//!   Copies in flight signal at no stated time: a complete-tx that leaves the range only in the
//!   order where they signal before it adds the trap to the run's prediction
//!   ([`TX_RANGE_TRAP`]).
//!
//! - A-ASYNC-ARRIVE-AT-EXIT-HW: a cp.async.mbarrier.arrive whose cp.async operations no wait
//!   completed still arrives: silicon completes them before the CTA exits. The silicon run
//!   lands them and fires the arrive-on at the program's end, so an arrive-on past the pending
//!   count there is `mbarrier.pending_count_range` and traps as that rule does
//!   ([`ARRIVES_AT_EXIT`]). Where the program's last step issued it, the CTA may exit before
//!   the copies land and nothing is seen of it: the run without those arrive-ons stands beside
//!   ([`ARRIVE_LANDS`]).
//!
//! - A-ASYNC-ARRIVE-LANDS-HW: the arrive-on of a cp.async.mbarrier.arrive happens when its
//!   copies land (§9.7.13.15.15), which is at no stated time; silicon was seen to fire it before
//!   a later inval of its object and after one. Where an arrive-on, expect-tx, complete-tx,
//!   init or inval meets such an arrive-on still pending on its object, the silicon reading
//!   also runs the order in which it fired just before that operation, and the prediction
//!   joins both ([`ARRIVE_LANDS`]).
//!
//! - A-CP-ASYNC-SRC-SIZE-FORM-HW: a cp.async from a misaligned global source (UB by §6.4.1) is
//!   predicted to complete in the form with a src-size operand, whatever its value (cp-size
//!   included), and with ignore-src true: silicon checks the source's alignment only in the form
//!   without a src-size operand ([`SRC_SIZE_FORM`]).
//!
//! - A-BULK-SELF-CLUSTER-LAUNCH-HW: a .shared::cluster copy into the executing CTA traps
//!   IllegalInstruction in a launch without a cluster; in a cluster launch silicon runs it as a
//!   copy into another CTA (the bytes land, complete-tx goes to the executing CTA's mbarrier at
//!   the operand's offset), so a wait on another CTA's mbarrier it names hangs; the prediction
//!   is the run-on's with completes and hangs added (other programs of the situation did
//!   both), and a reduction in a cluster launch may also trap IllegalInstruction
//!   ([`SELF_CLUSTER_LAUNCH`]).
//!
//! - A-BULK-DST-OTHER-CTA-HW: a cp.async.bulk or cp.async.bulk.tensor load from global whose
//!   .shared::cta destination is in another CTA of the cluster (`bulk.dst_not_executing_cta`,
//!   `tensor.dst_not_executing_cta`) runs as the .shared::cluster form: the bytes land in that
//!   CTA and complete-tx goes to the mbarrier at the operand's offset there
//!   (A-EXEC-MBAR-IN-DST), so the issuer's phase waits for bytes that never come and the rest
//!   of the program decides ([`DST_OTHER_CTA`]).
//!
//! - A-BULK-GRANULE-CLUSTER-HW: a bulk copy from global into .shared::cluster whose size is off
//!   the 16-byte granule may trap LaunchFailed: the prediction of the run with the size rounded
//!   down (A-BULK-SIZE-ROUNDS-DOWN) gains the trap, undecided ([`GRANULE_CLUSTER`]).
//!
//! - A-TENSOR-SMEM-ALIGN-LAST-HW: sm_90 checks a tensor copy's shared-address alignment after its
//!   other copy rules, so a copy that breaks both traps as the other rule does
//!   ([`CHECKED_FIRST`], [`ub::Ub::checked_first`]).
//!
//! - A-MISALIGNED-KIND-HW: a misaligned bulk copy or reduction (`address.misaligned`) traps
//!   MisalignedAddress; a reduction into the executing CTA's .shared::cluster launched without a
//!   cluster traps IllegalInstruction, as it does aligned (`bulk.cluster_dst_is_executing_cta`
//!   checked first, [`MISALIGNED_KIND`]).

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::report::Outcome;
use super::tensor;
use crate::case_model::{Ending, TrapKind};
use crate::sem::profile::SHARED_WINDOW_GRANULE;
use crate::sem::ub::{self, PhaseLeft, SharedAccess, Situation};

/// One outcome of a hardware run, as a prediction names it.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HwOutcome {
    /// Every CTA runs to the end.
    Completes,
    /// A wait never returns: the kernel's bound or the watchdog ends it.
    Hangs,
    /// The launch traps with this CUDA error.
    Traps(TrapKind),
    /// The driver refuses to encode a tensor map of the case; nothing is launched.
    Refused,
}

/// An outcome's class: what "undecided" counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OutcomeClass {
    Completes,
    Hangs,
    Traps,
    Refused,
}

impl HwOutcome {
    pub fn class(self) -> OutcomeClass {
        match self {
            HwOutcome::Completes => OutcomeClass::Completes,
            HwOutcome::Hangs => OutcomeClass::Hangs,
            HwOutcome::Traps(_) => OutcomeClass::Traps,
            HwOutcome::Refused => OutcomeClass::Refused,
        }
    }

    /// The outcome a run ended in.
    pub fn of(ending: &Ending) -> HwOutcome {
        match ending {
            Ending::Completed => HwOutcome::Completes,
            Ending::Timeout(_) | Ending::Watchdog(_) => HwOutcome::Hangs,
            Ending::Trap { kind, .. } => HwOutcome::Traps(*kind),
            Ending::Rejected(_) => HwOutcome::Refused,
        }
    }
}

impl fmt::Display for HwOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HwOutcome::Completes => f.write_str("completes"),
            HwOutcome::Hangs => f.write_str("hangs (wait times out)"),
            HwOutcome::Traps(k) => write!(f, "traps {k} (CUDA error {})", k.code()),
            HwOutcome::Refused => f.write_str("the driver refuses a tensor map"),
        }
    }
}

/// How far a prediction is from one outcome.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Undecided {
    /// Several outcome classes (e.g. completes or traps).
    Class,
    /// One class, traps, with several trap kinds.
    Kind,
}

/// The set of outcomes silicon is predicted to end in; never empty.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Prediction(BTreeSet<HwOutcome>);

impl Prediction {
    pub fn one(o: HwOutcome) -> Prediction {
        Prediction(BTreeSet::from([o]))
    }

    /// `first` and the rest.
    pub fn of_set(first: HwOutcome, rest: &[HwOutcome]) -> Prediction {
        let mut s = BTreeSet::from([first]);
        s.extend(rest.iter().copied());
        Prediction(s)
    }

    pub fn outcomes(&self) -> impl Iterator<Item = HwOutcome> + '_ {
        self.0.iter().copied()
    }

    /// The first outcome (in [`HwOutcome`] order): the model's own run when it plays silicon.
    pub fn first(&self) -> HwOutcome {
        self.0.first().copied().unwrap_or(HwOutcome::Completes)
    }

    /// This set and `o`.
    pub fn with(mut self, o: HwOutcome) -> Prediction {
        self.0.insert(o);
        self
    }

    /// Every outcome either allows.
    pub fn union(mut self, other: &Prediction) -> Prediction {
        self.0.extend(other.0.iter().copied());
        self
    }

    /// The prediction of a run that went on past a wait that timed out (A-WAIT-RUNS-ON-HW): the
    /// launch still ends as the rest of the program makes it end, except that completing now
    /// reads as the wait's timeout.
    pub fn after_timed_out_wait(self) -> Prediction {
        Prediction(
            self.0
                .into_iter()
                .map(|o| match o {
                    HwOutcome::Completes => HwOutcome::Hangs,
                    other => other,
                })
                .collect(),
        )
    }

    pub fn allows(&self, o: HwOutcome) -> bool {
        self.0.contains(&o)
    }

    pub fn has_class(&self, c: OutcomeClass) -> bool {
        self.0.iter().any(|o| o.class() == c)
    }

    /// Undecided between classes, or between trap kinds; `None`: one outcome.
    pub fn undecided(&self) -> Option<Undecided> {
        let classes: BTreeSet<OutcomeClass> = self.0.iter().map(|o| o.class()).collect();
        match (classes.len(), self.0.len()) {
            (1, 1) => None,
            (1, _) => Some(Undecided::Kind),
            _ => Some(Undecided::Class),
        }
    }

    /// The coarse class the engine schedules by ([`ExpectedHw`]): a set that may trap is
    /// isolated as a trap, one that may hang as a hang.
    pub fn coarse(&self) -> ExpectedHw {
        if self.has_class(OutcomeClass::Traps) {
            ExpectedHw::MayTrap
        } else if self.has_class(OutcomeClass::Hangs) {
            ExpectedHw::Timeout
        } else {
            ExpectedHw::Completes
        }
    }

    /// The prediction for an execution that ended in `outcome`, `refused` when the driver
    /// model refuses a tensor map of the case.
    pub fn of(outcome: &Outcome, refused: bool) -> Prediction {
        if refused {
            return Prediction::one(HwOutcome::Refused);
        }
        let Outcome::Undefined { ub: u, .. } = outcome else {
            return Prediction::one(HwOutcome::Completes);
        };
        if let Some(s) = u.situation {
            return situation_prediction(s);
        }
        if let Some(a) = u.shared_access {
            if leaves_allocation(&a) {
                return Prediction::one(HwOutcome::Traps(TrapKind::IllegalAddress));
            }
        }
        if u.phase.is_some_and(|p| overshot(&p)) {
            return overshot_prediction();
        }
        rule_prediction(u.checked_first.unwrap_or(u.rule))
    }
}

/// What sm_90 silicon is predicted to do in a situation of a rule that is not the rule's default.
pub fn situation_prediction(s: Situation) -> Prediction {
    match s {
        Situation::Traps => Prediction::one(LAUNCH_FAILED),
        Situation::NeverInitialized => Prediction::of_set(HwOutcome::Completes, &[LAUNCH_FAILED]),
        // Joined to the silicon run-on's, in which the copies signalled first.
        Situation::CopiesOwed => Prediction::one(COPIES_LATE_TRAP),
        Situation::SrcSizeForm | Situation::Im2colArrivalFirst => {
            Prediction::one(HwOutcome::Completes)
        }
        // Joined to the silicon run-on's prediction (`execute_with`), and alone when that run
        // fails: programs of the situation completed and hung whatever the run-on predicted.
        Situation::ClusterLaunch => Prediction::of_set(HwOutcome::Completes, &[HwOutcome::Hangs]),
        Situation::ReduceClusterLaunch => Prediction::of_set(
            HwOutcome::Traps(TrapKind::IllegalInstruction),
            &[HwOutcome::Completes, HwOutcome::Hangs],
        ),
    }
}

/// The recorded runs behind A-MB-NEVER-INIT-HW: why an operation on a never-initialized mbarrier
/// is predicted to trap or complete.
pub const NEVER_INITIALIZED: &str = "the harness zeroes every mbarrier's 8 bytes before the \
    first step (gpu/src/emit: the shared image). ub.mbarrier.not_initialized (one arrive at \
    step 0, one CTA, sm_90a) trapped LaunchFailed in every baseline: H100 6 of 6 (2026-11-21..25), \
    H200 2 of 2 (2026-11-21, 2026-11-28); regress.e52aa89df6dfe4c1 (an arrive in CTA 1 of a \
    2-CTA cluster, sm_90a) trapped under every build (H200, 2026-11-28); \
    regress.1c8846e9b25ae2df (an arrive at step 0 by thread 6 of 96, sm_80 PTX, two mbarriers) \
    completed once and trapped in the three re-runs of its attribution, then in 10 of 10 \
    re-runs (H200, 2026-11-28): 1 completion in 14 runs. probe.ub.never_init_sm80_late_init \
    (what that program had and the corpus case lacks: sm_80 PTX, thread 6 of 96, a later init \
    of the same mbarrier) trapped LaunchFailed (H200, 2026-11-28). No recorded parameter \
    separates the one completion. A copy's complete-tx: probe.v4.self_cluster_never_init \
    (cases/probes/fuzz-mispredicted-v4.yaml; a .shared::cluster copy into the executing CTA of \
    a cluster launch, whose complete-tx silicon sends to the executing CTA's never-initialized \
    mbarrier, nobody waiting on it) trapped LaunchFailed in the seed-0 and seed-7 v4 mixed \
    campaigns (H200, 2026-11-28, 58 and 16 programs of its signature); \
    probe.ub.bulk_self.remote_mbar_no_wait, whose complete-tx went to a never-initialized \
    object the same way, completed (the object read phase 0 complete); in \
    cases/probes/bulk-dst-other-cta.yaml three programs whose copy into another CTA sent its \
    complete-tx to a never-initialized object there did not trap, 6 of 6 (H200, 2026-12-01), \
    nor did two tensor loads of cases/probes/tensor-dst-other-cta.yaml (4 of 4) and \
    probe.ub.bulk_dst_other_cta.s51_as_found_without_last_arrive (2 of 2) that did the same \
    (H200, 2026-12-01).";

/// The recorded runs behind A-MB-INVAL-KEEPS-HW.
pub const INVAL_KEEPS: &str = "ub.mbarrier.not_initialized_after_inval (init count 1, inval, \
    arrive): completed with phase 0 complete (the dumped parities), as an arrive on the object \
    inval left would: H100 6 of 6, H200 2 of 2 baselines (the case records one of each); \
    regress.e52aa89df6dfe4c1 trapped only through its other CTA's never-initialized arrive; \
    probe.ub.inval_arrive_phase2 (an arrive after inval on an object in phase 2, that CTA \
    alone) completed (H200, 2026-11-28). Only arrives after inval were run.";

/// The recorded runs behind A-ASYNC-ARRIVE-LANDS-HW, and A-ASYNC-ARRIVE-AT-EXIT-HW's lost
/// arrive-ons.
pub const ARRIVE_LANDS: &str = "the seed-41 mixed campaign of generator 8 (H200, CUDA 13.0, \
    2026-11-30): 80 programs of one signature trapped LaunchFailed where the model predicted \
    completes; the one minimized (cases/probes/fuzz-mispredicted-v16.yaml, probe.v16.as_found) \
    drops phase 0's only expected arrival, issues a cp.async.mbarrier.arrive.noinc no wait \
    completes, and has other threads inval and init the object again: it trapped under ptxas \
    13.0 -O3 (twice), -O0 and the JIT at -O4, as an arrive-on fired on the dropped object before \
    the inval does. The same steps by one thread completed twice (drop_then_async_arrive_reinit); \
    with the cp.async.mbarrier.arrive last (drop_then_async_arrive) the program completed twice \
    under -O3 and under the JIT, its copy not yet landed when the kernel read the buffer back, and \
    trapped under -O0; with the copy waited before it, it trapped twice.";

/// The recorded runs behind A-ASYNC-ARRIVE-AT-EXIT-HW.
pub const ARRIVES_AT_EXIT: &str = "the seed-0 mixed campaign of 139687c (H200, CUDA 13.0, \
    2026-11-29): 64 programs of one signature trapped LaunchFailed where the model predicted \
    completes or hangs; the one minimized (cases/probes/fuzz-mispredicted-v5.yaml) trapped under \
    ptxas 13.0 -O3 (twice), -O0 and the JIT at -O4. It leaves a phase owing 16 tx bytes with \
    no arrival pending (its wait times out), then a thread issues cp.async.mbarrier.arrive \
    (pending count +1) and an arrive on it, and no wait completes its cp.async operations: in \
    either order of the two arrive-ons the later one is past the pending count, which the \
    model met only if the async one happens. regress.f950252156521966 \
    (cases/probes/fuzz-mispredicted.yaml, H200, 2026-11-28, trapped LaunchFailed under every \
    build; predicted to trap or hang before) ends the same way and is now predicted to trap \
    only. Which arrive-on traps: cases/probes/fuzz-mispredicted-v5-which.yaml (H200, \
    2026-11-29, twice each): without the explicit arrive the run hangs, no trap; with it first \
    or alone, at a pending count of zero, it traps LaunchFailed; so in the case found the \
    async arrive-on, past the count, traps. Whether it happens at exit or sooner is unprobed.";

/// The recorded runs behind A-TX-RANGE-HW.
pub const TX_RANGE: &str = "cases/probes/tx-range.yaml (H200, CUDA 13.0, 2026-11-30, each \
    program twice, every trap again under ptxas 13.0 -O0 and the JIT): a tx-count of exactly \
    2^20 completed, also with a complete-tx back into the range after it (as \
    ub.mbarrier.tx_overflow did on H100 and H200, 2026-11-21); 2^20 + 1 trapped LaunchFailed with \
    nothing after it but the harness's closing test_wait, and 2^20 + 15 trapped whatever came \
    next (an arrive, a complete-tx, another expect-tx, a test_wait, or reached by \
    arrive.expect_tx): 10 programs of 10. Below the range, ub.mbarrier.tx_underflow (-2^20) \
    trapped LaunchFailed (H100, 2026-11-25). Found by the seed-7 mutants campaign at K = 80 \
    (cases/probes/fuzz-mispredicted-v6.yaml: a phase owing a copy's bytes given an expect-tx of \
    0xffffe after its wait timed out). Unprobed: what count silicon holds past 2^20 (both \
    programs that would tell trapped first). In the other order of a copy in flight \
    (cases/probes/fuzz-mispredicted-v8.yaml, v9, H200, 2026-11-30, each twice): a complete-tx \
    of 1048575 on a phase a copy into the executing CTA still owed 80 bytes trapped, as did the \
    program cut after it; 80 bytes less, or without the copy, it timed out.";

/// The recorded runs behind A-MB-ARRIVE-COUNTS-HW.
pub const ARRIVE_COUNTS: &str = "ub.mbarrier.arrive_before_wait (count 1, two arrives, no wait) \
    completed with phase 1 complete and phase 2 current (the dumped parities: the second arrive \
    counted), ub.mbarrier.nocomplete_completes (count 2, arrive.noComplete of 2) completed with \
    phase 0 complete: H100 and H200 baselines (2026-11-21). The first GPU campaigns with \
    concurrent episodes (`fuzz --config mixed --concurrent 64` and 160, seeds 20 and 22, H200, \
    CUDA 13.0, 2026-11-30) found 9 programs that timed out (one trapped LaunchFailed) where the \
    model's run, stopped at the arrive, predicted completion: \
    cases/probes/fuzz-mispredicted-v11.yaml, each run twice, the same outcome both times, each \
    as the counted run predicts. cases/probes/arrive-counts.yaml (7 programs, each twice): an \
    early arrive then a wait on the current parity timed out, on the preceding parity \
    completed; three arrives on a count of 2 left phase 1 pending (its wait timed out); \
    arrive.noComplete of 2 on a count of 2 then an arrive and a wait on parity 1 timed out, a \
    wait on parity 0 completed; the two defined controls completed. The drop to zero: the \
    generator-7 campaigns (H200, 2026-11-30, seeds 7 and 39) found arrive_drop of the only \
    expected arrival followed by arrive-ons on the same object trapping LaunchFailed where the \
    model's run, stopped at the drop, predicted completion (400 of 960 such programs; \
    cases/probes/fuzz-mispredicted-v14.yaml, 3 programs, each trapped twice). \
    cases/probes/expected-zero.yaml (5 programs, each twice, the same outcome both times): a \
    drop of 1 on a count of 1, or of 2 on 2, then a wait on parity 0 completed; an arrive after \
    it trapped LaunchFailed; a wait on parity 1 after it timed out; an expect-tx and a \
    complete-tx of 16 bytes then completed phase 1 (its wait returned).";

/// The recorded runs behind A-MB-PARITY-PASSED-HW.
pub const PARITY_PASSED: &str = "cases/probes/fuzz-mispredicted-v11.yaml (H200, CUDA 13.0, \
    2026-11-30): init count 1, two threads' cp.async each followed by \
    cp.async.mbarrier.arrive.noinc, then a wait on parity 0, whose landing completes phase 0 and \
    phase 1. The seed-24 concurrent campaign's program (threads 5 and 40) completed in the \
    campaign and in two runs; the seed-23 one (the same shape, other bytes) completed in the \
    campaign and timed out in two runs after it; the seed-20 one (threads 21 and 22) timed out \
    in the campaign and in two runs.";

/// The recorded runs behind A-MB-COPIES-FIRST-HW.
pub const COPIES_FIRST: &str = "cases/probes/copies-land-first.yaml (H200, CUDA 13.0, \
    2026-11-30, each program twice under ptxas 13.0 -O3, the same outcome both times): init count 1, arrive.expect_tx of 288, a 288-byte bulk copy signalling \
    the phase, then an arrive. Right after the copy, and after a wait on parity 1 that returns \
    at once, the arrive trapped LaunchFailed; with four stores between that wait and the \
    arrive the program completed (also under -O0 and the driver JIT), as with a wait on \
    parity 0 (defined). The seed-26 \
    concurrent campaign's program (H200, 2026-11-30) timed out at its first wait only, where \
    the model, its copies never landed, predicted the arrive 19 steps after their wait to \
    trap.";

/// The outcome an arrive-on past the pending count has when the copies owed to its phase have
/// not signalled yet (A-MB-COPIES-FIRST-HW, [`COPIES_FIRST`]).
pub const COPIES_LATE_TRAP: HwOutcome = LAUNCH_FAILED;

/// The recorded runs behind `mbarrier.parity_wait_race` on silicon (A-MB-PARITY-PASSED-HW).
pub const LANDS_FIRST: &str = "cases/ub/parity_wait_race.yaml and \
    cases/probes/lands-before-wait.yaml (H200, CUDA 13.0, 2026-11-30, each program twice, the \
    same outcome both times; the timeouts also under ptxas -O0 and the driver JIT). Phase 0 \
    observed, a 16-byte copy owed to phase 1 (its arrival in), then a wait on parity 0: right \
    after the copy it completed, after four stores it timed out. A cp.async.mbarrier.arrive \
    whose arrive-on completes phase 1, then a wait on parity 0: at once it completed, after \
    four stores it timed out. The seed-29 and seed-30 concurrent campaigns' programs (the \
    second shape, three arrive-ons) timed out in the campaign and in two runs.";

/// The recorded runs behind A-WAIT-RUNS-ON-HW.
pub const RUNS_ON: &str = "cases/probes/arrive-after-timeout.yaml (H200, CUDA 13.0, \
    2026-11-28, 3 runs each under ptxas 13.0 -O3, its attribution re-ran -O0 and the JIT): a \
    phase left owing tx with no arrival pending, then an arrive on it: trapped LaunchFailed \
    whether a timed-out wait came first or not (as mbarrier.pending_count_range alone traps); \
    the wait alone, and the wait then a defined arrive, timed out. The v4 mixed campaign's \
    mispredicted traps (cases/probes/fuzz-mispredicted-v4.yaml: as_found and drop12 trapped \
    LaunchFailed 3 of 3 after timed-out waits; upto15, the program cut at its wait, timed out).";

/// The recorded runs behind running on past an overshot phase's wait (A-TX-OVERSHOT-HW with
/// A-WAIT-RUNS-ON-HW).
pub const OVERSHOT_RUNS_ON: &str = "cases/probes/fuzz-mispredicted-v7.yaml (H200, CUDA 13.0, \
    2026-11-30, each run twice, the first attributed: the trap again under ptxas 13.0 -O3, -O0 \
    and the JIT, silicon): the seed-11 mixed campaign's program, whose cluster-launch copy into \
    the executing CTA (A-BULK-SELF-CLUSTER-LAUNCH-HW) overshoots that CTA's phase 1 by 160 \
    bytes before its arrive, waits on the phase and then arrives on it again, trapped \
    LaunchFailed, as it did with the copy naming the CTA's own mbarrier; cut before that phase \
    (upto11) it timed out and cut after the copy (upto8) it completed; without the copy \
    (drop7) the phase completes and the program timed out in another CTA's wait only.";

/// The recorded runs behind running on past `mbarrier.complete_tx_race` (A-TX-RACE-HW).
pub const TX_RACE_RUNS_ON: &str = "cases/probes/fuzz-mispredicted-v10.yaml (H200, CUDA 13.0, \
    2026-11-30, each twice): the seed-15 mixed campaign's program, whose copy into the executing \
    CTA makes a piece of its phase's complete-tx reach zero with 32 bytes to come at a wait, then \
    arrives on another CTA's phase with no arrival pending, trapped LaunchFailed; cut before that \
    arrive it timed out; without the copy, or without the wait, it trapped. \
    cases/probes/fuzz-mispredicted-v15.yaml (H200, 2026-11-30, each twice, the same outcome both \
    times): the seed-40 mixed campaign's program (generator 7), a .shared::cluster copy into the \
    executing CTA crediting 64 bytes to a phase before its expect-tx, three copies and arrive, \
    trapped LaunchFailed (also under ptxas -O0 and the JIT); cut after that phase's wait it timed \
    out there (the phase never completed), cut after the next phase's arrive on the same object \
    it trapped, without the copy it passed. The model's order, the copy landing at the wait, \
    completes the phase and predicted completion or a hang.";

/// The recorded runs behind A-DATA-RACE-RUNS-ON-HW.
pub const DATA_RACE_RUNS_ON: &str = "the three races' corpus cases completed (async.src_modified \
    20, dst_read 24, dst_written 21 runs, H100 and H200). cases/probes/race-runs-on.yaml (H200, \
    CUDA 13.0, 2026-11-30, each run twice): each race's corpus case followed by an arrive past \
    the pending count of another mbarrier trapped LaunchFailed, as that arrive does without the \
    race: silicon went on past all three. cases/probes/fuzz-mispredicted-v7b.yaml (the seed-11 \
    mixed campaign's second mispredicted trap, twice each): its copy overwrites a source another \
    copy still reads, and its later arrive past the pending count trapped, with the race \
    (as_found, upto17) and without it (norace); cut before the arrive (upto16) it timed out.";

/// The recorded runs behind A-CP-ASYNC-SRC-SIZE-FORM-HW.
pub const SRC_SIZE_FORM: &str = "H200, 2026-11-28. cases/probes/cp-async-misaligned.yaml, each \
    run twice (one run recorded): with src-size = cp-size, .ca 4 / 8 / 16 and .cg 16 bytes, \
    residues 1, 2, 4 and 8, with no L2 prefetch, .L2::64B and .L2::256B, all 24 completed; the \
    same 8 copies without the operand trapped MisalignedAddress, as \
    ub.address.cp_async_src_misaligned does in every H100 and H200 baseline. A 16-byte copy 2 \
    bytes off: src-size 0 (an earlier campaign's regress.3f8b230d0626d38a, `.cg`) completed \
    under every build, src-size 1 (probe.ub.cp_async.src_size1_misaligned) and ignore-src true \
    (probe.ub.cp_async.ignore_src_misaligned) completed; the v4 seed-7 campaign found a 4-byte \
    .ca copy 2 bytes off with src-size 4 complete. Why, from the SASS of ptxas 13.0: the form \
    with src-size is LDGSTS.ZFILL, which takes its zero-fill count from the source address's \
    low bits (ptxas adds (cp-size - src-size) mod cp-size to the address, the predicate is \
    src-size != 0), so it cannot check their alignment; ignore-src is a predicate on the plain \
    LDGSTS. The bytes (not judged: still UB) are all of that reading: with a = source + \
    (cp-size - src-size) mod cp-size, cp-size - (a mod cp-size) bytes from a rounded down to \
    cp-size, then zeros (a 4-byte copy 1 byte off: the aligned word's first 3 bytes and a zero; \
    src-size 1, 16 bytes, 2 off: the next line's first 15 bytes and a zero). ignore-src false \
    (the plain form, cases/probes/cp-async-ignore-src-false.yaml, .ca 4 and .cg 16) trapped \
    MisalignedAddress 2 of 2, twice, as the form without src-size.";

/// The recorded runs behind A-BULK-SELF-CLUSTER-LAUNCH-HW.
pub const SELF_CLUSTER_LAUNCH: &str = "H200, 2026-11-28, each a .shared::cluster <- .shared::cta \
    bulk copy into the executing CTA of a cluster launch: probe.ub.bulk_self.own_mbar_cluster2 \
    (CTA 0 of 2, its own mbarrier) completed, the bytes landed and the phase completed; \
    probe.ub.bulk_self.remote_mbar_no_wait (CTA 0 of 2, CTA 1's mbarrier, no wait) completed, \
    the bytes landed, CTA 1's phase 0 did not complete and CTA 0's never-initialized object at \
    that offset read phase 0 complete (the complete-tx went there); regress.30e33e0a60099f42 \
    (CTA 1 of 4, CTA 3's mbarrier) timed out in CTA 3's wait under every build. The rule's 13 \
    IllegalInstruction traps per baseline (H100, H200) are all launches without a cluster (a \
    1x1x1 cluster is launched without the attribute). One run each; the bytes of a completion \
    are not predicted (UB), the copy into a CTA other than the executing one is not involved. \
    The run-on is one outcome among those seen, not the only one: in the seed-7 mutants \
    campaign of a952bcd (cases/probes/fuzz-mispredicted-v3.yaml, H200) three cluster-launch \
    programs timed out in a wait where the run-on completed, so completes and hangs stay in \
    the set; and a reduction (cp.reduce.async.bulk.shared::cluster) into the executing CTA of \
    a 4-CTA cluster launch completed (v3.regress.3f8b230d0626d38a there), where the own-CTA \
    reductions of cases/reduce (H100, 2026-11-21) trapped IllegalInstruction: a reduction in a \
    cluster launch is predicted to trap, complete or hang.";

/// The recorded runs behind A-BULK-DST-OTHER-CTA-HW.
pub const DST_OTHER_CTA: &str = "H200, 2026-12-01, cases/probes/bulk-dst-other-cta.yaml and \
    ub.bulk.dst_not_executing_cta.destination_waits (cases/ub/remote.yaml), two runs each: a \
    cp.async.bulk.shared::cta.global copy of 240 bytes into another CTA's `mapa` address (clusters \
    of 4 and 2) wrote the bytes there, and where the destination CTA expected 240 bytes on its own \
    mbarrier at the operand's offset its wait returned while the issuer's timed out (the \
    complete-tx went to the destination CTA's object, as for the .shared::cluster form); with that \
    object never initialized nothing trapped, the issuer's wait timed out. Tensor loads do the \
    same (tensor.dst_not_executing_cta, cases/probes/tensor-dst-other-cta.yaml, two runs each: \
    64-byte 1D tiles in clusters of 2 and 4, a 256-byte 2D tile, a 128-byte 3D im2col load, a \
    512-byte 2D tile under the 128B swizzle): the box landed in the other CTA where the silicon \
    reading puts it, its wait returned where it expected the bytes, the issuer's timed out. \
    Generator 9's programs of the bulk rule (seeds 51 and 52, 80 divergences each) trapped \
    LaunchFailed under every build, with the object initialized in every CTA or in the issuer's \
    alone; cut apart (cases/probes/bulk-dst-other-cta-cut.yaml, two runs each), the seed-51 \
    program without its last arrive-on timed out and did not trap, and a second arrive-on after a \
    timed-out wait on the phase the copy left open trapped, as it did with no copy at all: the \
    trap is the later arrive-on past the pending count (A-MB-COPIES-FIRST-HW's trap).";

/// The recorded runs behind A-BULK-GRANULE-CLUSTER-HW.
pub const GRANULE_CLUSTER: &str = "H200, 2026-11-28, seed-7 mutants campaign (generator 3, \
    5fd6210): regress.8e5118cf88a94926 (120 bytes, 4-CTA cluster, sm_90) and \
    regress.f950252156521966 (152 bytes, no cluster, sm_90a), both \
    `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes` with expect-tx covering \
    the size rounded up to 16, trapped LaunchFailed under every build, and the campaign's 126 \
    other programs of the rule trapped so. The rule's hangs and completions recorded in the \
    corpus were copies into .shared::cta: ub.bulk.size_not_multiple_of_16 (24 bytes, expect-tx \
    24) hung, H100 and H200; witness.bulk.silicon-rounds-up (24 bytes, expect-tx 16) completed, \
    H100. The seed-0 mixed campaign's 1,280 programs of the rule (960 completed, 320 hung, \
    a6a82df, reports/bench/h200-2026-11-28-fuzz/campaign-mixed-b02-a6a82df.json) are not \
    recorded by destination. The two trapping programs have both a .shared::cluster \
    destination and an expect-tx above the copy's size; probes of each alone \
    (probe.ub.bulk_granule.cluster_dst_tx_equal, .cta_dst_tx_rounded_up; 2 x H200 host, \
    a952bcd, three runs each) both hung, 16 of their 24 bytes landing: neither alone makes the \
    trap, so the position's condition (a .shared::cluster destination) is broader than what \
    was seen to trap, and what makes the trap is open. The 126 are in the campaign's log \
    (reports/bench/h200-2026-11-28-5fd6210/log.txt: 128 divergences, 126 duplicates).";

/// The trap a copy's complete-tx to a location never initialized adds to a prediction
/// (A-MB-NEVER-INIT-HW, [`NEVER_INITIALIZED`]).
pub const NEVER_INITIALIZED_TRAP: HwOutcome = LAUNCH_FAILED;

/// The trap a complete-tx adds to a prediction when, had the copies still in flight signalled
/// before it, it would have left the tx-count's range (A-TX-RANGE-HW, [`TX_RANGE`]).
pub const TX_RANGE_TRAP: HwOutcome = LAUNCH_FAILED;

/// The trap [`GRANULE_CLUSTER`] adds to a prediction.
pub const GRANULE_CLUSTER_TRAP: HwOutcome = LAUNCH_FAILED;

/// The recorded runs behind A-TENSOR-SMEM-ALIGN-LAST-HW: why a copy whose shared address is
/// misaligned is predicted by the other copy rule it breaks ([`ub::Ub::checked_first`]).
pub const CHECKED_FIRST: &str = "the five H100 / H200 tensor sweeps of 2026-11-25..26 (seeds \
    2..6, reports/sweep/): 1,406 copies trapped with the shared address misaligned (every one 16 \
    bytes past a 128-byte line). The 502 that also broke another copy rule trapped \
    IllegalInstruction, as that rule does alone: store-coords-in-tensor 313, \
    im2col-filter-base-in-box 148, box-start-16b-aligned 41. The 904 that broke no other copy \
    rule trapped MisalignedAddress, 309 of them with a wait that never completes after it. \
    Fitted on seeds 2 and 3 (731 of 731), held out on seeds 4, 5 (H200) and 6: 675 of 675. \
    Through maps the driver encodes against the text, 90 more the same way (51 \
    MisalignedAddress alone, 39 IllegalInstruction after another rule). \
    Unprobed: addresses off the 16-byte grid, and 32 to 112 bytes past a line.";

/// The recorded runs behind A-MISALIGNED-KIND-HW: why a misaligned bulk copy or reduction is
/// predicted to trap MisalignedAddress, and a reduction that also breaks
/// `bulk.cluster_dst_is_executing_cta` IllegalInstruction ([`ub::Ub::checked_first`]).
pub const MISALIGNED_KIND: &str = "the corpus's copies trapped MisalignedAddress (5 of 5 per \
    baseline, H100 and H200), its one reduction (ub.address.reduce_dst_misaligned, into \
    .shared::cluster of the executing CTA, launched without a cluster) IllegalInstruction (1 of \
    1 per baseline). cases/probes/misaligned-kinds.yaml (H200, CUDA 13.0, ptxas 13.0 -O3, \
    2026-11-29) separates them: reductions into global memory with the destination or the \
    source 4, 8 or 12 bytes off, every operation and type (add, min, max, and, or, xor, inc, dec \
    on 32 bits, add.f32, add.u64, min.s64, add.noftz.f16 and .bf16) trapped MisalignedAddress \
    78 of 78, bulk loads and stores off the same ways 9 of 9; reductions into the executing \
    CTA's .shared::cluster without a cluster launch, 4, 8 or 12 bytes off, IllegalInstruction 27 \
    of 27, as that CTA's reductions do aligned. One run each under ptxas 13.0 -O3, and again \
    (2026-11-29) under ptxas 13.0 -O0 and the driver's JIT at -O4: the same kind for each of the \
    114 (silicon, not the build). Unprobed: a misaligned reduction \
    into the executing CTA in a cluster launch (predicted MisalignedAddress, as one into another \
    CTA would be), and cp.async.bulk.prefetch.";

/// Did the copies credit a phase more complete-tx than it expects, every arrival in
/// (A-TX-OVERSHOT-HW)? The text's phase never completes (its tx-count stays below zero);
/// silicon's outcome is undecided: [`OVERSHOT_PHASE`]. A phase still owed an arrival is not
/// overshot: it hangs as the rule's other situations do (`ub.wait.no_expect_tx_arrival_pending`,
/// tx-count -32 with an arrival pending, timed out on H100 and H200).
pub fn overshot(p: &PhaseLeft) -> bool {
    p.pending == 0 && p.tx_count < 0
}

/// A wait on an overshot phase ([`overshot`]): it completes or it hangs, undecided.
pub fn overshot_prediction() -> Prediction {
    Prediction::of_set(HwOutcome::Completes, &[HwOutcome::Hangs])
}

/// The recorded runs of overshot phases ([`overshot`]): why the prediction is the set.
pub const OVERSHOT_PHASE: &str = "cases/probes/issue34.yaml (H100, CUDA 13.0, 2026-11-28): \
    tensor loads whose bytes landed exactly as the model runs them (every byte of the three \
    dumps): a 16-byte-interleave, 128-byte-swizzle bf16 box crediting 384 bytes against an \
    expect-tx of 144 timed out (ptxas 13.0 -O3; issue 34's independent H100 check saw the same \
    configuration complete); 32-byte-interleave maps without a 32-byte swizzle crediting 256 \
    against 192 and 3072 against 1536 completed (ptxas -O3 and the driver JIT), the second \
    timed out once under ptxas -O0. Three configurations: thin. The final count does not tell \
    the outcomes apart; two readings fit them all and are not yet told apart: the phase \
    completes when a 32-byte piece brings the tx-count to exactly zero, or a 32-byte-interleave \
    map without its swizzle credits boxDim x element size. Unprobed: bulk copies and explicit \
    complete_tx past zero. cases/probes/interleave-tx.yaml asks (expect-tx ladders per \
    interleave x swizzle, and those controls). Per run, not per configuration: the 68 overshot \
    configurations of the draw-v2 seed-15 sweep (cases/probes/undecided-sweep15.yaml), each run \
    64 times in one launch under litmus on an H200 (2026-11-28, \
    reports/litmus/h200-2026-11-28-undecided-seed15/): 55 both completed and timed out, 13 only \
    timed out.";

/// The recorded runs behind A-TX-RACE-HW ([`ub::MBAR_TX_RACE`]): why the prediction is the set.
pub const TX_RACE: &str = "the H200 sweeps of draw v2, seeds 7 and 9 (2026-11-28, CUDA 13.0, \
    reports/sweep/h200-2026-11-28-v2-seed7 and -seed9; in sample: they motivated the rule): 148 \
    tensor loads the model runs into the race, 124 completed and 24 hung. Expect-tx 0 then the \
    copy then the arrive (the arrival completes the phase first in the model's run): 98, 86 \
    completed, 12 hung (every hang a tile load; im2col 42 of 42 completed). Expect-tx below the \
    copy's bytes, a piece of the copy bringing the count to zero: 50, 38 completed, 12 hung. No \
    parameter recorded separates them. Before the rule the model called all 148 well defined: \
    its bytes matched the 124 completions, and the 24 hangs were every well-defined miss of \
    those seeds; the bytes of a completion are uncertain by the text. None in the H100 / H200 \
    sweeps of draw v1 (their \
    expect-tx always equals the copy's bytes) or in the corpus recordings. One configuration \
    varies from run to run: cases/ub/tx_race.yaml run six times on one H200 (2026-11-28; \
    logged, not recorded: the file keeps one run of each case), the arrival-first case hung 6 \
    of 6, the piece-reaching-zero case completed 5 and hung 1; three more runs of the file with \
    a 2 s wait bound (a6a82df, \
    reports/bench/h200-2026-11-28-fuzz/log-a6a82df-corpus-shards-txrace-mixed.txt) hung arrival-first 3 of 3; in the whole-corpus runs both \
    completed on one H200 (reports/baseline/h200-2026-11-28-a6a82df/summary.json) and \
    piece-reaching-zero hung on GPU 0 of a 2 x H200 host (a952bcd, \
    reports/bench/h200-2026-11-28-5fd6210/log-a952bcd-2xh200.txt). Out of sample (draw v2 \
    seed 11, 1,024 configurations on one H200): 0 disagreements. Per run, not per \
    configuration: the 141 configurations of the seed-13 sweep predicted so (cases/probes/\
    tx-race-sweep13.yaml), each run 64 times in one launch under litmus on an H200 (2026-11-28, \
    reports/litmus/h200-2026-11-28-tx-race/): 68 both completed and timed out, 58 only \
    completed, 15 only timed out. Arrival first with im2col loads alone: 31 configurations, \
    1,984 of 1,984 runs completed (and 31 of 31 in the sweep, 42 of 42 in seeds 7 and 9), \
    against tile loads: 11 of 33 configurations timed out in 14 to 49 of their 64 runs; so that \
    situation is predicted to complete (in sample for seeds 7, 9 and 13; seed 11's six such \
    configurations, not looked at before, completed).";

/// The recorded runs behind A-OUT-OF-REGION-LANDS-HW: why a load out of its region inside the
/// allocation is run on ([`super::has_silicon_reading`]).
pub const OUT_OF_REGION_PHASE: &str = "the H200 sweeps of draw v2, seeds 7 and 9 \
    (2026-11-28, in sample): 78 tensor loads out of their region inside the allocation (50 of \
    them over the mbarrier object they signal). Run on, the model predicted completes for 36 \
    (36 completed), hangs for 14 (14 hung: expect-tx above the copy's bytes, 10 of them over \
    the mbarrier), completes or hangs for 28 (19 completed, 9 hung). Stopped at the access, it \
    had predicted completes for all 78: 23 hung. Corpus: address.out_of_region 4 of 4 completed \
    (H100, H200), as run on. The completes-or-hangs ones vary per run: of the 12 in the \
    draw-v2 seed-15 sweep, run 64 times each under litmus on an H200 (2026-11-28, \
    reports/litmus/h200-2026-11-28-undecided-seed15/), 9 both completed and timed out.";

/// Does a shared access run past the CTA's allocation as silicon bounds it (rounded up to
/// [`SHARED_WINDOW_GRANULE`])? Below the image (a 32-bit address that wrapped) is not judged:
/// the one recorded run there (16 bytes below, H100) completed, and what lies further below is
/// unprobed.
pub fn leaves_allocation(a: &SharedAccess) -> bool {
    let bound = a.allocation.div_ceil(SHARED_WINDOW_GRANULE) * SHARED_WINDOW_GRANULE;
    a.start >= 0 && u64::try_from(a.end).is_ok_and(|end| end > bound)
}

impl fmt::Display for Prediction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let all: Vec<String> = self.0.iter().map(|o| o.to_string()).collect();
        f.write_str(&all.join(" or "))
    }
}

/// What sm_90 silicon does in a situation of `rule` without a situation-specific reading (the
/// rule's default): the recorded runs say so, [`SILICON`] lists them.
pub fn rule_prediction(rule: &str) -> Prediction {
    match SILICON.iter().find(|e| e.matches(rule)) {
        Some(e) => Prediction::of_set(e.outcomes[0], &e.outcomes[1..]),
        None => Prediction::one(HwOutcome::Completes),
    }
}

/// A rule whose sm_90 outcome is not completion, with the runs behind it.
pub struct SiliconReading {
    /// The rule id; for the tensor copy rules, the copy rule's name (`tensor.copy:<name>`).
    pub rule: RuleRef,
    pub outcomes: &'static [HwOutcome],
    /// The recorded runs (cases, baselines, sweeps) that showed it.
    pub evidence: &'static str,
}

/// A UB rule as [`SILICON`] names it.
pub enum RuleRef {
    Ub(&'static ub::UbRule),
    Copy(&'static str),
}

impl SiliconReading {
    fn matches(&self, rule: &str) -> bool {
        match &self.rule {
            RuleRef::Ub(r) => r.id == rule,
            RuleRef::Copy(name) => {
                rule.strip_prefix(tensor::COPY_RULE)
                    .and_then(|r| r.strip_prefix(':'))
                    == Some(name)
            }
        }
    }

    /// The rule id.
    pub fn id(&self) -> String {
        match &self.rule {
            RuleRef::Ub(r) => r.id.to_string(),
            RuleRef::Copy(name) => format!("{}:{name}", tensor::COPY_RULE),
        }
    }
}

const II: HwOutcome = HwOutcome::Traps(TrapKind::IllegalInstruction);
const MISALIGNED: HwOutcome = HwOutcome::Traps(TrapKind::MisalignedAddress);
const LAUNCH_FAILED: HwOutcome = HwOutcome::Traps(TrapKind::LaunchFailed);

/// The rules sm_90 silicon does not simply complete, with the outcomes recorded (H100 and H200
/// baselines of 2026-11-21..25 under `reports/baseline/`, the tensor sweeps under
/// `reports/sweep/`, the recordings under `cases/`). Not listed: ranges that leave their region
/// or wrap the 32-bit shared window land in the memory next to it and complete
/// (`address.out_of_region` 4 of 4, `bulk.range_overflow` 6 of 6) while they stay inside the
/// CTA's shared-memory allocation, a tensor load's phase judged by its tx-count as the run goes
/// on ([`OUT_OF_REGION_PHASE`]); past it they trap ([`leaves_allocation`]).
pub const SILICON: &[SiliconReading] = &[
    SiliconReading {
        rule: RuleRef::Ub(&ub::WAIT_NEVER_COMPLETES),
        outcomes: &[HwOutcome::Hangs],
        evidence: "cases/ub/timeout.yaml and exec-smoke: 10 of 10 per baseline (H100, H200); \
                   a phase its copies overshot is undecided (OVERSHOT_PHASE), and a later \
                   arrive on it traps (OVERSHOT_RUNS_ON)",
    },
    SiliconReading {
        rule: RuleRef::Ub(&ub::MBAR_TX_RACE),
        outcomes: &[HwOutcome::Completes, HwOutcome::Hangs],
        evidence: TX_RACE,
    },
    SiliconReading {
        rule: RuleRef::Ub(&ub::MBAR_PARITY_WAIT_RACE),
        outcomes: &[HwOutcome::Completes, HwOutcome::Hangs],
        evidence: LANDS_FIRST,
    },
    SiliconReading {
        rule: RuleRef::Ub(&ub::BULK_DST_NOT_OWN_CTA),
        outcomes: &[HwOutcome::Hangs],
        evidence: "a bulk copy alone into another CTA's .shared::cta window hangs, its \
                   issuer's phase waiting for bytes that land in that CTA (2 of 2, H100, H200; \
                   the probes of DST_OTHER_CTA); under the silicon reading it runs on \
                   (DST_OTHER_CTA)",
    },
    SiliconReading {
        rule: RuleRef::Ub(&ub::TENSOR_DST_NOT_OWN_CTA),
        outcomes: &[HwOutcome::Hangs],
        evidence: "a tensor load alone into another CTA's .shared::cta window hangs as a bulk \
                   copy does, its issuer's phase waiting for bytes that land in that CTA (the \
                   tensor probes of DST_OTHER_CTA); under the silicon reading it runs on \
                   (DST_OTHER_CTA)",
    },
    SiliconReading {
        rule: RuleRef::Ub(&ub::ADDRESS_MISALIGNED),
        outcomes: &[MISALIGNED],
        evidence: MISALIGNED_KIND,
    },
    SiliconReading {
        rule: RuleRef::Ub(&ub::MBAR_MISALIGNED),
        outcomes: &[MISALIGNED],
        evidence: "1 of 1 per baseline (H100, H200)",
    },
    SiliconReading {
        rule: RuleRef::Ub(&ub::MBAR_ADDRESS_WINDOW),
        outcomes: &[II],
        evidence: "2 of 2 per baseline (H100, H200)",
    },
    SiliconReading {
        rule: RuleRef::Ub(&ub::BULK_MULTICAST_OUTSIDE_CLUSTER),
        outcomes: &[LAUNCH_FAILED],
        evidence: "1 of 1 per baseline (H100, H200)",
    },
    SiliconReading {
        rule: RuleRef::Ub(&ub::BULK_CLUSTER_DST_OWN_CTA),
        outcomes: &[II],
        evidence: "13 of 13 per baseline (H100, H200)",
    },
    SiliconReading {
        rule: RuleRef::Ub(&ub::MBAR_PENDING_RANGE),
        outcomes: &[LAUNCH_FAILED],
        evidence: "an arrive past the pending count: 1 of 1 per baseline (H100, H200)",
    },
    SiliconReading {
        rule: RuleRef::Ub(&ub::TENSOR_REDUCE_TYPE_ILLEGAL),
        outcomes: &[II],
        evidence: "61 of 61 per baseline (H100, H200), 13 of 13 in the sweeps (H8)",
    },
    SiliconReading {
        rule: RuleRef::Copy("box-start-16b-aligned"),
        outcomes: &[II],
        evidence: "15 of 15 in the H100 sweep, 1 of 1 per baseline",
    },
    SiliconReading {
        rule: RuleRef::Copy("smem-alignment"),
        outcomes: &[MISALIGNED],
        evidence: "the tensor sweeps, the copy breaking no other copy rule: MisalignedAddress \
                   904 of 904 (H100, H200; the others trap as their other rule, CHECKED_FIRST); \
                   MisalignedAddress 2 of 2 per baseline",
    },
    SiliconReading {
        rule: RuleRef::Copy("store-coords-in-tensor"),
        outcomes: &[II],
        evidence: "38 of 38 in the H100 sweeps, 1 of 1 per baseline",
    },
    SiliconReading {
        rule: RuleRef::Copy("im2col-filter-base-in-box"),
        outcomes: &[II],
        evidence: "21 of 23 in the H100 sweep (one completed, one hung), 631 of 631 in the \
                   seed-2 sweep, 1 of 1 per baseline",
    },
    SiliconReading {
        rule: RuleRef::Copy("box-fits-shared-memory"),
        outcomes: &[HwOutcome::Traps(TrapKind::IllegalAddress)],
        evidence: "a 233,472-byte box (the largest the driver encodes) traps IllegalAddress: it \
                   leaves any allocation a CTA can have; 1 of 1 (H100, 2026-11-28)",
    },
    SiliconReading {
        rule: RuleRef::Copy("coords-count"),
        outcomes: &[II],
        evidence: "1 of 1 per baseline (H100, H200)",
    },
    SiliconReading {
        rule: RuleRef::Copy("mode-matches-map"),
        outcomes: &[II],
        evidence: "1 of 1 per baseline (H100, H200)",
    },
];

/// What silicon is expected to do, coarsely (A-EXEC-HW): the class the GPU engine schedules by
/// ([`Prediction::coarse`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExpectedHw {
    Completes,
    /// A wait whose phase can never complete spins until the harness times out.
    Timeout,
    /// The prediction includes a trap.
    MayTrap,
}

impl fmt::Display for ExpectedHw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ExpectedHw::Completes => "completes",
            ExpectedHw::Timeout => "hangs (wait times out)",
            ExpectedHw::MayTrap => "may trap",
        })
    }
}

impl ExpectedHw {
    pub fn of(outcome: &Outcome) -> ExpectedHw {
        Prediction::of(outcome, false).coarse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::load::load_file_each;
    use crate::sem::exec::{execute_with, ExecOptions};
    use crate::sem::profile::Profile;
    use std::path::Path;

    fn predictions(file: &str) -> Vec<(crate::case::Case, Prediction)> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../cases")
            .join(file);
        let (cases, errors) = load_file_each(&path);
        assert!(errors.is_empty(), "{errors:?}");
        cases
            .into_iter()
            .map(|c| {
                let ex = execute_with(&c, ExecOptions::of(Profile::Sm90)).expect("runs");
                (c, ex.prediction)
            })
            .collect()
    }

    /// The outcomes issue 34's campaigns found outside the prediction are inside it.
    #[test]
    fn fuzz_mispredicted_outcomes_are_predicted() {
        recorded_outcomes_are_allowed("probes/fuzz-mispredicted.yaml", 6);
    }

    /// The probes of the positions and the race's corpus cases: every recorded outcome is one
    /// their prediction allows (the table below pins the predictions themselves).
    #[test]
    fn situation_probe_recordings_are_predicted() {
        recorded_outcomes_are_allowed("probes/issue34-ub-situations.yaml", 8);
        recorded_outcomes_are_allowed("probes/cp-async-misaligned.yaml", 32);
        recorded_outcomes_are_allowed("probes/cp-async-ignore-src-false.yaml", 2);
        recorded_outcomes_are_allowed("ub/tx_race.yaml", 2);
        recorded_outcomes_are_allowed("probes/tensor-read-past.yaml", 9);
        recorded_outcomes_are_allowed("probes/encode-rules.yaml", 198);
        recorded_outcomes_are_allowed("probes/copy-rules.yaml", 94);
    }

    /// A-MISALIGNED-KIND-HW: every misaligned copy and reduction of the probe is predicted one
    /// trap kind, the one it gave: IllegalInstruction for the reductions into the executing
    /// CTA (no cluster launch), MisalignedAddress for the others.
    #[test]
    fn misaligned_copies_and_reductions_predict_their_trap_kind() {
        recorded_outcomes_are_allowed("probes/misaligned-kinds.yaml", 114);
        let all = predictions("probes/misaligned-kinds.yaml");
        for (c, p) in &all {
            let kind = if c.name.contains(".reduce.cluster.") {
                TrapKind::IllegalInstruction
            } else {
                TrapKind::MisalignedAddress
            };
            assert_eq!(*p, Prediction::one(HwOutcome::Traps(kind)), "{}", c.name);
        }
        let own = all
            .iter()
            .filter(|(c, _)| c.name.contains(".reduce.cluster."));
        assert_eq!(own.count(), 27);
    }

    /// A-TX-RACE-HW: the litmus's configurations with an arrival first (expect-tx 0 before the
    /// copy) are predicted to complete where only an im2col load owes the phase, and to complete
    /// or hang with a tile load (which did both under litmus); an expect-tx below the copy's
    /// bytes stays undecided for both modes.
    #[test]
    fn an_arrival_first_over_im2col_loads_completes() {
        let all = predictions("probes/tx-race-sweep13.yaml");
        let of = |index: u32| {
            all.iter()
                .find(|(c, _)| c.name.split('.').nth(4) == Some(&index.to_string()))
                .map(|(_, p)| p.clone())
                .unwrap()
        };
        let racy = Prediction::of_set(HwOutcome::Completes, &[HwOutcome::Hangs]);
        // 129: im2col, expect-tx 80 below its bytes, completed and timed out under litmus.
        assert_eq!(of(129), racy);
        // 37: tile, expect-tx 0: hung in the sweep, 64 of 64 completed under litmus; 1557: im2col,
        // expect-tx 0 (its bytes no more than the draw took off): 64 of 64 completed.
        assert_eq!(of(37), racy);
        assert_eq!(of(1557), Prediction::one(HwOutcome::Completes));
        let decided = all.iter().filter(|(_, p)| p.undecided().is_none()).count();
        assert_eq!((all.len(), decided), (141, 32));
    }

    /// A-TENSOR-READS-IN-BOUND-HW: a store is bounded by the shared bytes of its in-bound rows,
    /// a load by its whole box: of the probe's 128B-swizzled boxes, the store and reduction whose
    /// in-bound rows end inside the allocation complete although their whole box would not.
    #[test]
    fn stores_are_bounded_by_their_in_bound_rows() {
        let want = |name: &str| {
            predictions("probes/tensor-read-past.yaml")
                .into_iter()
                .find(|(c, _)| c.name == format!("probe.tensor_read_past.{name}"))
                .map(|(_, p)| p.to_string())
                .unwrap()
        };
        let trap = Prediction::one(HwOutcome::Traps(TrapKind::IllegalAddress)).to_string();
        let completes = Prediction::one(HwOutcome::Completes).to_string();
        assert_eq!(want("store.128b.d11.z2"), completes);
        assert_eq!(want("reduce.128b.d11.z2"), completes);
        assert_eq!(want("store.128b.d8.z0"), trap);
        assert_eq!(want("load.128b.d11.z2"), trap);
    }

    /// Every case of `file` (under cases/) has a recording, each inside its prediction.
    /// Every recorded outcome of `file`'s cases is one their prediction allows; the cases and
    /// their predictions, for pinning.
    fn recorded_outcomes_are_allowed(
        file: &str,
        cases: usize,
    ) -> Vec<(crate::case::Case, Prediction)> {
        let all = predictions(file);
        assert_eq!(all.len(), cases, "{file}");
        for (c, p) in &all {
            assert!(!c.observed.is_empty(), "{}", c.name);
            for o in &c.observed {
                let got = HwOutcome::of(&o.outcome);
                assert!(p.allows(got), "{}: {got} outside {p}", c.name);
            }
        }
        all
    }

    /// The overshot phase's and the race's own two outcomes.
    fn completes_or_hangs() -> Prediction {
        Prediction::of_set(HwOutcome::Completes, &[HwOutcome::Hangs])
    }

    /// A-ASYNC-ARRIVE-AT-EXIT-HW: the v5 campaign's mispredicted trap, an arrive-on of a
    /// cp.async.mbarrier.arrive no wait completed, past the pending count at the end, is in
    /// the prediction beside the cluster-launch situation's own outcomes; the text's run, which
    /// never fires it, would leave the trap out.
    #[test]
    fn pending_async_arrives_happen_at_exit() {
        recorded_outcomes_are_allowed("probes/fuzz-mispredicted-v5.yaml", 1);
        let (case, p) = predictions("probes/fuzz-mispredicted-v5.yaml").remove(0);
        assert_eq!(
            p,
            Prediction::of_set(HwOutcome::Completes, &[HwOutcome::Hangs, LAUNCH_FAILED])
        );
        let silicon =
            crate::sem::exec::execute_silicon(&case, ExecOptions::of(Profile::Sm90)).expect("runs");
        let Outcome::Undefined { ub: u, step } = silicon.outcome else {
            panic!("the silicon run ends in UB")
        };
        assert_eq!(
            (u.rule, step),
            (ub::MBAR_PENDING_RANGE.id, case.program.len())
        );
        // Its variants (recorded twice each on an H200): the cp.async.mbarrier.arrive's own
        // arrive-on, within the pending count it added, does not trap; an explicit arrive at a
        // pending count of zero does, before or without the cp.async.mbarrier.arrive.
        let file = "probes/fuzz-mispredicted-v5-which.yaml";
        recorded_outcomes_are_allowed(file, 3);
        for (c, p) in predictions(file) {
            let traps = !c.name.ends_with(".async_arrive_only");
            assert_eq!(p.allows(LAUNCH_FAILED), traps, "{}: {p}", c.name);
            for o in &c.observed {
                assert_eq!(
                    HwOutcome::of(&o.outcome) == LAUNCH_FAILED,
                    traps,
                    "{}",
                    c.name
                );
            }
        }
    }

    /// A-WAIT-RUNS-ON-HW: a wait that never completes is run past, and the rest of the program
    /// decides: its recorded probes (each run three times on an H200) and the v4 campaign's
    /// mispredicted traps are predicted, one outcome each.
    #[test]
    fn runs_on_past_a_timed_out_wait() {
        recorded_outcomes_are_allowed("probes/arrive-after-timeout.yaml", 4);
        recorded_outcomes_are_allowed("probes/fuzz-mispredicted-v4.yaml", 6);
        let all = predictions("probes/arrive-after-timeout.yaml");
        let want = [
            ("direct", LAUNCH_FAILED),
            ("after_wait", LAUNCH_FAILED),
            ("wait_only", HwOutcome::Hangs),
            ("after_wait_legal", HwOutcome::Hangs),
        ];
        for (name, o) in want {
            let name = format!("probe.arrive_after_timeout.{name}");
            let (_, p) = all.iter().find(|(c, _)| c.name == name).expect("probe");
            assert_eq!(p, &Prediction::one(o), "{name}");
        }
        // The text's run still stops at the wait: only the prediction runs on.
        let c = &all
            .iter()
            .find(|(c, _)| c.name.ends_with(".after_wait"))
            .expect("probe")
            .0;
        let ex = execute_with(c, ExecOptions::of(Profile::Sm90)).expect("runs");
        assert!(
            matches!(ex.outcome, Outcome::Undefined { ref ub, step: 2 } if ub.rule == ub::WAIT_NEVER_COMPLETES.id)
        );
    }

    /// A-TX-RANGE-HW: a tx-count past 2^20 traps, exactly 2^20 completes, and the v6
    /// campaign's program, whose run goes on past its timed-out waits into such an expect-tx,
    /// traps in every variant that reaches it and hangs in the one cut before.
    #[test]
    fn a_tx_count_past_2_pow_20_traps() {
        recorded_outcomes_are_allowed("probes/tx-range.yaml", 14);
        recorded_outcomes_are_allowed("probes/fuzz-mispredicted-v6.yaml", 13);
        let tx = predictions("probes/tx-range.yaml");
        for (c, p) in &tx {
            let completes = c.name.ends_with(".at_2p20")
                || c.name.ends_with(".at_2p20_then_complete")
                || c.name.ends_with("_control")
                || c.name.ends_with(".below_at_minus_2p20_plus1");
            let want = if completes {
                HwOutcome::Completes
            } else {
                LAUNCH_FAILED
            };
            assert_eq!(p, &Prediction::one(want), "{}", c.name);
        }
        for (c, p) in predictions("probes/fuzz-mispredicted-v6.yaml") {
            let want = if c.name.ends_with(".upto5") {
                HwOutcome::Hangs
            } else {
                LAUNCH_FAILED
            };
            assert_eq!(p, Prediction::one(want), "{}", c.name);
        }
        let corpus = predictions("ub/mbarrier.yaml");
        let (_, p) = corpus
            .iter()
            .find(|(c, _)| c.name == "ub.mbarrier.tx_overflow")
            .expect("corpus case");
        assert_eq!(p, &Prediction::one(HwOutcome::Completes));
    }

    /// A-TX-OVERSHOT-HW run on: the v7 campaign's program waits on a phase its copy overshot
    /// and then arrives on it again. Silicon trapped; the wait alone keeps the overshot
    /// phase's own two outcomes, and the arrive after it adds the trap.
    #[test]
    fn overshot_phase_runs_on_past_its_wait() {
        let all = recorded_outcomes_are_allowed("probes/fuzz-mispredicted-v7.yaml", 5);
        let either = completes_or_hangs();
        for (c, p) in &all {
            let want = match c.name.rsplit('.').next() {
                Some("as_found" | "own_mbar") => either.clone().with(LAUNCH_FAILED),
                Some("drop7") => Prediction::one(HwOutcome::Hangs),
                _ => either.clone(),
            };
            assert_eq!(p, &want, "{}", c.name);
        }
        let mut c = all[0].0.clone();
        assert!(c.name.ends_with(".as_found"));
        // Steps 0-18: up to the wait on the overshot phase, no arrive after it.
        c.program.truncate(19);
        let ex = execute_with(&c, ExecOptions::of(Profile::Sm90)).expect("runs");
        assert_eq!(ex.prediction, either);
        c = all[0].0.clone();
        c.program.truncate(20);
        let ex = execute_with(&c, ExecOptions::of(Profile::Sm90)).expect("runs");
        assert_eq!(ex.prediction, either.with(LAUNCH_FAILED));
    }

    /// A-DATA-RACE-RUNS-ON-HW: silicon runs on past each of the three races, so an arrive past
    /// the pending count after one traps; the text's run still stops at the race, and the
    /// corpus's races alone still complete.
    #[test]
    fn data_races_run_on() {
        for (c, p) in recorded_outcomes_are_allowed("probes/race-runs-on.yaml", 6) {
            assert_eq!(p, Prediction::one(LAUNCH_FAILED), "{}", c.name);
            let ex = execute_with(&c, ExecOptions::of(Profile::Sm90)).expect("runs");
            let Outcome::Undefined { ub: u, .. } = &ex.outcome else {
                panic!("{}: defined", c.name);
            };
            let want = match c.name.split('.').nth(2) {
                _ if c.name.ends_with(".no_race") => ub::MBAR_PENDING_RANGE.id,
                Some("src_modified") => ub::ASYNC_SRC_MODIFIED.id,
                Some("dst_read") => ub::ASYNC_DST_READ.id,
                _ => ub::ASYNC_DST_WRITTEN.id,
            };
            assert_eq!(u.rule, want, "{}", c.name);
        }
        let either = completes_or_hangs();
        for (c, p) in recorded_outcomes_are_allowed("probes/fuzz-mispredicted-v7b.yaml", 4) {
            let want = if c.name.ends_with(".upto16") {
                either.clone()
            } else {
                either.clone().with(LAUNCH_FAILED)
            };
            assert_eq!(p, want, "{}", c.name);
        }
        let races = predictions("ub/copy.yaml");
        let races: Vec<_> = races
            .iter()
            .filter(|(c, _)| c.name.starts_with("ub.async."))
            .collect();
        assert_eq!(races.len(), 5);
        for (c, p) in races {
            assert_eq!(p, &Prediction::one(HwOutcome::Completes), "{}", c.name);
        }
    }

    /// A-ASYNC-ARRIVE-LANDS-HW and the lost arrive-ons of A-ASYNC-ARRIVE-AT-EXIT-HW, pinned by
    /// the v16 probes (H200, each run twice): an arrive-on fired before the found program's
    /// inval passes the dropped object's pending count, one fired later or lost with the last
    /// step does not; with its copy waited first it fires at once and traps.
    #[test]
    fn async_arrives_fire_at_no_stated_time() {
        let either = Prediction::of_set(HwOutcome::Completes, &[LAUNCH_FAILED]);
        for (c, p) in recorded_outcomes_are_allowed("probes/fuzz-mispredicted-v16.yaml", 7) {
            let want = match c.name.as_str() {
                "probe.v16.as_found"
                | "probe.v16.drop_then_async_arrive"
                | "probe.v16.drop_then_async_arrive_reinit" => either.clone(),
                "probe.v16.drop_then_async_arrive_waited" => Prediction::one(LAUNCH_FAILED),
                _ => Prediction::one(HwOutcome::Completes),
            };
            assert_eq!(p, want, "{}", c.name);
        }
    }

    /// The v8 probes: a run gone on past a race still meets the CTAs' exit, where a pending
    /// cp.async.mbarrier.arrive arrives past the pending count (A-ASYNC-ARRIVE-AT-EXIT-HW);
    /// and a complete-tx that passes the tx-count's range only if a copy in flight signals
    /// before it adds the trap (A-TX-RANGE-HW), which a smaller one or no copy does not.
    #[test]
    fn exit_after_a_race_and_the_range_in_the_other_order() {
        let either = completes_or_hangs();
        for (c, p) in recorded_outcomes_are_allowed("probes/fuzz-mispredicted-v8.yaml", 7) {
            let want = match c.name.as_str() {
                "probe.v9.as_found" | "probe.v9.upto29" => either.clone().with(TX_RANGE_TRAP),
                "probe.v9.in_range" => either.clone(),
                "probe.v9.drop15" => Prediction::one(HwOutcome::Hangs),
                _ => Prediction::one(LAUNCH_FAILED),
            };
            assert_eq!(p, want, "{}", c.name);
        }
    }

    /// A-TX-RACE-HW run on: a complete-tx race does not end the silicon run, so a later arrive
    /// past the pending count joins the trap to the race's outcomes.
    #[test]
    fn tx_race_runs_on() {
        let either = completes_or_hangs();
        for (c, p) in recorded_outcomes_are_allowed("probes/fuzz-mispredicted-v10.yaml", 4) {
            let want = match c.name.as_str() {
                "probe.v10.upto30" => either.clone(),
                "probe.v10.drop13" => Prediction::one(LAUNCH_FAILED),
                _ => either.clone().with(LAUNCH_FAILED),
            };
            assert_eq!(p, want, "{}", c.name);
        }
        // The race cases of the corpus keep the race's own outcomes.
        for (c, p) in predictions("ub/tx_race.yaml") {
            assert!(!p.allows(LAUNCH_FAILED), "{}: {p}", c.name);
        }
    }

    /// A-TX-RACE-HW's other order: copies whose bytes race with a phase's completion may signal
    /// before the next operation on their object, so the phase never completes and a later
    /// arrive on it traps. The seed-40 program and its variants are predicted as recorded; in
    /// the model's own order alone (the copies landing at the wait) the trap was outside.
    #[test]
    fn racing_copies_may_signal_before_the_next_use() {
        let all = recorded_outcomes_are_allowed("probes/fuzz-mispredicted-v15.yaml", 7);
        for (c, p) in all {
            let short = c.name.trim_start_matches("probe.v15.s40.");
            let traps = matches!(short, "as_found" | "cut23" | "own_mbar");
            assert_eq!(p.allows(LAUNCH_FAILED), traps, "{}: {p}", c.name);
        }
    }

    /// A-MB-ARRIVE-COUNTS-HW, the drop to zero: arrive_drop of the only expected arrival
    /// completes its phase and the phases after it expect nothing, so a later arrive-on traps
    /// and a wait on the next phase hangs. The generator-7 campaigns' traps and the probes are
    /// predicted as recorded; the text's run, stopped at the drop, predicted completion.
    #[test]
    fn a_drop_to_zero_counts_and_leaves_nothing_expected() {
        let traps = Prediction::one(LAUNCH_FAILED);
        for (c, p) in recorded_outcomes_are_allowed("probes/fuzz-mispredicted-v14.yaml", 3) {
            assert_eq!(p, traps, "{}", c.name);
        }
        for (c, p) in recorded_outcomes_are_allowed("probes/expected-zero.yaml", 5) {
            let want = match c.name.trim_start_matches("probe.expected_zero.") {
                "drop_then_arrive" | "drop_of_two" => traps.clone(),
                "drop_then_wait_1" => Prediction::one(HwOutcome::Hangs),
                _ => Prediction::one(HwOutcome::Completes),
            };
            assert_eq!(p, want, "{}", c.name);
        }
    }

    /// A-MB-ARRIVE-COUNTS-HW: early and `.noComplete` arrive-ons count, so a later wait on the
    /// phase they moved past hangs; A-MB-PARITY-PASSED-HW: a wait whose landing completes its
    /// phase and the next may see either. Every probe is predicted as recorded, and pinned.
    #[test]
    fn arrive_ons_count_and_waits_may_see_a_phase_pass() {
        let hangs = Prediction::one(HwOutcome::Hangs);
        let completes = Prediction::one(HwOutcome::Completes);
        for (c, p) in recorded_outcomes_are_allowed("probes/arrive-counts.yaml", 7) {
            let counted_past = [
                "early_wait_current",
                "early_pending",
                "nocomplete_then_early",
            ];
            let short = c.name.trim_start_matches("probe.counts.");
            let want = if counted_past.contains(&short) {
                &hangs
            } else {
                &completes
            };
            assert_eq!(&p, want, "{}", c.name);
        }
        // What the runs applied, for a campaign's coverage.
        let readings = |file: &str, name: &str| {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../cases")
                .join(file);
            let (cases, _) = load_file_each(&path);
            let c = cases.iter().find(|c| c.name == name).expect("a probe");
            execute_with(c, ExecOptions::of(Profile::Sm90))
                .expect("runs")
                .readings
        };
        let f = "probes/arrive-counts.yaml";
        assert_eq!(
            readings(f, "probe.counts.early_wait_current"),
            ["A-MB-ARRIVE-COUNTS-HW", "A-WAIT-RUNS-ON-HW"]
        );
        assert_eq!(
            readings(f, "probe.counts.early_wait_preceding"),
            ["A-MB-ARRIVE-COUNTS-HW"]
        );
        assert!(readings(f, "probe.counts.early_observed").is_empty());
        let f = "probes/fuzz-mispredicted-v11.yaml";
        let passed = readings(f, "probe.v11.s24.3f8b230d0626d38a");
        assert!(passed.contains(&"A-MB-PARITY-PASSED-HW"), "{passed:?}");
        for (c, p) in recorded_outcomes_are_allowed("probes/fuzz-mispredicted-v11.yaml", 11) {
            let hash = c.name.rsplit('.').next().unwrap_or_default();
            let want = match (hash, c.name.contains(".s20.")) {
                ("5201a0f26fbeccf3", _) => Prediction::one(LAUNCH_FAILED),
                // A concurrent group of single arrivals completes phases on the way: one state
                // in every order under the silicon reading.
                ("9877bd7bb8064afd", _) | ("70980135af709b00", false) => hangs.clone(),
                _ => completes_or_hangs(),
            };
            assert_eq!(p, want, "{}", c.name);
        }
    }

    /// A-MB-COPIES-FIRST-HW: an arrive-on past the pending count of a phase that a copy still
    /// owes traps or, the copy first, counts on the next phase; the silicon run goes on in the
    /// second order. Every probe is predicted as recorded, and pinned.
    #[test]
    fn copies_owed_may_signal_before_an_arrive() {
        let either = Prediction::of_set(HwOutcome::Completes, &[COPIES_LATE_TRAP]);
        for (c, p) in recorded_outcomes_are_allowed("probes/copies-land-first.yaml", 4) {
            let want = match c.name.trim_start_matches("probe.copies_first.") {
                "observed" => Prediction::one(HwOutcome::Completes),
                "arrive_at_once" => either.clone(),
                // The wait on parity 1 races with the copy too (A-WAIT-PARITY-RACE): landed
                // first, the copy completes phase 0 and the wait times out on phase 1.
                _ => either.clone().with(HwOutcome::Hangs),
            };
            assert_eq!(p, want, "{}", c.name);
        }
        // The seed-26 program's copies land at its wait, or at its arrive 19 steps later: the
        // run goes on to its timed-out wait either way, the trap kept.
        let all = recorded_outcomes_are_allowed("probes/fuzz-mispredicted-v12.yaml", 1);
        let (c, p) = &all[0];
        assert!(p.allows(HwOutcome::Hangs) && p.allows(LAUNCH_FAILED), "{p}");
        let ex = execute_with(c, ExecOptions::of(Profile::Sm90)).expect("runs");
        assert!(
            ex.readings.contains(&"A-MB-COPIES-FIRST-HW"),
            "{:?}",
            ex.readings
        );
    }

    /// A-WAIT-PARITY-RACE: a parity wait that sees its phase complete while what is in flight
    /// would complete the current one is `mbarrier.parity_wait_race`; silicon's run takes both
    /// orders (A-MB-PARITY-PASSED-HW). Every probe is predicted as recorded, and pinned.
    #[test]
    fn parity_waits_race_with_what_is_in_flight() {
        let either = Prediction::of_set(HwOutcome::Completes, &[HwOutcome::Hangs]);
        for (c, p) in recorded_outcomes_are_allowed("ub/parity_wait_race.yaml", 2) {
            assert_eq!(p, either, "{}", c.name);
            let ex = execute_with(&c, ExecOptions::of(Profile::Sm90)).expect("runs");
            let rule = match &ex.outcome {
                crate::sem::exec::Outcome::Undefined { ub, .. } => ub.rule,
                crate::sem::exec::Outcome::Defined => "defined",
            };
            assert_eq!(rule, ub::MBAR_PARITY_WAIT_RACE.id, "{}", c.name);
        }
        for (c, p) in recorded_outcomes_are_allowed("probes/lands-before-wait.yaml", 3) {
            let want = if c.name.ends_with("current_wait") {
                Prediction::one(HwOutcome::Completes)
            } else {
                either.clone()
            };
            assert_eq!(p, want, "{}", c.name);
        }
        for (c, p) in recorded_outcomes_are_allowed("probes/fuzz-mispredicted-v13.yaml", 2) {
            assert_eq!(p, either, "{}", c.name);
        }
        // One probe of test_wait.parity in place of the blocking wait races the same way; its
        // predicate is what the two orders differ in, and the program then completes.
        let (mut c, _) = predictions("ub/parity_wait_race.yaml").swap_remove(0);
        let last = c.program.len() - 1;
        c.program[last].op = crate::case_model::StepOp::Ptx(
            "mbarrier.test_wait.parity.shared::cta.b64 done, [bar], 0".into(),
        );
        let ex = execute_with(&c, ExecOptions::of(Profile::Sm90)).expect("runs");
        match &ex.outcome {
            crate::sem::exec::Outcome::Undefined { ub: u, step } => {
                assert_eq!((u.rule, *step), (ub::MBAR_PARITY_WAIT_RACE.id, last))
            }
            o => panic!("{o:?}"),
        }
        assert_eq!(ex.prediction, Prediction::one(HwOutcome::Completes));
    }

    /// A-BULK-GRANULE-CLUSTER-HW adds the trap to copies into .shared::cluster only: the
    /// corpus's copy into .shared::cta off the granule still hangs, as it did.
    #[test]
    fn granule_trap_only_into_shared_cluster() {
        let probes = predictions("probes/fuzz-mispredicted.yaml");
        let find = |name: &str| {
            probes
                .iter()
                .find(|(c, _)| c.name == name)
                .expect(name)
                .1
                .clone()
        };
        // Its cp.async.mbarrier.arrive, pending at the end, arrives past the pending count there
        // (A-ASYNC-ARRIVE-AT-EXIT-HW): the trap alone, as it was recorded under every build.
        assert_eq!(
            find("regress.f950252156521966"),
            Prediction::one(LAUNCH_FAILED)
        );
        // Run on past its timed-out wait (A-WAIT-RUNS-ON-HW), this one's later steps trap
        // LaunchFailed whatever the granule does: the trap it was recorded doing.
        assert_eq!(
            find("regress.8e5118cf88a94926"),
            Prediction::one(LAUNCH_FAILED)
        );
        let corpus = predictions("ub/copy.yaml");
        let name = "ub.bulk.size_not_multiple_of_16";
        let (_, p) = corpus.iter().find(|(c, _)| c.name == name).expect(name);
        assert_eq!(p, &Prediction::one(HwOutcome::Hangs));
    }

    /// What the probes of the positions are predicted to do (the file's header says what
    /// each outcome would tell).
    #[test]
    fn situation_probes_predict_as_documented() {
        let want = [
            (
                "probe.ub.never_init_sm80_late_init",
                Prediction::of_set(HwOutcome::Completes, &[LAUNCH_FAILED]),
            ),
            (
                "probe.ub.inval_arrive_phase2",
                Prediction::one(HwOutcome::Completes),
            ),
            (
                "probe.ub.cp_async.ignore_src_misaligned",
                Prediction::one(HwOutcome::Completes),
            ),
            (
                "probe.ub.cp_async.src_size1_misaligned",
                Prediction::one(HwOutcome::Completes),
            ),
            (
                "probe.ub.bulk_self.own_mbar_cluster2",
                Prediction::of_set(HwOutcome::Completes, &[HwOutcome::Hangs]),
            ),
            // Its complete-tx goes to CTA 0's never-initialized object, which may trap
            // (A-MB-NEVER-INIT-HW); this run completed, the v4 campaigns' programs trapped.
            (
                "probe.ub.bulk_self.remote_mbar_no_wait",
                Prediction::of_set(HwOutcome::Completes, &[HwOutcome::Hangs, LAUNCH_FAILED]),
            ),
            (
                "probe.ub.bulk_granule.cluster_dst_tx_equal",
                Prediction::of_set(HwOutcome::Hangs, &[LAUNCH_FAILED]),
            ),
            (
                "probe.ub.bulk_granule.cta_dst_tx_rounded_up",
                Prediction::one(HwOutcome::Hangs),
            ),
        ];
        let got = predictions("probes/issue34-ub-situations.yaml");
        assert_eq!(got.len(), want.len());
        for (name, p) in want {
            let (_, q) = got.iter().find(|(c, _)| c.name == name).expect(name);
            assert_eq!(q, &p, "{name}");
        }
    }
}
