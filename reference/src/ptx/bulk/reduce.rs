//! `cp.reduce.async.bulk` (§9.7.9.25.4.2): every `.redOp` × `.type` × destination, with the
//! redOp/type table and the `.noftz` rule as legality (well-formed but illegal combinations stay
//! representable for the differential against ptxas).

use super::{completion_for, parse_spaces, Completion};
use crate::ptx::common::{RedOp, RedType};
use crate::ptx::cp_async::cache_hint::CacheHint;
use crate::ptx::lex::SyntaxError;
use crate::ptx::opcode::{join, Opcode};
use crate::ptx::operand::{Address, Args, RegTy, Slot, Space, Value};
use crate::target::{PtxVersion, Requirement, Support};

/// Destination of the reduction; the source is always `.shared::cta`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RedDst {
    /// `.shared::cluster.shared::cta.mbarrier::complete_tx::bytes ... [mbar]`.
    Cluster { mbar: Address },
    /// `.global.shared::cta.bulk_group`.
    Global,
}

impl RedDst {
    pub fn space(&self) -> Space {
        match self {
            RedDst::Cluster { .. } => Space::SharedCluster,
            RedDst::Global => Space::Global,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BulkReduce {
    pub dst_kind: RedDst,
    pub op: RedOp,
    pub ty: RedType,
    pub noftz: bool,
    pub hint: CacheHint,
    pub dst: Address,
    pub src: Address,
    pub size: Value,
}

/// §9.7.9.25.4.2 table "valid combinations of .redOp and element type".
pub fn table_allows(dst: Space, op: RedOp, ty: RedType) -> bool {
    use RedOp::*;
    use RedType::*;
    let global = dst == Space::Global;
    match op {
        Add if global => matches!(ty, U32 | S32 | U64 | F32 | F64 | F16 | Bf16),
        Add => matches!(ty, U32 | S32 | U64),
        Min | Max if global => matches!(ty, U32 | S32 | U64 | S64 | F16 | Bf16),
        Min | Max => matches!(ty, U32 | S32),
        Inc | Dec => ty == U32,
        And | Or | Xor if global => matches!(ty, B32 | B64),
        And | Or | Xor => ty == B32,
    }
}

impl BulkReduce {
    pub fn opcode(&self) -> String {
        let d = self.dst_kind.space();
        let c = completion_for(d, Space::SharedCta)
            .map(Completion::ptx)
            .unwrap_or("");
        join(
            "cp.reduce.async.bulk",
            &[
                d.ptx(),
                Space::SharedCta.ptx(),
                c,
                self.hint.qual(),
                self.op.ptx(),
                if self.noftz { "noftz" } else { "" },
                self.ty.ptx(),
            ],
        )
    }

    pub fn operands(&self) -> Vec<String> {
        let mut v = vec![
            self.dst.to_string(),
            self.src.to_string(),
            self.size.to_string(),
        ];
        if let RedDst::Cluster { mbar } = &self.dst_kind {
            v.push(mbar.to_string());
        }
        v.extend(self.hint.policy.as_ref().map(|p| p.to_string()));
        v
    }

    pub fn parse(op: &Opcode, args: &Args) -> Result<BulkReduce, SyntaxError> {
        let head = "cp.reduce.async.bulk";
        let mut q = op.quals(head);
        let (dst_sp, src_sp) = parse_spaces(&mut q, op)?;
        let completion = Completion::take(&mut q)?;
        let hint_q = CacheHint::take(&mut q)?;
        let red = q.need(&RedOp::choices(), "reduction operation")?;
        let noftz = q.flag("noftz")?;
        let ty = q.need(&RedType::choices(), "element type")?;
        q.finish(head)?;
        let dir_err = || {
            SyntaxError::new(
                op.at,
                "direction .shared::cluster.shared::cta or .global.shared::cta",
                format!("{}{}", dst_sp.ptx(), src_sp.ptx()),
            )
        };
        if src_sp != Space::SharedCta || dst_sp == Space::SharedCta {
            return Err(dir_err());
        }
        let want = completion_for(dst_sp, src_sp).ok_or_else(dir_err)?;
        if want != completion {
            return Err(SyntaxError::new(
                op.at,
                format!("`.{}` for {}{}", want.ptx(), dst_sp.ptx(), src_sp.ptx()),
                format!("`.{}`", completion.ptx()),
            ));
        }
        let fixed = if dst_sp == Space::Global { 3 } else { 4 };
        args.count(fixed, fixed + 1, "cp.reduce.async.bulk operands")?;
        let dst_kind = if dst_sp == Space::Global {
            RedDst::Global
        } else {
            RedDst::Cluster {
                mbar: args.addr(3, "mbar")?,
            }
        };
        let policy = if args.len() > fixed {
            Some(Value::Reg(args.reg(fixed, "cache-policy")?))
        } else {
            None
        };
        Ok(BulkReduce {
            dst_kind,
            op: red,
            ty,
            noftz,
            hint: CacheHint {
                qualifier: hint_q,
                policy,
            },
            dst: args.addr(0, "dstMem")?,
            src: args.addr(1, "srcMem")?,
            size: args.value(2, "size")?,
        })
    }

    pub fn requirement(&self) -> Requirement {
        // §9.7.9.25.4.2 PTX ISA Notes: 8.0; Target ISA Notes: sm_90.
        let mut r = Requirement::new().and(Support::at_least(
            "cp.reduce.async.bulk",
            90,
            PtxVersion::new(8, 0),
        ));
        let d = self.dst_kind.space();
        if !table_allows(d, self.op, self.ty) {
            r.push(Support::never(format!(
                "`.{}.{}` not in the redOp/type table for {}",
                self.op.ptx(),
                self.ty.ptx(),
                d.ptx()
            )));
        }
        let half_add = self.op == RedOp::Add && matches!(self.ty, RedType::F16 | RedType::Bf16);
        if self.noftz && !half_add {
            // Third syntax block: `.add.noftz.type` with .type = { .f16, .bf16 } only.
            r.push(Support::never(
                "`.noftz` only with `.add.f16` / `.add.bf16`",
            ));
        } else if half_add && !self.noftz {
            // "The cp.reduce.async.bulk.add.f16 and cp.reduce.async.bulk.add.bf16 operations require .noftz".
            r.push(Support::never("`.add.f16` / `.add.bf16` require `.noftz`"));
        }
        if d != Space::Global && self.hint.qualifier {
            // ".level::cache_hint is only supported when at least one of the .src or .dst statespaces is .global".
            r.push(Support::never("`.L2::cache_hint` needs a `.global` side"));
        }
        r.all.extend(self.hint.rules());
        r.all.extend(super::imm_size_rule(&self.size));
        r
    }

    pub fn visit(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        let d = self.dst_kind.space();
        f(Slot::Addr {
            role: "dst",
            space: d,
            addr: &mut self.dst,
        });
        f(Slot::Addr {
            role: "src",
            space: Space::SharedCta,
            addr: &mut self.src,
        });
        f(Slot::Value {
            role: "size",
            ty: RegTy::B32,
            value: &mut self.size,
            imm_ok: true,
        });
        if let RedDst::Cluster { mbar } = &mut self.dst_kind {
            f(Slot::Addr {
                role: "mbar",
                space: Space::SharedCluster,
                addr: mbar,
            });
        }
        self.hint.visit(f);
    }

    pub fn row(&self) -> String {
        format!("{}{}", self.opcode(), self.hint.row_marker())
    }

    pub fn variants() -> Vec<BulkReduce> {
        let mut v = Vec::new();
        for dst_kind in [
            RedDst::Cluster {
                mbar: Address::reg("mbar"),
            },
            RedDst::Global,
        ] {
            for op in RedOp::ALL {
                for ty in RedType::ALL {
                    for noftz in [false, true] {
                        for hint in CacheHint::all() {
                            v.push(BulkReduce {
                                dst_kind: dst_kind.clone(),
                                op,
                                ty,
                                noftz,
                                hint,
                                dst: Address::reg("dst"),
                                src: Address::reg("src"),
                                size: Value::reg("size"),
                            });
                        }
                    }
                }
            }
        }
        v
    }
}
