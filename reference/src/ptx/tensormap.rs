//! In-memory modification of a tensor-map object (spec/02): `tensormap.replace` (§9.7.9.26)
//! edits one field of the 1024-bit map, `tensormap.cp_fenceproxy` (§9.7.13.16) copies a 128-byte
//! map from shared to global memory and fences it towards the tensormap proxy.
//!
//! What the syntax block fixes is made unrepresentable: the `.type` is the field's own (`.b64` for
//! `.global_address` / `.global_stride`, `.b32` otherwise), only `.field2` takes an ordinal, a
//! `.field3` value is one of Table 33's encodings, and `cp_fenceproxy`'s qualifiers other than the
//! scope are mandatory. What the text leaves to the operand values stays representable and is
//! judged by [`Family::requirement`]: the ordinal range and `cp_fenceproxy`'s size of 128.

mod table33;

pub use table33::{ElemType, FillMode, InterleaveLayout, SwizzleAtomicity, SwizzleMode};

use super::common::Scope;
use super::lex::SyntaxError;
use super::opcode::{self, Opcode, Quals};
use super::operand::{Address, Args, ParseCtx, RegTy, Slot, Space, Value};
use super::Family;
use crate::target::{PtxVersion, Requirement, Since, Support, TargetClass};
use std::fmt;

const fn v(major: u8, minor: u8) -> PtxVersion {
    PtxVersion::new(major, minor)
}

/// `.ss` of tensormap.replace; absent means a generic address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapSpace {
    Global,
    SharedCta,
}

impl MapSpace {
    const CHOICES: [(&'static str, MapSpace); 2] = [
        ("global", MapSpace::Global),
        ("shared::cta", MapSpace::SharedCta),
    ];
    fn ptx(self) -> &'static str {
        match self {
            MapSpace::Global => "global",
            MapSpace::SharedCta => "shared::cta",
        }
    }
    pub fn space(this: Option<MapSpace>) -> Space {
        match this {
            None => Space::Generic,
            Some(MapSpace::Global) => Space::Global,
            Some(MapSpace::SharedCta) => Space::SharedCta,
        }
    }
}

/// `.field1`: one value for the whole map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WholeField {
    GlobalAddress,
    /// Stored as rank - 1 ("uses zero-based numbering").
    Rank,
}

/// `.field2`: one value per dimension, chosen by the immediate ordinal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DimField {
    BoxDim,
    GlobalDim,
    GlobalStride,
    ElementStride,
}

/// A `.field3` field with its Table 33 value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    Elemtype(ElemType),
    InterleaveLayout(InterleaveLayout),
    SwizzleMode(SwizzleMode),
    SwizzleAtomicity(SwizzleAtomicity),
    FillMode(FillMode),
}

impl Code {
    fn all() -> Vec<Code> {
        let mut out: Vec<Code> = ElemType::ALL.iter().map(|x| Code::Elemtype(*x)).collect();
        out.extend(
            InterleaveLayout::ALL
                .iter()
                .map(|x| Code::InterleaveLayout(*x)),
        );
        out.extend(SwizzleMode::ALL.iter().map(|x| Code::SwizzleMode(*x)));
        out.extend(
            SwizzleAtomicity::ALL
                .iter()
                .map(|x| Code::SwizzleAtomicity(*x)),
        );
        out.extend(FillMode::ALL.iter().map(|x| Code::FillMode(*x)));
        out
    }
    pub fn code(self) -> u8 {
        match self {
            Code::Elemtype(x) => x.code(),
            Code::InterleaveLayout(x) => x.code(),
            Code::SwizzleMode(x) => x.code(),
            Code::SwizzleAtomicity(x) => x.code(),
            Code::FillMode(x) => x.code(),
        }
    }
}

/// The field qualifier as written (all three syntax lines share one qualifier position).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FieldName {
    Whole(WholeField),
    Dim(DimField),
    Elemtype,
    InterleaveLayout,
    SwizzleMode,
    SwizzleAtomicity,
    FillMode,
}

