//! The reference executor: runs a [`Case`] step by step on the `sem` mechanisms and reports the
//! outcome (defined, or the first classified undefined behaviour), a per-step trace and the final
//! state of every region, mbarrier and async-group queue.
//!
//! One submodule per instruction family ([`cp_async`], [`bulk`], [`reduce`], [`mbarrier`],
//! [`sync`], [`tensor`], [`tcgen05`], [`tensormap`]). What they share: this file holds the
//! [`Machine`] (its state, built from the case) and how a step stops ([`Stop`]); [`driver`] runs
//! a case step by step, [`operands`] resolves registers and addresses through [`Layout`] with the
//! UB checks on them, [`async_ops`] issues, tracks and lands asynchronous writes, [`trace`]
//! records what each step touched and the final state, and [`report`] holds the report types.
//!
//! Model positions where the spec is silent (named, see [`ASSUMPTIONS`]):
//! - A-EXEC-ORDER: steps run in listed order; `cta: all` runs a step in every CTA in rank order
//!   (the harness separates steps by barriers, so silicon sees the same order).
//! - A-EXEC-CONCURRENT-INTERLEAVINGS: the steps of a `concurrent` group run in every order of
//!   whole steps that keeps each thread's steps in order; the executions merge (see
//!   `sem/exec/concurrent.rs`); only the steps of threads that depend on each other (conflicting
//!   footprints, `sem/exec/footprint.rs`) are interleaved, and the bound applies to those orders.
//! - A-EXEC-CONCURRENT-MBAR-COMMUTE: arrive-type updates of one mbarrier by different threads of a
//!   group (arrive-on, expect-tx, complete-tx, tracked copies, cp.async.mbarrier.arrive) commute
//!   when no order of them can complete the phase before the last or leave the count ranges
//!   (§9.7.13.15.5–.7: they only add to the two counts); each run checks this on the state it
//!   met, and the case is rerun with those updates treated as conflicting when it does not hold.
//! - A-EXEC-EVENTUAL: an asynchronous write stays in flight ({old, new} per byte) until a mechanism
//!   guarantees it: a cp.async / bulk wait_group (group mechanism) or a wait on the mbarrier that
//!   tracks it. Nothing lands at the end of the program.
//! - A-EXEC-WAIT-LANDS: a wait on mbarrier B (the `wait_parity` step, test_wait, try_wait) that
//!   already succeeds lands nothing: the phase completed without the copies still in flight, so
//!   it guarantees nothing about them (they stay uncertain). Otherwise it first lands every copy
//!   tracked by B and the cp.async operations of pending cp.async.mbarrier.arrive arrive-ons on B,
//!   then evaluates: the schedule in which the probe succeeds whenever it can.
//! - A-EXEC-PROBE: test_wait / try_wait are single probes (a False result is written to the
//!   predicate, not UB); only the blocking `wait_parity` step classifies a phase that still cannot
//!   complete as `wait.never_completes` (no later step can run to complete it).
//! - A-EXEC-CTA-RANK: CTA index = cluster index × cluster size + %cluster_ctarank (linear order);
//!   a Mapa param's `cta` and multicast ctaMask bits are cluster ranks in the executing CTA's cluster.
//! - A-EXEC-MBAR-IN-DST: for .shared::cluster destinations the complete-tx lands on the mbarrier
//!   at the `mbar` operand's CTA-relative offset in the destination CTA (each masked CTA for
//!   multicast).
//! - A-EXEC-GLOBAL-BASE: a global region's base address is aligned to its `align` plus
//!   `misalign`; alignment checks use that address.
//! - A-EXEC-REGION: an access leaving the named region it addresses is out of range
//!   (`bulk.range_overflow` for bulk operations, `address.out_of_region` otherwise).
//! - A-EXEC-GENERIC-SHARED: generic mbarrier addresses (no `.shared` qualifier) name the
//!   executing CTA's shared memory.
//! - A-EXEC-FENCE-NOOP: thread fences, fence.proxy.alias, fence.proxy.tensormap::generic and
//!   barrier.cluster change no modelled state (steps are already sequential, the model has no
//!   virtual aliases and no tensor map the program writes); the proxy fences do (`exec/sync.rs`).
//! - A-EXEC-PREFETCH: prefetches change no state and are not checked beyond resolving.
//! - A-EXEC-HW: the predicted hardware behaviour of a UB is a set of outcomes
//!   (`Prediction`: completes, hangs, traps with a CUDA error kind, the driver refuses); a run
//!   outside it is mispredicted, a failure. UB is predicted to complete (with unconstrained
//!   results) unless H100 / H200 did otherwise: `predict::SILICON` lists those rules with the
//!   outcomes and runs; UB silicon runs in one definite way is run again under that reading
//!   ([`Reading::Silicon`]), whose outcome is the prediction.
//! - A-TX-RACE: a phase an instruction completes while issued copies it tracks still owe it
//!   complete-tx depends on an order the text leaves open (a copy signals on its completion, at
//!   no stated time): `mbarrier.complete_tx_race`; silicon's outcomes are A-TX-RACE-HW's
//!   (`exec/predict.rs`, with the other silicon positions of the prediction).
//! - A-WAIT-PARITY-RACE: a parity wait (the blocking step, or one probe of test_wait/try_wait)
//!   that sees the phase it names complete while what signals the object is still in flight
//!   (copies' complete-tx, cp.async.mbarrier.arrive arrive-ons), which landed first would
//!   complete the current phase, depends on an order the text leaves open: the parity then
//!   names the new current phase and the wait does not complete there (§9.7.13.15.16 names the
//!   phase by parity only): `mbarrier.parity_wait_race`; silicon's reading runs both orders
//!   (A-MB-PARITY-PASSED-HW).
//! - A-BULK-SIZE-ROUNDS-DOWN: silicon runs a bulk copy or reduction whose size is not a multiple
//!   of 16 with the size rounded down to one (`exec/bulk.rs`).
//! - A-EXEC-REDUCE-REMOTE: cp.reduce.async.bulk into .shared::cluster must target another CTA
//!   (the copy's rule; the reduce page is silent; decided by H100 traps, see sem/exec/reduce.rs).
//! - A-EXEC-UPDATE-FINAL: a reduction still in flight at the end leaves its destination bytes
//!   {old, result computed from the final destination}.

