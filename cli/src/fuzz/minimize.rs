//! Delta debugging over a case. Each round proposes smaller variants of the current case — drop a
//! chunk of steps (halves down to single steps, as ddmin's complement phase), fewer CTAs, cluster
//! → 1, one warp, smaller region sizes and immediates (multiples of 16 stay multiples of 16; one
//! value replaced everywhere at once so a copy size and its `expect_tx` byte count shrink
//! together), fewer declarations, init patterns → fill, simpler variants of an instruction
//! (multicast → unicast, no cache hint, …) — keeps those the caller's `admissible` accepts (for hardware failures: the
//! case validates and the reference finds it well defined, which is what keeps mbarrier init and
//! tx bookkeeping consistent), tests them in batches, and moves to the first that still fails the
//! same way. Every move strictly lowers [`cost`], so it terminates.
//!
//! Instructions are shrunk as typed values of the family model, never as PTX text: their numeric
//! operands are found by walking their operand slots ([`Instruction::visit_operands`]), and a
//! simpler variant is another variant of the same family whose qualifiers are a subset, with the
//! operands carried over by role.

use ptxconform_reference::case::validate::parse_steps;
use ptxconform_reference::case::{AllCtas, Case, Ctas, Init, Param, StepOp};
use ptxconform_reference::ptx::operand::{Address, Slot, TensorRef, Value};
use ptxconform_reference::ptx::{Instruction, Statement};
use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

/// Lexicographic size of a case: what the minimizer lowers.
pub fn cost(c: &Case) -> (usize, u32, u32, u32, u64, usize, u64, u32, usize) {
    let regions = c.memory.global.iter().chain(&c.memory.shared);
    let init = |i: &Init| match i {
        Init::Fill(0) => 0,
        Init::Fill(_) => 1,
        Init::Bytes(_) | Init::Hex(_) => 2,
        Init::Pattern(_) | Init::Hash(_) | Init::Values(_) => 3,
    };
    let mut numbers: u64 = 0;
    let mut text = 0;
    for (_, mut st) in statements(c) {
        each_number(&mut st.instr, &mut |_, v| numbers += v.unsigned_abs());
    }
    for s in &c.program {
        if let StepOp::Ptx(t) = &s.op {
            text += t.len();
        }
        if let StepOp::Store { bytes, .. } = &s.op {
            text += bytes.len();
        }
        numbers += s.thread as u64;
        if let Ctas::One(k) = s.cta {
            numbers += k as u64;
        }
    }
    for p in c.params.values() {
        numbers += match p {
            Param::Int(v) | Param::Typed { value: v, .. } => v.unsigned_abs(),
            Param::Mapa { cta, .. } => *cta as u64,
        };
    }
    (
        c.program.len(),
        c.launch.ctas(),
        c.launch.cluster_size(),
        c.launch.threads,
        regions.clone().map(|r| r.size).sum(),
        c.memory.global.len() + c.memory.shared.len() + c.memory.mbarriers.len() + c.params.len(),
        numbers,
        regions.map(|r| init(&r.init)).sum(),
        text,
    )
}

/// The `ptx:` steps of `c` that parse, typed.
fn statements(c: &Case) -> Vec<(usize, Statement)> {
    parse_steps(c)
        .into_iter()
        .filter_map(|(i, st)| st.ok().map(|st| (i, st)))
        .collect()
}

/// Write a typed statement back into step `i`.
fn put(c: &mut Case, i: usize, st: &Statement) {
    let text = st.to_string();
    c.program[i].op = StepOp::Ptx(text.strip_suffix(';').unwrap_or(&text).to_string());
}

/// Every numeric operand of an instruction, with its role: immediates (alone, in a vector or
/// among tensor coordinates) and address offsets (role `offset`).
fn each_number(i: &mut Instruction, f: &mut dyn FnMut(&str, &mut i64)) {
    i.visit_operands(&mut |slot| match slot {
        Slot::Value {
            role,
            value: Value::Imm(x),
            ..
        } => f(role, x),
        Slot::Vector { role, values, .. }
        | Slot::Tensor {
            role,
            tensor: TensorRef { coords: values, .. },
        } => {
            for v in values.iter_mut() {
                if let Value::Imm(x) = v {
                    f(role, x)
                }
            }
        }
        Slot::Addr { addr, .. } if addr.offset != 0 => f("offset", &mut addr.offset),
        Slot::Value { .. } | Slot::Addr { .. } => {}
    });
}

