//! `cp.async.bulk` (§9.7.9.25.4.1): the four copy directions, each with exactly its operands.

use super::{completion_for, parse_spaces, Completion};
use crate::ptx::cp_async::cache_hint::CacheHint;
use crate::ptx::lex::SyntaxError;
use crate::ptx::opcode::{join, Opcode};
use crate::ptx::operand::{Address, Args, RegTy, Slot, Space, Value};
use crate::target::{PtxVersion, Requirement, Support};

/// Direction (`.dst.src`) with the operands and qualifiers only that direction has.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CopyDir {
    /// `.shared::cta.global.mbarrier::complete_tx::bytes{.ignore_oob}`;
    /// `ignore_oob` = (`ignoreBytesLeft`, `ignoreBytesRight`).
    GlobalToCta {
        ignore_oob: Option<(Value, Value)>,
        mbar: Address,
    },
    /// `.shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}`;
    /// `cta_mask` present exactly when `.multicast::cluster` is.
    GlobalToCluster {
        cta_mask: Option<Value>,
        mbar: Address,
    },
    /// `.shared::cluster.shared::cta.mbarrier::complete_tx::bytes` (strictly remote).
    CtaToCluster { mbar: Address },
    /// `.global.shared::cta.bulk_group{.cp_mask}`; `byte_mask` present exactly when `.cp_mask` is.
    CtaToGlobal { byte_mask: Option<Value> },
}

impl CopyDir {
    pub fn spaces(&self) -> (Space, Space) {
        match self {
            CopyDir::GlobalToCta { .. } => (Space::SharedCta, Space::Global),
            CopyDir::GlobalToCluster { .. } => (Space::SharedCluster, Space::Global),
            CopyDir::CtaToCluster { .. } => (Space::SharedCluster, Space::SharedCta),
            CopyDir::CtaToGlobal { .. } => (Space::Global, Space::SharedCta),
        }
    }
    fn mbar_mut(&mut self) -> Option<&mut Address> {
        match self {
            CopyDir::GlobalToCta { mbar, .. }
            | CopyDir::GlobalToCluster { mbar, .. }
            | CopyDir::CtaToCluster { mbar } => Some(mbar),
            CopyDir::CtaToGlobal { .. } => None,
        }
    }
}

/// One `cp.async.bulk` instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BulkCopy {
    pub dir: CopyDir,
    pub hint: CacheHint,
    pub dst: Address,
    pub src: Address,
    pub size: Value,
}

impl BulkCopy {
    pub fn opcode(&self) -> String {
        let (d, s) = self.dir.spaces();
        let c = completion_for(d, s).map(Completion::ptx).unwrap_or("");
        // Syntax-block order: completion, multicast, cache hint, cp_mask / ignore_oob.
        let mcast = matches!(
            self.dir,
            CopyDir::GlobalToCluster {
                cta_mask: Some(_),
                ..
            }
        );
        let cp_mask = matches!(self.dir, CopyDir::CtaToGlobal { byte_mask: Some(_) });
        let oob = matches!(
            self.dir,
            CopyDir::GlobalToCta {
                ignore_oob: Some(_),
                ..
            }
        );
        join(
            "cp.async.bulk",
            &[
                d.ptx(),
                s.ptx(),
                c,
                if mcast { "multicast::cluster" } else { "" },
                self.hint.qual(),
                if cp_mask { "cp_mask" } else { "" },
                if oob { "ignore_oob" } else { "" },
            ],
        )
    }

    pub fn operands(&self) -> Vec<String> {
        let mut v = vec![
            self.dst.to_string(),
            self.src.to_string(),
            self.size.to_string(),
        ];
        let policy = self.hint.policy.as_ref().map(|p| p.to_string());
        match &self.dir {
            CopyDir::GlobalToCta { ignore_oob, mbar } => {
                if let Some((l, r)) = ignore_oob {
                    v.push(l.to_string());
                    v.push(r.to_string());
                }
                v.push(mbar.to_string());
                v.extend(policy);
            }
            CopyDir::GlobalToCluster { cta_mask, mbar } => {
                v.push(mbar.to_string());
                v.extend(cta_mask.as_ref().map(|m| m.to_string()));
                v.extend(policy);
            }
            CopyDir::CtaToCluster { mbar } => {
                v.push(mbar.to_string());
                v.extend(policy);
            }
            CopyDir::CtaToGlobal { byte_mask } => {
                v.extend(policy);
                v.extend(byte_mask.as_ref().map(|m| m.to_string()));
            }
        }
        v
    }

