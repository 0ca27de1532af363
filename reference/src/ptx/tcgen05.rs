//! tcgen05 (§9.7.16), the 5th-generation TensorCore family minus `tcgen05.mma` (out of scope):
//! Tensor Memory allocation, register load/store and its wait, shared-memory → Tensor Memory
//! copy and shift, the tcgen05 fences, and `tcgen05.commit` to an mbarrier.
//!
//! One head, `tcgen05`; the first qualifier names the operation (`alloc`, `ld`, `wait::st`,
//! `fence::after_thread_sync`, ...). Every other qualifier is taken by set.
//!
//! Kernel-level rule not modelled per instruction: "All tcgen05 instructions within a kernel must
//! specify the same value for the `.cta_group` qualifier" (ptxas enforces it per kernel).

mod alloc;
mod cp;
mod ldst;
mod sync;
#[cfg(test)]
mod tests;

pub use alloc::{Alloc, Dealloc, Relinquish};
pub use cp::{Cp, CpShape, Multicast, Shift, SrcFmt, Takes};
pub use ldst::{Access, Extremum, Ld, LdRed, LdStShape, Num, RedKind, St, WaitOn};
pub use sync::{Commit, FenceKind};

use super::common::CtaGroup;
use super::lex::SyntaxError;
use super::opcode::{Opcode, Quals};
use super::operand::{AddrBase, Address, Args, ParseCtx, RegTy, Slot, Value};
use super::Family;
use crate::target::{PtxVersion, Requirement, Support};
use std::fmt;

/// One tcgen05 instruction (other than `tcgen05.mma`).
#[derive(Clone, Debug, PartialEq)]
pub enum Tcgen05Op {
    Alloc(Alloc),
    Dealloc(Dealloc),
    Relinquish(Relinquish),
    Ld(Ld),
    LdRed(LdRed),
    St(St),
    Wait(WaitOn),
    Cp(Cp),
    Shift(Shift),
    Fence(FenceKind),
    Commit(Commit),
}

/// `[taddr]` / `[taddr+imm]`: a Tensor Memory address (lane << 16 | column, §9.7.16.1.1) held in a
/// 32-bit register. ptxas 13.0 takes a constant offset but no immediate address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TmemRef {
    pub base: Value,
    pub offset: i64,
}

impl TmemRef {
    pub fn reg(name: &str) -> TmemRef {
        TmemRef {
            base: Value::reg(name),
            offset: 0,
        }
    }
    fn parse(args: &Args, i: usize, what: &str) -> Result<TmemRef, SyntaxError> {
        let a = args.addr(i, what)?;
        match a.base {
            AddrBase::Name(n) => Ok(TmemRef {
                base: Value::Reg(n),
                offset: a.offset,
            }),
            AddrBase::Abs(_) => Err(SyntaxError::new(
                args.offset_of(i),
                format!("{what} as `[register]` (Tensor Memory addresses are 32-bit registers)"),
                "an immediate address",
            )),
        }
    }
    fn slot(&mut self) -> Slot<'_> {
        Slot::Value {
            role: "taddr",
            ty: RegTy::B32,
            value: &mut self.base,
            imm_ok: false,
        }
    }
}

impl fmt::Display for TmemRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Address {
            base: AddrBase::Name(self.base.to_string()),
            offset: self.offset,
        }
        .fmt(f)
    }
}

/// The Target ISA Notes shared by every tcgen05 instruction but `.shift` and `.ld.red`: PTX 8.6 on
/// sm_100a, sm_101a→sm_110a (PTX 9.0 rename), the sm_100f / sm_110f families from PTX 8.8.
fn tcgen05_support(what: &str) -> Support {
    Support::blackwell_arch_or_family(what, PtxVersion::new(8, 6))
}

/// `.cta_group::1` / `.cta_group::2` (mandatory wherever the syntax names it).
fn cta_group(q: &mut Quals) -> Result<CtaGroup, SyntaxError> {
    q.need(&CtaGroup::CHOICES, "`.cta_group`")
}

