//! Concurrent step groups (`concurrent: NAME` on consecutive steps): the orders the reference
//! runs, and how their executions merge into one.
//!
//! A-EXEC-CONCURRENT-INTERLEAVINGS: the steps of a group run at once on silicon (no barrier
//! between them); the model allows every interleaving of whole steps (each step atomic) that
//! keeps each thread's own steps in their listed order. The case is executed once per order of
//! all its groups (at most [`MAX_ORDERS`]); a byte whose final value differs between orders is
//! uncertain (the union of the values), an order with undefined behaviour makes the case
//! undefined, and an mbarrier, async-group queue or Tensor Memory whose final state differs
//! between orders is a case the model cannot decide (an error naming it).

use std::collections::BTreeMap;

use crate::case::{Case, Ctas};

use super::{ErrorKind, ExecError, Execution, FinalState, Outcome};

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

/// The units of the group starting at step `first` (for the validator's per-group bound).
pub fn group_order_count(case: &Case, first: usize) -> u128 {
    blocks(case)
        .iter()
        .find(|(group, b)| *group && b.first().is_some_and(|u| u.step == first))
        .map_or(1, |(_, b)| order_count(case, b))
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

/// Every schedule (whole-program order of units) the case allows; one for a case without
/// concurrent groups. Err when the groups have more than [`MAX_ORDERS`] orders together.
pub fn schedules(case: &Case) -> Result<Vec<Vec<Unit>>, ErrorKind> {
    let blocks = blocks(case);
    let total = blocks
        .iter()
        .filter(|(group, _)| *group)
        .fold(1u128, |acc, (_, b)| {
            acc.saturating_mul(order_count(case, b))
        });
    if total > MAX_ORDERS {
        return Err(ErrorKind::Launch(format!(
            "the concurrent groups have more than {MAX_ORDERS} interleavings together \
             (A-EXEC-CONCURRENT-INTERLEAVINGS); split a group or give it fewer steps"
        )));
    }
    let mut scheds: Vec<Vec<Unit>> = vec![Vec::new()];
    for (group, b) in &blocks {
        let orders = if *group {
            interleavings(case, b)
        } else {
            vec![b.clone()]
        };
        scheds = scheds
            .iter()
            .flat_map(|s| {
                orders.iter().map(move |o| {
                    let mut s = s.clone();
                    s.extend_from_slice(o);
                    s
                })
            })
            .collect();
    }
    Ok(scheds)
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
    let widen = |a: &mut Vec<_>, b: &Vec<_>| {
        for (x, y) in a.iter_mut().zip(b) {
            *x = super::Byte::union(*x, *y);
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
