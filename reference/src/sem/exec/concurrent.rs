//! Concurrent step groups (`concurrent: NAME` on consecutive steps): the orders the reference
//! runs, and how their executions merge into one.
//!
//! A-EXEC-CONCURRENT-INTERLEAVINGS: the steps of a group run at once on silicon (no barrier
//! between them); the model allows every interleaving of whole steps (each step atomic) that
//! keeps each thread's own steps in their listed order. Steps of different threads whose
//! footprints do not conflict (`footprint.rs`) commute, so only the interleavings of threads
//! that depend on each other are run: the group's threads split into components of mutually
//! dependent threads, each component is interleaved on its own and the components run one after
//! the other in listed order (a partial-order reduction; every skipped order is equivalent to a
//! run one). The case is executed once per reduced order of all its groups (at most
//! [`MAX_ORDERS`]); a byte whose final value differs between orders is uncertain (the union of
//! the values), an order with undefined behaviour makes the case undefined, and an mbarrier,
//! async-group queue or Tensor Memory whose final state differs between orders is a case the
//! model cannot decide (an error naming it).
//!
//! A-EXEC-CONCURRENT-MBAR-COMMUTE: arrive-type updates of one mbarrier (arrive-on with or
//! without expect-tx, expect-tx, complete-tx, a copy's tracked complete-tx,
//! cp.async.mbarrier.arrive{.noinc}) only add to the pending count and the tx-count
//! (§9.7.13.15.5.1, .5.2, .7); the one step that depends on their order is phase completion,
//! checked after each of them (§9.7.13.15.6), plus the count ranges (§9.7.13.15.2). They are
//! treated as commuting, and each run then checks the assumption on the state it met: no proper
//! subset of the group's updates of that mbarrier may bring its pending count to zero or below,
//! only the last may complete the phase, and the counts cannot leave their ranges in any order.
//! When a run finds that it does not hold, the case is run again without the assumption (the
//! updates then conflict, so their threads are interleaved). Under the silicon reading, where an
//! arrive-on counts in whichever phase it meets (A-MB-ARRIVE-COUNTS-HW), updates that are each a
//! single arrival also hold it across phase completions, unless one keeps a state token.

use std::collections::BTreeMap;
use std::ops::Range;

use crate::case_model::{Case, Ctas};
use crate::ptx::mbarrier::{Dest, MbarrierOp};
use crate::ptx::{Instruction, Statement};
use crate::sem::mbarrier::{Mbarrier, Slot, MAX_COUNT};
use crate::sem::memory::{RegionBytes, RegionId};

use super::footprint::{self, Footprint};
use super::{ErrorKind, ExecError, ExecOptions, Execution, FinalState, Machine, Outcome};

/// The most orders a case's concurrent groups may have together (7!): each is a whole
/// execution of the case.
pub const MAX_ORDERS: u128 = 5040;

/// One execution of a step by one CTA (a `cta: all` or list step is one unit per CTA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    pub step: usize,
    pub cta: u32,
}

/// The CTAs that run a step, in order.
fn ctas_of(cta: &Ctas, ctas: u32) -> Vec<u32> {
    match cta {
        Ctas::One(c) => vec![*c],
        Ctas::Named(_) => (0..ctas).collect(),
        Ctas::List(l) => l.clone(),
    }
}

/// The program as blocks of consecutive steps: a step outside any group is a block of its own
/// (its CTAs in rank order, A-EXEC-ORDER); a group's steps form one block. Each block is
/// whether it is a group, and its units in listed order.
fn blocks(case: &Case) -> Vec<(bool, Vec<Unit>)> {
    // Checked: the validator calls this on cases whose grid it has not yet found too large.
    let ctas = case
        .launch
        .grid
        .iter()
        .try_fold(1u32, |a, &x| a.checked_mul(x))
        .unwrap_or(0);
    let mut out: Vec<(bool, Vec<Unit>)> = Vec::new();
    let mut group: Option<&str> = None;
    for (i, s) in case.program.iter().enumerate() {
        let units = ctas_of(&s.cta, ctas)
            .into_iter()
            .map(|cta| Unit { step: i, cta });
        match (s.concurrent.as_deref(), group, out.last_mut()) {
            (Some(g), Some(h), Some(last)) if g == h => last.1.extend(units),
            (g, _, _) => out.push((g.is_some(), units.collect())),
        }
        group = s.concurrent.as_deref();
    }
    out
}

