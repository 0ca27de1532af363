//! The reduction special-value corpus, `cases/reduce/special/` (issue 13: "every reduce op × type
//! × special value on sm_90").
//!
//! Which `.redOp` × type pairs get a case is asked of the legality model, not listed here:
//! every `cp.reduce.async.bulk` variant (no cache hint) whose requirement admits `sm_90`, to
//! `.global` and to `.shared::cluster`, and every `cp.reduce.async.bulk.tensor` `.redOp` × tensor-map
//! type the tensor table admits ([`reduce_type`]). Each such pair is one case that packs many
//! (destination, source) element pairs side by side: the cross product of a set of special
//! values of the type (for floats ±0, subnormal extremes, ±1, ±max, ±inf, quiet and signalling
//! NaNs with distinct payloads and signs; for integers the signed and unsigned boundaries), and
//! for float adds a list of crafted pairs (ties to even, sticky rounding, overflow at the half
//! ulp, subnormal results of normal operands). Every comment on an element line states the
//! model's result under the sm_90 profile (and the spec reading where it differs), so a
//! divergent byte on hardware points at its pair.
//!
//! The committed files are checked against [`files`] by `reference/tests/suite/reduce_special.rs`,
//! which rewrites them when `PTXCONFORM_REGENERATE=1` is set (recorded observations are kept).

use std::fmt::Write as _;

use crate::case::Observation;
use crate::ptx::bulk::{BulkOp, BulkReduce, RedDst};
use crate::ptx::common::{RedOp, RedType};
use crate::ptx::tensor::{Dim, ReduceMode, TensorOp, TensorReduce, Tile};
use crate::ptx::Instruction;
use crate::sem::exec::tensor::reduce_type;
use crate::sem::profile::Profile;
use crate::sem::reduce::{apply_with, Arith, Fmt, ReduceForm, FMT_BF16, FMT_F16, FMT_F32};
use crate::sem::tensor::tensormap::DataType;
use crate::target::Target;

mod readme;

/// The folder, relative to the workspace root.
pub const DIR: &str = "cases/reduce/special";

const FMT_F64: Fmt = Fmt { exp: 11, man: 52 };

/// Where a reduction writes, and for the tensor form the map's element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `.global.shared::cta.bulk_group`.
    Global,
    /// `.shared::cluster.shared::cta.mbarrier::complete_tx::bytes`, into the peer CTA.
    Cluster,
    /// `cp.reduce.async.bulk.tensor` tile mode over a map of this type.
    Tensor(DataType),
}

impl Form {
    fn reduce_form(self) -> ReduceForm {
        match self {
            Form::Global => ReduceForm::BulkGlobal,
            Form::Cluster => ReduceForm::BulkSharedCluster,
            Form::Tensor(DataType::Float32Ftz) => ReduceForm::TensorFtz,
            Form::Tensor(_) => ReduceForm::Tensor,
        }
    }
    fn file(self) -> &'static str {
        match self {
            Form::Global => "global.yaml",
            Form::Cluster => "cluster.yaml",
            Form::Tensor(_) => "tensor.yaml",
        }
    }
}

/// One `.redOp` × type the legality model admits on sm_90, with the opcode it prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Combo {
    pub form: Form,
    pub op: RedOp,
    pub ty: RedType,
    /// The bulk forms' opcode (the tensor form's depends on the map's rank: [`tensor_opcode`]).
    pub opcode: String,
}

impl Combo {
    /// The case's name: `reduce.special.{global,cluster}.OP.TYPE`, `reduce.special.tensor.OP.MAP`.
    pub fn name(&self) -> String {
        match self.form {
            Form::Global => format!("reduce.special.global.{}.{}", self.op.ptx(), self.ty.ptx()),
            Form::Cluster => format!("reduce.special.cluster.{}.{}", self.op.ptx(), self.ty.ptx()),
            Form::Tensor(dt) => format!("reduce.special.tensor.{}.{}", self.op.ptx(), dt_name(dt)),
        }
    }
}

