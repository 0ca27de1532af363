//! Bulk (non-tensor) asynchronous copies (§9.7.9.25.4): `cp.async.bulk`, `cp.reduce.async.bulk`,
//! `cp.async.bulk.prefetch.L2.global`, and their bulk async-group instructions
//! `cp.async.bulk.commit_group` / `cp.async.bulk.wait_group{.read} N` (§9.7.9.25.6).

pub mod copy;
pub mod reduce;

use super::cp_async::cache_hint::CacheHint;
use super::lex::SyntaxError;
use super::opcode::{join, Opcode, Quals};
use super::operand::{Address, Args, ParseCtx, RegTy, Slot, Space, Value};
use super::Family;
use crate::target::{PtxVersion, Requirement, Support};
pub use copy::{BulkCopy, CopyDir};
pub use reduce::{BulkReduce, RedDst};
use std::fmt;

const V80: PtxVersion = PtxVersion::new(8, 0);

/// `.completion_mechanism`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Completion {
    /// `.mbarrier::complete_tx::bytes`
    Mbarrier,
    /// `.bulk_group`
    BulkGroup,
}

impl Completion {
    const CHOICES: [(&'static str, Completion); 2] = [
        ("mbarrier::complete_tx::bytes", Completion::Mbarrier),
        ("bulk_group", Completion::BulkGroup),
    ];
    pub fn ptx(self) -> &'static str {
        match self {
            Completion::Mbarrier => "mbarrier::complete_tx::bytes",
            Completion::BulkGroup => "bulk_group",
        }
    }
    fn take(q: &mut Quals) -> Result<Completion, SyntaxError> {
        q.need(&Self::CHOICES, "completion mechanism")
    }
}

/// The completion-mechanism table of §9.7.9.25.4.1/.2: mbarrier when the destination is shared
/// memory, bulk async-group when it is global; `None` for a direction the instructions lack.
pub fn completion_for(dst: Space, src: Space) -> Option<Completion> {
    match (dst, src) {
        (Space::SharedCta, Space::Global)
        | (Space::SharedCluster, Space::Global)
        | (Space::SharedCluster, Space::SharedCta) => Some(Completion::Mbarrier),
        (Space::Global, Space::SharedCta) => Some(Completion::BulkGroup),
        _ => None,
    }
}

/// `.dst.src`: exactly two state-space qualifiers, destination first.
fn parse_spaces(q: &mut Quals, op: &Opcode) -> Result<(Space, Space), SyntaxError> {
    let sp = q.take_ordered(&[
        ("shared::cta", Space::SharedCta),
        ("shared::cluster", Space::SharedCluster),
        ("global", Space::Global),
    ]);
    match sp.as_slice() {
        [(_, d), (_, s)] => Ok((*d, *s)),
        [] | [_] => Err(SyntaxError::new(
            q.end.max(op.at),
            "`.dst.src` state spaces (two of .shared::cta, .shared::cluster, .global)",
            format!("{}", sp.len()),
        )),
        [_, _, (at, _), ..] => Err(SyntaxError::new(
            *at,
            "exactly two state spaces `.dst.src`",
            format!("{}", sp.len()),
        )),
    }
}

/// Largest immediate `size` ptxas 13.0 accepts: 2^20 - 16 (the largest multiple of 16 below the
/// mbarrier tx-count limit 2^20 - 1; the manual states no upper bound).
pub const MAX_IMM_SIZE: i64 = (1 << 20) - 16;

/// A constant `size` is checked when the program is assembled: "size must be a multiple of 16"
/// (§9.7.9.25.4.x: undefined behaviour at run time) is, for an immediate, rejected by ptxas, and so
/// is one outside 0..=2^20-16 (ASSUMPTION: we follow ptxas; the manual gives no range).
pub fn imm_size_rule(size: &Value) -> Option<Support> {
    match size {
        Value::Imm(n) if n % 16 != 0 || !(0..=MAX_IMM_SIZE).contains(n) => Some(Support::never(
            format!("immediate size {n} not a multiple of 16 in 0..={MAX_IMM_SIZE}"),
        )),
        _ => None,
    }
}

/// `cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [srcMem], size{, cache-policy}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BulkPrefetch {
    pub hint: CacheHint,
    pub src: Address,
    pub size: Value,
}

/// One instruction of the bulk-copy families.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BulkOp {
    Copy(BulkCopy),
    Reduce(BulkReduce),
    Prefetch(BulkPrefetch),
    CommitGroup,
    /// `cp.async.bulk.wait_group{.read} N` (N an integer constant).
    WaitGroup {
        read: bool,
        n: i64,
    },
}

impl BulkOp {
    fn opcode_text(&self) -> String {
        match self {
            BulkOp::Copy(c) => c.opcode(),
            BulkOp::Reduce(r) => r.opcode(),
            BulkOp::Prefetch(p) => join("cp.async.bulk.prefetch", &["L2", "global", p.hint.qual()]),
            BulkOp::CommitGroup => "cp.async.bulk.commit_group".into(),
            BulkOp::WaitGroup { read, .. } => join(
                "cp.async.bulk.wait_group",
                &[if *read { "read" } else { "" }],
            ),
        }
    }
    fn operands(&self) -> Vec<String> {
        match self {
            BulkOp::Copy(c) => c.operands(),
            BulkOp::Reduce(r) => r.operands(),
            BulkOp::Prefetch(p) => {
                let mut v = vec![p.src.to_string(), p.size.to_string()];
                v.extend(p.hint.policy.as_ref().map(|x| x.to_string()));
                v
            }
            BulkOp::CommitGroup => Vec::new(),
            BulkOp::WaitGroup { n, .. } => vec![n.to_string()],
        }
    }
}