/// A mandatory bare qualifier (`.sync`, `.aligned`, `.down`, `.b32`, ...).
fn mandatory(q: &mut Quals, name: &str) -> Result<(), SyntaxError> {
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

/// `.sync.aligned`, mandatory on the warp-collective tcgen05 instructions.
fn sync_aligned(q: &mut Quals) -> Result<(), SyntaxError> {
    mandatory(q, "sync")?;
    mandatory(q, "aligned")
}

/// Offset of the qualifier `text` among the unconsumed ones (for pointing at it in errors).
fn qual_at(q: &Quals, text: &str) -> usize {
    q.toks
        .iter()
        .find(|t| t.text == text)
        .map(|t| t.at)
        .unwrap_or(q.end)
}

/// The operations after `tcgen05.`, for error messages.
const OPERATIONS: &str = "`.alloc`, `.dealloc`, `.relinquish_alloc_permit`, `.ld`, `.ld.red`, `.st`, `.wait::ld`, \
     `.wait::st`, `.cp`, `.shift`, `.fence::before_thread_sync`, `.fence::after_thread_sync`, `.commit`";

impl Tcgen05Op {
    fn name(&self) -> &'static str {
        match self {
            Tcgen05Op::Alloc(_) => "tcgen05.alloc",
            Tcgen05Op::Dealloc(_) => "tcgen05.dealloc",
            Tcgen05Op::Relinquish(_) => "tcgen05.relinquish_alloc_permit",
            Tcgen05Op::Ld(_) => "tcgen05.ld",
            Tcgen05Op::LdRed(_) => "tcgen05.ld.red",
            Tcgen05Op::St(_) => "tcgen05.st",
            Tcgen05Op::Wait(_) => "tcgen05.wait",
            Tcgen05Op::Cp(_) => "tcgen05.cp",
            Tcgen05Op::Shift(_) => "tcgen05.shift",
            Tcgen05Op::Fence(_) => "tcgen05.fence",
            Tcgen05Op::Commit(_) => "tcgen05.commit",
        }
    }

    /// Whether every thread of a warp executes it together: the operations whose syntax makes
    /// `.sync.aligned` mandatory (allocation, loads, stores and their waits); `.cp`, `.shift`,
    /// the fences and `.commit` are issued by one thread.
    pub fn is_warp_collective(&self) -> bool {
        match self {
            Tcgen05Op::Alloc(_)
            | Tcgen05Op::Dealloc(_)
            | Tcgen05Op::Relinquish(_)
            | Tcgen05Op::Ld(_)
            | Tcgen05Op::LdRed(_)
            | Tcgen05Op::St(_)
            | Tcgen05Op::Wait(_) => true,
            Tcgen05Op::Cp(_) | Tcgen05Op::Shift(_) | Tcgen05Op::Fence(_) | Tcgen05Op::Commit(_) => {
                false
            }
        }
    }

    /// The opcode with its qualifiers, canonical (syntax-block) order.
    pub fn opcode(&self) -> String {
        match self {
            Tcgen05Op::Alloc(x) => x.opcode(),
            Tcgen05Op::Dealloc(x) => x.opcode(),
            Tcgen05Op::Relinquish(x) => x.opcode(),
            Tcgen05Op::Ld(x) => x.opcode(),
            Tcgen05Op::LdRed(x) => x.opcode(),
            Tcgen05Op::St(x) => x.opcode(),
            Tcgen05Op::Wait(x) => x.opcode(),
            Tcgen05Op::Cp(x) => x.opcode(),
            Tcgen05Op::Shift(x) => x.opcode(),
            Tcgen05Op::Fence(x) => x.opcode(),
            Tcgen05Op::Commit(x) => x.opcode(),
        }
    }
}

impl fmt::Display for Tcgen05Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tcgen05Op::Alloc(x) => x.fmt(f),
            Tcgen05Op::Dealloc(x) => x.fmt(f),
            Tcgen05Op::Relinquish(x) => x.fmt(f),
            Tcgen05Op::Ld(x) => x.fmt(f),
            Tcgen05Op::LdRed(x) => x.fmt(f),
            Tcgen05Op::St(x) => x.fmt(f),
            Tcgen05Op::Wait(x) => x.fmt(f),
            Tcgen05Op::Cp(x) => x.fmt(f),
            Tcgen05Op::Shift(x) => x.fmt(f),
            Tcgen05Op::Fence(x) => x.fmt(f),
            Tcgen05Op::Commit(x) => x.fmt(f),
        }
    }
}