mod async_ops;
mod bulk;
pub mod concurrent;
mod cp_async;
mod footprint;
mod mbarrier;
mod operands;
pub mod predict;
mod reduce;
mod report;
mod run;
mod sync;
mod tcgen05;
pub mod tensor;
mod tensormap;
mod trace;

use std::collections::{BTreeMap, HashMap};

use super::groups::{AsyncOp, GroupQueue};
use super::mbarrier::{Slot, StateToken};
use super::memory::{MemError, Memory, RegionId, WriteId};
use super::profile::{Position, Profile};
use super::proxy::Note;
use super::tracking::{SemError, Tracking};
use super::ub::{self, Ub, UbRule};
use crate::case_model::Case;
use crate::layout::{Layout, Place};
use async_ops::Update;
pub use predict::{
    rule_prediction, ExpectedHw, HwOutcome, OutcomeClass, Prediction, Undecided, SILICON,
};
pub use report::{
    ErrorKind, ExecError, ExecOptions, Execution, FinalState, GroupCounts, MbarState, Outcome,
    Touch, TouchKind, TraceDetail, TraceStep,
};
pub use run::{execute, execute_every_order, execute_silicon, execute_with, has_silicon_reading};
pub(crate) use run::{execute_outcome, Reading};

/// Puts position ids in [`ASSUMPTIONS`] order, each once.
pub(crate) fn in_assumption_order(ids: &mut Vec<&'static str>) {
    ids.sort_by_key(|id| ASSUMPTIONS.iter().position(|a| a == id));
    ids.dedup();
}