/// Smaller values to try for `v`: multiples of 16 stay multiples of 16.
fn smaller(v: u64) -> Vec<u64> {
    let mut c: Vec<u64> = if v.is_multiple_of(16) {
        vec![0, 16, v / 32 * 16, v.saturating_sub(16)]
    } else {
        vec![0, 1, v / 2, v - 1]
    };
    c.retain(|x| *x < v);
    c.sort_unstable();
    c.dedup();
    c
}

fn with_steps(c: &Case, keep: impl Fn(usize) -> bool) -> Case {
    let mut n = c.clone();
    n.program = c
        .program
        .iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .map(|(_, s)| s.clone())
        .collect();
    n
}

/// Drop chunks of steps: halves, quarters, ... single steps.
fn drop_steps(c: &Case, out: &mut Vec<Case>) {
    let n = c.program.len();
    let mut size = n / 2;
    let mut sizes = Vec::new();
    while size >= 1 {
        sizes.push(size);
        size /= 2;
    }
    if n == 1 {
        return;
    }
    for size in sizes {
        for start in (0..n).step_by(size) {
            out.push(with_steps(c, |i| i < start || i >= start + size));
        }
    }
}

/// Fewer CTAs (steps of CTAs that no longer exist go), cluster → 1, one warp, thread 0.
fn launch(c: &Case, out: &mut Vec<Case>) {
    let (n, cs) = (c.launch.ctas(), c.launch.cluster_size());
    let mut shapes = vec![(1, 1), (cs, cs), (n / 2 / cs.max(1) * cs, cs)];
    if cs > 1 {
        shapes.push((n, 1));
        shapes.push((cs / 2, cs / 2));
    }
    for (grid, cluster) in shapes {
        if grid == 0
            || cluster == 0
            || grid % cluster != 0
            || (grid, cluster) == (n, cs)
            || grid > n
        {
            continue;
        }
        let mut m = c.clone();
        m.launch.grid = [grid, 1, 1];
        m.launch.cluster = [cluster, 1, 1];
        m.program.retain_mut(|s| match &mut s.cta {
            Ctas::One(k) => *k < grid,
            Ctas::Named(AllCtas::All) => true,
            Ctas::List(l) => {
                l.retain(|k| *k < grid);
                if l.len() == 1 {
                    s.cta = Ctas::One(l[0]);
                }
                !matches!(&s.cta, Ctas::List(l) if l.is_empty())
            }
        });
        if !m.program.is_empty() {
            out.push(m);
        }
    }
    if c.launch.threads > 32 && c.program.iter().all(|s| s.thread < 32) {
        let mut m = c.clone();
        m.launch.threads = 32;
        out.push(m);
    }
    // Everything in CTA 0 (then the grid can shrink to what is left).
    if c.program
        .iter()
        .any(|s| matches!(s.cta, Ctas::One(k) if k != 0))
    {
        let mut m = c.clone();
        m.program.iter_mut().for_each(|s| {
            if let Ctas::One(k) = &mut s.cta {
                *k = 0
            }
        });
        out.push(m);
    }
    if c.program.iter().any(|s| s.thread != 0) {
        let mut m = c.clone();
        m.program.iter_mut().for_each(|s| s.thread = 0);
        out.push(m);
    }
}