/// The thread (CTA, thread) that runs a unit.
fn runner(case: &Case, u: Unit) -> (u32, u32) {
    (u.cta, case.program[u.step].thread)
}

/// How many interleavings of `units` keep each thread's units in order: the multinomial
/// coefficient n! / Π kᵢ!, saturating above [`MAX_ORDERS`].
pub fn order_count(case: &Case, units: &[Unit]) -> u128 {
    let mut per: BTreeMap<(u32, u32), u128> = BTreeMap::new();
    let mut count: u128 = 1;
    for (n, u) in units.iter().enumerate() {
        let k = per.entry(runner(case, *u)).or_default();
        *k += 1;
        // C(n+1, k) grows the count step by step: count · (n+1) / k stays an integer.
        count = count.saturating_mul(n as u128 + 1) / *k;
        if count > MAX_ORDERS {
            return MAX_ORDERS + 1;
        }
    }
    count
}

/// How many reduced orders the group starting at step `first` has (for the validator's bound).
pub fn group_order_count(case: &Case, first: usize) -> u128 {
    blocks(case)
        .iter()
        .find(|(group, b)| *group && b.first().is_some_and(|u| u.step == first))
        .map_or(1, |(_, b)| {
            let (comps, _) = components(case, b, true);
            comps
                .iter()
                .fold(1u128, |acc, c| acc.saturating_mul(order_count(case, c)))
                .min(MAX_ORDERS + 1)
        })
}

/// Each unit's footprint; all [`Footprint::Everything`] when the case cannot be laid out.
fn footprints(case: &Case, units: &[Unit]) -> Vec<Footprint> {
    let Ok(mut m) = Machine::new(case, ExecOptions::default()) else {
        return vec![Footprint::Everything; units.len()];
    };
    let ctx = crate::case_model::names::parse_ctx(case);
    units
        .iter()
        .map(|u| {
            let step = &case.program[u.step];
            let parsed = match &step.op {
                crate::case_model::StepOp::Ptx(text) => match Statement::parse_with(text, &ctx) {
                    Ok(st) => Some(st),
                    Err(_) => return Footprint::Everything,
                },
                _ => None,
            };
            footprint::of(&mut m, &step.op, parsed.as_ref(), u.cta, step.thread)
        })
        .collect()
}

