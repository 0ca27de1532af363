//! The reference executor: runs a [`Case`] step by step on the `sem` mechanisms and reports the
//! outcome (defined, or the first classified undefined behaviour), a per-step trace and the final
//! state of every region, mbarrier and async-group queue.
//!
//! One submodule per instruction family ([`cp_async`], [`bulk`], [`reduce`], [`mbarrier`],
//! [`sync`], [`tensor`], [`tensormap`]); this file holds what they share: operand resolution through [`Layout`], the register
//! file, the UB checks on addresses, issuing / landing asynchronous writes, and the report types.
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
//! - A-EXEC-HW: the expected hardware behaviour of a UB: address faults (misaligned, outside
//!   the cluster / CTA window) may trap; a never-completing wait times out; other UB is
//!   expected to complete (with unconstrained results). Where H100 / H200 did otherwise the
//!   rule's entry in [`ExpectedHw::of`] says what and how often; UB silicon runs in one definite
//!   way is run again under that reading ([`Reading::Silicon`]), whose outcome is the
//!   expectation.
//! - A-BULK-SIZE-ROUNDS-DOWN: silicon runs a bulk copy or reduction whose size is not a multiple
//!   of 16 with the size rounded down to one (`exec/bulk.rs`).
//! - A-EXEC-REDUCE-REMOTE: cp.reduce.async.bulk into .shared::cluster must target another CTA
//!   (the copy's rule; the reduce page is silent; decided by H100 traps, see sem/exec/reduce.rs).
//! - A-EXEC-UPDATE-FINAL: a reduction still in flight at the end leaves its destination bytes
//!   {old, result computed from the final destination}.

mod bulk;
pub mod concurrent;
mod cp_async;
mod footprint;
mod mbarrier;
mod reduce;
mod sync;
mod tcgen05;
pub mod tensor;
mod tensormap;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::ops::Range;

use super::groups::{AsyncOp, GroupQueue, Release};
use super::mbarrier::{Slot, StateToken};
use super::memory::{Addr, Byte, Landing, MemError, Memory, ReadHoldId, RegionId, WriteId};
use super::profile::{Position, Profile};
use super::proxy::{self, Note, Proxy, ProxyRule};
use super::reduce::{Arith, ReduceForm};
use super::tracking::{self, SemError, TrackedCopy, Tracking};
use super::ub::{self, Ub, UbRule};
use crate::case::{Case, Expect, Param, StepOp};
use crate::layout::{Layout, Place, MBARRIER_BYTES};
use crate::ptx::common::{RedOp, RedType};
use crate::ptx::operand::{AddrBase, Address, Value};
use crate::ptx::{Instruction, Statement};

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

// ---------------------------------------------------------------------------------------------
// Report types
// ---------------------------------------------------------------------------------------------

/// Defined, or stopped at the first undefined behaviour (classified, never executed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Defined,
    Undefined { ub: Ub, step: usize },
}

/// What silicon is expected to do (A-EXEC-HW).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExpectedHw {
    Completes,
    /// A wait whose phase can never complete spins until the harness times out.
    Timeout,
    /// An address fault (misaligned / out of range / outside the window) that typically traps.
    MayTrap,
}

impl std::fmt::Display for ExpectedHw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ExpectedHw::Completes => "completes",
            ExpectedHw::Timeout => "hangs (wait times out)",
            ExpectedHw::MayTrap => "may trap",
        })
    }
}

impl ExpectedHw {
    pub fn of(outcome: &Outcome) -> ExpectedHw {
        let Outcome::Undefined { ub: u, .. } = outcome else {
            return ExpectedHw::Completes;
        };
        // Not among them, observed on H100 and H200 (cases/ub): ranges that leave their region
        // or wrap the 32-bit shared window land in the memory next to it and complete
        // (`address.out_of_region` 4 of 4, `bulk.range_overflow` 6 of 6); a bulk copy into
        // another CTA's `.shared::cta` window never completes its mbarrier phase (2 of 2).
        let traps = [
            &ub::ADDRESS_MISALIGNED,
            &ub::MBAR_MISALIGNED,
            &ub::MBAR_ADDRESS_WINDOW,
            &ub::BULK_MULTICAST_OUTSIDE_CLUSTER,
            &ub::BULK_CLUSTER_DST_OWN_CTA,
        ];
        use crate::sem::tensor::access::copy_rule;
        // Observed on H100 (reports/sweep/h100-2026-11-25: every such configuration of the
        // random sweep trapped): a box start not 16-byte aligned (15 of 15), a shared-memory
        // address not 128-byte aligned (29 of 29, also H10), a store or reduction with
        // coordinates outside the tensor (38 of 38), an im2col filter base outside the box (21
        // of 23; one completed, one hung; in the seed-2 sweep 631 of 631 once interleaved maps
        // take the shifted roles of Assumption::Im2colInterleaveStepsDim0), and a reduction
        // type the map's element type does not take (13 of 13, also H8).
        // And on H100 (the corpus baseline of 2026-11-25, IllegalInstruction, 1 of 1 each): a
        // coordinate count that is not the map's rank, a load mode the map was not encoded for.
        let tensor_trap = [
            copy_rule::BOX_START_ALIGNED,
            copy_rule::SMEM_ALIGN,
            copy_rule::STORE_BOUNDS,
            copy_rule::FILTER_IN_BOX,
            copy_rule::COORD_COUNT,
            copy_rule::MODE_MATCHES_MAP,
        ]
        .iter()
        .any(|r| u.rule == tensor::copy_rule_id(r))
            || u.rule == ub::TENSOR_REDUCE_TYPE_ILLEGAL.id;
        // An arrive past the pending count trapped on H100 (the corpus baseline, 1 of 1).
        let traps_always = tensor_trap || u.rule == ub::MBAR_PENDING_RANGE.id;
        if u.rule == ub::WAIT_NEVER_COMPLETES.id || u.rule == ub::BULK_DST_NOT_OWN_CTA.id {
            ExpectedHw::Timeout
        } else if traps_always || u.silicon_traps || traps.iter().any(|r| r.id == u.rule) {
            ExpectedHw::MayTrap
        } else {
            ExpectedHw::Completes
        }
    }
}

