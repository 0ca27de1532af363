//! §9.7.16.9 tensor-memory data movement: tcgen05.cp (with optional decompression, §9.7.16.9.1)
//! and tcgen05.shift.

use super::{cta_group, mandatory, tcgen05_support, TmemRef};
use crate::ptx::common::CtaGroup;
use crate::ptx::lex::SyntaxError;
use crate::ptx::opcode::Quals;
use crate::ptx::operand::{Args, RegTy, Slot, Value};
use crate::target::{PtxVersion, Requirement, Since, Support, TargetClass};
use std::fmt;

/// `.shape` of tcgen05.cp (lanes x bits per lane, §9.7.16.2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpShape {
    S128x256b,
    S4x256b,
    S128x128b,
    S64x128b,
    S32x128b,
}

/// Which `.multicast` a shape takes: the `**` / `***` marks of the syntax block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Takes {
    /// No `.multicast` at all.
    Nothing,
    /// `.warpx2::02_13` or `.warpx2::01_23`, mandatory.
    WarpPairs,
    /// `.warpx4`, mandatory.
    AllFour,
}

impl CpShape {
    pub const ALL: [CpShape; 5] = [
        CpShape::S128x256b,
        CpShape::S4x256b,
        CpShape::S128x128b,
        CpShape::S64x128b,
        CpShape::S32x128b,
    ];
    pub fn ptx(self) -> &'static str {
        match self {
            CpShape::S128x256b => "128x256b",
            CpShape::S4x256b => "4x256b",
            CpShape::S128x128b => "128x128b",
            CpShape::S64x128b => "64x128b",
            CpShape::S32x128b => "32x128b",
        }
    }
    /// "`.64x128b` requires `.warpx2::02_13` or `.warpx2::01_23`; `.32x128b` requires `.warpx4`";
    /// the other shapes carry no `**` mark, so no multicast.
    pub fn takes(self) -> Takes {
        match self {
            CpShape::S64x128b => Takes::WarpPairs,
            CpShape::S32x128b => Takes::AllFour,
            _ => Takes::Nothing,
        }
    }
    /// The `.multicast` choices that make this shape legal.
    pub fn legal_multicasts(self) -> &'static [Option<Multicast>] {
        match self.takes() {
            Takes::Nothing => &[None],
            Takes::WarpPairs => &[Some(Multicast::Warpx2_02_13), Some(Multicast::Warpx2_01_23)],
            Takes::AllFour => &[Some(Multicast::Warpx4)],
        }
    }
}

/// `.multicast` of tcgen05.cp: which warps of the warpgroup receive the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(non_camel_case_types)]
pub enum Multicast {
    /// Warp pairs {0,2} and {1,3}, each warp receiving half.
    Warpx2_02_13,
    /// Warp pairs {0,1} and {2,3}, each warp receiving half.
    Warpx2_01_23,
    /// All four warps.
    Warpx4,
}

impl Multicast {
    pub const ALL: [Multicast; 3] = [
        Multicast::Warpx2_02_13,
        Multicast::Warpx2_01_23,
        Multicast::Warpx4,
    ];
    pub fn ptx(self) -> &'static str {
        match self {
            Multicast::Warpx2_02_13 => "warpx2::02_13",
            Multicast::Warpx2_01_23 => "warpx2::01_23",
            Multicast::Warpx4 => "warpx4",
        }
    }
    pub fn kind(self) -> Takes {
        match self {
            Multicast::Warpx4 => Takes::AllFour,
            _ => Takes::WarpPairs,
        }
    }
}

/// `.src_fmt` of the decompressing copy; `.dst_fmt` is always `.b8x16`, so the pair is one value
/// and a lone `.b8x16` cannot be represented (ptxas: "Unexpected number of 'format conversion'
/// modifiers").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SrcFmt {
    /// 16 x 6-bit + 4 bytes padding → 16 x 8-bit (§9.7.16.9.1.2).
    B6x16P32,
    /// 16 x 4-bit + 8 bytes padding → 16 x 8-bit (§9.7.16.9.1.1).
    B4x16P64,
}

impl SrcFmt {
    pub const ALL: [SrcFmt; 2] = [SrcFmt::B6x16P32, SrcFmt::B4x16P64];
    pub fn ptx(self) -> &'static str {
        match self {
            SrcFmt::B6x16P32 => "b6x16_p32",
            SrcFmt::B4x16P64 => "b4x16_p64",
        }
    }
}

/// `tcgen05.cp.cta_group.shape{.multicast}{.dst_fmt.src_fmt} [taddr], s-desc;`
#[derive(Clone, Debug, PartialEq)]
pub struct Cp {
    pub cta: CtaGroup,
    pub shape: CpShape,
    /// Kept free of the shape so that the shape/multicast rules stay testable against ptxas.
    pub multicast: Option<Multicast>,
    /// `.b8x16.src_fmt`.
    pub decompress: Option<SrcFmt>,
    pub taddr: TmemRef,
    /// The 64-bit shared-memory matrix descriptor (§9.7.16.4.1); ptxas 13.0 takes an immediate too.
    pub sdesc: Value,
}

