//! cp.async.bulk.prefetch.tensor.dim.L2.global{.load_mode}{.L2::cache_hint} (§9.7.9.25.5.4).

use super::load::coord_rule;
use super::mode::{Dim, FetchKind, FetchMode};
use super::operands::{self, Operands};
use super::{row, V80, V86};
use crate::ptx::lex::SyntaxError;
use crate::ptx::opcode::{self, Quals};
use crate::ptx::operand::{Args, RegTy, Slot, TensorRef, Value, VecOperand};
use crate::target::{Requirement, Support};
use std::fmt;

pub const HEAD: &str = "cp.async.bulk.prefetch.tensor";

#[derive(Clone, Debug, PartialEq)]
pub struct TensorPrefetch {
    pub dim: Dim,
    pub mode: FetchMode,
    /// `.L2::cache_hint` with its `cache-policy` operand.
    pub cache_policy: Option<Value>,
    pub tensor: TensorRef,
}

impl TensorPrefetch {
    pub fn parse(q: &mut Quals, args: &Args) -> Result<TensorPrefetch, SyntaxError> {
        #[derive(Clone, Copy, PartialEq, Debug)]
        enum Lvl {
            L2,
            Global,
        }
        let written = q.take_ordered(&[("L2", Lvl::L2), ("global", Lvl::Global)]);
        if written.iter().map(|w| w.1).collect::<Vec<_>>() != [Lvl::L2, Lvl::Global] {
            let at = written.first().map(|w| w.0).unwrap_or(q.end);
            let found = if written.is_empty() {
                "none".to_string()
            } else {
                format!("{:?}", written.iter().map(|w| w.1).collect::<Vec<_>>())
            };
            return Err(SyntaxError::new(
                at,
                "`.L2.global` (prefetch from global memory to L2)",
                found,
            ));
        }
        let dim = Dim::take(q)?;
        let kind = FetchKind::take(q)?;
        let hint = q.flag("L2::cache_hint")?;
        q.finish(HEAD)?;
        let mut ops = Operands::new(args);
        let tensor = ops.tensor(kind.coords(dim), &coord_rule(kind))?;
        let mode = kind.finish(dim, &mut ops)?;
        let cache_policy = ops.value_if(hint, "cache-policy, required by `.L2::cache_hint`")?;
        ops.done("cache-policy needs `.L2::cache_hint`")?;
        Ok(TensorPrefetch {
            dim,
            mode,
            cache_policy,
            tensor,
        })
    }

    pub fn opcode(&self) -> String {
        opcode::join(
            HEAD,
            &[
                self.dim.ptx(),
                "L2",
                "global",
                self.mode.kind().ptx(),
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
                ("cache-policy", self.cache_policy.is_some()),
            ],
        )
    }

    pub fn requirement(&self) -> Requirement {
        // §9.7.9.25.5.4 PTX ISA / Target ISA Notes: unlike the load, no dependence on a
        // destination: gather4 and both im2col::w modes are sm_100a/sm_110a or the families.
        let mut r =
            Requirement::new().and(Support::at_least("cp.async.bulk.prefetch.tensor", 90, V80));
        let k = self.mode.kind();
        if matches!(
            k,
            FetchKind::Gather4 | FetchKind::Im2colW | FetchKind::Im2colW128
        ) {
            r.push(Support::blackwell_arch_or_family(
                format!("`.{}` with cp.async.bulk.prefetch.tensor", k.ptx()),
                V86,
            ));
        }
        self.mode.rank_rules(self.dim, &mut r);
        r
    }

    pub fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        f(Slot::Tensor {
            role: "tensorMap",
            tensor: &mut self.tensor,
        });
        if let Some(v) = self.mode.info_mut() {
            f(Slot::Vector {
                role: "im2colInfo",
                ty: RegTy::U16,
                values: v,
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

    pub fn variants() -> Vec<TensorPrefetch> {
        let mut out = Vec::new();
        for dim in Dim::ALL {
            for kind in FetchKind::ALL {
                let Some(mode) = kind.placeholder(dim) else {
                    continue;
                };
                for hint in [false, true] {
                    out.push(TensorPrefetch {
                        dim,
                        mode: mode.clone(),
                        cache_policy: hint.then(|| Value::reg(operands::CACHE_POLICY)),
                        tensor: operands::tensor(kind.coords(dim), kind == FetchKind::Gather4),
                    });
                }
            }
        }
        out
    }
}

impl fmt::Display for TensorPrefetch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.opcode(), self.tensor)?;
        if let Some(v) = self.mode.info() {
            write!(f, ", {}", VecOperand(v))?;
        }
        if let Some(v) = &self.cache_policy {
            write!(f, ", {v}")?;
        }
        Ok(())
    }
}