    pub fn parse(op: &Opcode, args: &Args) -> Result<BulkCopy, SyntaxError> {
        let head = "cp.async.bulk";
        let mut q = op.quals(head);
        let (dst_sp, src_sp) = parse_spaces(&mut q, op)?;
        let completion = Completion::take(&mut q)?;
        let mcast = q.flag("multicast::cluster")?;
        let hint_q = CacheHint::take(&mut q)?;
        let cp_mask = q.flag("cp_mask")?;
        let oob = q.flag("ignore_oob")?;
        q.finish(head)?;
        let want = completion_for(dst_sp, src_sp).ok_or_else(|| {
            SyntaxError::new(op.at, "a cp.async.bulk direction (.shared::cta.global, .shared::cluster.global, .shared::cluster.shared::cta, .global.shared::cta)", format!("{}{}", dst_sp.ptx(), src_sp.ptx()))
        })?;
        if want != completion {
            return Err(SyntaxError::new(
                op.at,
                format!("`.{}` for {}{}", want.ptx(), dst_sp.ptx(), src_sp.ptx()),
                format!("`.{}`", completion.ptx()),
            ));
        }
        let only = |flag: bool, name: &str, dir: &str| -> Result<(), SyntaxError> {
            if flag {
                Err(SyntaxError::new(
                    op.at,
                    format!("`.{name}` only with {dir}"),
                    format!("{}{}", dst_sp.ptx(), src_sp.ptx()),
                ))
            } else {
                Ok(())
            }
        };
        let is = |d: Space, s: Space| dst_sp == d && src_sp == s;
        only(
            mcast && !is(Space::SharedCluster, Space::Global),
            "multicast::cluster",
            ".shared::cluster.global",
        )?;
        only(
            cp_mask && !is(Space::Global, Space::SharedCta),
            "cp_mask",
            ".global.shared::cta",
        )?;
        only(
            oob && !is(Space::SharedCta, Space::Global),
            "ignore_oob",
            ".shared::cta.global",
        )?;

        let dst = args.addr(0, "dstMem")?;
        let src = args.addr(1, "srcMem")?;
        let size = args.value(2, "size")?;
        // Operands after `size` that the direction requires; a single extra one is the policy.
        let fixed = 3 + match (dst_sp, src_sp) {
            (Space::SharedCta, _) => 1 + 2 * oob as usize,
            (Space::SharedCluster, _) => 1 + mcast as usize,
            _ => cp_mask as usize,
        };
        args.count(fixed, fixed + 1, "cp.async.bulk operands")?;
        let has_policy = args.len() == fixed + 1;
        let dir = match (dst_sp, src_sp) {
            (Space::SharedCta, _) => {
                let ignore_oob = if oob {
                    Some((
                        args.value(3, "ignoreBytesLeft")?,
                        args.value(4, "ignoreBytesRight")?,
                    ))
                } else {
                    None
                };
                CopyDir::GlobalToCta {
                    ignore_oob,
                    mbar: args.addr(fixed - 1, "mbar")?,
                }
            }
            (Space::SharedCluster, Space::Global) => CopyDir::GlobalToCluster {
                mbar: args.addr(3, "mbar")?,
                cta_mask: if mcast {
                    Some(args.value(4, "ctaMask")?)
                } else {
                    None
                },
            },
            (Space::SharedCluster, _) => CopyDir::CtaToCluster {
                mbar: args.addr(3, "mbar")?,
            },
            _ => CopyDir::CtaToGlobal {
                byte_mask: if cp_mask {
                    Some(args.value(args.len() - 1, "byteMask")?)
                } else {
                    None
                },
            },
        };
        let policy_at = if matches!(dir, CopyDir::CtaToGlobal { .. }) {
            3
        } else {
            fixed
        };
        let policy = if has_policy {
            Some(Value::Reg(args.reg(policy_at, "cache-policy")?))
        } else {
            None
        };
        Ok(BulkCopy {
            dir,
            hint: CacheHint {
                qualifier: hint_q,
                policy,
            },
            dst,
            src,
            size,
        })
    }