/// `.dst_fmt.src_fmt`: order-sensitive (ptxas rejects `.b4x16_p64.b8x16`), though other
/// qualifiers may stand between them.
fn decompression(q: &mut Quals) -> Result<Option<SrcFmt>, SyntaxError> {
    let toks = q.take_ordered(&[
        ("b8x16", None),
        ("b6x16_p32", Some(SrcFmt::B6x16P32)),
        ("b4x16_p64", Some(SrcFmt::B4x16P64)),
    ]);
    match toks.as_slice() {
        [] => Ok(None),
        [(_, None), (_, Some(src))] => Ok(Some(*src)),
        [(at, Some(_)), (_, None)] => Err(SyntaxError::new(
            *at,
            "`.dst_fmt.src_fmt` in that order (`.b8x16` first)",
            "`.src_fmt` before `.b8x16`",
        )),
        [(at, None)] => Err(SyntaxError::new(
            *at,
            "`.b8x16` followed by `.src_fmt` (`.b6x16_p32` or `.b4x16_p64`)",
            "`.b8x16` alone",
        )),
        [(at, Some(_))] => Err(SyntaxError::new(
            *at,
            "`.dst_fmt` `.b8x16` before `.src_fmt`",
            "`.src_fmt` alone",
        )),
        [_, _, (at, _), ..] | [(_, None), (at, None)] | [(_, Some(_)), (at, Some(_))] => {
            Err(SyntaxError::new(
                *at,
                "one `.dst_fmt.src_fmt` pair",
                "another format qualifier",
            ))
        }
    }
}

impl Cp {
    pub(super) fn parse(q: &mut Quals, args: &Args) -> Result<Cp, SyntaxError> {
        let cta = cta_group(q)?;
        let shapes: Vec<(&str, CpShape)> = CpShape::ALL.iter().map(|s| (s.ptx(), *s)).collect();
        let shape = q.need(&shapes, "`.shape`")?;
        let mcs: Vec<(&str, Multicast)> = Multicast::ALL.iter().map(|m| (m.ptx(), *m)).collect();
        let multicast = q.take(&mcs, "`.multicast`")?;
        let decompress = decompression(q)?;
        args.count(2, 2, "[taddr], s-desc")?;
        let taddr = TmemRef::parse(args, 0, "taddr")?;
        let sdesc = args.value(1, "s-desc")?;
        Ok(Cp {
            cta,
            shape,
            multicast,
            decompress,
            taddr,
            sdesc,
        })
    }
    pub(super) fn variants() -> Vec<Cp> {
        let mut v = Vec::new();
        for (_, cta) in CtaGroup::CHOICES {
            for shape in CpShape::ALL {
                for multicast in std::iter::once(None).chain(Multicast::ALL.map(Some)) {
                    for decompress in std::iter::once(None).chain(SrcFmt::ALL.map(Some)) {
                        v.push(Cp {
                            cta,
                            shape,
                            multicast,
                            decompress,
                            taddr: TmemRef::reg("taddr"),
                            sdesc: Value::reg("sdesc"),
                        });
                    }
                }
            }
        }
        v
    }
    pub(super) fn opcode(&self) -> String {
        let mut s = format!("tcgen05.cp.{}.{}", self.cta.ptx(), self.shape.ptx());
        if let Some(m) = self.multicast {
            s += ".";
            s += m.ptx();
        }
        if let Some(src) = self.decompress {
            s += ".b8x16.";
            s += src.ptx();
        }
        s
    }
    pub(super) fn requirement(&self) -> Requirement {
        let mut r = Requirement::new().and(tcgen05_support("tcgen05.cp"));
        // §9.7.16.9.2: "Some of the .shape qualifiers require certain .multicast qualifiers."
        let given = self
            .multicast
            .map(Multicast::kind)
            .unwrap_or(Takes::Nothing);
        if given != self.shape.takes() {
            let rule = match self.shape.takes() {
                Takes::WarpPairs => {
                    "`.64x128b` requires `.warpx2::02_13` or `.warpx2::01_23`".to_string()
                }
                Takes::AllFour => "`.32x128b` requires `.warpx4`".to_string(),
                Takes::Nothing => format!("`.{}` takes no `.multicast`", self.shape.ptx()),
            };
            r.push(Support::never(rule));
        }
        r
    }
    pub(super) fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        f(self.taddr.slot());
        f(Slot::Value {
            role: "s-desc",
            ty: RegTy::B64,
            value: &mut self.sdesc,
            imm_ok: true,
        });
    }
}

impl fmt::Display for Cp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}, {}", self.opcode(), self.taddr, self.sdesc)
    }
}

/// `tcgen05.shift.cta_group.down [taddr];` (implicit shape `.31x256b`).
#[derive(Clone, Debug, PartialEq)]
pub struct Shift {
    pub cta: CtaGroup,
    pub taddr: TmemRef,
}

impl Shift {
    pub(super) fn parse(q: &mut Quals, args: &Args) -> Result<Shift, SyntaxError> {
        let cta = cta_group(q)?;
        mandatory(q, "down")?;
        args.count(1, 1, "[taddr]")?;
        Ok(Shift {
            cta,
            taddr: TmemRef::parse(args, 0, "taddr")?,
        })
    }
    pub(super) fn variants() -> Vec<Shift> {
        CtaGroup::CHOICES
            .iter()
            .map(|&(_, cta)| Shift {
                cta,
                taddr: TmemRef::reg("taddr"),
            })
            .collect()
    }
    pub(super) fn opcode(&self) -> String {
        format!("tcgen05.shift.{}.down", self.cta.ptx())
    }
    /// tcgen05.shift Target ISA Notes: sm_100a, sm_101a→sm_110a, sm_103a, sm_110a; unlike the rest
    /// of tcgen05, no family-specific targets.
    pub(super) fn requirement() -> Requirement {
        let v86 = PtxVersion::new(8, 6);
        Requirement::new().and(Support::new(
            "tcgen05.shift (sm_100a, sm_103a, sm_110a only: no family targets)",
            vec![
                Since {
                    class: TargetClass::Arch(100),
                    ptx: v86,
                },
                Since {
                    class: TargetClass::Arch(103),
                    ptx: v86,
                },
                Since {
                    class: TargetClass::Arch(110),
                    ptx: PtxVersion::new(9, 0),
                },
            ],
        ))
    }
}

impl fmt::Display for Shift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.opcode(), self.taddr)
    }
}
