//! §9.7.16.11 tcgen05.fence and §9.7.16.12 tcgen05.commit.

use super::{cta_group, mandatory};
use crate::ptx::common::CtaGroup;
use crate::ptx::lex::SyntaxError;
use crate::ptx::opcode::Quals;
use crate::ptx::operand::{Address, Args, RegTy, Slot, Space, Value};
use std::fmt;

/// `tcgen05.fence::before_thread_sync;` / `tcgen05.fence::after_thread_sync;` (no qualifiers:
/// ptxas rejects `.sync`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FenceKind {
    BeforeThreadSync,
    AfterThreadSync,
}

impl FenceKind {
    pub const ALL: [FenceKind; 2] = [FenceKind::BeforeThreadSync, FenceKind::AfterThreadSync];
    pub(super) fn parse(self, args: &Args) -> Result<FenceKind, SyntaxError> {
        args.count(0, 0, "no operands")?;
        Ok(self)
    }
    pub(super) fn opcode(&self) -> String {
        match self {
            FenceKind::BeforeThreadSync => "tcgen05.fence::before_thread_sync".into(),
            FenceKind::AfterThreadSync => "tcgen05.fence::after_thread_sync".into(),
        }
    }
}

impl fmt::Display for FenceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.opcode())
    }
}

/// `tcgen05.commit.cta_group.mbarrier::arrive::one{.shared::cluster}{.multicast::cluster}.b64
/// [mbar] {, ctaMask};` — `.multicast::cluster` and `ctaMask` come together, so they are one field.
#[derive(Clone, Debug, PartialEq)]
pub struct Commit {
    pub cta: CtaGroup,
    /// `.shared::cluster` written; otherwise `mbar` is generic (and must fall in the
    /// `.shared::cluster` window).
    pub shared_cluster: bool,
    pub mbar: Address,
    /// `.multicast::cluster` with its 16-bit `ctaMask` (a register: ptxas 13.0 rejects an immediate).
    pub cta_mask: Option<Value>,
}

impl Commit {
    pub(super) fn parse(q: &mut Quals, args: &Args) -> Result<Commit, SyntaxError> {
        let cta = cta_group(q)?;
        // The only `.completion_mechanism`.
        mandatory(q, "mbarrier::arrive::one")?;
        let shared_cluster = q.flag("shared::cluster")?;
        let multicast = q.flag("multicast::cluster")?;
        mandatory(q, "b64")?;
        if multicast {
            args.count(2, 2, "[mbar], ctaMask with `.multicast::cluster`")?;
        } else {
            args.count(1, 1, "[mbar] (ctaMask only with `.multicast::cluster`)")?;
        }
        let mbar = args.addr(0, "mbar")?;
        let cta_mask = if multicast {
            Some(Value::Reg(args.reg(1, "ctaMask")?))
        } else {
            None
        };
        Ok(Commit {
            cta,
            shared_cluster,
            mbar,
            cta_mask,
        })
    }
    pub(super) fn variants() -> Vec<Commit> {
        let mut v = Vec::new();
        for (_, cta) in CtaGroup::CHOICES {
            for shared_cluster in [false, true] {
                for multicast in [false, true] {
                    v.push(Commit {
                        cta,
                        shared_cluster,
                        mbar: Address::reg("mbar"),
                        cta_mask: multicast.then(|| Value::reg("ctaMask")),
                    });
                }
            }
        }
        v
    }
    pub(super) fn opcode(&self) -> String {
        format!(
            "tcgen05.commit.{}.mbarrier::arrive::one{}{}.b64",
            self.cta.ptx(),
            if self.shared_cluster {
                ".shared::cluster"
            } else {
                ""
            },
            if self.cta_mask.is_some() {
                ".multicast::cluster"
            } else {
                ""
            }
        )
    }
    pub(super) fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        let space = if self.shared_cluster {
            Space::SharedCluster
        } else {
            Space::Generic
        };
        f(Slot::Addr {
            role: "mbar",
            space,
            addr: &mut self.mbar,
        });
        if let Some(m) = &mut self.cta_mask {
            f(Slot::Value {
                role: "ctaMask",
                ty: RegTy::B16,
                value: m,
                imm_ok: false,
            });
        }
    }
}

impl fmt::Display for Commit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.opcode(), self.mbar)?;
        if let Some(m) = &self.cta_mask {
            write!(f, ", {m}")?;
        }
        Ok(())
    }
}