    pub fn requirement(&self) -> Requirement {
        // §9.7.9.25.4.1 PTX ISA Notes: 8.0; Target ISA Notes: sm_90.
        let mut r = Requirement::new().and(Support::at_least(
            "cp.async.bulk",
            90,
            PtxVersion::new(8, 0),
        ));
        match &self.dir {
            CopyDir::GlobalToCta { ignore_oob, .. } => {
                r.push(Support::at_least(
                    "`.shared::cta` destination",
                    90,
                    PtxVersion::new(8, 6),
                ));
                if ignore_oob.is_some() {
                    r.push(Support::at_least(
                        "`.ignore_oob`",
                        90,
                        PtxVersion::new(9, 2),
                    ));
                }
            }
            // `.multicast::cluster` is only *advised* for sm_90a/sm_100f/...: legal on every sm_90+.
            CopyDir::GlobalToCluster { .. } => {}
            CopyDir::CtaToCluster { .. } => {
                if self.hint.qualifier {
                    // "The qualifier .level::cache_hint is only supported when at least one of the .src or .dst statespaces is .global".
                    r.push(Support::never("`.L2::cache_hint` needs a `.global` side"));
                }
            }
            CopyDir::CtaToGlobal { byte_mask } => {
                if byte_mask.is_some() {
                    r.push(Support::at_least("`.cp_mask`", 100, PtxVersion::new(8, 6)));
                }
            }
        }
        r.all.extend(self.hint.rules());
        r.all.extend(super::imm_size_rule(&self.size));
        r
    }

    pub fn visit(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        let (d, s) = self.dir.spaces();
        f(Slot::Addr {
            role: "dst",
            space: d,
            addr: &mut self.dst,
        });
        f(Slot::Addr {
            role: "src",
            space: s,
            addr: &mut self.src,
        });
        f(Slot::Value {
            role: "size",
            ty: RegTy::B32,
            value: &mut self.size,
            imm_ok: true,
        });
        if let CopyDir::GlobalToCta {
            ignore_oob: Some((l, r)),
            ..
        } = &mut self.dir
        {
            f(Slot::Value {
                role: "ignoreBytesLeft",
                ty: RegTy::B32,
                value: l,
                imm_ok: true,
            });
            f(Slot::Value {
                role: "ignoreBytesRight",
                ty: RegTy::B32,
                value: r,
                imm_ok: true,
            });
        }
        // The mbarrier lives in the destination's shared memory window.
        if let Some(m) = self.dir.mbar_mut() {
            f(Slot::Addr {
                role: "mbar",
                space: d,
                addr: m,
            });
        }
        // Operand order: ctaMask before the policy, byteMask after it.
        if let CopyDir::GlobalToCluster {
            cta_mask: Some(m), ..
        } = &mut self.dir
        {
            f(Slot::Value {
                role: "ctaMask",
                ty: RegTy::B16,
                value: m,
                imm_ok: true,
            });
        }
        self.hint.visit(f);
        if let CopyDir::CtaToGlobal { byte_mask: Some(m) } = &mut self.dir {
            f(Slot::Value {
                role: "byteMask",
                ty: RegTy::B16,
                value: m,
                imm_ok: true,
            });
        }
    }

    pub fn row(&self) -> String {
        let mut s = self.opcode();
        match &self.dir {
            CopyDir::GlobalToCta {
                ignore_oob: Some(_),
                ..
            } => s.push_str(" +ignoreBytesLeft +ignoreBytesRight"),
            CopyDir::GlobalToCluster {
                cta_mask: Some(_), ..
            } => s.push_str(" +ctaMask"),
            _ => {}
        }
        s.push_str(self.hint.row_marker());
        if let CopyDir::CtaToGlobal { byte_mask: Some(_) } = self.dir {
            s.push_str(" +byteMask");
        }
        s
    }

    pub fn variants() -> Vec<BulkCopy> {
        let mbar = || Address::reg("mbar");
        let mut dirs = Vec::new();
        for oob in [
            None,
            Some((
                Value::reg("ignoreBytesLeft"),
                Value::reg("ignoreBytesRight"),
            )),
        ] {
            dirs.push(CopyDir::GlobalToCta {
                ignore_oob: oob,
                mbar: mbar(),
            });
        }
        for m in [None, Some(Value::reg("ctaMask"))] {
            dirs.push(CopyDir::GlobalToCluster {
                cta_mask: m,
                mbar: mbar(),
            });
        }
        dirs.push(CopyDir::CtaToCluster { mbar: mbar() });
        for m in [None, Some(Value::reg("byteMask"))] {
            dirs.push(CopyDir::CtaToGlobal { byte_mask: m });
        }
        let mut v = Vec::new();
        for dir in dirs {
            for hint in CacheHint::all() {
                v.push(BulkCopy {
                    dir: dir.clone(),
                    hint,
                    dst: Address::reg("dst"),
                    src: Address::reg("src"),
                    size: Value::reg("size"),
                });
            }
        }
        v
    }
}