const FIELDS: [(&str, FieldName); 11] = [
    (
        "global_address",
        FieldName::Whole(WholeField::GlobalAddress),
    ),
    ("rank", FieldName::Whole(WholeField::Rank)),
    ("box_dim", FieldName::Dim(DimField::BoxDim)),
    ("global_dim", FieldName::Dim(DimField::GlobalDim)),
    ("global_stride", FieldName::Dim(DimField::GlobalStride)),
    ("element_stride", FieldName::Dim(DimField::ElementStride)),
    ("elemtype", FieldName::Elemtype),
    ("interleave_layout", FieldName::InterleaveLayout),
    ("swizzle_mode", FieldName::SwizzleMode),
    ("swizzle_atomicity", FieldName::SwizzleAtomicity),
    ("fill_mode", FieldName::FillMode),
];

impl FieldName {
    fn ptx(self) -> &'static str {
        FIELDS
            .iter()
            .find(|(_, f)| *f == self)
            .map(|(s, _)| *s)
            .expect("every field is in FIELDS")
    }
    /// "When .field is specified as .global_address or .global_stride, .type must be .b64.
    /// Otherwise, .type must be .b32."
    fn ty(self) -> RegTy {
        match self {
            FieldName::Whole(WholeField::GlobalAddress)
            | FieldName::Dim(DimField::GlobalStride) => RegTy::B64,
            _ => RegTy::B32,
        }
    }
}

/// What a tensormap.replace writes.
#[derive(Clone, Debug, PartialEq)]
pub enum Replacement {
    /// `.field1 [addr], new_val`
    Whole { field: WholeField, new_val: Value },
    /// `.field2 [addr], ord, new_val`
    Dim {
        field: DimField,
        ord: u8,
        new_val: Value,
    },
    /// `.field3 [addr], new_val` with an immediate from Table 33.
    Code(Code),
}

impl Replacement {
    fn field(&self) -> FieldName {
        match self {
            Replacement::Whole { field, .. } => FieldName::Whole(*field),
            Replacement::Dim { field, .. } => FieldName::Dim(*field),
            Replacement::Code(Code::Elemtype(_)) => FieldName::Elemtype,
            Replacement::Code(Code::InterleaveLayout(_)) => FieldName::InterleaveLayout,
            Replacement::Code(Code::SwizzleMode(_)) => FieldName::SwizzleMode,
            Replacement::Code(Code::SwizzleAtomicity(_)) => FieldName::SwizzleAtomicity,
            Replacement::Code(Code::FillMode(_)) => FieldName::FillMode,
        }
    }
}

/// `tensormap.replace.tile.field{.ss}.b1024.type [addr], {ord,} new_val;`
#[derive(Clone, Debug, PartialEq)]
pub struct Replace {
    pub space: Option<MapSpace>,
    pub addr: Address,
    pub what: Replacement,
}

/// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned
/// [dst], [src], size;`
#[derive(Clone, Debug, PartialEq)]
pub struct CpFenceproxy {
    pub scope: Scope,
    pub dst: Address,
    pub src: Address,
    pub size: i64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TensormapOp {
    Replace(Replace),
    CpFenceproxy(CpFenceproxy),
}

/// The highest ordinal: tensors have at most 5 dimensions (spec/01 §5.5; ptxas 13.0 says
/// "expected to be in range [0..4]").
pub const MAX_ORD: u8 = 4;

const SCOPES: [(&str, Scope); 4] = [
    ("cta", Scope::Cta),
    ("cluster", Scope::Cluster),
    ("gpu", Scope::Gpu),
    ("sys", Scope::Sys),
];

impl TensormapOp {
    /// Whether every thread of a warp executes it together: `cp_fenceproxy` (`.sync.aligned`,
    /// mandatory), not `replace`.
    pub fn is_warp_collective(&self) -> bool {
        matches!(self, TensormapOp::CpFenceproxy(_))
    }

