//! Non-bulk asynchronous copy (§9.7.9.25.3): `cp.async`, its async-group instructions
//! `cp.async.commit_group` / `cp.async.wait_group N` / `cp.async.wait_all`, and the mbarrier
//! completion `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64` (§9.7.13.15.15).

pub mod cache_hint;

use super::lex::SyntaxError;
use super::opcode::{join, Opcode};
use super::operand::{Address, Args, ParseCtx, RegTy, Slot, Space, Value};
use super::Family;
use crate::target::{PtxVersion, Requirement, Support};
use cache_hint::CacheHint;
use std::fmt;

const V70: PtxVersion = PtxVersion::new(7, 0);

/// `.ca` (cache at all levels) or `.cg` (L2 only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheOp {
    Ca,
    Cg,
}

/// How the shared destination is spelled: `.shared` or `.shared::cta` (same meaning, ::cta needs
/// PTX 7.8). Shared with cp.async.mbarrier.arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SharedSpelling {
    Shared,
    SharedCta,
}

impl SharedSpelling {
    const CHOICES: [(&'static str, SharedSpelling); 2] = [
        ("shared", SharedSpelling::Shared),
        ("shared::cta", SharedSpelling::SharedCta),
    ];
    pub fn ptx(self) -> &'static str {
        match self {
            SharedSpelling::Shared => "shared",
            SharedSpelling::SharedCta => "shared::cta",
        }
    }
    pub fn space(self) -> Space {
        match self {
            SharedSpelling::Shared => Space::Shared,
            SharedSpelling::SharedCta => Space::SharedCta,
        }
    }
    /// §9.7.9.25.3.1 / §9.7.13.15.15 PTX ISA Notes: sub-qualifier `::cta` from PTX 7.8.
    fn support(self) -> Option<Support> {
        match self {
            SharedSpelling::Shared => None,
            SharedSpelling::SharedCta => Some(Support::at_least(
                "`.shared::cta` spelling",
                80,
                PtxVersion::new(7, 8),
            )),
        }
    }
}

/// `.L2::64B` / `.L2::128B` / `.L2::256B` prefetch-size hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrefetchSize {
    B64,
    B128,
    B256,
}

impl PrefetchSize {
    const CHOICES: [(&'static str, PrefetchSize); 3] = [
        ("L2::64B", PrefetchSize::B64),
        ("L2::128B", PrefetchSize::B128),
        ("L2::256B", PrefetchSize::B256),
    ];
    pub fn ptx(self) -> &'static str {
        Self::CHOICES
            .iter()
            .find(|c| c.1 == self)
            .map(|c| c.0)
            .unwrap_or("")
    }
}

/// `cp-size`: 4, 8 or 16 bytes (an immediate; other values are unrepresentable).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpSize {
    B4,
    B8,
    B16,
}

impl CpSize {
    pub const ALL: [CpSize; 3] = [CpSize::B4, CpSize::B8, CpSize::B16];
    pub fn bytes(self) -> i64 {
        match self {
            CpSize::B4 => 4,
            CpSize::B8 => 8,
            CpSize::B16 => 16,
        }
    }
}

/// The optional fourth operand: how much of the source to read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Fill {
    /// Copy all `cp-size` bytes.
    Full,
    /// `src-size`: a 32-bit register or immediate; the rest of `dst` is zero-filled.
    SrcSize(Value),
    /// `ignore-src`: a predicate register (never an immediate); true copies zeros.
    IgnoreSrc(String),
}

/// `cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::prefetch}`.
/// `.cg` with cp-size 4 or 8 is representable (well-formed text) and never legal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CpAsync {
    pub cache: CacheOp,
    pub shared: SharedSpelling,
    pub hint: CacheHint,
    pub prefetch: Option<PrefetchSize>,
    pub dst: Address,
    pub src: Address,
    pub size: CpSize,
    pub fill: Fill,
}

/// One instruction of the cp.async family.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CpAsyncOp {
    Copy(CpAsync),
    CommitGroup,
    /// `cp.async.wait_group N` (N an integer constant).
    WaitGroup(i64),
    WaitAll,
    /// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]`; no space = generic address.
    MbarrierArrive {
        noinc: bool,
        space: Option<SharedSpelling>,
        addr: Address,
    },
}

fn fmt_ops(f: &mut fmt::Formatter<'_>, ops: &[String]) -> fmt::Result {
    if !ops.is_empty() {
        write!(f, " {}", ops.join(", "))?;
    }
    Ok(())
}

