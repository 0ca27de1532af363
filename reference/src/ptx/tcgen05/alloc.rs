//! §9.7.16.7.1 tcgen05.alloc / tcgen05.dealloc / tcgen05.relinquish_alloc_permit.

use super::{cta_group, mandatory, sync_aligned, tcgen05_support};
use crate::ptx::common::CtaGroup;
use crate::ptx::lex::SyntaxError;
use crate::ptx::opcode::Quals;
use crate::ptx::operand::{Address, Args, RegTy, Slot, Space, Value};
use crate::target::{Requirement, Support};
use std::fmt;

/// `tcgen05.alloc.cta_group.sync.aligned{.shared::cta}.b32 [dst], nCols;`
#[derive(Clone, Debug, PartialEq)]
pub struct Alloc {
    pub cta: CtaGroup,
    /// `.shared::cta` written; without it `dst` is a generic address (that must fall in the
    /// `.shared::cta` window).
    pub shared_cta: bool,
    pub dst: Address,
    pub ncols: Value,
}

/// `tcgen05.dealloc.cta_group.sync.aligned.b32 taddr, nCols;`
#[derive(Clone, Debug, PartialEq)]
pub struct Dealloc {
    pub cta: CtaGroup,
    /// A plain 32-bit operand here, not `[taddr]`.
    pub taddr: Value,
    pub ncols: Value,
}

/// `tcgen05.relinquish_alloc_permit.cta_group.sync.aligned;`
#[derive(Clone, Debug, PartialEq)]
pub struct Relinquish {
    pub cta: CtaGroup,
}

/// §9.7.16.7.1: "The number of columns must be a power of 2 ... within the range [32, 512]";
/// a constraint on the value, so only an immediate `nCols` can break it statically. The manual
/// states it for allocation *and* de-allocation; ptxas 13.0 checks it on `alloc` only and accepts
/// any multiple of 32 on `dealloc` (0, 96, 1024): a known disagreement, the model follows the text.
fn ncols_rule(ncols: &Value) -> Option<Support> {
    match ncols {
        Value::Imm(n) if !(32..=512).contains(n) || (*n as u64).count_ones() != 1 => Some(
            Support::never(format!("nCols = {n}: must be a power of 2 in [32, 512]")),
        ),
        _ => None,
    }
}

fn ncols_slot(v: &mut Value) -> Slot<'_> {
    Slot::Value {
        role: "nCols",
        ty: RegTy::B32,
        value: v,
        imm_ok: true,
    }
}

impl Alloc {
    pub(super) fn parse(q: &mut Quals, args: &Args) -> Result<Alloc, SyntaxError> {
        let cta = cta_group(q)?;
        sync_aligned(q)?;
        let shared_cta = q.flag("shared::cta")?;
        mandatory(q, "b32")?;
        args.count(2, 2, "[dst], nCols")?;
        Ok(Alloc {
            cta,
            shared_cta,
            dst: args.addr(0, "dst")?,
            ncols: args.value(1, "nCols")?,
        })
    }
    pub(super) fn variants() -> Vec<Alloc> {
        let mut v = Vec::new();
        for (_, cta) in CtaGroup::CHOICES {
            for shared_cta in [false, true] {
                v.push(Alloc {
                    cta,
                    shared_cta,
                    dst: Address::reg("dst"),
                    ncols: Value::reg("nCols"),
                });
            }
        }
        v
    }
    pub(super) fn opcode(&self) -> String {
        format!(
            "tcgen05.alloc.{}.sync.aligned{}.b32",
            self.cta.ptx(),
            if self.shared_cta { ".shared::cta" } else { "" }
        )
    }
    pub(super) fn requirement(&self) -> Requirement {
        let mut r = Requirement::new().and(tcgen05_support("tcgen05.alloc"));
        r.all.extend(ncols_rule(&self.ncols));
        r
    }
    pub(super) fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        let space = if self.shared_cta {
            Space::SharedCta
        } else {
            Space::Generic
        };
        f(Slot::Addr {
            role: "dst",
            space,
            addr: &mut self.dst,
        });
        f(ncols_slot(&mut self.ncols));
    }
}

impl fmt::Display for Alloc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}, {}", self.opcode(), self.dst, self.ncols)
    }
}

impl Dealloc {
    pub(super) fn parse(q: &mut Quals, args: &Args) -> Result<Dealloc, SyntaxError> {
        let cta = cta_group(q)?;
        sync_aligned(q)?;
        mandatory(q, "b32")?;
        args.count(2, 2, "taddr, nCols")?;
        Ok(Dealloc {
            cta,
            taddr: args.value(0, "taddr")?,
            ncols: args.value(1, "nCols")?,
        })
    }
    pub(super) fn variants() -> Vec<Dealloc> {
        CtaGroup::CHOICES
            .iter()
            .map(|&(_, cta)| Dealloc {
                cta,
                taddr: Value::reg("taddr"),
                ncols: Value::reg("nCols"),
            })
            .collect()
    }
    pub(super) fn opcode(&self) -> String {
        format!("tcgen05.dealloc.{}.sync.aligned.b32", self.cta.ptx())
    }
    pub(super) fn requirement(&self) -> Requirement {
        let mut r = Requirement::new().and(tcgen05_support("tcgen05.dealloc"));
        r.all.extend(ncols_rule(&self.ncols));
        r
    }
    pub(super) fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        // ptxas 13.0 takes an immediate Tensor Memory address here.
        f(Slot::Value {
            role: "taddr",
            ty: RegTy::B32,
            value: &mut self.taddr,
            imm_ok: true,
        });
        f(ncols_slot(&mut self.ncols));
    }
}

impl fmt::Display for Dealloc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}, {}", self.opcode(), self.taddr, self.ncols)
    }
}

impl Relinquish {
    pub(super) fn parse(q: &mut Quals, args: &Args) -> Result<Relinquish, SyntaxError> {
        let cta = cta_group(q)?;
        sync_aligned(q)?;
        args.count(0, 0, "no operands")?;
        Ok(Relinquish { cta })
    }
    pub(super) fn variants() -> Vec<Relinquish> {
        CtaGroup::CHOICES
            .iter()
            .map(|&(_, cta)| Relinquish { cta })
            .collect()
    }
    pub(super) fn opcode(&self) -> String {
        format!(
            "tcgen05.relinquish_alloc_permit.{}.sync.aligned",
            self.cta.ptx()
        )
    }
}

impl fmt::Display for Relinquish {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.opcode())
    }
}