fn legal_on_sm_90(i: Instruction) -> bool {
    i.requirement().min_ptx_for(Target::SM_90).is_ok()
}

/// Every `.redOp` × type legal on sm_90, per form, in the variant tables' order.
pub fn combos() -> Vec<Combo> {
    let mut out: Vec<Combo> = Vec::new();
    for v in BulkReduce::variants() {
        if v.hint.qualifier || !legal_on_sm_90(Instruction::Bulk(BulkOp::Reduce(v.clone()))) {
            continue;
        }
        let form = match v.dst_kind {
            RedDst::Global => Form::Global,
            RedDst::Cluster { .. } => Form::Cluster,
        };
        if !out
            .iter()
            .any(|c| c.form == form && c.op == v.op && c.ty == v.ty)
        {
            out.push(Combo {
                form,
                op: v.op,
                ty: v.ty,
                opcode: v.opcode(),
            });
        }
    }
    for op in RedOp::ALL {
        for dt in DataType::ALL {
            if let Some(ty) = reduce_type(op, dt) {
                out.push(Combo {
                    form: Form::Tensor(dt),
                    op,
                    ty,
                    opcode: tensor_opcode(op, Dim::D1),
                });
            }
        }
    }
    out
}

/// The opcode of the tile-mode tensor reduction of rank `dim`, from the variant table (legal on
/// sm_90 whatever the map type: the type is a run-time property of the map).
pub fn tensor_opcode(op: RedOp, dim: Dim) -> String {
    TensorReduce::variants()
        .into_iter()
        .find(|v| {
            v.op == op
                && v.dim == dim
                && v.mode == ReduceMode::Tile(Tile::Explicit)
                && v.ops.cache_policy.is_none()
                && legal_on_sm_90(Instruction::Tensor(TensorOp::Reduce(v.clone())))
        })
        .map(|v| v.opcode())
        .expect("the tensor variant table has every tile-mode reduction")
}

/// The map type's name as case files write it (`float32_ftz`).
pub fn dt_name(dt: DataType) -> String {
    match serde_json::to_value(dt) {
        Ok(serde_json::Value::String(s)) => s,
        _ => format!("{dt:?}"),
    }
}

/// One (destination, source) element pair, raw bits in the low bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    pub d: u64,
    pub s: u64,
    /// Why the pair is there, when it is not plain cross product (`tie to even`).
    pub why: &'static str,
}

fn fmt_of(ty: RedType) -> Option<Fmt> {
    match ty {
        RedType::F16 => Some(FMT_F16),
        RedType::Bf16 => Some(FMT_BF16),
        RedType::F32 => Some(FMT_F32),
        RedType::F64 => Some(FMT_F64),
        _ => None,
    }
}

/// Bit patterns of one float format.
struct Bits(Fmt);

impl Bits {
    fn sign(&self) -> u64 {
        1 << (self.0.exp + self.0.man)
    }
    fn inf(&self) -> u64 {
        ((1 << self.0.exp) - 1) << self.0.man
    }
    fn quiet(&self) -> u64 {
        1 << (self.0.man - 1)
    }
    fn max(&self) -> u64 {
        self.inf() - 1
    }
    fn min_normal(&self) -> u64 {
        1 << self.0.man
    }
    /// 2^k as bits (a normal number).
    fn pow2(&self, k: i32) -> u64 {
        let bias = (1i32 << (self.0.exp - 1)) - 1;
        ((k + bias) as u64) << self.0.man
    }
    fn one(&self) -> u64 {
        self.pow2(0)
    }
}

