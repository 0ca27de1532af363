//! The corpus README: what the cases hold, and per question the text leaves open (or sm_90 may
//! answer otherwise) the pairs that decide it on hardware and what the model says meanwhile.

use std::fmt::Write as _;

use super::{
    combos, dt_name, float_add_pairs, float_values, fmt_of, int_values, layout, pairs, result,
    results, Bits, Combo, Form, Pair, BOX_MAX, FMT_F16, ROW_BYTES,
};
use crate::ptx::common::{RedOp, RedType};
use crate::sem::profile::Profile;
use crate::sem::reduce::{Arith, ReduceForm};

/// A question the text leaves open (or sm_90 may answer otherwise), which pairs decide it on
/// hardware, and what the model says meanwhile.
struct Question {
    id: &'static str,
    what: &'static str,
    model: &'static str,
    probes: fn(&Combo, &Pair) -> bool,
}

fn nan(c: &Combo, v: u64) -> bool {
    fmt_of(c.ty).is_some_and(|f| f.is_nan(v))
}

fn snan(c: &Combo, v: u64) -> bool {
    fmt_of(c.ty).is_some_and(|f| f.is_nan(v) && v & Bits(f).quiet() == 0)
}

fn subnormal(c: &Combo, v: u64) -> bool {
    fmt_of(c.ty).is_some_and(|f| v & (Bits(f).sign() - 1) != 0 && v & Bits(f).inf() == 0)
}

fn is_f32_add(c: &Combo) -> bool {
    c.op == RedOp::Add && c.ty == RedType::F32
}