/// Splits a group's units into components of mutually dependent threads (each component's
/// units in listed order, components in order of first appearance). Also returns the mbarriers
/// that more than one component uses on the assumption A-EXEC-CONCURRENT-MBAR-COMMUTE
/// (`commute`), with the units that update their counts (the check's span is left empty).
fn components(case: &Case, units: &[Unit], commute: bool) -> (Vec<Vec<Unit>>, Check) {
    let fps = footprints(case, units);
    let mut runners: Vec<(u32, u32)> = Vec::new();
    let idx: Vec<usize> = units
        .iter()
        .map(|u| {
            let r = runner(case, *u);
            runners.iter().position(|x| *x == r).unwrap_or_else(|| {
                runners.push(r);
                runners.len() - 1
            })
        })
        .collect();
    // Union-find over threads: a conflict between two of their steps joins them.
    let mut parent: Vec<usize> = (0..runners.len()).collect();
    fn root(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for i in 0..units.len() {
        for j in i + 1..units.len() {
            let (a, b) = (root(&mut parent, idx[i]), root(&mut parent, idx[j]));
            if a != b && fps[i].conflicts(&fps[j], commute) {
                parent[a] = b;
            }
        }
    }
    let mut comp_of: Vec<usize> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    let mut comps: Vec<Vec<Unit>> = Vec::new();
    for (k, u) in units.iter().enumerate() {
        let r = root(&mut parent, idx[k]);
        let c = roots.iter().position(|x| *x == r).unwrap_or_else(|| {
            roots.push(r);
            comps.push(Vec::new());
            roots.len() - 1
        });
        comps[c].push(*u);
        comp_of.push(c);
    }
    let mut users: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    let mut updates = Vec::new();
    if commute {
        for (k, f) in fps.iter().enumerate() {
            for (region, off, update) in f.arrives() {
                if let RegionId::Shared { cta } = region {
                    let key = super::mbar_key(cta, off);
                    users.entry(key).or_default().push(comp_of[k]);
                    if update {
                        updates.push((units[k], key));
                    }
                }
            }
        }
    }
    let keys: Vec<u64> = users
        .into_iter()
        .filter(|(_, cs)| cs.iter().any(|c| *c != cs[0]))
        .map(|(k, _)| k)
        .collect();
    updates.retain(|(_, k)| keys.contains(k));
    let parsed = crate::case_model::names::parsed_steps(case);
    let tokens = updates.iter().any(|(u, _)| {
        parsed[u.step].as_deref().is_some_and(|st| {
            matches!(
                st,
                Ok(Statement {
                    instr: Instruction::Mbarrier(MbarrierOp::Arrive {
                        dest: Dest::State(_),
                        ..
                    }),
                    ..
                })
            )
        })
    });
    (
        comps,
        Check {
            span: 0..0,
            keys,
            updates,
            tokens,
        },
    )
}

/// Every interleaving of `units` keeping each thread's units in order; the listed order first.
fn interleavings(case: &Case, units: &[Unit]) -> Vec<Vec<Unit>> {
    fn go(case: &Case, left: &mut Vec<Unit>, cur: &mut Vec<Unit>, out: &mut Vec<Vec<Unit>>) {
        if left.is_empty() {
            out.push(cur.clone());
            return;
        }
        for i in 0..left.len() {
            let who = runner(case, left[i]);
            // Only a thread's earliest remaining unit may go next.
            if left[..i].iter().any(|u| runner(case, *u) == who) {
                continue;
            }
            let u = left.remove(i);
            cur.push(u);
            go(case, left, cur, out);
            cur.pop();
            left.insert(i, u);
        }
    }
    let mut out = Vec::new();
    go(case, &mut units.to_vec(), &mut Vec::new(), &mut out);
    out
}

/// Every schedule (whole-program order of units) the case allows, reduced; one for a case
/// without concurrent groups. Err when the groups have more than [`MAX_ORDERS`] orders together.
pub fn schedules(case: &Case) -> Result<Vec<Vec<Unit>>, ErrorKind> {
    plan(case, Reduction::Commute).map(|p| p.orders)
}

/// The reduced orders to run, and where each run must check A-EXEC-CONCURRENT-MBAR-COMMUTE.
pub(super) struct Plan {
    pub orders: Vec<Vec<Unit>>,
    pub checks: Vec<Check>,
}

/// Positions `span` of every order hold one group, in which independent threads use the
/// mbarriers `keys` on the assumption A-EXEC-CONCURRENT-MBAR-COMMUTE; `updates` lists the units
/// that update one's counts (an update may leave them as they were, e.g. cp.async.mbarrier.arrive
/// incrementing and at once arriving, yet its arrive-on still depends on the phase).
#[derive(Default)]
pub(super) struct Check {
    pub span: Range<usize>,
    pub keys: Vec<u64>,
    pub updates: Vec<(Unit, u64)>,
    /// An update returns a state token, whose phase depends on the order.
    pub tokens: bool,
}

/// How far [`plan`] reduces the orders of a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// Independent threads and commuting mbarrier updates (A-EXEC-CONCURRENT-MBAR-COMMUTE).
    Commute,
    /// Independent threads only: every two updates of one mbarrier conflict.
    Footprints,
    /// Every interleaving (the reference the reductions are tested against).
    Off,
}