impl fmt::Display for BulkOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.opcode_text())?;
        let ops = self.operands();
        if !ops.is_empty() {
            write!(f, " {}", ops.join(", "))?;
        }
        Ok(())
    }
}

impl Family for BulkOp {
    const HEADS: &'static [&'static str] = &[
        "cp.async.bulk",
        "cp.reduce.async.bulk",
        "cp.async.bulk.prefetch",
        "cp.async.bulk.commit_group",
        "cp.async.bulk.wait_group",
    ];

    fn parse(head: &str, op: &Opcode, args: &Args, _ctx: &ParseCtx) -> Result<Self, SyntaxError> {
        match head {
            "cp.async.bulk" => BulkCopy::parse(op, args).map(BulkOp::Copy),
            "cp.reduce.async.bulk" => BulkReduce::parse(op, args).map(BulkOp::Reduce),
            "cp.async.bulk.prefetch" => {
                let mut q = op.quals(head);
                q.need(&[("L2", ())], "cache level")?;
                q.need(&[("global", ())], "source state space")?;
                let hint_q = CacheHint::take(&mut q)?;
                q.finish(head)?;
                args.count(2, 3, "[srcMem], size{, cache-policy}")?;
                let policy = if args.len() == 3 {
                    Some(Value::Reg(args.reg(2, "cache-policy")?))
                } else {
                    None
                };
                Ok(BulkOp::Prefetch(BulkPrefetch {
                    hint: CacheHint {
                        qualifier: hint_q,
                        policy,
                    },
                    src: args.addr(0, "srcMem")?,
                    size: args.value(1, "size")?,
                }))
            }
            "cp.async.bulk.commit_group" => {
                op.quals(head).finish(head)?;
                args.count(0, 0, "no operands")?;
                Ok(BulkOp::CommitGroup)
            }
            "cp.async.bulk.wait_group" => {
                let mut q = op.quals(head);
                let read = q.flag("read")?;
                q.finish(head)?;
                args.count(1, 1, "N")?;
                Ok(BulkOp::WaitGroup {
                    read,
                    n: args.imm(0, "N")?,
                })
            }
            _ => Err(SyntaxError::new(
                op.at,
                "a bulk-copy instruction",
                format!("`{}`", op.text()),
            )),
        }
    }

    fn variants() -> Vec<Self> {
        let mut v: Vec<BulkOp> = BulkCopy::variants().into_iter().map(BulkOp::Copy).collect();
        v.extend(BulkReduce::variants().into_iter().map(BulkOp::Reduce));
        for hint in CacheHint::all() {
            v.push(BulkOp::Prefetch(BulkPrefetch {
                hint,
                src: Address::reg("src"),
                size: Value::reg("size"),
            }));
        }
        v.push(BulkOp::CommitGroup);
        v.extend([false, true].map(|read| BulkOp::WaitGroup { read, n: 0 }));
        v
    }

    fn requirement(&self) -> Requirement {
        match self {
            BulkOp::Copy(c) => c.requirement(),
            BulkOp::Reduce(r) => r.requirement(),
            BulkOp::Prefetch(p) => {
                // §9.7.9.25.4.3: PTX 8.0, sm_90.
                let mut r =
                    Requirement::new().and(Support::at_least("cp.async.bulk.prefetch", 90, V80));
                r.all.extend(p.hint.rules());
                r.all.extend(imm_size_rule(&p.size));
                r
            }
            // §9.7.9.25.6.1/.2: PTX 8.0, sm_90.
            BulkOp::CommitGroup | BulkOp::WaitGroup { .. } => {
                Requirement::new().and(Support::at_least("bulk async-group", 90, V80))
            }
        }
    }

    fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        match self {
            BulkOp::Copy(c) => c.visit(f),
            BulkOp::Reduce(r) => r.visit(f),
            BulkOp::Prefetch(p) => {
                f(Slot::Addr {
                    role: "src",
                    space: Space::Global,
                    addr: &mut p.src,
                });
                f(Slot::Value {
                    role: "size",
                    ty: RegTy::B32,
                    value: &mut p.size,
                    imm_ok: true,
                });
                p.hint.visit(f);
            }
            // N is part of the variant (an integer constant), not a bindable operand.
            BulkOp::CommitGroup | BulkOp::WaitGroup { .. } => {}
        }
    }

    fn row(&self) -> String {
        match self {
            BulkOp::Copy(c) => c.row(),
            BulkOp::Reduce(r) => r.row(),
            BulkOp::Prefetch(p) => format!("{}{}", self.opcode_text(), p.hint.row_marker()),
            BulkOp::CommitGroup | BulkOp::WaitGroup { .. } => self.opcode_text(),
        }
    }

    fn family(&self) -> &'static str {
        match self {
            BulkOp::Copy(_) => "cp.async.bulk",
            BulkOp::Reduce(_) => "cp.reduce.async.bulk",
            BulkOp::Prefetch(_) => "cp.async.bulk.prefetch",
            BulkOp::CommitGroup | BulkOp::WaitGroup { .. } => "async-group",
        }
    }
}

#[cfg(test)]
mod tests;