/// Replace one numeric value: everywhere at once (keeps sizes and their tx counts equal), then
/// each occurrence alone.
fn numbers(c: &Case, out: &mut Vec<Case>) {
    let stmts = statements(c);
    let mut values: BTreeSet<u64> = BTreeSet::new();
    for (_, st) in &stmts {
        each_number(&mut st.instr.clone(), &mut |_, v| {
            if *v > 0 {
                values.insert(*v as u64);
            }
        });
    }
    for p in c.params.values() {
        if let Param::Int(v) | Param::Typed { value: v, .. } = p {
            if *v > 0 {
                values.insert(*v as u64);
            }
        }
    }
    // Replace the occurrences of `from` in `st` (only the `only`-th with `Some`); how many it saw.
    let replace = |st: &mut Statement, from: u64, to: u64, only: Option<usize>| {
        let mut seen = 0;
        each_number(&mut st.instr, &mut |_, x| {
            if *x == from as i64 {
                if only.is_none_or(|o| o == seen) {
                    *x = to as i64;
                }
                seen += 1;
            }
        });
        seen
    };
    for v in values.into_iter().rev() {
        for to in smaller(v) {
            let mut m = c.clone();
            for (i, st) in &stmts {
                let mut st = st.clone();
                if replace(&mut st, v, to, None) > 0 {
                    put(&mut m, *i, &st);
                }
            }
            for p in m.params.values_mut() {
                if let Param::Int(x) | Param::Typed { value: x, .. } = p {
                    if *x == v as i64 {
                        *x = to as i64;
                    }
                }
            }
            out.push(m);
            for (i, st) in &stmts {
                let n = replace(&mut st.clone(), v, v, None);
                for k in 0..n {
                    let mut one = st.clone();
                    replace(&mut one, v, to, Some(k));
                    let mut m = c.clone();
                    put(&mut m, *i, &one);
                    out.push(m);
                }
            }
        }
    }
}

/// Smaller regions (all at once, then each), fewer declarations, simpler initial contents.
fn memory(c: &Case, part: Part, out: &mut Vec<Case>) {
    let shrink = |s: u64| -> Vec<u64> {
        smaller(s)
            .into_iter()
            .filter(|x| *x >= 16)
            .map(|x| x.div_ceil(16) * 16)
            .collect()
    };
    let n_global = c.memory.global.len();
    let all: Vec<u64> = c
        .memory
        .global
        .iter()
        .chain(&c.memory.shared)
        .map(|r| r.size)
        .collect();
    if part == Part::Shape {
        memory_shape(c, &all, out);
        return;
    }
    if let Some(&max) = all.iter().max() {
        for to in shrink(max) {
            let mut m = c.clone();
            m.memory
                .global
                .iter_mut()
                .chain(m.memory.shared.iter_mut())
                .for_each(|r| r.size = r.size.min(to));
            out.push(m);
        }
    }
    for (i, &size) in all.iter().enumerate() {
        for to in shrink(size) {
            let mut m = c.clone();
            let r = if i < n_global {
                &mut m.memory.global[i]
            } else {
                &mut m.memory.shared[i - n_global]
            };
            r.size = to;
            out.push(m);
        }
        for to in [Init::Fill(0), Init::Fill(0x5a)] {
            let mut m = c.clone();
            let r = if i < n_global {
                &mut m.memory.global[i]
            } else {
                &mut m.memory.shared[i - n_global]
            };
            if r.init != to {
                r.init = to;
                out.push(m);
            }
        }
    }
}

/// [`memory`]'s shape candidates: each region, mbarrier and parameter dropped, no checks.
fn memory_shape(c: &Case, all: &[u64], out: &mut Vec<Case>) {
    let n_global = c.memory.global.len();
    for i in 0..all.len() {
        let mut m = c.clone();
        if i < n_global {
            m.memory.global.remove(i);
        } else {
            m.memory.shared.remove(i - n_global);
        }
        out.push(m);
    }
    for i in 0..c.memory.mbarriers.len() {
        let mut m = c.clone();
        m.memory.mbarriers.remove(i);
        out.push(m);
    }
    for k in c.params.keys() {
        let mut m = c.clone();
        m.params.remove(k);
        out.push(m);
    }
    if !c.check.is_empty() {
        let mut m = c.clone();
        m.check.clear();
        out.push(m);
    }
}

/// Every variant of the model's families (placeholder operands), made once.
fn all_variants() -> &'static [Instruction] {
    static ALL: OnceLock<Vec<Instruction>> = OnceLock::new();
    ALL.get_or_init(Instruction::all_variants)
}

/// The qualifiers (and noted optional operands) of an instruction's coverage row.
fn qualifiers_of(i: &Instruction) -> BTreeSet<String> {
    i.row()
        .split(['.', ' '])
        .filter(|q| !q.is_empty())
        .map(str::to_string)
        .collect()
}