/// The special values of a float format, each with its name.
fn float_values(f: Fmt) -> Vec<(u64, String)> {
    let b = Bits(f);
    let neg = b.sign();
    vec![
        (0, "+0".into()),
        (neg, "-0".into()),
        (1, "+min subnormal".into()),
        (neg | 1, "-min subnormal".into()),
        (b.min_normal() - 1, "+max subnormal".into()),
        (neg | (b.min_normal() - 1), "-max subnormal".into()),
        (b.min_normal(), "+min normal".into()),
        (b.one(), "+1".into()),
        (neg | b.one(), "-1".into()),
        (b.max(), "+max".into()),
        (neg | b.max(), "-max".into()),
        (b.inf(), "+inf".into()),
        (neg | b.inf(), "-inf".into()),
        (b.inf() | b.quiet(), "+qNaN".into()),
        (neg | b.inf() | b.quiet() | 1, "-qNaN payload 1".into()),
        (b.inf() | b.quiet() | 2, "+qNaN payload 2".into()),
        (b.inf() | 1, "+sNaN payload 1".into()),
        (neg | b.inf() | 3, "-sNaN payload 3".into()),
    ]
}

/// Crafted float add pairs: rounding and range corners the cross product does not reach.
fn float_add_pairs(f: Fmt) -> Vec<Pair> {
    let b = Bits(f);
    let m = f.man as i32;
    let neg = b.sign();
    let one = b.one();
    let half = b.pow2(-m - 1); // half an ulp of 1
    let half_max = b.pow2((1 << (f.exp - 1)) - 1 - m - 1); // half an ulp of max
    let p = |d: u64, s: u64, why: &'static str| Pair { d, s, why };
    vec![
        p(one, half, "tie to even: 1 + half ulp stays 1"),
        p(
            one + 1,
            half,
            "tie to even: (1 + ulp) + half ulp goes up to 1 + 2 ulp",
        ),
        p(
            neg | one,
            neg | half,
            "tie to even, negative: -1 - half ulp stays -1",
        ),
        p(
            neg | (one + 1),
            neg | half,
            "tie to even, negative: goes down to -(1 + 2 ulp)",
        ),
        p(
            b.pow2(1),
            neg | half,
            "tie across a binade: 2 - half ulp of 1 goes to 2",
        ),
        p(one, half + 1, "just above the tie: rounds up"),
        p(one, half - 1, "just below the tie: rounds down"),
        p(one, 1, "1 + min subnormal rounds to 1"),
        p(
            b.max(),
            half_max,
            "overflow at the tie: max + half ulp(max) is +inf",
        ),
        p(
            b.max(),
            half_max - 1,
            "below the overflow tie: max + below half ulp is max",
        ),
        p(
            neg | b.max(),
            neg | half_max,
            "negative overflow at the tie: -inf",
        ),
        p(
            b.min_normal(),
            neg | 1,
            "min normal - min subnormal = max subnormal",
        ),
        p(
            b.min_normal() | b.quiet(),
            neg | b.min_normal(),
            "subnormal result of two normals",
        ),
        p(
            b.min_normal() + 1,
            neg | b.min_normal(),
            "two normals whose sum is min subnormal",
        ),
        p(
            neg | b.min_normal() | b.quiet(),
            b.min_normal(),
            "negative subnormal sum of normals",
        ),
        p(
            neg | b.min_normal(),
            b.min_normal() - 1,
            "-min normal + max subnormal = -min subnormal",
        ),
        p(
            b.min_normal() - 1,
            1,
            "max subnormal + min subnormal = min normal",
        ),
        p(1, 1, "min subnormal + min subnormal"),
        p(neg | 1, 1, "-x + x is +0"),
        p(neg | one, one, "-1 + 1 is +0"),
        p(
            b.pow2(-m),
            neg | b.pow2(-m - 1),
            "exact difference of normals",
        ),
    ]
}