/// The schedules under `reduction`.
pub(super) fn plan(case: &Case, reduction: Reduction) -> Result<Plan, ErrorKind> {
    let mut per_block: Vec<Vec<Vec<Unit>>> = Vec::new();
    let mut checks = Vec::new();
    let mut total: u128 = 1;
    let mut at = 0;
    for (group, b) in blocks(case) {
        if !group {
            at += b.len();
            per_block.push(vec![b]);
            continue;
        }
        let (comps, check) = match reduction {
            Reduction::Off => (vec![b.clone()], Check::default()),
            r => components(case, &b, r == Reduction::Commute),
        };
        for c in &comps {
            total = total.saturating_mul(order_count(case, c));
        }
        if total > MAX_ORDERS {
            return Err(ErrorKind::Launch(format!(
                "the concurrent groups have more than {MAX_ORDERS} interleavings of dependent \
                 steps together (A-EXEC-CONCURRENT-INTERLEAVINGS); split a group or give it \
                 fewer steps"
            )));
        }
        if !check.keys.is_empty() {
            checks.push(Check {
                span: at..at + b.len(),
                ..check
            });
        }
        at += b.len();
        // Components one after the other: the product of their interleavings.
        let mut orders: Vec<Vec<Unit>> = vec![Vec::new()];
        for c in &comps {
            orders = product(&orders, &interleavings(case, c));
        }
        per_block.push(orders);
    }
    // Every step outside a group is a block of one order: it extends each schedule in place
    // (a product would copy every schedule once per step).
    let mut scheds: Vec<Vec<Unit>> = vec![Vec::new()];
    for orders in per_block {
        match <[Vec<Unit>; 1]>::try_from(orders) {
            Ok([only]) => scheds.iter_mut().for_each(|s| s.extend_from_slice(&only)),
            Err(orders) => scheds = product(&scheds, &orders),
        }
    }
    Ok(Plan {
        orders: scheds,
        checks,
    })
}

/// Every `a` followed by every `b`.
fn product(a: &[Vec<Unit>], b: &[Vec<Unit>]) -> Vec<Vec<Unit>> {
    a.iter()
        .flat_map(|s| {
            b.iter().map(move |o| {
                let mut s = s.clone();
                s.extend_from_slice(o);
                s
            })
        })
        .collect()
}

/// One checked update: the net change of (pending count, tx-count) a step made, taken before
/// a phase completion it caused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Delta {
    pending: i64,
    tx: i64,
    completed: bool,
    /// The step is an update of the counts (even one that left them as they were).
    update: bool,
    /// The expected count is as it was (no arrive_drop).
    expected_kept: bool,
}

/// Watches the checked mbarriers through one run (A-EXEC-CONCURRENT-MBAR-COMMUTE).
pub(super) struct Watch<'p> {
    checks: &'p [Check],
    /// The run reads as silicon: arrivals alone commute across phases too.
    silicon: bool,
    /// Per check and key: the state met at the group's start, then each step's change.
    entry: Vec<Vec<Option<Mbarrier>>>,
    before: Vec<Vec<Option<Mbarrier>>>,
    deltas: Vec<Vec<Vec<Delta>>>,
}

fn object(slots: &BTreeMap<u64, Slot>, key: u64) -> Option<Mbarrier> {
    slots.get(&key).and_then(Slot::object).cloned()
}