/// One operand, as a slot holds it.
#[derive(Clone)]
enum Operand {
    Addr(Address),
    Value(Value),
    Tensor(TensorRef),
    Vector(Vec<Value>),
}

fn operands_by_role(i: &Instruction) -> HashMap<&'static str, Operand> {
    let mut out = HashMap::new();
    i.clone().visit_operands(&mut |slot| {
        let (role, o) = match slot {
            Slot::Addr { role, addr, .. } => (role, Operand::Addr(addr.clone())),
            Slot::Value { role, value, .. } => (role, Operand::Value(value.clone())),
            Slot::Tensor { role, tensor } => (role, Operand::Tensor(tensor.clone())),
            Slot::Vector { role, values, .. } => (role, Operand::Vector(values.clone())),
        };
        out.insert(role, o);
    });
    out
}

/// `variant` with the operands of `from`, role by role; `None` if it needs a role `from` lacks.
fn with_operands(variant: &Instruction, from: &HashMap<&str, Operand>) -> Option<Instruction> {
    let mut n = variant.clone();
    let mut complete = true;
    n.visit_operands(&mut |slot| {
        let o = from.get(slot_role(&slot));
        match (slot, o) {
            (Slot::Addr { addr, .. }, Some(Operand::Addr(a))) => *addr = a.clone(),
            (Slot::Value { value, .. }, Some(Operand::Value(v))) => *value = v.clone(),
            (Slot::Tensor { tensor, .. }, Some(Operand::Tensor(t))) => *tensor = t.clone(),
            (Slot::Vector { values, .. }, Some(Operand::Vector(v))) => *values = v.clone(),
            _ => complete = false,
        }
    });
    complete.then_some(n)
}