/// Integer special values of a type (the bit width's boundaries, signed and unsigned).
fn int_values(ty: RedType, op: RedOp) -> Vec<u64> {
    let bits = 8 * ty.bytes() as u32;
    let all = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let top = 1u64 << (bits - 1);
    match op {
        RedOp::And | RedOp::Or | RedOp::Xor => vec![
            0,
            all,
            0xAAAA_AAAA_AAAA_AAAA & all,
            0x5555_5555_5555_5555 & all,
            0x0F0F_0F0F_0F0F_0F0F & all,
            top,
            1,
            0x0123_4567_89AB_CDEF & all,
        ],
        // .inc/.dec: below, at and above the operand, at 0 and at the top.
        RedOp::Inc | RedOp::Dec => vec![0, 1, 2, 5, 6, top - 1, top, all - 1, all],
        _ => vec![0, 1, 2, top - 2, top - 1, top, top + 1, all - 1, all],
    }
}

/// The pairs of one `.redOp` × type, before padding.
pub fn pairs(op: RedOp, ty: RedType) -> Vec<Pair> {
    let values: Vec<u64> = match fmt_of(ty) {
        Some(f) => float_values(f).into_iter().map(|v| v.0).collect(),
        None => int_values(ty, op),
    };
    let mut out: Vec<Pair> = values
        .iter()
        .flat_map(|&d| values.iter().map(move |&s| Pair { d, s, why: "" }))
        .collect();
    if let (RedOp::Add, Some(f)) = (op, fmt_of(ty)) {
        out.extend(float_add_pairs(f));
    }
    out
}

fn padding() -> Pair {
    Pair {
        d: 0,
        s: 0,
        why: "padding",
    }
}

/// A value's name: its special-value name, else hex and (for floats) its decimal value.
fn describe(ty: RedType, v: u64) -> String {
    let w = 2 + 2 * ty.bytes(); // `0x` and every digit
    match fmt_of(ty) {
        Some(f) => {
            if let Some((_, n)) = float_values(f).into_iter().find(|x| x.0 == v) {
                return n;
            }
            if f.is_nan(v) {
                return format!("NaN {v:#0w$x}");
            }
            let x = match ty {
                RedType::F64 => f64::from_bits(v),
                _ => f.decode(v),
            };
            format!("{v:#0w$x} ({x:e})")
        }
        None => {
            let signed = matches!(ty, RedType::S32 | RedType::S64);
            let sv = if ty.bytes() == 4 {
                v as u32 as i32 as i64
            } else {
                v as i64
            };
            match (signed, v) {
                (true, _) if sv < 0 => format!("{v:#0w$x} ({sv})"),
                (_, 0..=9) => v.to_string(),
                _ => format!("{v:#0w$x}"),
            }
        }
    }
}

fn op_sym(op: RedOp) -> &'static str {
    match op {
        RedOp::And => "&",
        RedOp::Or => "|",
        RedOp::Xor => "^",
        RedOp::Add => "+",
        RedOp::Inc => "inc",
        RedOp::Dec => "dec",
        RedOp::Min => "min",
        RedOp::Max => "max",
    }
}

fn result(a: Arith, op: RedOp, ty: RedType, p: &Pair) -> u64 {
    let n = ty.bytes();
    let r = apply_with(a, op, ty, &p.d.to_le_bytes()[..n], &p.s.to_le_bytes()[..n])
        .expect("a legal .redOp.type has arithmetic");
    r.iter().rev().fold(0, |acc, b| acc << 8 | *b as u64)
}

/// The model's result of a pair under the sm_90 profile and under the text.
pub fn results(c: &Combo, p: &Pair) -> (u64, u64) {
    let form = c.form.reduce_form();
    let at = |profile| result(Arith { profile, form }, c.op, c.ty, p);
    (at(Profile::Sm90), at(Profile::Spec))
}

/// An element's value and the comment on its line.
type Row = (u64, String);

/// `bytes: [ .. ]` of `rows`, one element a line with its comment.
fn bytes_block(out: &mut String, indent: &str, ty: RedType, rows: &[Row]) {
    let n = ty.bytes();
    out.push_str("bytes: [\n");
    for (v, note) in rows {
        let b: Vec<String> = v.to_le_bytes()[..n]
            .iter()
            .map(|x| format!("{x:#04x}"))
            .collect();
        let _ = writeln!(out, "{indent}  {},  # {note}", b.join(", "));
    }
    let _ = writeln!(out, "{indent}]");
}

