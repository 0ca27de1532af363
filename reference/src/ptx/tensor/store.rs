//! The shared::cta → global direction: cp.async.bulk.tensor stores (§9.7.9.25.5.2, third syntax
//! block) and cp.reduce.async.bulk.tensor (§9.7.9.25.5.3). Both complete through a bulk
//! async-group and take `[tensorMap, tensorCoords], [srcMem] {, cache-policy}`.

use super::mode::{Dim, ReduceMode, StoreMode};
use super::operands::{self, Operands};
use super::{row, Completion, V80, V86};
use crate::ptx::common::RedOp;
use crate::ptx::lex::SyntaxError;
use crate::ptx::opcode::{self, Quals};
use crate::ptx::operand::{Address, Args, RegTy, Slot, Space, TensorRef, Value};
use crate::target::{Requirement, Support};
use std::fmt;

pub const REDUCE_HEAD: &str = "cp.reduce.async.bulk.tensor";

/// The operands of the shared::cta → global direction.
#[derive(Clone, Debug, PartialEq)]
pub struct ToGlobal {
    pub tensor: TensorRef,
    pub src_mem: Address,
    /// `.L2::cache_hint` with its `cache-policy` operand.
    pub cache_policy: Option<Value>,
}

impl ToGlobal {
    fn parse(args: &Args, coords: usize, why: &str, hint: bool) -> Result<ToGlobal, SyntaxError> {
        let mut ops = Operands::new(args);
        let tensor = ops.tensor(coords, why)?;
        let src_mem = ops.addr("srcMem")?;
        let cache_policy = ops.value_if(hint, "cache-policy, required by `.L2::cache_hint`")?;
        ops.done("cache-policy needs `.L2::cache_hint`")?;
        Ok(ToGlobal {
            tensor,
            src_mem,
            cache_policy,
        })
    }
    fn placeholder(coords: usize, four_rows: bool, hint: bool) -> ToGlobal {
        ToGlobal {
            tensor: operands::tensor(coords, four_rows),
            src_mem: Address::reg("srcMem"),
            cache_policy: hint.then(|| Value::reg(operands::CACHE_POLICY)),
        }
    }
    fn hint(&self) -> &'static str {
        if self.cache_policy.is_some() {
            "L2::cache_hint"
        } else {
            ""
        }
    }
    fn row(&self, opcode: String) -> String {
        row(opcode, &[("cache-policy", self.cache_policy.is_some())])
    }
    fn visit(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        f(Slot::Tensor {
            role: "tensorMap",
            tensor: &mut self.tensor,
        });
        f(Slot::Addr {
            role: "srcMem",
            space: Space::SharedCta,
            addr: &mut self.src_mem,
        });
        if let Some(v) = &mut self.cache_policy {
            f(Slot::Value {
                role: "cache-policy",
                ty: RegTy::B64,
                value: v,
                imm_ok: true,
            });
        }
    }
}

impl fmt::Display for ToGlobal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, {}", self.tensor, self.src_mem)?;
        if let Some(v) = &self.cache_policy {
            write!(f, ", {v}")?;
        }
        Ok(())
    }
}

fn coord_rule(four_rows: bool) -> &'static str {
    if four_rows {
        "`.tile::scatter4` takes {col, row0, row1, row2, row3}"
    } else {
        "one per `.dim` dimension"
    }
}

/// cp.async.bulk.tensor.dim.global.shared::cta{.load_mode}.bulk_group{.L2::cache_hint}.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorStore {
    pub dim: Dim,
    pub mode: StoreMode,
    pub ops: ToGlobal,
}