fn slot_role(s: &Slot<'_>) -> &'static str {
    match s {
        Slot::Addr { role, .. }
        | Slot::Value { role, .. }
        | Slot::Tensor { role, .. }
        | Slot::Vector { role, .. } => role,
    }
}

/// Simpler instructions: another variant of the same family whose qualifiers are a strict subset
/// (multicast → unicast, no cache hint, no completion qualifier, …), its operands carried over
/// by role (an operand the simpler variant has no role for, e.g. the ctaMask or the cache
/// policy, is dropped with its qualifier).
fn qualifiers(c: &Case, out: &mut Vec<Case>) {
    for (i, st) in statements(c) {
        let have = qualifiers_of(&st.instr);
        let ops = operands_by_role(&st.instr);
        let family = st.instr.family();
        for v in all_variants().iter().filter(|v| v.family() == family) {
            let q = qualifiers_of(v);
            if q.len() >= have.len() || !q.is_subset(&have) {
                continue;
            }
            if let Some(instr) = with_operands(v, &ops) {
                let mut m = c.clone();
                put(
                    &mut m,
                    i,
                    &Statement {
                        instr,
                        ..st.clone()
                    },
                );
                out.push(m);
            }
        }
    }
}

/// Where a numeric operand lives: the immediate of a role in a step, or a parameter.
#[derive(Clone, Debug)]
enum Loc {
    Imm(usize, String),
    Param(String),
}

/// The value and location of the `role` operand of step `i`.
fn value_of(c: &Case, i: usize, st: &Statement, role: &str) -> Option<(Loc, u64)> {
    match operands_by_role(&st.instr).remove(role)? {
        Operand::Value(Value::Imm(v)) if v >= 0 => Some((Loc::Imm(i, role.to_string()), v as u64)),
        Operand::Value(Value::Reg(name)) => match c.params.get(&name)? {
            Param::Int(v) | Param::Typed { value: v, .. } if *v >= 0 => {
                Some((Loc::Param(name), *v as u64))
            }
            _ => None,
        },
        _ => None,
    }
}

fn set(c: &mut Case, l: &Loc, v: u64) {
    match l {
        Loc::Imm(i, role) => {
            let Some((_, mut st)) = statements(c).into_iter().find(|(k, _)| k == i) else {
                return;
            };
            st.instr.visit_operands(&mut |slot| {
                if let Slot::Value { role: r, value, .. } = slot {
                    if r == role {
                        *value = Value::Imm(v as i64);
                    }
                }
            });
            put(c, *i, &st);
        }
        Loc::Param(n) => {
            if let Some(Param::Int(x) | Param::Typed { value: x, .. }) = c.params.get_mut(n) {
                *x = v as i64;
            }
        }
    }
}

/// The address operand of `role`.
fn address(st: &Statement, role: &str) -> Option<Address> {
    match operands_by_role(&st.instr).remove(role)? {
        Operand::Addr(a) => Some(a),
        _ => None,
    }
}

/// Byte counts announced to mbarriers (`expect_tx` operands), with the mbarrier's address.
fn tx_counts(c: &Case) -> Vec<(Address, Loc, u64)> {
    statements(c)
        .into_iter()
        .filter(|(_, st)| matches!(st.instr, Instruction::Mbarrier(_)))
        .filter_map(|(i, st)| {
            let (l, v) = value_of(c, i, &st, "txCount")?;
            Some((address(&st, "addr")?, l, v))
        })
        .collect()
}

/// Copies completing on an mbarrier (a `size` and an `mbar` operand): drop one, or shrink its
/// size, taking the same byte count off an `expect_tx` on that mbarrier so the phase still
/// balances.
fn tx_copies(c: &Case, out: &mut Vec<Case>) {
    let txs = tx_counts(c);
    for (i, st) in statements(c) {
        let (Some((sl, sv)), Some(bar)) = (value_of(c, i, &st, "size"), address(&st, "mbar"))
        else {
            continue;
        };
        for (_, tl, tv) in txs.iter().filter(|(b, _, _)| *b == bar) {
            if *tv >= sv {
                let mut m = c.clone();
                set(&mut m, tl, tv - sv);
                m.program.remove(i);
                out.push(m);
            }
            for to in smaller(sv).into_iter().filter(|x| *x > 0) {
                if *tv >= sv - to {
                    let mut m = c.clone();
                    set(&mut m, &sl, to);
                    set(&mut m, tl, tv - (sv - to));
                    out.push(m);
                }
            }
        }
    }
}

/// Every candidate variant of `c`, most promising (largest cut) first.
/// Every candidate, the shape's first (the minimizer moves to the first that still fails, and
/// dropping steps shrinks fastest).
pub fn candidates(c: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    drop_steps(c, &mut out);
    tx_copies(c, &mut out);
    launch(c, &mut out);
    qualifiers(c, &mut out);
    memory(c, Part::Shape, &mut out);
    memory(c, Part::Values, &mut out);
    numbers(c, &mut out);
    out
}

/// The candidates within the case's shape: copy sizes with their tx counts, region sizes and
/// contents, operand numbers — what the kernel reads from its parameter block and regions, so
/// they run on the failing program's compiled kernel. (Copy sizes before lone numbers: a lone tx
/// count shrunk first left a planted bulk failure at a larger local minimum.)
pub fn value_candidates(c: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    tx_copies(c, &mut out);
    memory(c, Part::Values, &mut out);
    numbers(c, &mut out);
    out
}

/// Which of a case's memory candidates [`memory`] proposes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    /// Region sizes and contents (parameter-block and region values).
    Values,
    /// Fewer regions, mbarriers, parameters, checks (another kernel).
    Shape,
}

/// The result of a minimization.
pub struct Minimized<E> {
    pub case: Case,
    /// The evidence of the last successful test (`None` if no variant reproduced).
    pub evidence: Option<E>,
    /// Test rounds (batches) used.
    pub rounds: usize,
    /// Candidates tested.
    pub tested: usize,
}

/// A batch test: per case, the evidence that it still fails the same way.
pub type Test<'a, E> = dyn FnMut(&[Case]) -> Result<Vec<Option<E>>, String> + 'a;

/// Limits of one minimization: test rounds, and a wall-clock deadline (the smallest case so far
/// is returned when either runs out).
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub batch: usize,
    pub rounds: usize,
    pub until: Option<std::time::Instant>,
}