impl CpAsync {
    fn opcode(&self) -> String {
        join(
            "cp.async",
            &[
                match self.cache {
                    CacheOp::Ca => "ca",
                    CacheOp::Cg => "cg",
                },
                self.shared.ptx(),
                "global",
                self.hint.qual(),
                self.prefetch.map(|p| p.ptx()).unwrap_or(""),
            ],
        )
    }
    fn operands(&self) -> Vec<String> {
        let mut v = vec![
            self.dst.to_string(),
            self.src.to_string(),
            self.size.bytes().to_string(),
        ];
        match &self.fill {
            Fill::Full => {}
            Fill::SrcSize(s) => v.push(s.to_string()),
            Fill::IgnoreSrc(p) => v.push(p.clone()),
        }
        if let Some(p) = &self.hint.policy {
            v.push(p.to_string());
        }
        v
    }

    fn parse(op: &Opcode, args: &Args, ctx: &ParseCtx) -> Result<CpAsync, SyntaxError> {
        let mut q = op.quals("cp.async");
        let cache = q.need(
            &[("ca", CacheOp::Ca), ("cg", CacheOp::Cg)],
            "cache operator",
        )?;
        let shared = q.need(&SharedSpelling::CHOICES, "destination state space")?;
        q.need(&[("global", ())], "source state space")?;
        let hint_q = CacheHint::take(&mut q)?;
        let prefetch = q.take(&PrefetchSize::CHOICES, "prefetch size")?;
        q.finish("cp.async")?;

        args.count(
            3,
            5,
            "[dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}",
        )?;
        let dst = args.addr(0, "dst")?;
        let src = args.addr(1, "src")?;
        let size = match args.imm(2, "cp-size")? {
            4 => CpSize::B4,
            8 => CpSize::B8,
            16 => CpSize::B16,
            n => {
                return Err(SyntaxError::new(
                    args.offset_of(2),
                    "cp-size 4, 8 or 16",
                    n.to_string(),
                ))
            }
        };
        let fill_at = |i: usize| -> Result<Fill, SyntaxError> {
            match args.value(i, "src-size or ignore-src")? {
                Value::Reg(r) if ctx.is_pred(&r) => Ok(Fill::IgnoreSrc(r)),
                v => Ok(Fill::SrcSize(v)),
            }
        };
        let (fill, policy) = match args.len() {
            3 => (Fill::Full, None),
            5 => (fill_at(3)?, Some(Value::Reg(args.reg(4, "cache-policy")?))),
            _ => match args.value(3, "src-size, ignore-src or cache-policy")? {
                // A lone register after cp-size under `.L2::cache_hint` is the policy unless it is
                // a predicate or looks like a size (ASSUMPTION: ptxas decides by declared type).
                Value::Reg(r) if hint_q && !ctx.is_pred(&r) && looks_like_policy(ctx, &r) => {
                    (Fill::Full, Some(Value::Reg(r)))
                }
                _ => (fill_at(3)?, None),
            },
        };
        Ok(CpAsync {
            cache,
            shared,
            hint: CacheHint {
                qualifier: hint_q,
                policy,
            },
            prefetch,
            dst,
            src,
            size,
            fill,
        })
    }

    fn requirement(&self) -> Requirement {
        // §9.7.9.25.3.1 Target ISA Notes: requires sm_80; PTX ISA Notes: introduced in 7.0.
        let mut r = Requirement::new().and(Support::at_least("cp.async", 80, V70));
        r.all.extend(self.shared.support());
        if self.cache == CacheOp::Cg && self.size != CpSize::B16 {
            // §9.7.9.25.3.1 syntax: `cp.async.cg ... [dst], [src], 16`.
            r.push(Support::never("`.cg` requires cp-size 16"));
        }
        if self.hint.qualifier {
            r.push(Support::at_least(
                "`.L2::cache_hint`",
                80,
                PtxVersion::new(7, 4),
            ));
        }
        r.all.extend(self.hint.rules());
        if self.prefetch.is_some() {
            r.push(Support::at_least(
                "`.L2::{64,128,256}B` prefetch size",
                80,
                PtxVersion::new(7, 4),
            ));
        }
        match &self.fill {
            Fill::IgnoreSrc(_) => r.push(Support::at_least(
                "`ignore-src` operand",
                80,
                PtxVersion::new(7, 5),
            )),
            // "src-size ... must be less than cp-size"; larger is UB at run time, but ptxas rejects a
            // constant outside 0..=cp-size (it accepts src-size == cp-size, a full copy).
            Fill::SrcSize(Value::Imm(n)) if !(0..=self.size.bytes()).contains(n) => {
                r.push(Support::never(format!(
                    "immediate src-size {n} outside 0..={}",
                    self.size.bytes()
                )))
            }
            Fill::SrcSize(_) | Fill::Full => {}
        }
        r
    }