impl Family for Tcgen05Op {
    const HEADS: &'static [&'static str] = &["tcgen05"];

    fn parse(head: &str, op: &Opcode, args: &Args, _ctx: &ParseCtx) -> Result<Self, SyntaxError> {
        let mut q = op.quals(head);
        if q.toks.is_empty() {
            return Err(SyntaxError::new(
                q.end,
                format!("a tcgen05 operation: one of {OPERATIONS}"),
                "none",
            ));
        }
        let first = q.toks.remove(0);
        let x = match first.text.as_str() {
            "alloc" => Tcgen05Op::Alloc(Alloc::parse(&mut q, args)?),
            "dealloc" => Tcgen05Op::Dealloc(Dealloc::parse(&mut q, args)?),
            "relinquish_alloc_permit" => Tcgen05Op::Relinquish(Relinquish::parse(&mut q, args)?),
            // `.red` belongs to the mnemonic: ptxas rejects it anywhere but right after `.ld`.
            "ld" if q.toks.first().is_some_and(|t| t.text == "red") => {
                q.toks.remove(0);
                Tcgen05Op::LdRed(LdRed::parse(&mut q, args)?)
            }
            "ld" if q.toks.iter().any(|t| t.text == "red") => {
                let at = qual_at(&q, "red");
                return Err(SyntaxError::new(at, "`.red` directly after `tcgen05.ld`", "`.red` further on"));
            }
            "ld" => Tcgen05Op::Ld(Ld::parse(&mut q, args)?),
            "st" => Tcgen05Op::St(St::parse(&mut q, args)?),
            "wait::ld" => Tcgen05Op::Wait(WaitOn::parse(WaitOn::Ld, &mut q, args)?),
            "wait::st" => Tcgen05Op::Wait(WaitOn::parse(WaitOn::St, &mut q, args)?),
            "cp" => Tcgen05Op::Cp(Cp::parse(&mut q, args)?),
            "shift" => Tcgen05Op::Shift(Shift::parse(&mut q, args)?),
            "fence::before_thread_sync" => Tcgen05Op::Fence(FenceKind::parse(FenceKind::BeforeThreadSync, args)?),
            "fence::after_thread_sync" => Tcgen05Op::Fence(FenceKind::parse(FenceKind::AfterThreadSync, args)?),
            "commit" => Tcgen05Op::Commit(Commit::parse(&mut q, args)?),
            "mma" => {
                return Err(SyntaxError::new(
                    first.at,
                    format!("a modelled tcgen05 operation (tcgen05.mma is out of scope): one of {OPERATIONS}"),
                    "`.mma`",
                ))
            }
            other => {
                return Err(SyntaxError::new(first.at, format!("a tcgen05 operation: one of {OPERATIONS}"), format!("`.{other}`")))
            }
        };
        q.finish(x.name())?;
        Ok(x)
    }

    fn variants() -> Vec<Self> {
        let mut v = Vec::new();
        v.extend(Alloc::variants().into_iter().map(Tcgen05Op::Alloc));
        v.extend(Dealloc::variants().into_iter().map(Tcgen05Op::Dealloc));
        v.extend(
            Relinquish::variants()
                .into_iter()
                .map(Tcgen05Op::Relinquish),
        );
        v.extend(Ld::variants().into_iter().map(Tcgen05Op::Ld));
        v.extend(LdRed::variants().into_iter().map(Tcgen05Op::LdRed));
        v.extend(St::variants().into_iter().map(Tcgen05Op::St));
        v.extend(WaitOn::ALL.into_iter().map(Tcgen05Op::Wait));
        v.extend(Cp::variants().into_iter().map(Tcgen05Op::Cp));
        v.extend(Shift::variants().into_iter().map(Tcgen05Op::Shift));
        v.extend(FenceKind::ALL.into_iter().map(Tcgen05Op::Fence));
        v.extend(Commit::variants().into_iter().map(Tcgen05Op::Commit));
        v
    }

    fn requirement(&self) -> Requirement {
        match self {
            Tcgen05Op::Alloc(x) => x.requirement(),
            Tcgen05Op::Dealloc(x) => x.requirement(),
            Tcgen05Op::LdRed(x) => x.requirement(),
            Tcgen05Op::Cp(x) => x.requirement(),
            Tcgen05Op::Shift(_) => Shift::requirement(),
            _ => Requirement::new().and(tcgen05_support(self.name())),
        }
    }

    fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        match self {
            Tcgen05Op::Alloc(x) => x.visit_operands(f),
            Tcgen05Op::Dealloc(x) => x.visit_operands(f),
            Tcgen05Op::Relinquish(_) | Tcgen05Op::Wait(_) | Tcgen05Op::Fence(_) => {}
            Tcgen05Op::Ld(x) => x.visit_operands(f),
            Tcgen05Op::LdRed(x) => x.visit_operands(f),
            Tcgen05Op::St(x) => x.visit_operands(f),
            Tcgen05Op::Cp(x) => x.visit_operands(f),
            Tcgen05Op::Shift(x) => f(x.taddr.slot()),
            Tcgen05Op::Commit(x) => x.visit_operands(f),
        }
    }

    fn row(&self) -> String {
        match self {
            Tcgen05Op::Commit(c) if c.cta_mask.is_some() => format!("{} +ctaMask", self.opcode()),
            _ => self.opcode(),
        }
    }

    fn family(&self) -> &'static str {
        match self {
            Tcgen05Op::Alloc(_) | Tcgen05Op::Dealloc(_) | Tcgen05Op::Relinquish(_) => {
                "tcgen05.alloc"
            }
            Tcgen05Op::Ld(_) | Tcgen05Op::LdRed(_) | Tcgen05Op::St(_) | Tcgen05Op::Wait(_) => {
                "tcgen05.ld/st"
            }
            Tcgen05Op::Cp(_) | Tcgen05Op::Shift(_) => "tcgen05.cp",
            Tcgen05Op::Fence(_) | Tcgen05Op::Commit(_) => "tcgen05.sync",
        }
    }
}