pub const ASSUMPTIONS: &[&str] = &[
    "A-EXEC-ORDER",
    "A-EXEC-CONCURRENT-INTERLEAVINGS",
    "A-EXEC-CONCURRENT-MBAR-COMMUTE",
    "A-EXEC-EVENTUAL",
    "A-EXEC-WAIT-LANDS",
    "A-EXEC-PROBE",
    "A-EXEC-CTA-RANK",
    "A-EXEC-MBAR-IN-DST",
    "A-EXEC-GLOBAL-BASE",
    "A-EXEC-REGION",
    "A-EXEC-GENERIC-SHARED",
    "A-EXEC-FENCE-NOOP",
    "A-EXEC-PROXY-CAUSAL",
    "A-EXEC-MBAR-INIT-RELEASE",
    "A-EXEC-PREFETCH",
    "A-EXEC-HW",
    "A-TX-RACE",
    "A-WAIT-PARITY-RACE",
    "A-TX-RACE-HW",
    "A-TX-OVERSHOT-HW",
    "A-OUT-OF-REGION-LANDS-HW",
    "A-TENSOR-SMEM-ALIGN-LAST-HW",
    "A-MISALIGNED-KIND-HW",
    "A-MB-NEVER-INIT-HW",
    "A-MB-INVAL-KEEPS-HW",
    "A-MB-ARRIVE-COUNTS-HW",
    "A-MB-PARITY-PASSED-HW",
    "A-MB-COPIES-FIRST-HW",
    "A-WAIT-RUNS-ON-HW",
    "A-DATA-RACE-RUNS-ON-HW",
    "A-TX-RANGE-HW",
    "A-ASYNC-ARRIVE-AT-EXIT-HW",
    "A-ASYNC-ARRIVE-LANDS-HW",
    "A-CP-ASYNC-SRC-SIZE-FORM-HW",
    "A-BULK-SELF-CLUSTER-LAUNCH-HW",
    "A-BULK-DST-OTHER-CTA-HW",
    "A-BULK-GRANULE-CLUSTER-HW",
    "A-BULK-SIZE-ROUNDS-DOWN",
    "A-EXEC-UPDATE-FINAL",
    "A-EXEC-REDUCE-REMOTE",
    "A-EXEC-TCGEN05-WORD",
    "A-EXEC-TCGEN05-DESC-RELATIVE",
    "A-EXEC-TCGEN05-COMPLETE",
    "A-EXEC-TCGEN05-PEER",
    "A-EXEC-TCGEN05-EPILOGUE",
    "A-EXEC-TCGEN05-ALLOC-BLOCKS",
    "A-EXEC-TCGEN05-LD",
    "A-TMAP-OPAQUE",
    "A-TMAP-ALIGN",
    "A-TMAP-SYNC",
];

/// Why a step stopped: classified UB, or a case error.
#[derive(Debug)]
pub(crate) enum Stop {
    Ub(Ub),
    Err(ErrorKind),
}

impl From<Ub> for Stop {
    fn from(u: Ub) -> Stop {
        Stop::Ub(u)
    }
}
impl From<MemError> for Stop {
    fn from(e: MemError) -> Stop {
        Stop::Err(ErrorKind::Internal(e.to_string()))
    }
}
impl From<SemError> for Stop {
    fn from(e: SemError) -> Stop {
        match e {
            SemError::Ub(u) => Stop::Ub(u),
            other => Stop::Err(ErrorKind::Internal(format!("{other:?}"))),
        }
    }
}

type R<T = ()> = Result<T, Stop>;

fn ub<T>(rule: &UbRule, detail: impl Into<String>) -> R<T> {
    Err(Stop::Ub(Ub::new(rule, detail)))
}
fn kind<T>(msg: impl Into<String>) -> R<T> {
    Err(Stop::Err(ErrorKind::OperandKind(msg.into())))
}

/// A register value in a thread's register file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reg {
    Int(i64),
    Pred(bool),
    State(StateToken),
}