/// The destination and source element lines of a case's pairs.
fn element_rows(c: &Combo, pairs: &[Pair]) -> (Vec<Row>, Vec<Row>) {
    let ty = c.ty;
    let mut dst = Vec::new();
    let mut src = Vec::new();
    for (i, p) in pairs.iter().enumerate() {
        let (sm90, spec) = results(c, p);
        let mut note = format!(
            "[{i}] {} {} {} = {}",
            describe(ty, p.d),
            op_sym(c.op),
            describe(ty, p.s),
            describe(ty, sm90)
        );
        if spec != sm90 {
            let _ = write!(note, " (spec reading: {})", describe(ty, spec));
        }
        if !p.why.is_empty() {
            let _ = write!(note, "; {}", p.why);
        }
        dst.push((p.d, note));
        src.push((p.s, format!("[{i}] {}", describe(ty, p.s))));
    }
    (dst, src)
}

/// Elements per row of a 2-D tensor map: 64 bytes.
const ROW_BYTES: usize = 64;
/// The most elements of one box dimension.
const BOX_MAX: usize = 256;

/// The pairs of a case padded for its form, and for the tensor form the map's (width, rows).
pub fn layout(c: &Combo) -> (Vec<Pair>, Option<(usize, usize)>) {
    let mut ps = pairs(c.op, c.ty);
    let n = c.ty.bytes();
    let per16 = 16 / n;
    let padded = ps.len().div_ceil(per16) * per16;
    let grid = match c.form {
        Form::Tensor(_) if padded <= BOX_MAX => Some((padded, 1)),
        Form::Tensor(_) => {
            let w = ROW_BYTES / n;
            Some((w, ps.len().div_ceil(w)))
        }
        _ => None,
    };
    let total = grid.map_or(padded, |(w, h)| w * h);
    ps.resize(total, padding());
    (ps, grid)
}

fn description(c: &Combo, pairs: &[Pair]) -> String {
    let real = pairs.iter().filter(|p| p.why != "padding").count();
    let what = match c.form {
        Form::Global => "cp.reduce.async.bulk .global (bulk_group)".to_string(),
        Form::Cluster => {
            "cp.reduce.async.bulk .shared::cluster from CTA 0 into CTA 1 (mbarrier complete_tx)"
                .to_string()
        }
        Form::Tensor(dt) => format!(
            "cp.reduce.async.bulk.tensor tile mode over a {} map",
            dt_name(dt)
        ),
    };
    let section = match c.form {
        Form::Tensor(_) => "§9.7.9.25.5.3",
        _ => "§9.7.9.25.4.2",
    };
    format!(
        "{section} {what} .{}.{}: {real} special-value (dst, src) pairs, element i of the \
         destination with element i of the source (comments: the model's sm_90 result)",
        c.op.ptx(),
        c.ty.ptx()
    )
}

fn region(
    out: &mut String,
    name: &str,
    size: usize,
    align: Option<u32>,
    ty: RedType,
    rows: &[Row],
) {
    let ind = "        ";
    let _ = writeln!(out, "      - name: {name}");
    let _ = writeln!(out, "        size: {size}");
    if let Some(a) = align {
        let _ = writeln!(out, "        align: {a}");
    }
    out.push_str("        init:\n          ");
    bytes_block(out, &format!("{ind}  "), ty, rows);
}