    fn opcode(&self) -> String {
        match self {
            TensormapOp::Replace(r) => {
                let f = r.what.field();
                opcode::join(
                    "tensormap.replace.tile",
                    &[
                        f.ptx(),
                        r.space.map(MapSpace::ptx).unwrap_or(""),
                        "b1024",
                        f.ty().ptx(),
                    ],
                )
            }
            TensormapOp::CpFenceproxy(c) => opcode::join(
                "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release",
                &[c.scope.ptx(), "sync", "aligned"],
            ),
        }
    }
}

impl fmt::Display for TensormapOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ", self.opcode())?;
        match self {
            TensormapOp::Replace(r) => {
                write!(f, "{}, ", r.addr)?;
                match &r.what {
                    Replacement::Whole { new_val, .. } => write!(f, "{new_val}"),
                    Replacement::Dim { ord, new_val, .. } => write!(f, "{ord}, {new_val}"),
                    Replacement::Code(c) => write!(f, "{}", c.code()),
                }
            }
            TensormapOp::CpFenceproxy(c) => write!(f, "{}, {}, {}", c.dst, c.src, c.size),
        }
    }
}

/// A qualifier the syntax makes mandatory.
fn must(q: &mut Quals, name: &str) -> Result<(), SyntaxError> {
    if q.flag(name)? {
        Ok(())
    } else {
        Err(SyntaxError::new(
            q.end,
            format!("the mandatory `.{name}`"),
            "none",
        ))
    }
}

fn parse_replace(op: &Opcode, args: &Args) -> Result<Replace, SyntaxError> {
    let mut q = op.quals("tensormap.replace");
    must(&mut q, "tile")?;
    let field = q.need(&FIELDS, "`.field`")?;
    let space = q.take(&MapSpace::CHOICES, "`.ss`")?;
    must(&mut q, "b1024")?;
    let ty = q.need(&[("b32", RegTy::B32), ("b64", RegTy::B64)], "`.type`")?;
    q.finish("tensormap.replace")?;
    if ty != field.ty() {
        return Err(SyntaxError::new(
            op.at,
            format!("`{}` with `.{}`", field.ty().ptx(), field.ptx()),
            format!("`{}`", ty.ptx()),
        ));
    }
    let addr = args.addr(0, "addr")?;
    let (n, usage) = match field {
        FieldName::Dim(_) => (3, "[addr], ord, new_val"),
        _ => (2, "[addr], new_val"),
    };
    args.count(n, n, usage)?;
    let code = |from: fn(i64) -> Option<Code>, count: usize| -> Result<Code, SyntaxError> {
        let x = args.imm(1, "new_val")?;
        from(x).ok_or_else(|| {
            SyntaxError::new(
                args.offset_of(1),
                format!(
                    "a `.{}` new_val of Table 33 (0..={})",
                    field.ptx(),
                    count - 1
                ),
                x.to_string(),
            )
        })
    };
    let what = match field {
        FieldName::Whole(field) => Replacement::Whole {
            field,
            new_val: args.value(1, "new_val")?,
        },
        FieldName::Dim(field) => {
            let x = args.imm(1, "ord")?;
            let ord = u8::try_from(x).map_err(|_| {
                SyntaxError::new(args.offset_of(1), "a non-negative ordinal", x.to_string())
            })?;
            Replacement::Dim {
                field,
                ord,
                new_val: args.value(2, "new_val")?,
            }
        }
        FieldName::Elemtype => Replacement::Code(code(
            |x| ElemType::from_code(x).map(Code::Elemtype),
            ElemType::ALL.len(),
        )?),
        FieldName::InterleaveLayout => Replacement::Code(code(
            |x| InterleaveLayout::from_code(x).map(Code::InterleaveLayout),
            InterleaveLayout::ALL.len(),
        )?),
        FieldName::SwizzleMode => Replacement::Code(code(
            |x| SwizzleMode::from_code(x).map(Code::SwizzleMode),
            SwizzleMode::ALL.len(),
        )?),
        FieldName::SwizzleAtomicity => Replacement::Code(code(
            |x| SwizzleAtomicity::from_code(x).map(Code::SwizzleAtomicity),
            SwizzleAtomicity::ALL.len(),
        )?),
        FieldName::FillMode => Replacement::Code(code(
            |x| FillMode::from_code(x).map(Code::FillMode),
            FillMode::ALL.len(),
        )?),
    };
    Ok(Replace { space, addr, what })
}

