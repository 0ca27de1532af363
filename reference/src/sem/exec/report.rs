//! What an execution reports: the outcome (defined, or the first classified UB), what silicon is
//! expected to do (A-EXEC-HW), the per-step trace, the final state of every region, mbarrier and
//! async-group queue, and the case-level errors.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

use super::predict::{ExpectedHw, Prediction};
use crate::case_model::Expect;
use crate::sem::memory::{Byte, RegionBytes};
use crate::sem::mutant::Mutant;
use crate::sem::profile::{Position, Profile};
use crate::sem::proxy::Note;
use crate::sem::ub::Ub;

/// Defined, or stopped at the first undefined behaviour (classified, never executed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Defined,
    Undefined { ub: Ub, step: usize },
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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FinalState {
    /// Global region name → bytes.
    pub global: BTreeMap<String, RegionBytes>,
    /// Per CTA: shared region name → bytes.
    pub shared: Vec<BTreeMap<String, RegionBytes>>,
    /// Per CTA: mbarrier name → state.
    pub mbarriers: Vec<BTreeMap<String, MbarState>>,
    /// Threads that used an async-group queue.
    pub groups: Vec<GroupCounts>,
    /// Per CTA: checked Tensor Memory allocation name → cells, lane-major (128 lanes × the
    /// declared columns); `Unwritten` accepts any value (see `exec/tcgen05.rs`).
    pub tmem: Vec<BTreeMap<String, Vec<crate::sem::tcgen05::tmem::Cell>>>,
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
    /// Are the touched bytes all known after the step? `None` where the run did not ask
    /// ([`TraceDetail::Touches`]).
    pub exact: Option<bool>,
}

/// One executed step (one per CTA for `cta: all`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceStep {
    pub step: usize,
    pub cta: u32,
    pub thread: u32,
    /// The step as the case wrote it; `None` where the run did not keep it
    /// ([`TraceDetail::Touches`]).
    pub text: Option<String>,
    /// (cta, mbarrier name, state after the step) for every declared mbarrier; none where the
    /// run did not keep them ([`TraceDetail::Touches`]).
    pub mbarriers: Vec<(u32, std::sync::Arc<str>, MbarState)>,
    pub touched: Vec<Touch>,
}

impl fmt::Display for TraceStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "#{} cta {} thread {}: {}",
            self.step,
            self.cta,
            self.thread,
            self.text.as_deref().unwrap_or("(text not kept)")
        )?;
        for t in &self.touched {
            let cta = t.cta.map(|c| format!("cta{c}:")).unwrap_or_default();
            let ex = match t.exact {
                Some(true) => " exact",
                Some(false) => " uncertain",
                None => "",
            };
            writeln!(
                f,
                "    {:?} {cta}{}[{}..{}){ex}",
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
    /// What silicon is predicted to do: the allowed outcomes.
    pub prediction: Prediction,
    /// The prediction's coarse class (what the GPU engine schedules by).
    pub expected_hw: ExpectedHw,
    pub trace: Vec<TraceStep>,
    pub final_state: FinalState,
    /// The profile whose readings this execution used.
    pub profile: Profile,
    /// The mutant it ran under ([`ExecOptions::mutant`]).
    pub mutant: Option<Mutant>,
    /// The tensor maps the driver model refuses, by name with the refusal (`expect:
    /// driver_rejects`); a GPU run never launches a case that has one.
    pub driver_rejects: Vec<(String, crate::sem::tensor::EncodeReject)>,
    /// Profile positions met on the way whose spec and sm_90 readings gave different results
    /// (in [`crate::sem::profile::POSITIONS`] order): where this case can tell the readings apart.
    pub departures: Vec<&'static Position>,
    /// The run-on positions of sm_90 silicon's reading (`exec::predict`, e.g.
    /// `A-WAIT-RUNS-ON-HW`) its run applied, in [`super::ASSUMPTIONS`] order: where this case
    /// exercises them (a campaign's coverage).
    pub readings: Vec<&'static str>,
    /// A parity wait raced with what signals its object (A-WAIT-PARITY-RACE): the silicon
    /// reading runs both orders.
    pub(crate) raced_wait: bool,
    /// Copies raced with a phase's completion (A-TX-RACE-HW): the silicon reading also runs the
    /// order in which they signal before the next use of their object.
    pub(crate) copies_raced: bool,
    /// An operation met a cp.async.mbarrier.arrive's arrive-on pending on its object
    /// (A-ASYNC-ARRIVE-LANDS-HW): the silicon reading also runs the order in which it fired
    /// first.
    pub(crate) arrive_owed_at_use: bool,
    /// The run fired arrive-ons at the program's end that its last step issued
    /// (A-ASYNC-ARRIVE-AT-EXIT-HW): the silicon reading also runs the exit that loses them.
    pub(crate) exit_may_lose_arrives: bool,
    /// The proxy rules that applied (crossings that left bytes uncertain, unreleased inits),
    /// once per rule, step and CTA.
    pub notes: Vec<Note>,
}

/// How an execution is configured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecOptions {
    /// The reading of the positions where the text and sm_90 silicon differ.
    pub profile: Profile,
    /// A semantic mutant of the model to run under (the mutation schema; never on without the
    /// `mutants` feature).
    pub mutant: Option<Mutant>,
    /// What the trace keeps of each step.
    pub trace: TraceDetail,
}

/// What a run's trace keeps of each step ([`Execution::trace`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TraceDetail {
    /// All a reader of the run wants (`explain`, minimization): each step's text, the bytes it
    /// touched and whether they are exact after it, and every declared mbarrier's state after
    /// it.
    #[default]
    Full,
    /// The bytes each step touched, how and in which CTA: what a campaign's coverage reads of a
    /// program's run. The rest was about a seventh of a generated legal program's run (39 against
    /// 45 µs, development host), before freeing it.
    Touches,
}

impl Default for ExecOptions {
    /// The text's model.
    fn default() -> ExecOptions {
        ExecOptions::of(Profile::Spec)
    }
}

impl ExecOptions {
    /// The unmutated model under `profile`.
    pub fn of(profile: Profile) -> ExecOptions {
        ExecOptions {
            profile,
            mutant: None,
            trace: TraceDetail::Full,
        }
    }

    /// These options with a trace that keeps `trace`.
    pub fn keeping(self, trace: TraceDetail) -> ExecOptions {
        ExecOptions { trace, ..self }
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
            // Legality is the case's, judged before it runs (`core::evaluate`): an execution
            // cannot meet it.
            (Some(Expect::Illegal(r)), _) => Err(format!(
                "expected the program to be illegal by `{r}`, and the model ran it"
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
    pub fn final_region(&self, key: &str) -> Option<&RegionBytes> {
        let fs = &self.final_state;
        match crate::case_model::split_region_key(key) {
            (name, Some(cta)) => fs.shared.get(cta.parse::<usize>().ok()?)?.get(name),
            (_, None) => fs.global.get(key),
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