/// One case's YAML (a sequence item), with `observed` carried over.
fn case_yaml(c: &Combo, observed: &[Observation]) -> String {
    let (pairs, grid) = layout(c);
    let size = pairs.len() * c.ty.bytes();
    let (dst, src) = element_rows(c, &pairs);
    let mut o = String::new();
    let _ = writeln!(o, "- name: {}", c.name());
    let _ = writeln!(o, "  description: \"{}\"", description(c, &pairs));
    o.push_str("  target: sm_90\n");
    if c.form == Form::Cluster {
        o.push_str("  launch: { grid: [2, 1, 1], cluster: [2, 1, 1] }\n");
    }
    o.push_str("  memory:\n");
    match c.form {
        Form::Global | Form::Tensor(_) => {
            o.push_str("    global:\n");
            region(&mut o, "out", size, None, c.ty, &dst);
            o.push_str("    shared:\n");
            let align = matches!(c.form, Form::Tensor(_)).then_some(1024);
            region(&mut o, "src", size, align, c.ty, &src);
        }
        Form::Cluster => {
            o.push_str("    shared:\n");
            region(&mut o, "dst", size, None, c.ty, &dst);
            region(&mut o, "src", size, None, c.ty, &src);
            o.push_str("    mbarriers: [{ name: bar }]\n");
        }
    }
    if let (Form::Tensor(dt), Some((w, h))) = (c.form, grid) {
        let dims = if h == 1 {
            format!("[{w}]")
        } else {
            format!("[{w}, {h}]")
        };
        let strides = if h == 1 {
            "[]".to_string()
        } else {
            format!("[{}]", w * c.ty.bytes())
        };
        let _ = writeln!(o, "    tensor_maps:");
        let _ = writeln!(o, "      - name: tm");
        let _ = writeln!(o, "        global: out");
        let _ = writeln!(
            o,
            "        map: {{ encode: tiled, tensor_data_type: {}, global_dim: {dims}, \
             global_strides: {strides}, box_dim: {dims}, interleave: none, swizzle: none, \
             l2_promotion: none, oob_fill: none }}",
            dt_name(dt)
        );
    }
    o.push_str("  program:\n");
    match (c.form, grid) {
        (Form::Global, _) => {
            let _ = writeln!(o, "    - ptx: \"{} [out], [src], {size}\"", c.opcode);
            o.push_str("    - ptx: cp.async.bulk.commit_group\n");
            o.push_str("    - ptx: cp.async.bulk.wait_group 0\n");
        }
        (Form::Cluster, _) => {
            o.push_str("    - { cta: all, ptx: \"mbarrier.init.shared::cta.b64 [bar], 1\" }\n");
            let _ = writeln!(
                o,
                "    - {{ cta: 1, ptx: \"mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], {size}\" }}"
            );
            let _ = writeln!(
                o,
                "    - ptx: \"{} [rdst], [src], {size}, [rbar]\"",
                c.opcode
            );
            o.push_str("    - { cta: 1, wait_parity: { mbar: bar, parity: 0 } }\n");
        }
        (Form::Tensor(_), g) => {
            let two = g.is_some_and(|(_, h)| h > 1);
            let (dim, coords) = if two {
                (Dim::D2, "{0, 0}")
            } else {
                (Dim::D1, "{0}")
            };
            let _ = writeln!(
                o,
                "    - ptx: \"{} [tm, {coords}], [src]\"",
                tensor_opcode(c.op, dim)
            );
            o.push_str("    - ptx: cp.async.bulk.commit_group\n");
            o.push_str("    - ptx: cp.async.bulk.wait_group 0\n");
        }
    }
    if c.form == Form::Cluster {
        o.push_str("  params:\n");
        o.push_str("    rbar: { mapa: bar, cta: 1 }\n");
        o.push_str("    rdst: { mapa: dst, cta: 1 }\n");
        o.push_str("  check: [dst, src, bar]\n");
    } else if matches!(c.form, Form::Tensor(_)) {
        o.push_str("  check: [out]\n");
    } else {
        o.push_str("  check: [out, src]\n");
    }
    o.push_str("  expect: pass\n");
    if !observed.is_empty() {
        let yaml = serde_saphyr::to_string(&observed).expect("observations serialize");
        o.push_str("  observed:\n");
        for line in yaml.lines() {
            let _ = writeln!(o, "  {line}");
        }
    }
    o
}