fn parse_cp_fenceproxy(op: &Opcode, args: &Args) -> Result<CpFenceproxy, SyntaxError> {
    let mut q = op.quals("tensormap.cp_fenceproxy");
    // `.cp_qualifiers = { .global.shared::cta }`: the one pair, destination first.
    let spaces = q.take_ordered(&[("global", Space::Global), ("shared::cta", Space::SharedCta)]);
    let kinds: Vec<Space> = spaces.iter().map(|s| s.1).collect();
    if kinds != [Space::Global, Space::SharedCta] {
        return Err(SyntaxError::new(
            spaces.first().map(|s| s.0).unwrap_or(q.end),
            "`.global.shared::cta` (the copy's destination and source)",
            if kinds.is_empty() {
                "none".to_string()
            } else {
                kinds.iter().map(|s| s.ptx()).collect::<String>()
            },
        ));
    }
    must(&mut q, "tensormap::generic")?;
    must(&mut q, "release")?;
    let scope = q.need(&SCOPES, "`.scope`")?;
    must(&mut q, "sync")?;
    must(&mut q, "aligned")?;
    q.finish("tensormap.cp_fenceproxy")?;
    args.count(3, 3, "[dst], [src], size")?;
    Ok(CpFenceproxy {
        scope,
        dst: args.addr(0, "dst")?,
        src: args.addr(1, "src")?,
        size: args.imm(2, "size")?,
    })
}

/// Where tensormap.replace exists at all: sm_90a, sm_100a, sm_101a (now sm_110a), sm_120a, and
/// from PTX 8.8 the sm_100f / sm_110f / sm_120f families. The targets' own minimum PTX versions
/// (8.6 for sm_100a, ...) lie above 8.3 and are added by [`Requirement::min_ptx_for`].
fn replace_targets() -> Support {
    let mut any: Vec<Since> = [90, 100, 110, 120]
        .iter()
        .map(|&sm| Since {
            class: TargetClass::Arch(sm),
            ptx: renamed(sm, v(8, 3)),
        })
        .collect();
    any.extend(family_targets(v(8, 8)));
    Support::new("tensormap.replace", any)
}

/// The three Blackwell families from `ptx` (at least 8.8); sm_110 is named so only from PTX 9.0
/// (the notes: "sm_101f ... Renamed to sm_110f from PTX ISA version 9.0").
fn family_targets(ptx: PtxVersion) -> impl Iterator<Item = Since> {
    [100, 110, 120].into_iter().map(move |sm| Since {
        class: TargetClass::Family(sm),
        ptx: renamed(sm, ptx.max(v(8, 8))),
    })
}

/// sm_101 became sm_110 in PTX 9.0: the model's targets name only sm_110.
fn renamed(sm: u32, ptx: PtxVersion) -> PtxVersion {
    if sm == 110 {
        ptx.max(v(9, 0))
    } else {
        ptx
    }
}

/// The list the notes give for `.swizzle_atomicity` and elemtype 13-15: sm_100a, sm_110a,
/// sm_120a from `ptx`, and the three families from PTX 8.8.
fn blackwell_targets(why: &str, ptx: PtxVersion) -> Support {
    let mut any: Vec<Since> = [100, 110, 120]
        .iter()
        .map(|&sm| Since {
            class: TargetClass::Arch(sm),
            ptx: renamed(sm, ptx),
        })
        .collect();
    any.extend(family_targets(ptx));
    Support::new(why, any)
}

impl Replace {
    fn requirement(&self) -> Requirement {
        let mut r = Requirement::new().and(replace_targets());
        match &self.what {
            Replacement::Dim { ord, .. } if *ord > MAX_ORD => r.push(Support::never(format!(
                "ordinal {ord} beyond the 5 dimensions of a tensor (0..={MAX_ORD})"
            ))),
            Replacement::Code(Code::SwizzleAtomicity(_)) => {
                r.push(blackwell_targets(".swizzle_atomicity", v(8, 6)))
            }
            Replacement::Code(Code::Elemtype(t)) if t.is_sub_byte() => {
                r.push(blackwell_targets(".elemtype 13-15", v(8, 7)))
            }
            Replacement::Code(Code::SwizzleMode(SwizzleMode::B96)) => r.push(Support::new(
                ".swizzle_mode 4 (96B)",
                vec![Since {
                    class: TargetClass::Arch(103),
                    ptx: v(8, 8),
                }],
            )),
            _ => {}
        }
        r
    }

