//! §9.7.16.8 tcgen05.ld / tcgen05.ld.red / tcgen05.st (Table 49/50) and §9.7.16.8.5 tcgen05.wait.

use super::{mandatory, qual_at, sync_aligned, tcgen05_support, TmemRef};
use crate::ptx::common::RedOp;
use crate::ptx::lex::SyntaxError;
use crate::ptx::opcode::Quals;
use crate::ptx::operand::{Args, RegTy, Slot, Value, VecOperand};
use crate::target::{PtxVersion, Requirement, Since, Support, TargetClass};
use std::fmt;

/// Data-movement `.shape` of tcgen05.ld/st (§9.7.16.2.3). `.16x32bx2` makes two `.16x32b`
/// accesses, the second at `taddr + immHalfSplitoff`; the shape carries that immediate because
/// exactly this shape takes the operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LdStShape {
    S16x64b,
    S16x128b,
    S16x256b,
    S32x32b,
    S16x32bx2 { half_split: i64 },
}

impl LdStShape {
    /// `immHalfSplitoff` of the placeholder variants (the manual's example value).
    pub const PLACEHOLDER_SPLIT: i64 = 16;
    pub const ALL: [LdStShape; 5] = [
        LdStShape::S16x64b,
        LdStShape::S16x128b,
        LdStShape::S16x256b,
        LdStShape::S32x32b,
        LdStShape::S16x32bx2 {
            half_split: Self::PLACEHOLDER_SPLIT,
        },
    ];
    pub fn ptx(self) -> &'static str {
        match self {
            LdStShape::S16x64b => "16x64b",
            LdStShape::S16x128b => "16x128b",
            LdStShape::S16x256b => "16x256b",
            LdStShape::S32x32b => "32x32b",
            LdStShape::S16x32bx2 { .. } => "16x32bx2",
        }
    }
    /// 32-bit registers per `.num` repetition (Table 49 row `.x1`).
    pub fn regs_per_rep(self) -> usize {
        match self {
            LdStShape::S16x128b => 2,
            LdStShape::S16x256b => 4,
            _ => 1,
        }
    }
    /// Largest `.num` Table 49 allows (the "NA" cells: 128 registers at most).
    pub fn max_num(self) -> Num {
        match self {
            LdStShape::S16x128b => Num::X64,
            LdStShape::S16x256b => Num::X32,
            _ => Num::X128,
        }
    }
    pub fn half_split(self) -> Option<i64> {
        match self {
            LdStShape::S16x32bx2 { half_split } => Some(half_split),
            _ => None,
        }
    }
}

/// `.num` repeat factor `.x1` … `.x128`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Num {
    X1,
    X2,
    X4,
    X8,
    X16,
    X32,
    X64,
    X128,
}

impl Num {
    pub const ALL: [Num; 8] = [
        Num::X1,
        Num::X2,
        Num::X4,
        Num::X8,
        Num::X16,
        Num::X32,
        Num::X64,
        Num::X128,
    ];
    pub fn count(self) -> usize {
        1 << (self as usize)
    }
    pub fn ptx(self) -> &'static str {
        ["x1", "x2", "x4", "x8", "x16", "x32", "x64", "x128"][self as usize]
    }
}

/// `.shape.num`: what one tcgen05.ld/st moves, and how many registers that takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    pub shape: LdStShape,
    pub num: Num,
}