    fn visit(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        f(Slot::Addr {
            role: "dst",
            space: self.shared.space(),
            addr: &mut self.dst,
        });
        f(Slot::Addr {
            role: "src",
            space: Space::Global,
            addr: &mut self.src,
        });
        match &mut self.fill {
            Fill::Full => {}
            Fill::SrcSize(v) => f(Slot::Value {
                role: "srcSize",
                ty: RegTy::B32,
                value: v,
                imm_ok: true,
            }),
            Fill::IgnoreSrc(p) => {
                let mut v = Value::Reg(std::mem::take(p));
                f(Slot::Value {
                    role: "ignoreSrc",
                    ty: RegTy::Pred,
                    value: &mut v,
                    imm_ok: false,
                });
                // The visitor may only rename: a predicate operand stays a register.
                *p = match v {
                    Value::Reg(r) => r,
                    Value::Imm(i) => i.to_string(),
                };
            }
        }
        self.hint.visit(f);
    }
}

/// Is a register named after cp.async's lone 4th operand under `.L2::cache_hint` the policy?
/// 64-bit registers (declared, or named `%rd…`) are; other known widths are not; other names
/// are unless they mention `size` (ASSUMPTION, mirrors [`ParseCtx::is_pred`]'s naming habits).
fn looks_like_policy(ctx: &ParseCtx, name: &str) -> bool {
    match ctx.width(name) {
        Some(bits) => bits == 64,
        None => !name.to_ascii_lowercase().contains("size"),
    }
}

impl fmt::Display for CpAsyncOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CpAsyncOp::Copy(c) => {
                f.write_str(&c.opcode())?;
                fmt_ops(f, &c.operands())
            }
            CpAsyncOp::CommitGroup => f.write_str("cp.async.commit_group"),
            CpAsyncOp::WaitGroup(n) => write!(f, "cp.async.wait_group {n}"),
            CpAsyncOp::WaitAll => f.write_str("cp.async.wait_all"),
            CpAsyncOp::MbarrierArrive { addr, .. } => {
                f.write_str(&self.opcode_text())?;
                write!(f, " {addr}")
            }
        }
    }
}

impl CpAsyncOp {
    fn opcode_text(&self) -> String {
        match self {
            CpAsyncOp::Copy(c) => c.opcode(),
            CpAsyncOp::CommitGroup => "cp.async.commit_group".into(),
            CpAsyncOp::WaitGroup(_) => "cp.async.wait_group".into(),
            CpAsyncOp::WaitAll => "cp.async.wait_all".into(),
            CpAsyncOp::MbarrierArrive { noinc, space, .. } => join(
                "cp.async.mbarrier.arrive",
                &[
                    if *noinc { "noinc" } else { "" },
                    space.map(|s| s.ptx()).unwrap_or(""),
                    "b64",
                ],
            ),
        }
    }
}

fn no_quals(op: &Opcode, head: &str) -> Result<(), SyntaxError> {
    op.quals(head).finish(head)
}

