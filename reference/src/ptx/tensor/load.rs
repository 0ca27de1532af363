//! cp.async.bulk.tensor global → shared (§9.7.9.25.5.2, first two syntax blocks): completion by
//! mbarrier complete-tx, optional multicast over the cluster and CTA-pair signalling.

use super::mode::{Dim, FetchKind, FetchMode};
use super::operands::{self, Operands};
use super::{row, Completion, V80, V86, V88};
use crate::ptx::common::CtaGroup;
use crate::ptx::lex::SyntaxError;
use crate::ptx::opcode::{self, Quals};
use crate::ptx::operand::{Address, Args, RegTy, Slot, Space, TensorRef, Value, VecOperand};
use crate::target::{Requirement, Since, Support, TargetClass};
use std::fmt;

pub const HEAD: &str = "cp.async.bulk.tensor";

/// `.dst` of a load; `.src` is always `.global`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadDst {
    SharedCta,
    SharedCluster,
}

impl LoadDst {
    pub const ALL: [LoadDst; 2] = [LoadDst::SharedCta, LoadDst::SharedCluster];
    fn space(self) -> Space {
        match self {
            LoadDst::SharedCta => Space::SharedCta,
            LoadDst::SharedCluster => Space::SharedCluster,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct TensorLoad {
    pub dim: Dim,
    pub dst: LoadDst,
    /// The load mode with its `im2colInfo`.
    pub mode: FetchMode,
    /// `.multicast::cluster` with its `ctaMask` operand. Only the `.shared::cluster` syntax block
    /// has it; with `.shared::cta` it is kept representable and illegal on every target.
    pub multicast: Option<Value>,
    pub cta_group: Option<CtaGroup>,
    /// `.L2::cache_hint` with its `cache-policy` operand (ptxas requires both or neither).
    pub cache_policy: Option<Value>,
    pub dst_mem: Address,
    pub tensor: TensorRef,
    pub mbar: Address,
}

impl TensorLoad {
    /// Parse the rest of a load once `.dst.src` have been taken from `q`.
    pub fn parse(dst: LoadDst, q: &mut Quals, args: &Args) -> Result<TensorLoad, SyntaxError> {
        let dim = Dim::take(q)?;
        let kind = FetchKind::take(q)?;
        Completion::need(q, Completion::Mbarrier)?;
        let multicast = q.flag("multicast::cluster")?;
        let cta_group = q.take(&CtaGroup::CHOICES, "`.cta_group`")?;
        let hint = q.flag("L2::cache_hint")?;
        q.finish("cp.async.bulk.tensor (global → shared)")?;

        let mut ops = Operands::new(args);
        let dst_mem = ops.addr("dstMem")?;
        let tensor = ops.tensor(kind.coords(dim), &coord_rule(kind))?;
        let mbar = ops.addr("mbar")?;
        let mode = kind.finish(dim, &mut ops)?;
        let multicast = ops.value_if(multicast, "ctaMask, required by `.multicast::cluster`")?;
        let cache_policy = ops.value_if(hint, "cache-policy, required by `.L2::cache_hint`")?;
        ops.done("ctaMask needs `.multicast::cluster`, cache-policy needs `.L2::cache_hint`")?;
        Ok(TensorLoad {
            dim,
            dst,
            mode,
            multicast,
            cta_group,
            cache_policy,
            dst_mem,
            tensor,
            mbar,
        })
    }

    pub fn opcode(&self) -> String {
        opcode::join(
            HEAD,
            &[
                self.dim.ptx(),
                self.dst.space().ptx(),
                "global",
                self.mode.kind().ptx(),
                Completion::Mbarrier.ptx(),
                if self.multicast.is_some() {
                    "multicast::cluster"
                } else {
                    ""
                },
                self.cta_group.map(CtaGroup::ptx).unwrap_or(""),
                if self.cache_policy.is_some() {
                    "L2::cache_hint"
                } else {
                    ""
                },
            ],
        )
    }

    pub fn row(&self) -> String {
        row(
            self.opcode(),
            &[
                ("im2colInfo", self.mode.info().is_some()),
                ("ctaMask", self.multicast.is_some()),
                ("cache-policy", self.cache_policy.is_some()),
            ],
        )
    }

    pub fn requirement(&self) -> Requirement {
        // §9.7.9.25.5.2 PTX ISA / Target ISA Notes.
        let mut r = Requirement::new().and(Support::at_least("cp.async.bulk.tensor", 90, V80));
        if self.dst == LoadDst::SharedCta {
            r.push(Support::at_least("`.shared::cta` destination", 90, V86));
        }
        let k = self.mode.kind();
        match (k, self.dst) {
            // "sm_100a when destination state space is .shared::cluster and is supported on
            // sm_100f from PTX ISA version 8.8; sm_100 or higher when .shared::cta".
            // Position: the manual's list, although ptxas 13.0 also accepts sm_110a / sm_110f
            // here (the manual names sm_110 for scatter4, im2col::w::128 and .cta_group only).
            (FetchKind::Gather4 | FetchKind::Im2colW, LoadDst::SharedCluster) => {
                r.push(Support::new(
                    format!("`.{}` with `.shared::cluster` destination", k.ptx()),
                    vec![
                        Since {
                            class: TargetClass::Arch(100),
                            ptx: V86,
                        },
                        Since {
                            class: TargetClass::Family(100),
                            ptx: V88,
                        },
                    ],
                ))
            }
            (FetchKind::Gather4 | FetchKind::Im2colW, LoadDst::SharedCta) => {
                r.push(Support::at_least(
                    format!("`.{}` with `.shared::cta` destination", k.ptx()),
                    100,
                    V86,
                ))
            }
            (FetchKind::Im2colW128, _) => {
                r.push(Support::blackwell_arch_or_family("`.im2col::w::128`", V86))
            }
            (FetchKind::Tile(_) | FetchKind::Im2col, _) => {}
        }
        self.mode.rank_rules(self.dim, &mut r);
        if self.multicast.is_some() && self.dst == LoadDst::SharedCta {
            r.push(Support::never(
                "`.multicast::cluster` only with `.shared::cluster` destination",
            ));
        }
        if self.cta_group.is_some() {
            r.push(Support::blackwell_arch_or_family("`.cta_group`", V86));
        }
        r
    }

    pub fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        f(Slot::Addr {
            role: "dstMem",
            space: self.dst.space(),
            addr: &mut self.dst_mem,
        });
        f(Slot::Tensor {
            role: "tensorMap",
            tensor: &mut self.tensor,
        });
        // The mbarrier lives in shared memory of the destination CTA (or its peer, .cta_group::2).
        f(Slot::Addr {
            role: "mbar",
            space: self.dst.space(),
            addr: &mut self.mbar,
        });
        if let Some(v) = self.mode.info_mut() {
            f(Slot::Vector {
                role: "im2colInfo",
                ty: RegTy::U16,
                values: v,
            });
        }
        if let Some(v) = &mut self.multicast {
            f(Slot::Value {
                role: "ctaMask",
                ty: RegTy::B16,
                value: v,
                imm_ok: true,
            });
        }
        if let Some(v) = &mut self.cache_policy {
            f(Slot::Value {
                role: "cache-policy",
                ty: RegTy::B64,
                value: v,
                imm_ok: true,
            });
        }
    }

    pub fn variants() -> Vec<TensorLoad> {
        let mut out = Vec::new();
        for dim in Dim::ALL {
            for dst in LoadDst::ALL {
                for kind in FetchKind::ALL {
                    let Some(mode) = kind.placeholder(dim) else {
                        continue;
                    };
                    for multicast in [false, true] {
                        for cta_group in [None, Some(CtaGroup::One), Some(CtaGroup::Two)] {
                            for hint in [false, true] {
                                out.push(TensorLoad {
                                    dim,
                                    dst,
                                    mode: mode.clone(),
                                    multicast: multicast.then(|| Value::reg(operands::CTA_MASK)),
                                    cta_group,
                                    cache_policy: hint.then(|| Value::reg(operands::CACHE_POLICY)),
                                    dst_mem: Address::reg("dstMem"),
                                    tensor: operands::tensor(
                                        kind.coords(dim),
                                        kind == FetchKind::Gather4,
                                    ),
                                    mbar: Address::reg("mbar"),
                                });
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

/// Why a fetch mode takes the number of coordinates it does.
pub(super) fn coord_rule(kind: FetchKind) -> String {
    match kind {
        FetchKind::Gather4 => "`.tile::gather4` takes {col, row0, row1, row2, row3}".to_string(),
        _ => "one per `.dim` dimension".to_string(),
    }
}

impl fmt::Display for TensorLoad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}, {}, {}",
            self.opcode(),
            self.dst_mem,
            self.tensor,
            self.mbar
        )?;
        if let Some(v) = self.mode.info() {
            write!(f, ", {}", VecOperand(v))?;
        }
        if let Some(v) = &self.multicast {
            write!(f, ", {v}")?;
        }
        if let Some(v) = &self.cache_policy {
            write!(f, ", {v}")?;
        }
        Ok(())
    }
}