impl Access {
    /// All Table-49 combinations (the NA cells excluded: they would need more than 128 registers).
    pub fn all() -> Vec<Access> {
        let mut v = Vec::new();
        for shape in LdStShape::ALL {
            for num in Num::ALL.into_iter().filter(|n| *n <= shape.max_num()) {
                v.push(Access { shape, num });
            }
        }
        v
    }
    /// Length of the register vector (Table 49; unchanged by `.pack::16b` / `.unpack::16b`).
    pub fn regs(self) -> usize {
        self.shape.regs_per_rep() * self.num.count()
    }
    fn quals(self) -> String {
        format!("{}.{}", self.shape.ptx(), self.num.ptx())
    }
    /// Take `.shape` and `.num`; `immHalfSplitoff` is filled in by [`Access::split_operand`].
    fn parse(q: &mut Quals) -> Result<Access, SyntaxError> {
        let shapes: Vec<(&str, LdStShape)> = LdStShape::ALL.iter().map(|s| (s.ptx(), *s)).collect();
        let shape = q.need(&shapes, "`.shape`")?;
        let nums: Vec<(&str, Num)> = Num::ALL.iter().map(|n| (n.ptx(), *n)).collect();
        let at = q
            .toks
            .iter()
            .find(|t| nums.iter().any(|n| n.0 == t.text))
            .map(|t| t.at)
            .unwrap_or(q.end);
        let num = q.need(&nums, "`.num`")?;
        if num > shape.max_num() {
            // Table 49 "NA": no register vector of that length exists.
            return Err(SyntaxError::new(
                at,
                format!(
                    "`.num` at most `.{}` with `.{}` (Table 49)",
                    shape.max_num().ptx(),
                    shape.ptx()
                ),
                format!("`.{}`", num.ptx()),
            ));
        }
        Ok(Access { shape, num })
    }
    /// Operands after `[taddr]` needed by the shape: `immHalfSplitoff` for `.16x32bx2` only.
    fn split_operand(&mut self, args: &Args, i: usize) -> Result<(), SyntaxError> {
        if let LdStShape::S16x32bx2 { half_split } = &mut self.shape {
            *half_split = args.imm(i, "immHalfSplitoff")?;
        }
        Ok(())
    }
    fn split_text(self) -> String {
        self.shape
            .half_split()
            .map(|s| format!(", {}", Value::Imm(s)))
            .unwrap_or_default()
    }
    /// The register vector `r` of the right length; `regs_only` for destinations.
    fn vector(self, args: &Args, i: usize, regs_only: bool) -> Result<Vec<Value>, SyntaxError> {
        let v = args.vector(i, "r")?;
        let want = self.regs();
        if v.len() != want {
            return Err(SyntaxError::new(
                args.offset_of(i),
                format!(
                    "a vector of {want} 32-bit registers for `.{}` (Table 49)",
                    self.quals()
                ),
                format!("{} element{}", v.len(), if v.len() == 1 { "" } else { "s" }),
            ));
        }
        if regs_only && v.iter().any(|x| x.as_reg().is_none()) {
            return Err(SyntaxError::new(
                args.offset_of(i),
                "destination registers in `r`",
                "an immediate",
            ));
        }
        Ok(v)
    }
    /// Number of operands given the shape: `fixed` plus one for `immHalfSplitoff`.
    fn operand_count(self, fixed: usize) -> usize {
        fixed + self.shape.half_split().is_some() as usize
    }
    fn placeholder_regs(self) -> Vec<Value> {
        (0..self.regs())
            .map(|i| Value::Reg(format!("r{i}")))
            .collect()
    }
}

fn vector_slot(values: &mut Vec<Value>) -> Slot<'_> {
    Slot::Vector {
        role: "r",
        ty: RegTy::B32,
        values,
    }
}

/// The destination registers of tcgen05.ld{.red}: written, not read (role `ldDst`).
fn dst_slot(values: &mut Vec<Value>) -> Slot<'_> {
    Slot::Vector {
        role: "ldDst",
        ty: RegTy::B32,
        values,
    }
}

/// `tcgen05.ld.sync.aligned.shape.num{.pack::16b}.b32 r, [taddr]{, immHalfSplitoff};`
#[derive(Clone, Debug, PartialEq)]
pub struct Ld {
    pub access: Access,
    pub pack: bool,
    pub dst: Vec<Value>,
    pub taddr: TmemRef,
}

impl Ld {
    pub(super) fn parse(q: &mut Quals, args: &Args) -> Result<Ld, SyntaxError> {
        sync_aligned(q)?;
        let mut access = Access::parse(q)?;
        let pack = q.flag("pack::16b")?;
        mandatory(q, "b32")?;
        let n = access.operand_count(2);
        args.count(n, n, "r, [taddr]{, immHalfSplitoff}")?;
        let dst = access.vector(args, 0, true)?;
        let taddr = TmemRef::parse(args, 1, "taddr")?;
        access.split_operand(args, 2)?;
        Ok(Ld {
            access,
            pack,
            dst,
            taddr,
        })
    }
    pub(super) fn variants() -> Vec<Ld> {
        let mut v = Vec::new();
        for access in Access::all() {
            for pack in [false, true] {
                v.push(Ld {
                    access,
                    pack,
                    dst: access.placeholder_regs(),
                    taddr: TmemRef::reg("taddr"),
                });
            }
        }
        v
    }
    pub(super) fn opcode(&self) -> String {
        format!(
            "tcgen05.ld.sync.aligned.{}{}.b32",
            self.access.quals(),
            if self.pack { ".pack::16b" } else { "" }
        )
    }
    pub(super) fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        f(dst_slot(&mut self.dst));
        f(self.taddr.slot());
    }
}