const QUESTIONS: &[Question] = &[
    Question {
        id: "NaN payload and sign in add",
        what: "which NaN an add with one NaN operand writes: the canonical NaN, the operand \
               (payload and sign kept), or the operand made quiet",
        model: "the canonical NaN (A-RED-NAN: 0x7fff, 0x7fffffff, 0x7fffffffffffffff); under \
                sm_90 the f64 bulk add returns the NaN operand whole (P-RED-F64-NAN-OPERAND); \
                recorded: \
                the quiet NaN of payload 0 plus 1.0 gives the canonical NaN in the bulk f16, \
                bf16 and f32 adds (cases/reduce/global.yaml)",
        probes: |c, p| c.op == RedOp::Add && (nan(c, p.d) != nan(c, p.s)),
    },
    Question {
        id: "NaN + NaN",
        what: "which operand's payload (destination or source) an add of two NaNs keeps",
        model: "the canonical NaN; under sm_90 the f64 bulk add keeps the source operand's NaN \
                (P-RED-F64-NAN-OPERAND)",
        probes: |c, p| c.op == RedOp::Add && nan(c, p.d) && nan(c, p.s),
    },
    Question {
        id: "signalling NaN operands",
        what: "whether an sNaN operand is treated as a NaN like a quiet one (add: which NaN; \
               min/max: whether the other operand wins, as for a quiet NaN)",
        model: "like a quiet NaN: add gives the canonical NaN, except the f64 bulk add under \
                sm_90, which returns the signalling NaN unquieted (P-RED-F64-NAN-OPERAND); \
                min/max return the other operand",
        probes: |c, p| snan(c, p.d) || snan(c, p.s),
    },
    Question {
        id: "f16/bf16 min/max with NaN",
        what: "min/max with one NaN operand (either side) and with two NaNs",
        model: "one NaN: the other operand; two NaNs: the canonical NaN (A-RED-MINMAX-NAN; \
                recorded for the bulk form with the quiet NaN of payload 0 only, either side \
                and both, in cases/reduce/global.yaml)",
        probes: |c, p| matches!(c.op, RedOp::Min | RedOp::Max) && (nan(c, p.d) || nan(c, p.s)),
    },
    Question {
        id: "inf + -inf",
        what: "the NaN an add of opposite infinities writes",
        model: "the canonical NaN (recorded for the bulk f32, f16 and bf16 adds in \
                cases/reduce/global.yaml); the f64 bulk add under sm_90 writes \
                0xfff8000000000000 (P-RED-F64-NAN-OPERAND)",
        probes: |c, p| {
            c.op == RedOp::Add
                && fmt_of(c.ty).is_some_and(|f| {
                    let b = Bits(f);
                    p.d & !b.sign() == b.inf() && p.s == p.d ^ b.sign()
                })
        },
    },
    Question {
        id: "bulk f32 add: subnormal result of normal operands",
        what: "P-RED-F32-SUBNORMALS' unprobed part: does sm_90 keep a subnormal sum of two \
               normal operands, as it keeps subnormal inputs",
        model: "sm_90: kept (plain IEEE add); spec: flushed to sign-preserving zero",
        probes: |c, p| {
            is_f32_add(c)
                && !matches!(c.form, Form::Tensor(_))
                && !subnormal(c, p.d)
                && !subnormal(c, p.s)
                && subnormal(c, results(c, p).0)
        },
    },
    Question {
        id: "tensor f32 add and subnormals",
        what: "P-RED-TENSOR-F32-SUBNORMALS: does the tensor add over \
               a float32 / float32_ftz map flush subnormal inputs and results",
        model: "spec: flushed (A-RED-TENSOR-FLOAT); sm_90: kept over a float32 map, flushed over \
                a float32_ftz map (P-RED-TENSOR-F32-SUBNORMALS)",
        probes: |c, p| {
            is_f32_add(c)
                && matches!(c.form, Form::Tensor(_))
                && (subnormal(c, p.d) || subnormal(c, p.s) || {
                    let f = |a| result(a, c.op, c.ty, p);
                    let keep = Arith {
                        profile: Profile::Sm90,
                        form: ReduceForm::BulkGlobal,
                    };
                    f(keep) != f(Arith::SPEC)
                })
        },
    },
    Question {
        id: "tensor f16/bf16 add and subnormals",
        what: "the tensor form has no .noftz: does its f16/bf16 add keep subnormals like the \
               non-tensor .noftz add",
        model: "kept (A-RED-TENSOR-FLOAT)",
        probes: |c, p| {
            c.op == RedOp::Add
                && matches!(c.form, Form::Tensor(_))
                && matches!(c.ty, RedType::F16 | RedType::Bf16)
                && (subnormal(c, p.d) || subnormal(c, p.s) || subnormal(c, results(c, p).0))
        },
    },
    Question {
        id: "min/max of -0 and +0",
        what: "which zero min and max return for a pair of opposite zeros, in either order",
        model: "min gives -0, max gives +0 (A-RED-MINMAX-ZERO; recorded in both orders for \
                the bulk f16/bf16 forms in cases/reduce/global.yaml, the tensor form unprobed)",
        probes: |c, p| {
            matches!(c.op, RedOp::Min | RedOp::Max)
                && fmt_of(c.ty).is_some_and(|f| {
                    let s = Bits(f).sign();
                    p.d != p.s && p.d & !s == 0 && p.s & !s == 0
                })
        },
    },
    Question {
        id: ".inc/.dec above the operand",
        what: "the text says only that .inc/.dec return a result in [0..x], x the source \
               value; which result for a destination above the source, at 0 and at the top",
        model: "atom's definition (A-RED-INCDEC): inc `d >= s ? 0 : d + 1`, dec \
                `(d == 0 || d > s) ? s : d - 1`",
        probes: |c, p| matches!(c.op, RedOp::Inc | RedOp::Dec) && (p.d >= p.s || p.d == 0),
    },
];