impl<'p> Watch<'p> {
    pub fn new(checks: &'p [Check], silicon: bool) -> Watch<'p> {
        let empty = || checks.iter().map(|c| vec![None; c.keys.len()]).collect();
        Watch {
            checks,
            silicon,
            entry: empty(),
            before: empty(),
            deltas: checks
                .iter()
                .map(|c| vec![Vec::new(); c.keys.len()])
                .collect(),
        }
    }

    /// Before the unit at position `pos` of the order runs.
    pub fn before(&mut self, pos: usize, slots: &BTreeMap<u64, Slot>) {
        for (i, c) in self.checks.iter().enumerate() {
            if !c.span.contains(&pos) {
                continue;
            }
            for (k, key) in c.keys.iter().enumerate() {
                let now = object(slots, *key);
                if pos == c.span.start {
                    self.entry[i][k] = now.clone();
                }
                self.before[i][k] = now;
            }
        }
    }

    /// After `unit`, at `pos`, ran; false when the assumption does not hold for this run.
    pub fn after(&mut self, pos: usize, unit: Unit, slots: &BTreeMap<u64, Slot>) -> bool {
        for (i, c) in self.checks.iter().enumerate() {
            if !c.span.contains(&pos) {
                continue;
            }
            for (k, key) in c.keys.iter().enumerate() {
                let (Some(b), Some(a)) = (&self.before[i][k], object(slots, *key)) else {
                    return false;
                };
                if a.of != b.of {
                    return false;
                }
                let update = c.updates.contains(&(unit, *key));
                let expected_kept = a.expected == b.expected;
                let d = match a.phase - b.phase {
                    0 => Delta {
                        pending: i64::from(a.pending) - i64::from(b.pending),
                        tx: i64::from(a.tx_count) - i64::from(b.tx_count),
                        completed: false,
                        update,
                        expected_kept,
                    },
                    // Completion happens at pending == 0 and tx-count == 0.
                    1 => Delta {
                        pending: -i64::from(b.pending),
                        tx: -i64::from(b.tx_count),
                        completed: true,
                        update,
                        expected_kept,
                    },
                    _ => return false,
                };
                self.deltas[i][k].push(d);
                if pos + 1 == c.span.end {
                    let entry = self.entry[i][k].as_ref().expect("recorded at the start");
                    let d = &self.deltas[i][k];
                    let counted = self.silicon && !c.tokens && single_arrivals(d);
                    if !counted && !commutes(entry, d) {
                        return false;
                    }
                }
            }
        }
        true
    }
}

/// A-EXEC-CONCURRENT-MBAR-COMMUTE: do updates with these changes, met in state `entry`, leave
/// the same state in every order? Yes when no order completes the phase before its last update
/// (no proper subset of them brings the pending count to zero or below; any subset stands in
/// for the prefixes of the orders) and no order leaves the count ranges.
fn commutes(entry: &Mbarrier, d: &[Delta]) -> bool {
    let eff: Vec<&Delta> = d
        .iter()
        .filter(|x| x.update || x.pending != 0 || x.tx != 0 || x.completed)
        .collect();
    let Some((_, rest)) = eff.split_last() else {
        return true;
    };
    if rest.iter().any(|x| x.completed) {
        return false;
    }
    let max = i64::from(MAX_COUNT);
    let tx_reach: i64 =
        i64::from(entry.tx_count).abs() + eff.iter().map(|x| x.tx.abs()).sum::<i64>();
    let up: i64 = eff.iter().map(|x| x.pending.max(0)).sum();
    if tx_reach > max || i64::from(entry.pending) + up > max {
        return false;
    }
    if eff.len() < 2 {
        return true;
    }
    // The lowest pending-count change of a non-empty proper subset.
    let neg: i64 = eff.iter().map(|x| x.pending.min(0)).sum();
    let lowest = if eff.iter().any(|x| x.pending >= 0) {
        if eff.iter().any(|x| x.pending < 0) {
            neg
        } else {
            eff.iter().map(|x| x.pending).min().unwrap_or(0)
        }
    } else {
        neg - eff.iter().map(|x| x.pending).max().unwrap_or(0)
    };
    i64::from(entry.pending) + lowest > 0
}

/// Under the silicon reading an arrive-on counts in whichever phase it meets
/// (A-MB-ARRIVE-COUNTS-HW): updates that are each one arrival, with no tx-count and no
/// arrive_drop, are the same operation in every order, so they leave the same state whatever
/// phases they complete on the way (the state tokens they would return are another matter:
/// [`Check::tokens`]).
fn single_arrivals(d: &[Delta]) -> bool {
    d.iter()
        .filter(|x| x.update || x.pending != 0 || x.tx != 0 || x.completed)
        .all(|x| x.pending == -1 && x.tx == 0 && x.expected_kept)
}

/// A schedule as text for messages: `#step@ctaN`, in order.
fn describe(case: &Case, s: &[Unit]) -> String {
    s.iter()
        .filter(|u| case.program[u.step].concurrent.is_some())
        .map(|u| format!("#{}@cta{}.t{}", u.step, u.cta, case.program[u.step].thread))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Merges the executions of every schedule (`runs[i]` ran `scheds[i]`) into one: the first
/// undefined one if any, else the first with every byte widened to the values of all.
pub fn merge(
    case: &Case,
    scheds: &[Vec<Unit>],
    mut runs: Vec<Execution>,
) -> Result<Execution, ExecError> {
    let n = runs.len();
    // The readings any order applied.
    let mut readings: Vec<&'static str> = runs.iter().flat_map(|r| r.readings.clone()).collect();
    super::in_assumption_order(&mut readings);
    let raced_wait = runs.iter().any(|r| r.raced_wait);
    let copies_raced = runs.iter().any(|r| r.copies_raced);
    let arrive_owed_at_use = runs.iter().any(|r| r.arrive_owed_at_use);
    let exit_may_lose_arrives = runs.iter().any(|r| r.exit_may_lose_arrives);
    if let Some(i) = runs
        .iter()
        .position(|r| matches!(r.outcome, Outcome::Undefined { .. }))
    {
        let mut r = runs.swap_remove(i);
        if let Outcome::Undefined { ub, .. } = &mut r.outcome {
            ub.detail = format!(
                "{} (in order {} of {n} of the concurrent steps: {})",
                ub.detail,
                i + 1,
                describe(case, &scheds[i])
            );
        }
        r.readings = readings;
        r.raced_wait = raced_wait;
        r.copies_raced = copies_raced;
        r.arrive_owed_at_use = arrive_owed_at_use;
        r.exit_may_lose_arrives = exit_may_lose_arrives;
        return Ok(r);
    }
    let mut rest = runs.split_off(1);
    let mut first = runs.pop().expect("at least one schedule");
    for (k, r) in rest.iter_mut().enumerate() {
        let undecided = |what: String| ExecError {
            step: None,
            kind: ErrorKind::Nondeterministic(format!(
                "{what} differs between orders of the concurrent steps ({} and {}): the model \
                 does not decide it (A-EXEC-CONCURRENT-INTERLEAVINGS)",
                describe(case, &scheds[0]),
                describe(case, &scheds[k + 1])
            )),
        };
        merge_state(&mut first.final_state, &r.final_state).map_err(undecided)?;
        for note in r.notes.drain(..) {
            if !first.notes.contains(&note) {
                first.notes.push(note);
            }
        }
        for p in r.departures.drain(..) {
            if !first.departures.iter().any(|q| q.id == p.id) {
                first.departures.push(p);
            }
        }
    }
    first.departures.sort_by_key(|p| {
        crate::sem::profile::POSITIONS
            .iter()
            .position(|q| q.id == p.id)
    });
    first.readings = readings;
    first.raced_wait = raced_wait;
    first.copies_raced = copies_raced;
    first.arrive_owed_at_use = arrive_owed_at_use;
    first.exit_may_lose_arrives = exit_may_lose_arrives;
    Ok(first)
}

/// Widens `into`'s bytes by `other`'s; Err names a non-byte part that differs.
fn merge_state(into: &mut FinalState, other: &FinalState) -> Result<(), String> {
    for (cta, (a, b)) in into.mbarriers.iter().zip(&other.mbarriers).enumerate() {
        if let Some((name, _)) = a.iter().find(|(n, s)| b.get(*n) != Some(s)) {
            return Err(format!("the state of mbarrier `{name}` of CTA {cta}"));
        }
    }
    if into.groups != other.groups {
        return Err("an async-group queue".into());
    }
    if into.tmem != other.tmem {
        return Err("Tensor Memory".into());
    }
    let widen = |a: &mut RegionBytes, b: &RegionBytes| {
        if a != b {
            *a = a.iter().zip(b).map(|(x, y)| x.union(*y)).collect();
        }
    };
    for (name, bytes) in &mut into.global {
        widen(bytes, &other.global[name]);
    }
    for (a, b) in into.shared.iter_mut().zip(&other.shared) {
        for (name, bytes) in a {
            widen(bytes, &b[name]);
        }
    }
    Ok(())
}