/// Observable state of one mbarrier location. Uncertain parts are `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MbarState {
    pub valid: bool,
    /// None while copies tracked by it are in flight (a landing may complete the phase).
    pub phase_parity: Option<u8>,
    /// None while tracked copies or cp.async arrive-ons on it are pending.
    pub pending: Option<u32>,
    pub expected: u32,
    pub tx_count: Option<i64>,
}

/// Async-group queue occupancy of one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupCounts {
    pub cta: u32,
    pub thread: u32,
    /// Committed cp.async-groups not yet waited for, and uncommitted cp.async operations.
    pub cp_async_groups: usize,
    pub cp_async_uncommitted: usize,
    /// Same for the bulk async-group.
    pub bulk_groups: usize,
    pub bulk_uncommitted: usize,
}

/// Final (or, after UB, last defined) state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinalState {
    /// Global region name → bytes.
    pub global: BTreeMap<String, Vec<Byte>>,
    /// Per CTA: shared region name → bytes.
    pub shared: Vec<BTreeMap<String, Vec<Byte>>>,
    /// Per CTA: mbarrier name → state.
    pub mbarriers: Vec<BTreeMap<String, MbarState>>,
    /// Threads that used an async-group queue.
    pub groups: Vec<GroupCounts>,
    /// Per CTA: checked Tensor Memory allocation name → cells, lane-major (128 lanes × the
    /// declared columns); `Unwritten` accepts any value (see `exec/tcgen05.rs`).
    pub tmem: Vec<BTreeMap<String, Vec<super::tcgen05::tmem::Cell>>>,
}

/// How a step touched bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TouchKind {
    /// Read as an asynchronous source.
    Read,
    /// An asynchronous write issued (bytes {old, new} until it lands).
    Issue,
    /// An asynchronous write landed (bytes now its values).
    Land,
    /// A plain store.
    Store,
}

/// A byte range of a named region touched by a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Touch {
    pub region: String,
    /// The CTA for shared regions.
    pub cta: Option<u32>,
    pub range: Range<u64>,
    pub kind: TouchKind,
    /// Are the touched bytes all known after the step?
    pub exact: bool,
}

/// One executed step (one per CTA for `cta: all`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceStep {
    pub step: usize,
    pub cta: u32,
    pub thread: u32,
    pub text: String,
    /// (cta, mbarrier name, state after the step) for every declared mbarrier.
    pub mbarriers: Vec<(u32, String, MbarState)>,
    pub touched: Vec<Touch>,
}

impl fmt::Display for TraceStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "#{} cta {} thread {}: {}",
            self.step, self.cta, self.thread, self.text
        )?;
        for t in &self.touched {
            let cta = t.cta.map(|c| format!("cta{c}:")).unwrap_or_default();
            let ex = if t.exact { "exact" } else { "uncertain" };
            writeln!(
                f,
                "    {:?} {cta}{}[{}..{}) {ex}",
                t.kind, t.region, t.range.start, t.range.end
            )?;
        }
        for (cta, name, m) in &self.mbarriers {
            let opt = |v: Option<String>| v.unwrap_or_else(|| "?".into());
            if m.valid {
                writeln!(
                    f,
                    "    mbarrier cta{cta}:{name} parity {} pending {} expected {} tx {}",
                    opt(m.phase_parity.map(|p| p.to_string())),
                    opt(m.pending.map(|p| p.to_string())),
                    m.expected,
                    opt(m.tx_count.map(|p| p.to_string()))
                )?;
            } else {
                writeln!(f, "    mbarrier cta{cta}:{name} invalid")?;
            }
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Execution {
    pub outcome: Outcome,
    pub expected_hw: ExpectedHw,
    pub trace: Vec<TraceStep>,
    pub final_state: FinalState,
    /// The profile whose readings this execution used.
    pub profile: Profile,
    /// The tensor maps the driver model refuses, by name with the refusal (`expect:
    /// driver_rejects`); a GPU run never launches a case that has one.
    pub driver_rejects: Vec<(String, crate::sem::tensor::EncodeReject)>,
    /// Profile positions met on the way whose spec and sm_90 readings gave different results
    /// (in [`super::profile::POSITIONS`] order): where this case can tell the readings apart.
    pub departures: Vec<&'static Position>,
    /// The proxy rules that applied (crossings that left bytes uncertain, unreleased inits),
    /// once per rule, step and CTA.
    pub notes: Vec<Note>,
}

/// How an execution is configured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecOptions {
    /// The reading of the positions where the text and sm_90 silicon differ.
    pub profile: Profile,
}

