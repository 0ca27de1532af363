//! The ptxas oracle over generated programs: every `ptx:` step assembles with ptxas exactly when
//! the model says legal (up to the legality differential's listed exceptions). Used by the
//! campaign (`ptxconform fuzz`, also `--reference-only`) and by the cargo-fuzz `ptxas` target.

use crate::kernel::KernelBuilder;
use crate::legality::{glob, judge_lines, parse_exceptions, ExceptionFile};
use crate::ptxas::Ptxas;
use ptxconform_reference::gen::oracle::{parse_ctx, ptx_steps, Violation};
use ptxconform_reference::gen::{Generated, Intent};
use ptxconform_reference::ptx::Statement;
use ptxconform_reference::target::{PtxVersion, Verdict};
use std::sync::OnceLock;

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

/// Every `ptx:` step of the case assembles with ptxas for the case's target (PTX ISA 9.0) exactly
/// when the model's verdict is `Legal`, up to the listed exceptions; an `Illegal` intent's step
/// is rejected.
pub fn check_ptxas(p: &Ptxas, g: &Generated) -> Result<(), Violation> {
    let target = g.case.target;
    let ctx = parse_ctx(&g.case);
    let mut kb = KernelBuilder::new(PtxVersion::MAX_SUPPORTED, target);
    let mut lines = Vec::new();
    for (i, text) in ptx_steps(&g.case) {
        let Ok(st) = Statement::parse_with(text, &ctx) else {
            return Err(Violation {
                oracle: "ptxas",
                message: format!("step {i} does not parse: {text}"),
            });
        };
        kb.push_instruction(&st.instr);
        lines.push((i, text.to_string(), st.instr));
    }
    let verdicts = judge_lines(p, &kb);
    for ((i, text, instr), got) in lines.iter().zip(verdicts) {
        let legal = instr
            .requirement()
            .verdict(target, PtxVersion::MAX_SUPPORTED)
            == Verdict::Legal;
        if legal == got.is_none() {
            continue;
        }
        let row = instr.row();
        let listed = exceptions().exceptions.iter().any(|e| {
            (e.row.is_some() || e.text.is_some())
                && e.row.as_deref().is_none_or(|r| glob(r, &row))
                && e.text.as_deref().is_none_or(|t| glob(t, text))
                && (e.targets.is_empty() || e.targets.contains(&target))
        });
        if !listed {
            let msg = format!(
                "step {i} `{text}` on {target}: model says {}, ptxas {}",
                if legal { "legal" } else { "illegal" },
                got.as_deref().unwrap_or("accepts it")
            );
            return Err(Violation {
                oracle: "ptxas",
                message: msg,
            });
        }
    }
    if let Intent::Illegal { step, why } = &g.intent {
        if !lines.iter().any(|(i, _, _)| i == step) {
            return Err(Violation {
                oracle: "ptxas",
                message: format!("illegal step {step} ({why}) is not a ptx step"),
            });
        }
    }
    Ok(())
}