impl TensorStore {
    /// Parse the rest of a store once `.global.shared::cta` have been taken from `q`.
    pub fn parse(q: &mut Quals, args: &Args) -> Result<TensorStore, SyntaxError> {
        let dim = Dim::take(q)?;
        let mode = StoreMode::take(q, "cp.async.bulk.tensor (shared::cta → global)")?;
        Completion::need(q, Completion::BulkGroup)?;
        let hint = q.flag("L2::cache_hint")?;
        q.finish("cp.async.bulk.tensor (shared::cta → global)")?;
        let four = mode == StoreMode::Scatter4;
        let ops = ToGlobal::parse(args, mode.coords(dim), coord_rule(four), hint)?;
        Ok(TensorStore { dim, mode, ops })
    }
    pub fn opcode(&self) -> String {
        opcode::join(
            super::load::HEAD,
            &[
                self.dim.ptx(),
                "global",
                "shared::cta",
                self.mode.ptx(),
                Completion::BulkGroup.ptx(),
                self.ops.hint(),
            ],
        )
    }
    pub fn row(&self) -> String {
        self.ops.row(self.opcode())
    }
    pub fn requirement(&self) -> Requirement {
        // §9.7.9.25.5.2 PTX ISA / Target ISA Notes.
        let mut r = Requirement::new().and(Support::at_least("cp.async.bulk.tensor", 90, V80));
        if self.mode == StoreMode::Scatter4 {
            r.push(Support::blackwell_arch_or_family("`.tile::scatter4`", V86));
        }
        self.mode.rank_rules(self.dim, &mut r);
        r
    }
    pub fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        self.ops.visit(f)
    }
    pub fn variants() -> Vec<TensorStore> {
        let mut out = Vec::new();
        for dim in Dim::ALL {
            for mode in StoreMode::ALL {
                for hint in [false, true] {
                    let ops =
                        ToGlobal::placeholder(mode.coords(dim), mode == StoreMode::Scatter4, hint);
                    out.push(TensorStore { dim, mode, ops });
                }
            }
        }
        out
    }
}

impl fmt::Display for TensorStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.opcode(), self.ops)
    }
}

/// cp.reduce.async.bulk.tensor.dim.global.shared::cta.redOp{.load_mode}.bulk_group{.L2::cache_hint}.
/// The element type comes from the tensor map, so every `.redOp` is well-formed here; which
/// element types it admits is a run-time property of the map (§9.7.9.25.5.3 table).
#[derive(Clone, Debug, PartialEq)]
pub struct TensorReduce {
    pub dim: Dim,
    pub op: RedOp,
    pub mode: ReduceMode,
    pub ops: ToGlobal,
}

impl TensorReduce {
    pub fn parse(q: &mut Quals, args: &Args) -> Result<TensorReduce, SyntaxError> {
        let spaces = q.take_ordered(&[
            ("global", Space::Global),
            ("shared::cta", Space::SharedCta),
            ("shared::cluster", Space::SharedCluster),
            ("shared", Space::Shared),
        ]);
        if spaces.iter().map(|s| s.1).collect::<Vec<_>>() != [Space::Global, Space::SharedCta] {
            return Err(SyntaxError::new(
                spaces.first().map(|s| s.0).unwrap_or(q.end),
                "`.dst.src` = `.global.shared::cta`",
                super::spaces_found(&spaces),
            ));
        }
        let dim = Dim::take(q)?;
        let op = q.need(&RedOp::choices(), "reduction `.redOp`")?;
        let mode = ReduceMode::take(q, REDUCE_HEAD)?;
        Completion::need(q, Completion::BulkGroup)?;
        let hint = q.flag("L2::cache_hint")?;
        q.finish(REDUCE_HEAD)?;
        let ops = ToGlobal::parse(args, mode.coords(dim), coord_rule(false), hint)?;
        Ok(TensorReduce { dim, op, mode, ops })
    }
    pub fn opcode(&self) -> String {
        opcode::join(
            REDUCE_HEAD,
            &[
                self.dim.ptx(),
                "global",
                "shared::cta",
                self.op.ptx(),
                self.mode.ptx(),
                Completion::BulkGroup.ptx(),
                self.ops.hint(),
            ],
        )
    }
    pub fn row(&self) -> String {
        self.ops.row(self.opcode())
    }
    pub fn requirement(&self) -> Requirement {
        // §9.7.9.25.5.3: "Introduced in PTX ISA version 8.0", "Requires sm_90 or higher".
        let mut r =
            Requirement::new().and(Support::at_least("cp.reduce.async.bulk.tensor", 90, V80));
        self.mode.rank_rules(self.dim, &mut r);
        r
    }
    pub fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        self.ops.visit(f)
    }
    pub fn variants() -> Vec<TensorReduce> {
        let mut out = Vec::new();
        for dim in Dim::ALL {
            for op in RedOp::ALL {
                for mode in ReduceMode::ALL {
                    for hint in [false, true] {
                        out.push(TensorReduce {
                            dim,
                            op,
                            mode,
                            ops: ToGlobal::placeholder(mode.coords(dim), false, hint),
                        });
                    }
                }
            }
        }
        out
    }
}

impl fmt::Display for TensorReduce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.opcode(), self.ops)
    }
}