impl fmt::Display for Ld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}, {}{}",
            self.opcode(),
            VecOperand(&self.dst),
            self.taddr,
            self.access.split_text()
        )
    }
}

/// `.redOp` of tcgen05.ld.red: only `.min` / `.max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Extremum {
    Min,
    Max,
}

impl Extremum {
    pub const ALL: [Extremum; 2] = [Extremum::Min, Extremum::Max];
    pub fn red_op(self) -> RedOp {
        match self {
            Extremum::Min => RedOp::Min,
            Extremum::Max => RedOp::Max,
        }
    }
}

/// Element type of tcgen05.ld.red; `.abs` / `.NaN` exist only in the `.f32` syntax line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RedKind {
    F32 { abs: bool, nan: bool },
    U32,
    S32,
}

impl RedKind {
    pub const ALL: [RedKind; 6] = [
        RedKind::F32 {
            abs: false,
            nan: false,
        },
        RedKind::F32 {
            abs: true,
            nan: false,
        },
        RedKind::F32 {
            abs: false,
            nan: true,
        },
        RedKind::F32 {
            abs: true,
            nan: true,
        },
        RedKind::U32,
        RedKind::S32,
    ];
}

/// `tcgen05.ld.red.sync.aligned.shape.num.redOp{.abs}{.NaN}.f32 r, redval, [taddr]{, immHalfSplitoff};`
/// and the `.u32` / `.s32` forms.
#[derive(Clone, Debug, PartialEq)]
pub struct LdRed {
    pub access: Access,
    pub op: Extremum,
    pub kind: RedKind,
    pub dst: Vec<Value>,
    pub redval: Value,
    pub taddr: TmemRef,
}

impl LdRed {
    pub(super) fn parse(q: &mut Quals, args: &Args) -> Result<LdRed, SyntaxError> {
        sync_aligned(q)?;
        let mut access = Access::parse(q)?;
        let op = q.need(
            &[("min", Extremum::Min), ("max", Extremum::Max)],
            "`.redOp`",
        )?;
        let abs_at = qual_at(q, "abs");
        let abs = q.flag("abs")?;
        let nan_at = qual_at(q, "NaN");
        let nan = q.flag("NaN")?;
        let ty = q.need(
            &[
                ("f32", RedKind::F32 { abs, nan }),
                ("u32", RedKind::U32),
                ("s32", RedKind::S32),
            ],
            "`.type`",
        )?;
        if !matches!(ty, RedKind::F32 { .. }) && (abs || nan) {
            let (at, name) = if abs {
                (abs_at, "abs")
            } else {
                (nan_at, "NaN")
            };
            return Err(SyntaxError::new(
                at,
                "`.abs` / `.NaN` only with `.f32`",
                format!("`.{name}` on an integer type"),
            ));
        }
        let n = access.operand_count(3);
        args.count(n, n, "r, redval, [taddr]{, immHalfSplitoff}")?;
        let dst = access.vector(args, 0, true)?;
        let redval = Value::Reg(args.reg(1, "redval")?);
        let taddr = TmemRef::parse(args, 2, "taddr")?;
        access.split_operand(args, 3)?;
        Ok(LdRed {
            access,
            op,
            kind: ty,
            dst,
            redval,
            taddr,
        })
    }
    pub(super) fn variants() -> Vec<LdRed> {
        let mut v = Vec::new();
        for access in Access::all() {
            for op in Extremum::ALL {
                for kind in RedKind::ALL {
                    v.push(LdRed {
                        access,
                        op,
                        kind,
                        dst: access.placeholder_regs(),
                        redval: Value::reg("redval"),
                        taddr: TmemRef::reg("taddr"),
                    });
                }
            }
        }
        v
    }
    pub(super) fn opcode(&self) -> String {
        let ty = match self.kind {
            RedKind::F32 { abs, nan } => format!(
                "{}{}.f32",
                if abs { ".abs" } else { "" },
                if nan { ".NaN" } else { "" }
            ),
            RedKind::U32 => ".u32".into(),
            RedKind::S32 => ".s32".into(),
        };
        format!(
            "tcgen05.ld.red.sync.aligned.{}.{}{ty}",
            self.access.quals(),
            self.op.red_op().ptx()
        )
    }
    pub(super) fn requirement(&self) -> Requirement {
        let v88 = PtxVersion::new(8, 8);
        let v90 = PtxVersion::new(9, 0);
        // tcgen05.ld.red Target ISA Notes: sm_101a→sm_110a, the sm_101f→sm_110f and sm_103f
        // families (PTX 8.8; sm_100a/sm_100f lack it). sm_101 itself is no longer a target.
        let red = Support::new(
            "tcgen05.ld.red (sm_110a, sm_103f/sm_110f families)",
            vec![
                Since {
                    class: TargetClass::Arch(110),
                    ptx: v90,
                },
                Since {
                    class: TargetClass::Family(103),
                    ptx: v88,
                },
                Since {
                    class: TargetClass::Family(110),
                    ptx: v90,
                },
            ],
        );
        let mut r = Requirement::new()
            .and(tcgen05_support("tcgen05.ld"))
            .and(red);
        // Syntax block: `.shape3 = { .32x32b }`, `.shape4 = { .16x32bx2 }`.
        if !matches!(
            self.access.shape,
            LdStShape::S32x32b | LdStShape::S16x32bx2 { .. }
        ) {
            r.push(Support::never(format!(
                "tcgen05.ld.red takes only `.32x32b` / `.16x32bx2`, not `.{}`",
                self.access.shape.ptx()
            )));
        }
        // "When .red qualifier is specified, .num modifier must be at least .x2."
        if self.access.num == Num::X1 {
            r.push(Support::never("tcgen05.ld.red needs `.num` at least `.x2`"));
        }
        r
    }
    pub(super) fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        f(dst_slot(&mut self.dst));
        f(Slot::Value {
            role: "redval",
            ty: RegTy::B32,
            value: &mut self.redval,
            imm_ok: false,
        });
        f(self.taddr.slot());
    }
}