/// Minimize `case`. `admissible` filters candidates on the CPU; `test` runs a batch (at most
/// `budget.batch` cases) and says, per case, whether it still fails the same way (with evidence).
/// Values within the shape shrink first ([`value_candidates`], until none still fails), then
/// everything ([`candidates`]).
pub fn minimize<E>(
    case: &Case,
    admissible: &dyn Fn(&Case) -> bool,
    test: &mut Test<'_, E>,
    budget: Budget,
) -> Result<Minimized<E>, String> {
    let (batch, max_rounds) = (budget.batch, budget.rounds);
    let out_of_time = || budget.until.is_some_and(|t| std::time::Instant::now() >= t);
    let mut cur = case.clone();
    let mut evidence = None;
    let (mut rounds, mut tested) = (0, 0);
    let phases: [fn(&Case) -> Vec<Case>; 2] = [value_candidates, candidates];
    for propose in phases {
        'outer: while rounds < max_rounds {
            let c0 = cost(&cur);
            let mut seen = std::collections::HashSet::new();
            let cands: Vec<Case> = propose(&cur)
                .into_iter()
                .filter(|m| {
                    cost(m) < c0
                        && seen.insert(ptxconform_reference::case::to_yaml(std::slice::from_ref(m)))
                        && admissible(m)
                })
                .collect();
            for chunk in cands.chunks(batch.max(1)) {
                if rounds >= max_rounds || out_of_time() {
                    break 'outer;
                }
                rounds += 1;
                tested += chunk.len();
                let got = test(chunk)?;
                if let Some((k, e)) = got
                    .into_iter()
                    .enumerate()
                    .find_map(|(k, e)| e.map(|e| (k, e)))
                {
                    cur = chunk[k].clone();
                    evidence = Some(e);
                    continue 'outer;
                }
            }
            break;
        }
    }
    Ok(Minimized {
        case: cur,
        evidence,
        rounds,
        tested,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxconform_reference::case::load_str;

    const CASE: &str = r#"
name: m
target: sm_90a
launch: { cluster: [2,1,1], grid: [2,1,1] }
memory:
  global: [ { name: src, size: 256 } ]
  shared: [ { name: dst, size: 256 } ]
  mbarriers: [ { name: bar } ]
params: { mask: 3, pol: { value: 0, type: b64 } }
program:
  - ptx: mbarrier.init.shared.b64 [bar], 1
  - ptx: mbarrier.arrive.expect_tx.shared.b64 _, [bar], 128
  - ptx: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [dst+16], [src], 128, [bar], mask, pol
"#;

    fn texts(cs: &[Case], step: usize) -> Vec<String> {
        cs.iter()
            .filter_map(|c| Some(c.program.get(step)?.op.ptx()?.to_string()))
            .collect()
    }

    /// Shrinking works on the typed instruction: simpler variants of the family keep their
    /// operands by role and drop the ones their qualifier brought; numbers are operands found
    /// through the operand slots (a size and the tx count announcing it shrink together).
    #[test]
    fn typed_candidates() {
        let c = load_str(CASE, "m.yaml").unwrap().remove(0);
        let mut q = Vec::new();
        qualifiers(&c, &mut q);
        let copies = texts(&q, 2);
        assert!(
            copies.contains(
                &"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst+16], [src], 128, [bar]".to_string()
            ),
            "{copies:#?}"
        );
        assert!(copies
            .iter()
            .any(|t| t.ends_with("[bar], mask") && !t.contains("cache_hint")));
        let mut n = Vec::new();
        numbers(&c, &mut n);
        let together = n
            .iter()
            .find(|m| texts(std::slice::from_ref(m), 2)[0].contains("], 112, [bar]"))
            .expect("size 128 -> 112");
        assert!(texts(std::slice::from_ref(together), 1)[0].ends_with("[bar], 112"));
        assert!(
            texts(&n, 2).iter().any(|t| t.contains("[dst], [src], 128")),
            "offset 16 -> 0"
        );
        let mut t = Vec::new();
        tx_copies(&c, &mut t);
        assert!(t
            .iter()
            .any(|m| m.program.len() == 2
                && texts(std::slice::from_ref(m), 1)[0].ends_with("[bar], 0")));
        assert!(candidates(&c).iter().all(|m| cost(m) != cost(&c)));
    }
}