impl Default for ExecOptions {
    /// The text's model.
    fn default() -> ExecOptions {
        ExecOptions {
            profile: Profile::Spec,
        }
    }
}

impl Execution {
    /// Does this execution satisfy what a case asserts (`expect`)? The one check of `expect`:
    /// `Err` says how it does not.
    pub fn meets(&self, expect: Option<&Expect>) -> Result<(), String> {
        let ub = match &self.outcome {
            Outcome::Defined => None,
            Outcome::Undefined { ub, step } => Some((ub, *step)),
        };
        match (expect, ub) {
            (None, _) | (Some(Expect::Pass), None) => Ok(()),
            (Some(Expect::Bytes(want)), None) => want
                .iter()
                .try_for_each(|(region, p)| self.region_meets(region, p)),
            (Some(Expect::Pass | Expect::Bytes(_)), Some((u, s))) => Err(format!(
                "expected well defined, model says undefined at step {s}: {} ({})",
                u.rule, u.detail
            )),
            (Some(Expect::Undefined(rule)), Some((u, _))) if u.rule == rule => Ok(()),
            (Some(Expect::Undefined(rule)), Some((u, s))) => Err(format!(
                "expected UB `{rule}`, model found `{}` at step {s}",
                u.rule
            )),
            (Some(Expect::Undefined(rule)), None) => Err(format!(
                "expected UB `{rule}`, model found the case well defined"
            )),
            (Some(Expect::DriverRejects), _) => match self.driver_rejects.first() {
                Some(_) => Ok(()),
                None => Err(
                    "expected the driver to refuse a tensor map, the driver model accepts every \
                     tensor map of the case"
                        .into(),
                ),
            },
            (Some(Expect::Timeout), _) if self.expected_hw == ExpectedHw::Timeout => Ok(()),
            (Some(Expect::Trap), _) if self.expected_hw == ExpectedHw::MayTrap => Ok(()),
            (Some(e @ (Expect::Timeout | Expect::Trap)), _) => Err(format!(
                "expected {}, model expects {:?}",
                if *e == Expect::Trap {
                    "a trap"
                } else {
                    "a timeout"
                },
                self.expected_hw
            )),
        }
    }

    /// The final bytes of a region (`name` global, `name@ctaN` shared of CTA N).
    pub fn final_region(&self, key: &str) -> Option<&[Byte]> {
        let fs = &self.final_state;
        match crate::case::split_region_key(key) {
            (name, Some(cta)) => fs
                .shared
                .get(cta.parse::<usize>().ok()?)?
                .get(name)
                .map(Vec::as_slice),
            (_, None) => fs.global.get(key).map(Vec::as_slice),
        }
    }

    /// Do region `key`'s final bytes match pattern `p` (`expect: { bytes: .. }`)? An uncertain
    /// byte matches an expected value only if that is its one allowed value: the reference must
    /// guarantee the bytes, not merely allow them.
    fn region_meets(&self, key: &str, p: &crate::hex::Pattern) -> Result<(), String> {
        let got = self.final_region(key).ok_or_else(|| {
            format!("expected bytes of `{key}`: no such region (shared regions are `name@ctaN`)")
        })?;
        let len_ok = if p.open {
            p.bytes.len() <= got.len()
        } else {
            p.bytes.len() == got.len()
        };
        if !len_ok {
            return Err(format!(
                "expected {} bytes of `{key}`{}, the region has {}",
                p.bytes.len(),
                if p.open { " or more" } else { "" },
                got.len()
            ));
        }
        for (at, (want, have)) in p.bytes.iter().zip(got).enumerate() {
            let Some(w) = want else { continue };
            match have {
                Byte::Known(v) if v == w => {}
                Byte::Known(v) => {
                    return Err(format!(
                        "`{key}` byte {at}: expected {w:#04x}, the model gives {v:#04x}"
                    ))
                }
                Byte::OneOf(set) => {
                    return Err(format!(
                        "`{key}` byte {at}: expected {w:#04x}, the model leaves it uncertain: \
                         one of {set:?}"
                    ))
                }
            }
        }
        Ok(())
    }
}

/// A case-level error: the case cannot be executed as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecError {
    pub step: Option<usize>,
    pub kind: ErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    Layout(String),
    Init(String),
    Launch(String),
    Parse(String),
    UnknownName(String),
    /// An operand of the wrong kind (a number where an address is needed, a region of the wrong
    /// state space, a state register where a value is needed, ...).
    OperandKind(String),
    UnboundRegister(String),
    /// An instruction family the executor does not model (tcgen05).
    Unsupported(String),
    /// A bookkeeping failure of the mechanisms (a bug, not a property of the case).
    Internal(String),
    /// Orders of concurrent steps leave an mbarrier (or other non-byte state) in different
    /// states: the model cannot state one outcome (A-EXEC-CONCURRENT-INTERLEAVINGS).
    Nondeterministic(String),
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.step {
            Some(s) => write!(f, "step {s}: {:?}", self.kind),
            None => write!(f, "{:?}", self.kind),
        }
    }
}

