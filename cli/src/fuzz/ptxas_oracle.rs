//! The ptxas oracle over generated programs: every `ptx:` step assembles with ptxas exactly when
//! the model says legal (up to the legality differential's listed exceptions). Used by the
//! campaign (`ptxconform fuzz`, also `--reference-only`) and by the cargo-fuzz `ptxas` target.

use crate::legality::{judge_lines, parse_exceptions, ExceptionFile};
use ptxconform_core::glob::glob;
use ptxconform_gpu::ptxas::Ptxas;
use ptxconform_gpu::test_kernel::KernelBuilder;
use ptxconform_reference::case::validate;
use ptxconform_reference::gen::oracle::{ptx_steps, OracleId, Violation};
use ptxconform_reference::gen::{Generated, Intent};
use ptxconform_reference::ptx::Instruction;
use ptxconform_reference::target::{PtxVersion, Target, Verdict};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Mutex, OnceLock};

/// Known model/ptxas disagreements (the legality differential's exceptions file).
fn exceptions() -> &'static ExceptionFile {
    static E: OnceLock<ExceptionFile> = OnceLock::new();
    E.get_or_init(|| {
        parse_exceptions(include_str!("../../../reports/legality/exceptions.yaml"))
            .unwrap_or_default()
    })
}

/// The pinned ptxas, found once (`None`: not installed; the target then checks nothing).
pub fn ptxas() -> Option<&'static Ptxas> {
    static P: OnceLock<Option<Ptxas>> = OnceLock::new();
    P.get_or_init(|| Ptxas::find().ok()).as_ref()
}

/// ptxas' verdict per (target, instruction), shared by every check in the process: generated
/// programs repeat instructions, and a verdict depends on nothing else.
type Memo = HashMap<(Target, String), Option<String>>;

fn memo() -> &'static Mutex<Memo> {
    static M: OnceLock<Mutex<Memo>> = OnceLock::new();
    M.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Instructions per ptxas run when filling the memo (a run's cost grows with its length; runs
/// of different chunks go in parallel).
const CHUNK: usize = 256;

/// A `ptx:` step parsed for the oracle.
struct Step {
    index: usize,
    text: String,
    instr: Instruction,
    key: String,
}

fn parse_steps(g: &Generated) -> Result<Vec<Step>, Violation> {
    ptx_steps(&g.case)
        .zip(validate::parse_steps(&g.case))
        .map(|((index, text), (_, parsed))| match parsed {
            Ok(st) => Ok(Step {
                index,
                text: text.to_string(),
                key: format!("{:?}", st.instr),
                instr: st.instr,
            }),
            Err(_) => Err(Violation {
                oracle: OracleId::Ptxas,
                message: format!("step {index} does not parse: {text}"),
            }),
        })
        .collect()
}

/// Ask ptxas about every instruction of `steps` not in the memo yet, in parallel chunks.
fn fill_memo(p: &Ptxas, steps: &[(Target, &Step)]) {
    let mut todo: BTreeMap<Target, Vec<&Step>> = BTreeMap::new();
    {
        let m = lock(memo());
        let mut seen = HashSet::new();
        for &(t, st) in steps {
            if !m.contains_key(&(t, st.key.clone())) && seen.insert((t, st.key.as_str())) {
                todo.entry(t).or_default().push(st);
            }
        }
    }
    let chunks: Vec<(Target, &[&Step])> = todo
        .iter()
        .flat_map(|(t, sts)| sts.chunks(CHUNK).map(move |c| (*t, c)))
        .collect();
    let judged: Vec<Memo> = chunks
        .par_iter()
        .map(|(t, sts)| {
            let mut kb = KernelBuilder::new(PtxVersion::MAX_SUPPORTED, *t);
            for st in sts.iter() {
                kb.push_instruction(&st.instr);
            }
            sts.iter()
                .zip(judge_lines(p, &kb))
                .map(|(st, v)| ((*t, st.key.clone()), v))
                .collect()
        })
        .collect();
    lock(memo()).extend(judged.into_iter().flatten());
}

fn lock(m: &Mutex<Memo>) -> std::sync::MutexGuard<'_, Memo> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Every `ptx:` step of the case assembles with ptxas for the case's target (PTX ISA 9.0) exactly
/// when the model's verdict is `Legal`, up to the listed exceptions; an `Illegal` intent's step
/// is rejected.
pub fn check_ptxas(p: &Ptxas, g: &Generated) -> Result<(), Violation> {
    check_ptxas_many(p, &[g]).remove(0)
}

/// [`check_ptxas`] over many programs: one ptxas run per chunk of instructions not judged yet.
pub fn check_ptxas_many(p: &Ptxas, gs: &[&Generated]) -> Vec<Result<(), Violation>> {
    let parsed: Vec<Result<Vec<Step>, Violation>> = gs.par_iter().map(|g| parse_steps(g)).collect();
    let all: Vec<(Target, &Step)> = gs
        .iter()
        .zip(&parsed)
        .filter_map(|(g, s)| s.as_ref().ok().map(|s| (g, s)))
        .flat_map(|(g, s)| s.iter().map(move |st| (g.case.target, st)))
        .collect();
    fill_memo(p, &all);
    let m = lock(memo());
    gs.iter()
        .zip(parsed)
        .map(|(g, steps)| judge_program(g, &steps?, &m))
        .collect()
}

fn judge_program(g: &Generated, steps: &[Step], m: &Memo) -> Result<(), Violation> {
    let target = g.case.target;
    for st in steps {
        let got = m.get(&(target, st.key.clone())).cloned().flatten();
        let legal = st
            .instr
            .requirement()
            .verdict(target, PtxVersion::MAX_SUPPORTED)
            == Verdict::Legal;
        if legal == got.is_none() {
            continue;
        }
        let (row, text) = (st.instr.row(), &st.text);
        let listed = exceptions().exceptions.iter().any(|e| {
            (e.row.is_some() || e.text.is_some())
                && e.row.as_deref().is_none_or(|r| glob(r, &row))
                && e.text.as_deref().is_none_or(|t| glob(t, text))
                && (e.targets.is_empty() || e.targets.contains(&target))
        });
        if !listed {
            let msg = format!(
                "step {} `{text}` on {target}: model says {}, ptxas {}",
                st.index,
                if legal { "legal" } else { "illegal" },
                got.as_deref().unwrap_or("accepts it")
            );
            return Err(Violation {
                oracle: OracleId::Ptxas,
                message: msg,
            });
        }
    }
    if let Intent::Illegal { step, why } = &g.intent {
        if !steps.iter().any(|st| st.index == *step) {
            return Err(Violation {
                oracle: OracleId::Ptxas,
                message: format!("illegal step {step} ({why}) is not a ptx step"),
            });
        }
    }
    Ok(())
}
