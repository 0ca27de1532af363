//! Delta debugging over a case. Each round proposes smaller variants of the current case — drop a
//! chunk of steps (halves down to single steps, as ddmin's complement phase), fewer CTAs, cluster
//! → 1, one warp, smaller region sizes and immediates (multiples of 16 stay multiples of 16; one
//! value replaced everywhere at once so a copy size and its `expect_tx` byte count shrink
//! together), fewer declarations, init patterns → fill, dropped qualifiers (multicast → unicast,
//! no cache hint) — keeps those the caller's `admissible` accepts (for hardware failures: the
//! case validates and the reference finds it well defined, which is what keeps mbarrier init and
//! tx bookkeeping consistent), tests them in batches, and moves to the first that still fails the
//! same way. Every move strictly lowers [`cost`], so it terminates.

use ptxconform_reference::case::{AllCtas, Case, Ctas, Init, Param, StepOp};

/// Lexicographic size of a case: what the minimizer lowers.
pub fn cost(c: &Case) -> (usize, u32, u32, u32, u64, usize, u64, u32, usize) {
    let regions = c.memory.global.iter().chain(&c.memory.shared);
    let init = |i: &Init| match i {
        Init::Fill(0) => 0,
        Init::Fill(_) => 1,
        Init::Bytes(_) => 2,
        Init::Pattern(_) | Init::Values(_) => 3,
    };
    let mut numbers: u64 = 0;
    let mut text = 0;
    for s in &c.program {
        if let StepOp::Ptx(t) = &s.op {
            numbers += tokens(t).iter().map(|(_, _, v)| *v).sum::<u64>();
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

/// Unsigned integer literals of a PTX line that stand alone (not part of a name like `bar0` or
/// a qualifier like `.L2::128B`): (start, end, value).
fn tokens(t: &str) -> Vec<(usize, usize, u64)> {
    let b = t.as_bytes();
    let ident = |c: u8| {
        c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b':' || c == b'$' || c == b'%'
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && (i == 0 || !ident(b[i - 1])) {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_alphanumeric()) {
                j += 1;
            }
            let lit = &t[i..j];
            let v = if let Some(h) = lit.strip_prefix("0x").or_else(|| lit.strip_prefix("0X")) {
                u64::from_str_radix(h, 16).ok()
            } else {
                lit.parse().ok()
            };
            if let (Some(v), false) = (v, j < b.len() && ident(b[j])) {
                out.push((i, j, v));
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
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
    let mut values: Vec<u64> = Vec::new();
    for s in &c.program {
        if let StepOp::Ptx(t) = &s.op {
            values.extend(tokens(t).iter().map(|x| x.2));
        }
    }
    for p in c.params.values() {
        if let Param::Int(v) | Param::Typed { value: v, .. } = p {
            if *v > 0 {
                values.push(*v as u64);
            }
        }
    }
    values.sort_unstable();
    values.dedup();
    values.reverse();
    let replace_text = |t: &str, from: u64, to: u64, only: Option<usize>| -> String {
        let mut s = String::new();
        let mut last = 0;
        for (k, (a, b, _)) in tokens(t).into_iter().filter(|x| x.2 == from).enumerate() {
            if only.is_none_or(|o| o == k) {
                s.push_str(&t[last..a]);
                s.push_str(&to.to_string());
                last = b;
            }
        }
        s.push_str(&t[last..]);
        s
    };
    for v in values {
        for to in smaller(v) {
            let mut m = c.clone();
            for s in m.program.iter_mut() {
                if let StepOp::Ptx(t) = &mut s.op {
                    *t = replace_text(t, v, to, None);
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
            for (i, s) in c.program.iter().enumerate() {
                let StepOp::Ptx(t) = &s.op else { continue };
                let n = tokens(t).iter().filter(|x| x.2 == v).count();
                for k in 0..n {
                    let mut m = c.clone();
                    m.program[i].op = StepOp::Ptx(replace_text(t, v, to, Some(k)));
                    out.push(m);
                }
            }
        }
    }
}

/// Smaller regions (all at once, then each), fewer declarations, simpler initial contents.
fn memory(c: &Case, out: &mut Vec<Case>) {
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
        let mut m = c.clone();
        if i < n_global {
            m.memory.global.remove(i);
        } else {
            m.memory.shared.remove(i - n_global);
        }
        out.push(m);
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

/// Drop one opcode qualifier; dropping `.multicast::cluster` or `.L2::cache_hint` also drops
/// the operand it adds (the ctaMask after the mbarrier, the trailing cache policy).
fn qualifiers(c: &Case, out: &mut Vec<Case>) {
    for (i, s) in c.program.iter().enumerate() {
        let StepOp::Ptx(t) = &s.op else { continue };
        let (op, args) = t.split_once(' ').unwrap_or((t, ""));
        let quals: Vec<&str> = op.split('.').collect();
        for q in 1..quals.len() {
            let new_op: Vec<&str> = quals
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != q)
                .map(|(_, x)| *x)
                .collect();
            let mut args = args.to_string();
            let drop_operand = |a: &str, after: usize| -> Option<String> {
                let rest = &a[after..];
                let start = rest.find(',')?;
                let end = rest[start + 1..]
                    .find(',')
                    .map(|e| start + 1 + e)
                    .unwrap_or(rest.len());
                Some(format!("{}{}{}", &a[..after], &rest[..start], &rest[end..]))
            };
            match quals[q] {
                "multicast::cluster" => {
                    match args.rfind(']').and_then(|p| drop_operand(&args, p + 1)) {
                        Some(a) => args = a,
                        None => continue,
                    }
                }
                "L2::cache_hint" => match args.rfind(',') {
                    Some(p) => args.truncate(p),
                    None => continue,
                },
                _ => {}
            }
            let mut m = c.clone();
            m.program[i].op = StepOp::Ptx(
                format!("{} {}", new_op.join("."), args)
                    .trim_end()
                    .to_string(),
            );
            out.push(m);
        }
    }
}

/// Where a numeric operand lives: an immediate (step, byte range in its text) or a parameter.
#[derive(Clone, Debug)]
enum Loc {
    Imm(usize, usize, usize),
    Param(String),
}

/// Top-level operands of a PTX line (commas inside brackets or braces do not split).
fn operands(t: &str) -> Vec<(usize, &str)> {
    let Some(sp) = t.find(' ') else { return vec![] };
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, sp + 1);
    for (i, ch) in t.char_indices().skip(sp + 1) {
        match ch {
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push((start, &t[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push((start, &t[start..]));
    out.into_iter()
        .map(|(k, o)| (k + (o.len() - o.trim_start().len()), o.trim()))
        .collect()
}

/// The value and location of operand `o` (at byte `at` of step `step`).
fn value_of(c: &Case, step: usize, at: usize, o: &str) -> Option<(Loc, u64)> {
    if let Ok(v) = o.parse::<u64>() {
        return Some((Loc::Imm(step, at, at + o.len()), v));
    }
    match c.params.get(o)? {
        Param::Int(v) | Param::Typed { value: v, .. } if *v >= 0 => {
            Some((Loc::Param(o.to_string()), *v as u64))
        }
        _ => None,
    }
}

fn set(c: &mut Case, l: &Loc, v: u64) {
    match l {
        Loc::Imm(step, a, b) => {
            if let StepOp::Ptx(t) = &mut c.program[*step].op {
                *t = format!("{}{v}{}", &t[..*a], &t[*b..]);
            }
        }
        Loc::Param(n) => {
            if let Some(Param::Int(x) | Param::Typed { value: x, .. }) = c.params.get_mut(n) {
                *x = v as i64;
            }
        }
    }
}

/// Byte counts announced to mbarriers (`expect_tx` operands), with the mbarrier operand text.
fn tx_counts(c: &Case) -> Vec<(String, Loc, u64)> {
    let mut out = Vec::new();
    for (i, s) in c.program.iter().enumerate() {
        let StepOp::Ptx(t) = &s.op else { continue };
        if !t.starts_with("mbarrier.") || !t.contains("expect_tx") {
            continue;
        }
        let ops = operands(t);
        let bar = ops
            .iter()
            .find(|(_, o)| o.starts_with('['))
            .map(|(_, o)| o.to_string())
            .unwrap_or_default();
        if let Some((at, o)) = ops.last() {
            if let Some((l, v)) = value_of(c, i, *at, o) {
                out.push((bar, l, v));
            }
        }
    }
    out
}

/// Bulk copies completing on an mbarrier (`[dst], [src], size, [mbar], ...`): drop one, or shrink
/// its size, taking the same byte count off an `expect_tx` on that mbarrier so the phase still
/// balances.
fn tx_copies(c: &Case, out: &mut Vec<Case>) {
    let txs = tx_counts(c);
    for (i, s) in c.program.iter().enumerate() {
        let StepOp::Ptx(t) = &s.op else { continue };
        if !t.contains("complete_tx") || !t.starts_with("cp.") {
            continue;
        }
        let ops = operands(t);
        let (Some((at, size)), Some((_, bar))) = (ops.get(2), ops.get(3)) else {
            continue;
        };
        let Some((sl, sv)) = value_of(c, i, *at, size) else {
            continue;
        };
        for (tbar, tl, tv) in txs.iter().filter(|(b, _, _)| b == bar) {
            if *tv >= sv {
                let mut m = c.clone();
                set(&mut m, tl, tv - sv);
                m.program.remove(i);
                out.push(m);
            }
            for to in smaller(sv).into_iter().filter(|x| *x > 0) {
                if *tv >= sv - to {
                    let mut m = c.clone();
                    // The size first: both may be immediates of different steps, never the same text.
                    set(&mut m, &sl, to);
                    set(&mut m, tl, tv - (sv - to));
                    let _ = tbar;
                    out.push(m);
                }
            }
        }
    }
}

/// Every candidate variant of `c`, most promising (largest cut) first.
pub fn candidates(c: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    drop_steps(c, &mut out);
    tx_copies(c, &mut out);
    launch(c, &mut out);
    qualifiers(c, &mut out);
    memory(c, &mut out);
    numbers(c, &mut out);
    out
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
    'outer: while rounds < max_rounds {
        let c0 = cost(&cur);
        let mut seen = std::collections::HashSet::new();
        let cands: Vec<Case> = candidates(&cur)
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
    Ok(Minimized {
        case: cur,
        evidence,
        rounds,
        tested,
    })
}