impl std::error::Error for ExecError {}

// ---------------------------------------------------------------------------------------------
// Machine
// ---------------------------------------------------------------------------------------------

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

/// A reduction in flight: what to compute when it lands.
#[derive(Clone, Debug)]
struct Update {
    op: RedOp,
    ty: RedType,
    form: ReduceForm,
    src: Vec<Byte>,
}

#[derive(Clone, Debug, Default)]
struct Queues {
    cp: GroupQueue,
    bulk: GroupQueue,
}

/// Which memory an address operand names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Where {
    Global { index: usize, misalign: u64 },
    Shared { cta: u32 },
}

/// A resolved address operand: a named place plus a (possibly out-of-range) offset into it.
#[derive(Clone, Debug)]
pub(crate) struct Loc {
    pub name: String,
    pub at: Where,
    /// Start of the place inside its region (the CTA's shared image for shared places).
    pub start: u64,
    pub size: u64,
    /// Offset from the place's start, as written.
    pub rel: i64,
}

impl Loc {
    pub fn region(&self) -> RegionId {
        match self.at {
            Where::Global { index, .. } => RegionId::Global(index as u32),
            Where::Shared { cta } => RegionId::Shared { cta },
        }
    }
    pub fn cta(&self) -> Option<u32> {
        match self.at {
            Where::Shared { cta } => Some(cta),
            Where::Global { .. } => None,
        }
    }
    /// The same CTA-relative place in another CTA.
    pub fn in_cta(&self, cta: u32) -> Loc {
        Loc {
            at: Where::Shared { cta },
            ..self.clone()
        }
    }
    /// The address as far as alignment is concerned (A-EXEC-GLOBAL-BASE).
    fn align_addr(&self) -> i128 {
        match self.at {
            Where::Global { misalign, .. } => misalign as i128 + self.rel as i128,
            Where::Shared { .. } => self.start as i128 + self.rel as i128,
        }
    }
    /// The first byte, if `[rel, rel+len)` stays inside the place.
    pub fn within(&self, len: u64) -> Option<Addr> {
        let rel = u64::try_from(self.rel).ok()?;
        (rel.checked_add(len)? <= self.size).then(|| Addr::new(self.region(), self.start + rel))
    }
    pub fn shifted(&self, by: i64) -> Loc {
        Loc {
            rel: self.rel + by,
            ..self.clone()
        }
    }
}

/// The result of a landing reduction under `profile`; a position whose readings differ for these
/// operands is added to `departures`.
fn reduce_update(
    profile: Profile,
    u: &Update,
    cur: &[Byte],
    departures: &mut Vec<&'static Position>,
) -> Result<Vec<Byte>, ErrorKind> {
    let arith = Arith {
        profile,
        form: u.form,
    };
    let r = super::reduce::apply_uncertain(arith, u.op, u.ty, cur, &u.src)
        .map_err(|e| ErrorKind::Internal(format!("{e:?}")))?;
    departures.extend(r.departs);
    Ok(r.bytes)
}

/// The address a `store` step's `at` names: `name` or `name+offset`.
fn store_address(at: &str) -> R<Address> {
    let (name, off) = match at.split_once('+') {
        Some((n, o)) => (
            n.trim(),
            o.trim()
                .parse::<i64>()
                .or_else(|_| kind(format!("bad offset in `{at}`")))?,
        ),
        None => (at.trim(), 0),
    };
    Ok(Address::reg_off(name, off))
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
    reading: Reading,
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
}

/// Runs the case under the text's reading ([`ExecOptions::default`]). Err only for case-level
/// errors; UB is an [`Outcome`].
pub fn execute(case: &Case) -> Result<Execution, ExecError> {
    execute_with(case, ExecOptions::default())
}

