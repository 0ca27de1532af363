//! The program: each step runs on a CTA and thread of the launch and its operation checks out
//! (a `ptx:` step parses and its operands name what they need; waits and stores name the right
//! declarations), and `concurrent` groups are well formed.

use std::collections::HashMap;

use super::{check_instruction, find_token, p, pik, product, Decl, Names, Out, Severity};
use crate::case::loc::{key, Seg};
use crate::case::model::*;
use crate::ptx::lex::SyntaxError;
use crate::ptx::operand::RegTy;
use crate::ptx::Statement;

fn in_range(n: u32, limit: u128) -> bool {
    (n as u128) < limit
}

pub(super) fn program(c: &Case, names: &Names, o: &mut Out) {
    let ctas = product(&c.launch.grid);
    let parsed = crate::case_model::names::parsed_steps(c);
    if c.program.is_empty() {
        o.err(p(&["program"]), "a program has at least one step");
    }
    for (j, step) in c.program.iter().enumerate() {
        let at = |k: &str| pik(&["program"], j, k);
        match &step.cta {
            Ctas::One(n) if !in_range(*n, ctas) => o.err(
                at("cta"),
                format!("CTA {n} is outside the grid of {ctas} CTAs"),
            ),
            Ctas::List(l) if l.is_empty() => {
                o.err(at("cta"), "an empty CTA list runs the step nowhere")
            }
            Ctas::List(l) => {
                for (k, n) in l.iter().enumerate() {
                    if !in_range(*n, ctas) {
                        let mut path = at("cta");
                        path.push(Seg::Idx(k));
                        o.err(path, format!("CTA {n} is outside the grid of {ctas} CTAs"));
                    }
                }
            }
            _ => {}
        }
        if step.thread >= c.launch.threads {
            o.err(
                at("thread"),
                format!(
                    "thread {} is outside the CTA of {} threads",
                    step.thread, c.launch.threads
                ),
            );
        }
        match &step.op {
            StepOp::Ptx(text) => {
                if let Some(st) = &parsed[j] {
                    ptx_step(text, st, names, &|| at("ptx"), o)
                }
            }
            StepOp::WaitParity { mbar, parity } => {
                let mut base = at("wait_parity");
                if names.decls.get(mbar) != Some(&Decl::Mbarrier) {
                    base.push(key("mbar"));
                    o.err(base, format!("`{mbar}` is not a declared mbarrier"));
                } else if *parity > 1 {
                    base.push(key("parity"));
                    o.err(base, format!("parity is 0 or 1, not {parity}"));
                }
            }
            StepOp::Store { at: region, bytes } => {
                let mut base = at("store");
                match names.decls.get(region) {
                    Some(Decl::Global { size } | Decl::Shared { size }) => {
                        if bytes.len() as u64 > *size {
                            base.push(key("bytes"));
                            o.err(
                                base,
                                format!(
                                    "{} bytes do not fit in `{region}` ({size} bytes)",
                                    bytes.len()
                                ),
                            );
                        }
                    }
                    Some(d) => {
                        base.push(key("at"));
                        o.err(
                            base,
                            format!("`{region}` is {}; stores go to regions", d.describe()),
                        );
                    }
                    None => {
                        base.push(key("at"));
                        o.err(base, format!("`{region}` is not a declared region"));
                    }
                }
            }
        }
    }
}

/// `concurrent` groups: consecutive, run by more than one thread, without blocking waits (a
/// step is atomic in the model, so a wait inside a group could only wait for steps before it),
/// and within the interleaving bound.
pub(super) fn concurrent_groups(c: &Case, o: &mut Out) {
    const MAX_CTAS_ORDERED: u32 = 1 << 16;
    use crate::sem::exec::concurrent::{group_order_count, MAX_ORDERS};
    let ctas = product(&c.launch.grid);
    let mut ended: HashMap<&str, usize> = HashMap::new();
    let mut total: u128 = 1;
    let mut j = 0;
    while j < c.program.len() {
        let Some(g) = c.program[j].concurrent.as_deref() else {
            j += 1;
            continue;
        };
        let at = |i: usize| pik(&["program"], i, "concurrent");
        let end = (j..c.program.len())
            .find(|&i| c.program[i].concurrent.as_deref() != Some(g))
            .unwrap_or(c.program.len());
        if g.is_empty() {
            o.err(at(j), "a concurrent group needs a name");
        }
        if let Some(last) = ended.insert(g, end - 1) {
            o.err(
                at(j),
                format!("concurrent group `{g}` already ended at step {last}: a group's steps are consecutive"),
            );
        }
        let mut runners = std::collections::BTreeSet::new();
        for i in j..end {
            let s = &c.program[i];
            match &s.cta {
                Ctas::One(n) => {
                    runners.insert((*n, s.thread));
                }
                Ctas::List(l) => runners.extend(l.iter().map(|n| (*n, s.thread))),
                // Two CTAs are enough to tell the group is run by more than one thread.
                Ctas::Named(_) => runners.extend((0..ctas.min(2) as u32).map(|n| (n, s.thread))),
            }
            if matches!(s.op, StepOp::WaitParity { .. }) {
                o.err(
                    at(i),
                    "a wait_parity step cannot be concurrent (the model runs whole steps                      atomically, so it could wait only for steps before it): put it after the group",
                );
            }
        }
        if runners.len() < 2 {
            o.err(
                at(j),
                format!("concurrent group `{g}` is run by one thread only: its steps run in order anyway; give its steps different threads or CTAs"),
            );
        } else if ctas > u128::from(MAX_CTAS_ORDERED) {
            // `launch` reports the grid; counting orders over it would be meaningless.
        } else if group_order_count(c, j) > MAX_ORDERS {
            o.err(
                at(j),
                format!("concurrent group `{g}` has more than {MAX_ORDERS} interleavings (A-EXEC-CONCURRENT-INTERLEAVINGS): give it fewer steps or threads"),
            );
        } else {
            total = total.saturating_mul(group_order_count(c, j));
            if total > MAX_ORDERS {
                o.err(
                    at(j),
                    format!("with group `{g}` the concurrent groups have more than {MAX_ORDERS} interleavings together (A-EXEC-CONCURRENT-INTERLEAVINGS)"),
                );
                total = 1;
            }
        }
        j = end;
    }
}

/// `path` makes the step's path for a problem (most steps have none).
fn ptx_step(
    text: &str,
    parsed: &Result<Statement, SyntaxError>,
    names: &Names,
    path: &dyn Fn() -> Vec<Seg>,
    o: &mut Out,
) {
    let mut st = match parsed {
        Ok(s) => s.clone(),
        Err(e) => {
            o.push(path(), Some(e.offset), Severity::Error, e.to_string());
            return;
        }
    };
    if let Some(g) = &st.guard {
        if names.params.get(&g.pred) != Some(&RegTy::Pred) {
            let off = find_token(text, &g.pred);
            o.push(
                path(),
                off,
                Severity::Error,
                format!("guard `{}` must be a `pred` parameter in `params`", g.pred),
            );
        }
    }
    for prob in check_instruction(&mut st.instr, names) {
        let off = find_token(text, &prob.name);
        o.push(path(), off, Severity::Error, prob.message);
    }
}