pub(super) fn readme() -> String {
    let names: Vec<String> = float_values(FMT_F16).into_iter().map(|v| v.1).collect();
    let mut o = format!(
        "<!-- GENERATED by reference/src/gen/special_values.rs (with the cases): do not edit. -->\n\
         # Reduction special values (sm_90)\n\n\
         One case per `.redOp` × type that the legality model admits on sm_90, per form:\n\
         `cp.reduce.async.bulk` to `.global` (`global.yaml`), to `.shared::cluster` of the peer\n\
         CTA of a 2-CTA cluster with mbarrier completion (`cluster.yaml`; a reduction into the\n\
         executing CTA's own window is undefined, `bulk.cluster_dst_is_executing_cta`), and\n\
         `cp.reduce.async.bulk.tensor` tile mode per tensor-map type (`tensor.yaml`: a 1-D map when\n\
         the pairs fit one box dimension of {BOX_MAX} elements, else a 2-D map of {ROW_BYTES}-byte \
         rows).\n\
         Each case packs (destination, source) element pairs: element *i* of the destination\n\
         region and element *i* of the source. Floats: the cross product of {} special values\n\
         ({}), and for add {} crafted pairs (ties to even, sticky rounding, overflow at the half\n\
         ulp of max, subnormal results of normal operands, x + -x). Integers: the cross product\n\
         of {} boundary values ({} for the bitwise operations). Zero pairs pad a case to whole\n\
         16-byte units (or to the tensor box).\n\
         In the generated files each element line's comment gives the pair and the model's sm_90\n\
         result (and the spec reading where it differs). Every case is `expect: pass`: the model\n\
         finds every pair well defined.\n\n\
         `ptxconform run cases/reduce/special` on an H100 judges them under the sm_90 profile.\n\
         A pass where the spec reading differs is a spec departure (P-RED-F32-SUBNORMALS,\n\
         P-RED-F64-NAN-OPERAND). A divergence answers one of the questions below: the model holds\n\
         a reading there that no recording confirms, and no position is invented before silicon\n\
         answers. The byte offset of a divergence divided by the element size is the pair index.\n\
         `run --record` writes the files back without their comments; regenerating restores them\n\
         and keeps the observations (`PTXCONFORM_REGENERATE=1 cargo test -p ptxconform-reference\n\
         --test reduce_special`).\n\n\
         **On hardware** (NVIDIA H100 80GB HBM3, driver 580.159.04, 2026-11-25, every case\n\
         recorded): 67 of the 69 cases met the model's readings, which answers the questions below\n\
         for those forms. Two diverged and moved the sm_90 profile: the f64 bulk add returns a NaN\n\
         source operand bit for bit, else a NaN destination, signalling NaNs unquieted, and inf +\n\
         -inf is 0xfff8000000000000 (P-RED-F64-NAN-OPERAND); the tensor f32 add over a FLOAT32 map\n\
         keeps subnormals, over a FLOAT32_FTZ map it flushes (P-RED-TENSOR-F32-SUBNORMALS).\n\n",
        names.len(),
        names.join(", "),
        float_add_pairs(FMT_F16).len(),
        int_values(RedType::U32, RedOp::Add).len(),
        int_values(RedType::U32, RedOp::And).len(),
    );
    let _ = writeln!(
        o,
        "## Cases\n\n| form | cases | pairs per case (padding excluded) |\n| --- | --- | --- |"
    );
    let all = combos();
    for (label, pick) in [
        ("global", (|f: Form| f == Form::Global) as fn(Form) -> bool),
        ("shared::cluster", |f| f == Form::Cluster),
        ("tensor", |f| matches!(f, Form::Tensor(_))),
    ] {
        let cs: Vec<&Combo> = all.iter().filter(|c| pick(c.form)).collect();
        let counts: Vec<String> = cs
            .iter()
            .map(|c| {
                let n = pairs(c.op, c.ty).len();
                let tail = match c.form {
                    Form::Tensor(dt) => format!("{}.{}", c.op.ptx(), dt_name(dt)),
                    _ => format!("{}.{}", c.op.ptx(), c.ty.ptx()),
                };
                format!("{tail} {n}")
            })
            .collect();
        let _ = writeln!(o, "| {label} | {} | {} |", cs.len(), counts.join(", "));
    }
    o.push_str("\n## What silicon decides\n\n");
    o.push_str(
        "Per question: what is open, what the model says until hardware answers, and the cases\n\
         with the indices of the pairs that decide it.\n",
    );
    for q in QUESTIONS {
        let _ = write!(
            o,
            "\n### {}\n\n{}.\n\nModel: {}.\n\n",
            q.id, q.what, q.model
        );
        // Cases whose deciding pairs sit at the same indices are listed together.
        let mut groups: Vec<(Vec<String>, Vec<usize>)> = Vec::new();
        for c in &all {
            let (ps, _) = layout(c);
            let idx: Vec<usize> = ps
                .iter()
                .enumerate()
                .filter(|(_, p)| p.why != "padding" && (q.probes)(c, p))
                .map(|(i, _)| i)
                .collect();
            if idx.is_empty() {
                continue;
            }
            match groups.iter_mut().find(|g| g.1 == idx) {
                Some(g) => g.0.push(c.name()),
                None => groups.push((vec![c.name()], idx)),
            }
        }
        for (names, idx) in &groups {
            let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            let _ = writeln!(
                o,
                "- {}: {} {}: {}",
                names.join(", "),
                idx.len(),
                if idx.len() == 1 { "pair" } else { "pairs each" },
                ranges(idx)
            );
        }
        if groups.is_empty() {
            o.push_str("- no case probes it\n");
        }
    }
    o
}

/// `0-3, 7, 9-10`.
pub(super) fn ranges(idx: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && idx[j + 1] == idx[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            idx[i].to_string()
        } else {
            format!("{}-{}", idx[i], idx[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}