impl Family for CpAsyncOp {
    const HEADS: &'static [&'static str] = &[
        "cp.async",
        "cp.async.commit_group",
        "cp.async.wait_group",
        "cp.async.wait_all",
        "cp.async.mbarrier.arrive",
    ];

    fn parse(head: &str, op: &Opcode, args: &Args, ctx: &ParseCtx) -> Result<Self, SyntaxError> {
        match head {
            "cp.async" => CpAsync::parse(op, args, ctx).map(CpAsyncOp::Copy),
            "cp.async.commit_group" | "cp.async.wait_all" => {
                no_quals(op, head)?;
                args.count(0, 0, "no operands")?;
                Ok(if head == "cp.async.wait_all" {
                    CpAsyncOp::WaitAll
                } else {
                    CpAsyncOp::CommitGroup
                })
            }
            "cp.async.wait_group" => {
                no_quals(op, head)?;
                args.count(1, 1, "N")?;
                Ok(CpAsyncOp::WaitGroup(args.imm(0, "N")?))
            }
            "cp.async.mbarrier.arrive" => {
                let mut q = op.quals(head);
                let noinc = q.flag("noinc")?;
                let space = q.take(&SharedSpelling::CHOICES, "state space")?;
                q.need(&[("b64", ())], "type")?;
                q.finish(head)?;
                args.count(1, 1, "[addr]")?;
                Ok(CpAsyncOp::MbarrierArrive {
                    noinc,
                    space,
                    addr: args.addr(0, "addr")?,
                })
            }
            _ => Err(SyntaxError::new(
                op.at,
                "a cp.async instruction",
                format!("`{}`", op.text()),
            )),
        }
    }

    fn variants() -> Vec<Self> {
        let mut v = Vec::new();
        for cache in [CacheOp::Ca, CacheOp::Cg] {
            for shared in [SharedSpelling::Shared, SharedSpelling::SharedCta] {
                for size in CpSize::ALL {
                    for prefetch in [
                        None,
                        Some(PrefetchSize::B64),
                        Some(PrefetchSize::B128),
                        Some(PrefetchSize::B256),
                    ] {
                        for fill in [
                            Fill::Full,
                            Fill::SrcSize(Value::reg("srcSize")),
                            Fill::IgnoreSrc("ignoreSrc".into()),
                        ] {
                            for hint in CacheHint::all() {
                                // A policy with neither qualifier nor fill would print as src-size:
                                // that text is another variant.
                                if !hint.qualifier && hint.policy.is_some() && fill == Fill::Full {
                                    continue;
                                }
                                v.push(CpAsyncOp::Copy(CpAsync {
                                    cache,
                                    shared,
                                    hint,
                                    prefetch,
                                    dst: Address::reg("dst"),
                                    src: Address::reg("src"),
                                    size,
                                    fill: fill.clone(),
                                }));
                            }
                        }
                    }
                }
            }
        }
        v.extend([
            CpAsyncOp::CommitGroup,
            CpAsyncOp::WaitGroup(0),
            CpAsyncOp::WaitAll,
        ]);
        for noinc in [false, true] {
            for space in [
                None,
                Some(SharedSpelling::Shared),
                Some(SharedSpelling::SharedCta),
            ] {
                v.push(CpAsyncOp::MbarrierArrive {
                    noinc,
                    space,
                    addr: Address::reg("mbar"),
                });
            }
        }
        v
    }

    fn requirement(&self) -> Requirement {
        match self {
            CpAsyncOp::Copy(c) => c.requirement(),
            // §9.7.9.25.3.2/.3: PTX 7.0, sm_80.
            CpAsyncOp::CommitGroup | CpAsyncOp::WaitGroup(_) | CpAsyncOp::WaitAll => {
                Requirement::new().and(Support::at_least("cp.async async-group", 80, V70))
            }
            // §9.7.13.15.15: PTX 7.0, sm_80; `::cta` from 7.8.
            CpAsyncOp::MbarrierArrive { space, .. } => {
                let mut r =
                    Requirement::new().and(Support::at_least("cp.async.mbarrier.arrive", 80, V70));
                r.all.extend(space.and_then(|s| s.support()));
                r
            }
        }
    }

    fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        match self {
            CpAsyncOp::Copy(c) => c.visit(f),
            CpAsyncOp::CommitGroup | CpAsyncOp::WaitAll => {}
            // N is part of the variant (an integer constant), not a bindable operand.
            CpAsyncOp::WaitGroup(_) => {}
            CpAsyncOp::MbarrierArrive { space, addr, .. } => {
                let space = space.map(|s| s.space()).unwrap_or(Space::Generic);
                f(Slot::Addr {
                    role: "mbar",
                    space,
                    addr,
                })
            }
        }
    }

    fn row(&self) -> String {
        let mut s = self.opcode_text();
        if let CpAsyncOp::Copy(c) = self {
            // cp-size is an immediate that changes the variant (`.cg` takes only 16): part of the row.
            s.push_str(&format!(" cp-size={}", c.size.bytes()));
            match c.fill {
                Fill::Full => {}
                Fill::SrcSize(_) => s.push_str(" +srcSize"),
                Fill::IgnoreSrc(_) => s.push_str(" +ignoreSrc"),
            }
            s.push_str(c.hint.row_marker());
        }
        s
    }

    fn family(&self) -> &'static str {
        match self {
            CpAsyncOp::Copy(_) | CpAsyncOp::MbarrierArrive { .. } => "cp.async",
            CpAsyncOp::CommitGroup | CpAsyncOp::WaitGroup(_) | CpAsyncOp::WaitAll => "async-group",
        }
    }
}

#[cfg(test)]
mod tests;
