//! Test support: print every variant of a family as `target<TAB>verdict<TAB>instruction<TAB>decls`
//! lines for an external ptxas run (operands renamed into declared registers).

use crate::ptx::operand::{AddrBase, Slot, Value};
use crate::ptx::Family;
use crate::target::{PtxVersion, Target, Verdict};

/// The targets the family modules are checked on.
pub fn targets() -> Vec<Target> {
    vec![Target::SM_80, Target::SM_90, Target::SM_90A, Target::SM_100A, Target::SM_100F]
}

/// Rename operands to declared registers (`%ad0` addresses are .b64, values take their slot type).
pub fn bind<F: Family>(mut x: F) -> (F, String) {
    let mut decls = Vec::new();
    let mut n = 0;
    x.visit_operands(&mut |s| {
        n += 1;
        match s {
            Slot::Addr { addr, .. } => {
                if let AddrBase::Name(_) = addr.base {
                    addr.base = AddrBase::Name(format!("ad{n}"));
                    decls.push(format!(".reg .b64 ad{n};"));
                }
            }
            Slot::Value { ty, value, .. } => {
                if let Value::Reg(_) = value {
                    *value = Value::Reg(format!("v{n}"));
                    decls.push(format!(".reg {} v{n};", ty.ptx()));
                }
            }
            Slot::Vector { ty, values, .. } => {
                for (i, v) in values.iter_mut().enumerate() {
                    if let Value::Reg(_) = v {
                        *v = Value::Reg(format!("v{n}_{i}"));
                        decls.push(format!(".reg {} v{n}_{i};", ty.ptx()));
                    }
                }
            }
            Slot::Tensor { tensor, .. } => {
                tensor.map = format!("ad{n}");
                decls.push(format!(".reg .b64 ad{n};"));
            }
        }
    });
    (x, decls.join(" "))
}

/// All dump lines of a family's variants plus extra probes (e.g. immediate operands).
pub fn lines<F: Family>(probes: Vec<F>) -> Vec<String> {
    let mut out = Vec::new();
    for v in F::variants().into_iter().chain(probes) {
        let (b, decls) = bind(v.clone());
        for t in targets() {
            let verdict = match v.requirement().verdict(t, PtxVersion::MAX_SUPPORTED) {
                Verdict::Legal => "legal".to_string(),
                Verdict::WrongTarget { why } => format!("illegal: {why}"),
                Verdict::PtxTooOld { why, needs } => format!("illegal: {why} (PTX {needs})"),
            };
            out.push(format!("{t}\t{verdict}\t{b};\t{decls}"));
        }
    }
    out
}

/// PTX-version boundary lines: for each variant legal on `t` from version `v` (where `v` is more
/// than `.target t` itself needs), one line at `v` and one at the version before, with the PTX
/// version as a fifth column.
pub fn boundary_lines<F: Family>() -> Vec<String> {
    let mut out = Vec::new();
    for v in F::variants() {
        let (b, decls) = bind(v.clone());
        for t in [Target::SM_80, Target::SM_90, Target::SM_100A] {
            let Ok(need) = v.requirement().min_ptx_for(t) else { continue };
            if need <= t.min_ptx() || need > PtxVersion::MAX_SUPPORTED {
                continue;
            }
            for ver in [Some(need), need.previous()].into_iter().flatten() {
                let verdict = if v.requirement().verdict(t, ver) == Verdict::Legal { "legal" } else { "illegal" };
                out.push(format!("{t}\t{verdict}\t{b};\t{decls}\t{ver}"));
            }
        }
    }
    out
}