    fn variants() -> Vec<Replace> {
        let mut whats: Vec<Replacement> = Vec::new();
        for field in [WholeField::GlobalAddress, WholeField::Rank] {
            let new_val = Value::reg("new_val");
            whats.push(Replacement::Whole { field, new_val });
        }
        for field in [
            DimField::BoxDim,
            DimField::GlobalDim,
            DimField::GlobalStride,
            DimField::ElementStride,
        ] {
            // One ordinal past the last, so the differential checks the range too.
            for ord in 0..=MAX_ORD + 1 {
                let new_val = Value::reg("new_val");
                whats.push(Replacement::Dim {
                    field,
                    ord,
                    new_val,
                });
            }
        }
        whats.extend(Code::all().into_iter().map(Replacement::Code));
        let mut out = Vec::new();
        for space in [None, Some(MapSpace::Global), Some(MapSpace::SharedCta)] {
            for what in &whats {
                out.push(Replace {
                    space,
                    addr: Address::reg("addr"),
                    what: what.clone(),
                });
            }
        }
        out
    }
}

impl Family for TensormapOp {
    const HEADS: &'static [&'static str] = &["tensormap.replace", "tensormap.cp_fenceproxy"];

    fn parse(head: &str, op: &Opcode, args: &Args, _ctx: &ParseCtx) -> Result<Self, SyntaxError> {
        match head {
            "tensormap.replace" => parse_replace(op, args).map(TensormapOp::Replace),
            _ => parse_cp_fenceproxy(op, args).map(TensormapOp::CpFenceproxy),
        }
    }

    fn variants() -> Vec<Self> {
        let mut out: Vec<TensormapOp> = Replace::variants()
            .into_iter()
            .map(TensormapOp::Replace)
            .collect();
        for (_, scope) in SCOPES {
            out.push(TensormapOp::CpFenceproxy(CpFenceproxy {
                scope,
                dst: Address::reg("dst"),
                src: Address::reg("src"),
                size: 128,
            }));
        }
        out
    }

    fn requirement(&self) -> Requirement {
        match self {
            TensormapOp::Replace(r) => r.requirement(),
            TensormapOp::CpFenceproxy(c) => {
                // "Introduced in PTX ISA version 8.3", "Requires sm_90 or higher"; the
                // `.cluster` scope is older than both (PTX 7.8, sm_90).
                let mut r = Requirement::new().and(Support::at_least(
                    "tensormap.cp_fenceproxy",
                    90,
                    v(8, 3),
                ));
                if c.size != 128 {
                    r.push(Support::never("the only valid size is 128"));
                }
                r
            }
        }
    }

    fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        match self {
            TensormapOp::Replace(r) => {
                let ty = r.what.field().ty();
                f(Slot::Addr {
                    role: "addr",
                    space: MapSpace::space(r.space),
                    addr: &mut r.addr,
                });
                // ord and a `.field3` value are immediates that choose the variant, not slots.
                if let Replacement::Whole { new_val, .. } | Replacement::Dim { new_val, .. } =
                    &mut r.what
                {
                    f(Slot::Value {
                        role: "new_val",
                        ty,
                        value: new_val,
                        imm_ok: true,
                    });
                }
            }
            TensormapOp::CpFenceproxy(c) => {
                // "non-generic addresses in shared::cta and global state space respectively"
                f(Slot::Addr {
                    role: "dst",
                    space: Space::Global,
                    addr: &mut c.dst,
                });
                f(Slot::Addr {
                    role: "src",
                    space: Space::SharedCta,
                    addr: &mut c.src,
                });
            }
        }
    }

    /// The opcode; a `.field3` row also names its value, which decides its legality. Ordinals
    /// share their field's row.
    fn row(&self) -> String {
        let mut s = self.opcode();
        if let TensormapOp::Replace(Replace {
            what: Replacement::Code(c),
            ..
        }) = self
        {
            s.push_str(&format!(" new_val={}", c.code()));
        }
        s
    }

    fn family(&self) -> &'static str {
        match self {
            TensormapOp::Replace(_) => "tensormap.replace",
            TensormapOp::CpFenceproxy(_) => "tensormap.cp_fenceproxy",
        }
    }
}

#[cfg(test)]
mod tests;