impl fmt::Display for LdRed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}, {}, {}{}",
            self.opcode(),
            VecOperand(&self.dst),
            self.redval,
            self.taddr,
            self.access.split_text()
        )
    }
}

/// `tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32 [taddr]{, immHalfSplitoff}, r;`
#[derive(Clone, Debug, PartialEq)]
pub struct St {
    pub access: Access,
    pub unpack: bool,
    pub taddr: TmemRef,
    /// Source values; ptxas 13.0 also takes immediates here.
    pub src: Vec<Value>,
}

impl St {
    pub(super) fn parse(q: &mut Quals, args: &Args) -> Result<St, SyntaxError> {
        sync_aligned(q)?;
        let mut access = Access::parse(q)?;
        let unpack = q.flag("unpack::16b")?;
        mandatory(q, "b32")?;
        let n = access.operand_count(2);
        args.count(n, n, "[taddr]{, immHalfSplitoff}, r")?;
        let taddr = TmemRef::parse(args, 0, "taddr")?;
        access.split_operand(args, 1)?;
        let src = access.vector(args, n - 1, false)?;
        Ok(St {
            access,
            unpack,
            taddr,
            src,
        })
    }
    pub(super) fn variants() -> Vec<St> {
        let mut v = Vec::new();
        for access in Access::all() {
            for unpack in [false, true] {
                v.push(St {
                    access,
                    unpack,
                    taddr: TmemRef::reg("taddr"),
                    src: access.placeholder_regs(),
                });
            }
        }
        v
    }
    pub(super) fn opcode(&self) -> String {
        format!(
            "tcgen05.st.sync.aligned.{}{}.b32",
            self.access.quals(),
            if self.unpack { ".unpack::16b" } else { "" }
        )
    }
    pub(super) fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        f(self.taddr.slot());
        f(vector_slot(&mut self.src));
    }
}

impl fmt::Display for St {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}{}, {}",
            self.opcode(),
            self.taddr,
            self.access.split_text(),
            VecOperand(&self.src)
        )
    }
}

/// `tcgen05.wait::ld.sync.aligned;` / `tcgen05.wait::st.sync.aligned;`
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitOn {
    Ld,
    St,
}

impl WaitOn {
    pub const ALL: [WaitOn; 2] = [WaitOn::Ld, WaitOn::St];
    pub(super) fn parse(self, q: &mut Quals, args: &Args) -> Result<WaitOn, SyntaxError> {
        sync_aligned(q)?;
        args.count(0, 0, "no operands")?;
        Ok(self)
    }
    pub(super) fn opcode(&self) -> String {
        format!(
            "tcgen05.wait::{}.sync.aligned",
            if *self == WaitOn::Ld { "ld" } else { "st" }
        )
    }
}

impl fmt::Display for WaitOn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.opcode())
    }
}