const HEADER: &str =
    "# GENERATED by reference/src/gen/special_values.rs: do not edit by hand. Regenerate with\n\
# `PTXCONFORM_REGENERATE=1 cargo test -p ptxconform-reference --test reduce_special`\n\
# (keeps recorded observations). What the cases probe: README.md beside this file.\n";

/// Every file of the corpus (name in [`DIR`], contents), given the observations already
/// recorded per case name (carried into the regenerated files).
pub fn files(observed: &dyn Fn(&str) -> Vec<Observation>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for c in combos() {
        let f = c.form.file();
        if !out.iter().any(|(n, _)| n == f) {
            out.push((f.to_string(), HEADER.to_string()));
        }
        let body = case_yaml(&c, &observed(&c.name()));
        let (_, text) = out.iter_mut().find(|(n, _)| n == f).expect("pushed above");
        text.push_str(&body);
    }
    out.push(("README.md".to_string(), readme::readme()));
    out
}

#[cfg(test)]
mod tests {
    use super::readme::ranges;
    use super::*;

    #[test]
    fn crafted_pairs_mean_what_they_say() {
        // f16: 1 + 2^-11 ties to 1; (1 + 2^-10) + 2^-11 goes to 1 + 2^-9.
        let ps = float_add_pairs(FMT_F16);
        assert_eq!((ps[0].d, ps[0].s), (0x3c00, 0x1000));
        assert_eq!((ps[1].d, ps[1].s), (0x3c01, 0x1000));
        let c = Combo {
            form: Form::Global,
            op: RedOp::Add,
            ty: RedType::F16,
            opcode: String::new(),
        };
        assert_eq!(results(&c, &ps[0]).0, 0x3c00);
        assert_eq!(results(&c, &ps[1]).0, 0x3c02);
        assert_eq!(results(&c, &ps[4]).0, 0x4000); // 2 - 2^-11 ties to 2
        assert_eq!(results(&c, &ps[8]).0, 0x7c00); // max + half ulp = inf
        assert_eq!(results(&c, &ps[9]).0, 0x7bff);
        assert_eq!(results(&c, &ps[12]).0, 0x0200); // 1.5 min normal - min normal
                                                    // f32 bulk add: the subnormal result of normals departs between the readings.
        let c32 = Combo {
            ty: RedType::F32,
            ..c
        };
        let p = &float_add_pairs(FMT_F32)[12];
        assert_eq!(results(&c32, p), (0x0040_0000, 0));
    }

    #[test]
    fn regenerated_files_keep_recorded_observations() {
        let obs: Observation = serde_saphyr::from_str(
            "device: NVIDIA H100 80GB HBM3\ndriver: CUDA 13.0\ndate: \"2026-11-25\"\n\
             outcome: completed\nregions: { out: 00ff }\n",
        )
        .unwrap();
        let name = "reduce.special.global.add.u32";
        let files = files(&|n| if n == name { vec![obs.clone()] } else { vec![] });
        let (_, text) = files.iter().find(|f| f.0 == "global.yaml").unwrap();
        let cases = crate::case::load_str(text, "global.yaml").unwrap();
        for c in &cases {
            let want = if c.name == name {
                vec![obs.clone()]
            } else {
                vec![]
            };
            assert_eq!(c.observed, want, "{}", c.name);
        }
    }

    #[test]
    fn values_are_distinct_and_named() {
        for f in [FMT_F16, FMT_BF16, FMT_F32, FMT_F64] {
            let v = float_values(f);
            for (i, a) in v.iter().enumerate() {
                assert!(v[..i].iter().all(|b| b.0 != a.0), "{:?} {}", f, a.1);
            }
            assert_eq!(v.iter().filter(|x| f.is_nan(x.0)).count(), 5);
        }
        assert_eq!(describe(RedType::S32, 0xFFFF_FFFF), "0xffffffff (-1)");
        assert_eq!(describe(RedType::F16, 0x7fff), "NaN 0x7fff");
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "0-2, 5, 7-8");
    }
}