#[derive(Clone, Debug, Default)]
struct Queues {
    cp: GroupQueue,
    bulk: GroupQueue,
}

fn mbar_key(cta: u32, off: u64) -> u64 {
    (u64::from(cta) << 32) | off
}

pub(crate) struct Machine<'c> {
    case: &'c Case,
    layout: Layout,
    ctas: u32,
    cluster: u32,
    mem: Memory,
    slots: BTreeMap<u64, Slot>,
    tracking: Tracking,
    /// cp.async.mbarrier.arrive arrive-ons not yet fired: (barrier key, tracked operations).
    async_arrives: Vec<(u64, Vec<AsyncOp>)>,
    updates: HashMap<WriteId, Update>,
    queues: BTreeMap<(u32, u32), Queues>,
    regs: BTreeMap<(u32, u32), BTreeMap<String, Reg>>,
    tc: tcgen05::State,
    profile: Profile,
    /// What the trace keeps of each step.
    detail: TraceDetail,
    reading: Reading,
    /// A bulk copy into .shared::cluster from global ran off the 16-byte granule under
    /// [`Reading::Silicon`] (A-BULK-GRANULE-CLUSTER-HW).
    granule_cluster_copy: bool,
    /// A bulk copy's or tensor load's .shared::cta destination was in another CTA and
    /// [`Reading::Silicon`] ran it as the .shared::cluster form (A-BULK-DST-OTHER-CTA-HW).
    dst_other_cta: bool,
    /// Under [`Reading::Silicon`] a copy signals complete-tx to a location no mbarrier was ever
    /// initialized at, which silicon may trap on (A-MB-NEVER-INIT-HW).
    signals_never_initialized: bool,
    /// Steps whose blocking wait never completes and that [`Reading::Silicon`] ran past, as the
    /// harness's bounded wait gives up and goes on (A-WAIT-RUNS-ON-HW).
    timed_out: Vec<usize>,
    /// Those of [`Self::timed_out`] whose landing completed the waited phase and the next: the
    /// wait may have seen the first (A-MB-PARITY-PASSED-HW).
    passed_waits: Vec<usize>,
    /// One of [`Self::timed_out`] waited on a phase its copies overshot, which silicon may
    /// complete instead (A-TX-OVERSHOT-HW).
    ran_past_overshot: bool,
    /// The first data race [`Reading::Silicon`] ran past, and its step
    /// (A-DATA-RACE-RUNS-ON-HW).
    raced: Option<(Ub, usize)>,
    /// A complete-tx would have taken a tx-count below the range had the copies still in flight
    /// signalled first (A-TX-RANGE-HW): silicon may trap.
    tx_range_if_copies_first: bool,
    /// An arrive-on met a phase with no arrival pending that copies in flight still owed
    /// complete-tx, and [`Reading::Silicon`] landed them first (A-MB-COPIES-FIRST-HW): in the
    /// other order silicon traps.
    pending_range_if_copies_late: bool,
    /// An arrive-on, expect-tx, complete-tx, init or inval met the arrive-on of a
    /// cp.async.mbarrier.arrive still pending on its object, in the order where it fires later
    /// (A-ASYNC-ARRIVE-LANDS-HW): the silicon reading also runs the order where it fired first.
    arrive_owed_at_use: bool,
    /// The step of the last cp.async.mbarrier.arrive issued.
    async_arrive_step: Option<usize>,
    /// The orders the run takes where the text leaves one open: a parity wait racing with what
    /// signals its object (A-WAIT-PARITY-RACE), copies in flight (A-TX-RACE-HW's other order).
    orders: run::Orders,
    /// A parity wait raced so.
    raced_wait: bool,
    /// The first `mbarrier.complete_tx_race` [`Reading::Silicon`] ran past in the order the
    /// run took, and its step (A-TX-RACE-HW): its outcomes join the run's.
    tx_raced: Option<(Ub, usize)>,
    /// The first arrive-on UB [`Reading::Silicon`] counted as a defined arrive-on
    /// (`mbarrier.arrive_before_wait`, `mbarrier.nocomplete_completes`, the drop to zero of
    /// `mbarrier.expected_count_range`), and its step
    /// (A-MB-ARRIVE-COUNTS-HW).
    counted_arrive: Option<(Ub, usize)>,
    /// Positions whose readings differed (see [`Execution::departures`]).
    departures: Vec<&'static Position>,
    /// mbarrier key → (CTA, thread) of its mbarrier.init while no fence has released it to the
    /// cluster (A-EXEC-MBAR-INIT-RELEASE).
    unreleased_inits: BTreeMap<u64, (u32, u32)>,
    notes: Vec<Note>,
    // Context of the step being executed.
    step: usize,
    cta: u32,
    thread: u32,
    touched: Vec<Touch>,
    /// Every declared mbarrier of every CTA with its slot key, made at the first trace step
    /// (the declarations and layout do not change during a run).
    mbar_decls: Option<Vec<(u32, std::sync::Arc<str>, u64)>>,
}