/// Runs the case with `opts`: once, or once per order of its concurrent steps, merged
/// (A-EXEC-CONCURRENT-INTERLEAVINGS).
pub fn execute_with(case: &Case, opts: ExecOptions) -> Result<Execution, ExecError> {
    let reduction = concurrent::Reduction::Commute;
    let mut ex = execute_reduced(case, opts, reduction, Reading::Text)?;
    // What silicon does with UB it has a reading of is what the program does under that reading.
    if has_silicon_reading(&ex) {
        // The text's run stands whatever the second one meets.
        if let Ok(silicon) = execute_silicon(case, opts) {
            ex.expected_hw = silicon.expected_hw;
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
    /// (A-TENSOR-ACCEPTED-MAP-HW), and a bulk size that is not a multiple of 16 is rounded down
    /// to one (A-BULK-SIZE-ROUNDS-DOWN).
    Silicon,
}

/// Whether the run stopped at UB that [`Reading::Silicon`] runs on: a tensor map the driver
/// encodes against the text, or a bulk size off the 16-byte granule.
pub fn has_silicon_reading(ex: &Execution) -> bool {
    let Outcome::Undefined { ub: u, .. } = &ex.outcome else {
        return false;
    };
    (ex.driver_rejects.is_empty() && tensor::is_encode_rejection(&ex.outcome))
        || u.rule == ub::BULK_SIZE_MULTIPLE_16.id
}

/// Runs the case as sm_90 silicon runs the UB it has one reading of ([`Reading::Silicon`]):
/// tensor maps as encoded, bulk sizes rounded down to 16 bytes. Equal to [`execute_with`] for a
/// case without such UB.
pub fn execute_silicon(case: &Case, opts: ExecOptions) -> Result<Execution, ExecError> {
    let reduction = concurrent::Reduction::Commute;
    execute_reduced(case, opts, reduction, Reading::Silicon)
}

/// Runs the case in every interleaving of its concurrent groups, without the partial-order
/// reduction (to test the reduction against; bounded like the reduced run).
pub fn execute_every_order(case: &Case) -> Result<Execution, ExecError> {
    execute_reduced(
        case,
        ExecOptions::default(),
        concurrent::Reduction::Off,
        Reading::Text,
    )
}

fn execute_reduced(
    case: &Case,
    opts: ExecOptions,
    reduction: concurrent::Reduction,
    reading: Reading,
) -> Result<Execution, ExecError> {
    let ctx = crate::case::validate::parse_ctx(case);
    let mut parsed = Vec::with_capacity(case.program.len());
    for (i, step) in case.program.iter().enumerate() {
        parsed.push(match &step.op {
            StepOp::Ptx(text) => {
                Some(Statement::parse_with(text, &ctx).map_err(|e| ExecError {
                    step: Some(i),
                    kind: ErrorKind::Parse(e.to_string()),
                })?)
            }
            _ => None,
        });
    }
    let launch = |kind| ExecError { step: None, kind };
    // Runs every order of a plan; None when a run found A-EXEC-CONCURRENT-MBAR-COMMUTE
    // unjustified.
    let run = |plan: &concurrent::Plan| -> Result<Option<Vec<Execution>>, ExecError> {
        plan.orders
            .iter()
            .map(|s| execute_schedule(case, (opts, reading), &parsed, s, &plan.checks))
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
    (opts, reading): (ExecOptions, Reading),
    parsed: &[Option<Statement>],
    sched: &[concurrent::Unit],
    checks: &[concurrent::Check],
) -> Result<Option<Execution>, ExecError> {
    let mut m = Machine::new(case, opts).map_err(|kind| ExecError { step: None, kind })?;
    m.reading = reading;
    let mut outcome = Outcome::Defined;
    let mut trace = Vec::new();
    let mut watch = concurrent::Watch::new(checks);
    for (pos, &concurrent::Unit { step: i, cta }) in sched.iter().enumerate() {
        watch.before(pos, &m.slots);
        let step = &case.program[i];
        let parsed = &parsed[i];
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
        let (text, res) = match (&step.op, &parsed) {
            (_, Some(st)) => (st.to_string(), m.statement(st)),
            (StepOp::WaitParity { mbar, parity }, _) => (
                format!("wait_parity [{mbar}], {parity}"),
                m.wait_parity_confirming(mbar, *parity),
            ),
            (StepOp::Store { at, bytes }, _) => (
                format!("store [{at}], {} bytes", bytes.len()),
                m.store(at, bytes),
            ),
            (StepOp::Ptx(_), None) => unreachable!("parsed above"),
        };
        match res {
            Ok(()) => {
                trace.push(m.trace_step(text));
                if !watch.after(pos, sched[pos], &m.slots) {
                    return Ok(None);
                }
            }
            Err(Stop::Ub(u)) => {
                trace.push(m.trace_step(text));
                outcome = Outcome::Undefined { ub: u, step: i };
                break;
            }
            Err(Stop::Err(k)) => return Err(err(k)),
        }
    }
    if outcome == Outcome::Defined {
        match m.tc_exit() {
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
    let final_state = m
        .final_state()
        .map_err(|kind| ExecError { step: None, kind })?;
    let mut departures = m.departures;
    departures.sort_by_key(|p| super::profile::POSITIONS.iter().position(|q| q.id == p.id));
    departures.dedup();
    Ok(Some(Execution {
        expected_hw: ExpectedHw::of(&outcome),
        outcome,
        trace,
        final_state,
        profile: opts.profile,
        departures,
        notes: m.notes,
        driver_rejects: tensor::driver_refusals(case),
    }))
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
            reading: Reading::Text,
            departures: Vec::new(),
            unreleased_inits: BTreeMap::new(),
            notes: Vec::new(),
            step: 0,
            cta: 0,
            thread: 0,
            touched: Vec::new(),
        })
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

    // --- registers -----------------------------------------------------------------------------

    fn reg(&self, name: &str) -> Option<Reg> {
        self.regs
            .get(&(self.cta, self.thread))
            .and_then(|f| f.get(name))
            .copied()
    }

    pub(crate) fn set_reg(&mut self, name: &str, v: Reg) {
        self.regs
            .entry((self.cta, self.thread))
            .or_default()
            .insert(name.to_string(), v);
    }

    /// An integer operand: immediate, register written earlier by this thread, or a param.
    pub(crate) fn value(&self, v: &Value) -> R<i64> {
        let name = match v {
            Value::Imm(i) => return Ok(*i),
            Value::Reg(n) => n,
        };
        match self.reg(name) {
            Some(Reg::Int(i)) => return Ok(i),
            Some(Reg::Pred(b)) => return Ok(b as i64),
            Some(Reg::State(_)) => {
                return kind(format!("`{name}` holds an mbarrier state, not a number"))
            }
            None => {}
        }
        if let Some(w) = self.tc_word(name) {
            return w;
        }
        match self.case.params.get(name) {
            Some(Param::Int(i)) | Some(Param::Typed { value: i, .. }) => Ok(*i),
            Some(Param::Mapa { .. }) => kind(format!("`{name}` is a mapa address, not a number")),
            None => Err(Stop::Err(ErrorKind::UnboundRegister(name.clone()))),
        }
    }

    pub(crate) fn pred(&self, name: &str) -> R<bool> {
        self.value(&Value::Reg(name.to_string())).map(|v| v != 0)
    }

    pub(crate) fn state(&self, v: &Value) -> R<StateToken> {
        match v {
            Value::Reg(n) => match self.reg(n) {
                Some(Reg::State(s)) => Ok(s),
                Some(_) => kind(format!("`{n}` does not hold an mbarrier state")),
                None => Err(Stop::Err(ErrorKind::UnboundRegister(n.clone()))),
            },
            Value::Imm(_) => kind("an immediate where an mbarrier state register is needed"),
        }
    }

    pub(crate) fn u32_operand(&self, v: &Value, what: &str) -> R<u32> {
        let x = self.value(v)?;
        u32::try_from(x).or_else(|_| kind(format!("{what} {x} is not a 32-bit unsigned value")))
    }

    // --- addresses -----------------------------------------------------------------------------

    fn cluster_base(&self) -> u32 {
        self.cta / self.cluster * self.cluster
    }

    /// CTA index of cluster rank `rank` in the executing CTA's cluster (A-EXEC-CTA-RANK).
    pub(crate) fn rank_cta(&self, rank: u32) -> Option<u32> {
        (rank < self.cluster).then(|| self.cluster_base() + rank)
    }

    fn place(&self, name: &str, cta: u32) -> R<Loc> {
        let p = self
            .layout
            .get(name)
            .ok_or_else(|| Stop::Err(ErrorKind::UnknownName(name.to_string())))?;
        let (at, start) = match p {
            Place::Global { index, .. } => {
                let r = self.case.memory.global.get(index).ok_or_else(|| {
                    Stop::Err(ErrorKind::OperandKind(format!(
                        "`{name}` is not a byte region"
                    )))
                })?;
                (
                    Where::Global {
                        index,
                        misalign: r.misalign,
                    },
                    0,
                )
            }
            Place::Shared { offset, .. } => (Where::Shared { cta }, offset),
            Place::Mbarrier { offset } => (Where::Shared { cta }, offset),
        };
        Ok(Loc {
            name: name.to_string(),
            at,
            start,
            size: p.size(),
            rel: 0,
        })
    }

    /// Resolves `[name+off]`: a declared place (shared places in the executing CTA) or a Mapa param.
    pub(crate) fn resolve(&self, a: &Address) -> R<Loc> {
        let name = match &a.base {
            AddrBase::Name(n) => n,
            AddrBase::Abs(x) => {
                return kind(format!(
                    "absolute address 0x{x:x}: the model only places named regions"
                ))
            }
        };
        let loc = match self.case.params.get(name) {
            Some(Param::Mapa { mapa, cta }) => {
                let Some(c) = self.rank_cta(*cta) else {
                    return kind(format!(
                        "mapa param `{name}`: cluster rank {cta} outside a cluster of {}",
                        self.cluster
                    ));
                };
                let l = self.place(mapa, c)?;
                if l.cta().is_none() {
                    return kind(format!("mapa param `{name}` names global region `{mapa}`"));
                }
                l
            }
            Some(_) => {
                return kind(format!(
                    "`{name}` holds a number, not an address the model can place"
                ))
            }
            None => self.place(name, self.cta)?,
        };
        Ok(loc.shifted(a.offset))
    }

    /// Resolves an operand that must be global memory.
    pub(crate) fn global(&self, a: &Address, role: &str) -> R<Loc> {
        let l = self.resolve(a)?;
        if l.cta().is_some() {
            return kind(format!(
                "{role} {a}: a shared place where .global memory is required"
            ));
        }
        Ok(l)
    }

    /// Resolves an operand that must be shared memory (any CTA of the cluster).
    pub(crate) fn shared(&self, a: &Address, role: &str) -> R<Loc> {
        let l = self.resolve(a)?;
        if l.cta().is_none() {
            return kind(format!(
                "{role} {a}: a global region where shared memory is required"
            ));
        }
        Ok(l)
    }

    /// A `.shared::cta` operand: shared memory of the executing CTA.
    pub(crate) fn shared_cta(&self, a: &Address, role: &str, rule: &UbRule) -> R<Loc> {
        let l = self.shared(a, role)?;
        if l.cta() != Some(self.cta) {
            return ub(
                rule,
                format!(
                    "{role} {a} is in CTA {:?}, the executing CTA is {}",
                    l.cta(),
                    self.cta
                ),
            );
        }
        Ok(l)
    }

    pub(crate) fn check_align(&self, l: &Loc, align: u64, role: &str) -> R {
        if l.align_addr().rem_euclid(align as i128) != 0 {
            return ub(
                &ub::ADDRESS_MISALIGNED,
                format!("{role} [{}{:+}] not {align}-byte aligned", l.name, l.rel),
            );
        }
        Ok(())
    }

    pub(crate) fn check_range(&self, l: &Loc, len: u64, rule: &UbRule, role: &str) -> R<Addr> {
        l.within(len).map_or_else(
            || {
                ub(
                    rule,
                    format!(
                        "{role} [{}{:+}, +{len}) leaves `{}` ({} bytes)",
                        l.name, l.rel, l.name, l.size
                    ),
                )
            },
            Ok,
        )
    }

    /// An mbarrier operand: `(cta, offset)` of an 8-byte aligned location in shared memory;
    /// `cluster` allows other CTAs of the cluster.
    pub(crate) fn mbar(&self, a: &Address, cluster: bool) -> R<(u32, u64)> {
        let l = self.resolve(a)?;
        let Some(cta) = l.cta() else {
            return ub(&ub::MBAR_ADDRESS_WINDOW, format!("{a} is in global memory"));
        };
        if !cluster && cta != self.cta {
            return ub(
                &ub::MBAR_ADDRESS_WINDOW,
                format!("{a} is in CTA {cta}, outside the executing CTA's .shared::cta window"),
            );
        }
        if l.align_addr().rem_euclid(MBARRIER_BYTES as i128) != 0 {
            return ub(&ub::MBAR_MISALIGNED, format!("{a} not 8-byte aligned"));
        }
        let at = self.check_range(&l, MBARRIER_BYTES, &ub::ADDRESS_OUT_OF_REGION, "mbarrier")?;
        Ok((cta, at.offset))
    }

    pub(crate) fn slot(&mut self, (cta, off): (u32, u64)) -> &mut Slot {
        let k = mbar_key(cta, off);
        self.slots.entry(k).or_insert_with(|| Slot::new(k))
    }

    // --- touches -------------------------------------------------------------------------------

    fn touch(&mut self, at: Addr, len: u64, kind: TouchKind) {
        let exact = self.mem.all_known(at, len).unwrap_or(false);
        let end = at.offset + len;
        match at.region {
            RegionId::Global(i) => {
                let name = self
                    .layout
                    .globals
                    .get(i as usize)
                    .cloned()
                    .unwrap_or_default();
                self.touched.push(Touch {
                    region: name,
                    cta: None,
                    range: at.offset..end,
                    kind,
                    exact,
                });
            }
            RegionId::Shared { cta } => {
                for (name, p) in &self.layout.places {
                    let start = match p {
                        Place::Shared { offset, .. } | Place::Mbarrier { offset } => *offset,
                        Place::Global { .. } => continue,
                    };
                    let (lo, hi) = (at.offset.max(start), end.min(start + p.size()));
                    if lo < hi {
                        let t = Touch {
                            region: name.clone(),
                            cta: Some(cta),
                            range: lo - start..hi - start,
                            kind,
                            exact,
                        };
                        self.touched.push(t);
                    }
                }
            }
        }
    }

    // --- asynchronous operations ---------------------------------------------------------------

    /// A valid mbarrier object overlapping `[at, at+len)`.
    fn object_overlapping(&self, at: Addr, len: u64) -> Option<u64> {
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
            return ub(
                &ub::ASYNC_DST_READ,
                format!("source overlaps asynchronous write {w:?} still in flight"),
            );
        }
        let bytes = self.read_in(at, len, proxy)?;
        let hold = self.mem.hold_source(at, len)?;
        self.touch(at, len, TouchKind::Read);
        Ok((bytes, hold))
    }

    /// Checks shared by every write into memory: no unfinished source read of another operation,
    /// no mbarrier object overwritten.
    fn check_write(&self, at: Addr, len: u64) -> R {
        if !self.mem.holds_overlapping(at, len).is_empty() {
            return ub(
                &ub::ASYNC_SRC_MODIFIED,
                "write to the source of an asynchronous operation before it was read",
            );
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
    pub(crate) fn track(&mut self, op: AsyncOp, barrier: (u32, u64), tx: u64) -> R {
        let tx =
            u32::try_from(tx).or_else(|_| ub(&ub::MBAR_TX_RANGE, format!("copy of {tx} bytes")))?;
        self.slot(barrier);
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
    fn fire_arrives(&mut self) -> R {
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
        self.tracking
            .land_copies(key, &mut self.slots, &mut self.mem)?;
        let ops: Vec<AsyncOp> = self
            .async_arrives
            .iter()
            .filter(|(k, _)| *k == key)
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

    /// The blocking `wait_parity` step: lands what signals the barrier, then the phase with
    /// `parity` must have completed, or nothing can complete it any more.
    fn wait_parity_step(&mut self, mbar: &str, parity: u32) -> R {
        let b = self.mbar(&Address::reg(mbar), false)?;
        // A phase that completed without the copies still in flight guarantees nothing about them
        // (A-EXEC-WAIT-LANDS): they stay uncertain.
        if self.slot(b).test_wait_parity(parity)? {
            return Ok(());
        }
        self.land_for_barrier(b)?;
        if !self.slot(b).test_wait_parity(parity)? {
            let m = self.slot(b).object().cloned();
            let detail = m.map_or("no object".to_string(), |m| {
                format!(
                    "phase {} (parity {}) pending {} tx-count {}",
                    m.phase,
                    m.phase & 1,
                    m.pending,
                    m.tx_count
                )
            });
            return ub(&ub::WAIT_NEVER_COMPLETES, format!("wait for parity {parity} on `{mbar}`: {detail}, nothing in flight can complete it"));
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
            return ub(
                &ub::ASYNC_DST_WRITTEN,
                format!("store to [{at}] while an asynchronous write to it is in flight"),
            );
        }
        self.mem.write_exact(a, bytes)?;
        self.touch(a, len, TouchKind::Store);
        Ok(())
    }

    // --- reports -------------------------------------------------------------------------------

    fn mbar_state(&self, key: u64) -> MbarState {
        let in_flight = self.tracking.copies_for(key).next().is_some();
        let arrives = self.async_arrives.iter().any(|(k, _)| *k == key);
        match self.slots.get(&key).and_then(Slot::object) {
            None => MbarState {
                valid: false,
                phase_parity: None,
                pending: None,
                expected: 0,
                tx_count: None,
            },
            Some(m) => MbarState {
                valid: true,
                phase_parity: (!in_flight && !arrives).then_some((m.phase & 1) as u8),
                pending: (!in_flight && !arrives).then_some(m.pending),
                expected: m.expected,
                tx_count: (!in_flight).then_some(i64::from(m.tx_count)),
            },
        }
    }

    fn declared_mbarriers(&self) -> Vec<(u32, String, u64)> {
        let mut v = vec![];
        for cta in 0..self.ctas {
            for d in &self.case.memory.mbarriers {
                if let Some(Place::Mbarrier { offset }) = self.layout.get(&d.name) {
                    v.push((cta, d.name.clone(), mbar_key(cta, offset)));
                }
            }
        }
        v
    }

    fn trace_step(&mut self, text: String) -> TraceStep {
        let mbarriers = self
            .declared_mbarriers()
            .into_iter()
            .map(|(c, n, k)| (c, n, self.mbar_state(k)))
            .collect();
        TraceStep {
            step: self.step,
            cta: self.cta,
            thread: self.thread,
            text,
            mbarriers,
            touched: std::mem::take(&mut self.touched),
        }
    }

    fn final_state(&mut self) -> Result<FinalState, ErrorKind> {
        let internal = |e: MemError| ErrorKind::Internal(e.to_string());
        // A-EXEC-UPDATE-FINAL: reductions in flight widen their destination (in a copy: the
        // machine's memory stays as it ran; with none, the memory is read as it is).
        let mut widened = None;
        if !self.updates.is_empty() {
            let mut mem = self.mem.clone();
            for (w, u) in &self.updates {
                if let Some((at, len)) = mem.target(*w) {
                    let cur = mem.read(at, len).map_err(internal)?;
                    let res = reduce_update(self.profile, u, &cur, &mut self.departures)?;
                    let wide: Vec<Byte> = cur.iter().zip(&res).map(|(a, b)| a.union(*b)).collect();
                    mem.complete_update(*w, wide).map_err(internal)?;
                }
            }
            widened = Some(mem);
        }
        let mem = widened.as_ref().unwrap_or(&self.mem);
        let mut global = BTreeMap::new();
        for (i, r) in self.case.memory.global.iter().enumerate() {
            global.insert(
                r.name.clone(),
                mem.read(Addr::new(RegionId::Global(i as u32), 0), r.size)
                    .map_err(internal)?,
            );
        }
        let mut shared = vec![];
        let mut mbarriers = vec![BTreeMap::new(); self.ctas as usize];
        for cta in 0..self.ctas {
            let mut m = BTreeMap::new();
            for r in &self.case.memory.shared {
                if let Some(Place::Shared { offset, size }) = self.layout.get(&r.name) {
                    m.insert(
                        r.name.clone(),
                        mem.read(Addr::new(RegionId::Shared { cta }, offset), size)
                            .map_err(internal)?,
                    );
                }
            }
            shared.push(m);
        }
        for (cta, name, k) in self.declared_mbarriers() {
            mbarriers[cta as usize].insert(name, self.mbar_state(k));
        }
        let groups = self
            .queues
            .iter()
            .map(|((cta, thread), q)| GroupCounts {
                cta: *cta,
                thread: *thread,
                cp_async_groups: q.cp.committed_groups(),
                cp_async_uncommitted: q.cp.uncommitted().len(),
                bulk_groups: q.bulk.committed_groups(),
                bulk_uncommitted: q.bulk.uncommitted().len(),
            })
            .collect();
        Ok(FinalState {
            global,
            shared,
            mbarriers,
            groups,
            tmem: self.tc_final(),
        })
    }
}