impl<'c> Machine<'c> {
    fn new(case: &'c Case, opts: ExecOptions) -> Result<Machine<'c>, ErrorKind> {
        let layout = Layout::of(case).map_err(|e| ErrorKind::Layout(e.0))?;
        let ctas = case.launch.ctas();
        let cluster = case.launch.cluster_size();
        if ctas == 0 || cluster == 0 || !ctas.is_multiple_of(cluster) {
            return Err(ErrorKind::Launch(format!(
                "{ctas} CTAs do not form clusters of {cluster}"
            )));
        }
        let mut mem = Memory::new();
        for (i, r) in case.memory.global.iter().enumerate() {
            let init = r
                .init
                .materialize(r.size)
                .map_err(|e| ErrorKind::Init(format!("{}: {e:?}", r.name)))?;
            mem.add_region(RegionId::Global(i as u32), init);
        }
        let mut image = vec![0u8; layout.shared_bytes as usize];
        for r in &case.memory.shared {
            let init = r
                .init
                .materialize(r.size)
                .map_err(|e| ErrorKind::Init(format!("{}: {e:?}", r.name)))?;
            if let Some(Place::Shared { offset, .. }) = layout.get(&r.name) {
                image[offset as usize..(offset + r.size) as usize].copy_from_slice(&init);
            }
        }
        let mut slots = BTreeMap::new();
        for cta in 0..ctas {
            mem.add_region(RegionId::Shared { cta }, image.clone());
            for d in &case.memory.mbarriers {
                if let Some(Place::Mbarrier { offset }) = layout.get(&d.name) {
                    let k = mbar_key(cta, offset);
                    slots.insert(k, Slot::new(k));
                }
            }
        }
        Ok(Machine {
            case,
            layout,
            ctas,
            cluster,
            mem,
            slots,
            tracking: Tracking::new(),
            async_arrives: Vec::new(),
            updates: HashMap::new(),
            queues: BTreeMap::new(),
            regs: BTreeMap::new(),
            tc: tcgen05::State::default(),
            profile: opts.profile,
            detail: opts.trace,
            reading: Reading::Text,
            granule_cluster_copy: false,
            dst_other_cta: false,
            signals_never_initialized: false,
            timed_out: Vec::new(),
            ran_past_overshot: false,
            raced: None,
            tx_range_if_copies_first: false,
            pending_range_if_copies_late: false,
            arrive_owed_at_use: false,
            async_arrive_step: None,
            orders: run::LANDS,
            raced_wait: false,
            tx_raced: None,
            counted_arrive: None,
            passed_waits: Vec::new(),
            departures: Vec::new(),
            unreleased_inits: BTreeMap::new(),
            notes: Vec::new(),
            step: 0,
            cta: 0,
            thread: 0,
            touched: Vec::new(),
            mbar_decls: None,
        })
    }
}
