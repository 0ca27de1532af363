//! The text key of a parsed case: what of it the kernel text depends on. Everything of the case
//! but its name, description, expectation, recorded observations and regions' contents, with
//! the values the emitter routes through the parameter block masked: immediates of operand
//! slots (the slots the emitter itself visits), address offsets, `params` values and `mapa`
//! ranks, the bytes of `store` steps (their count stays). Cases of one key emit one text: the K
//! value sets of a fuzz shape differ only there.

use super::Parsed;
use ptxconform_reference::case::{
    Case, Ctas, Launch, MbarrierDecl, Memory, Param, Region, Step, StepOp, TensorMapDecl, TmemDecl,
};
use ptxconform_reference::ptx::operand::{Slot, Value};
use ptxconform_reference::ptx::Statement;
use ptxconform_reference::target::Target;
use std::hash::{Hash, Hasher};

/// What of a case both emission keys take whole (the text key here, the program key of
/// `super::instances`): everything but its name, description, expectation, recorded
/// observations, params, program and regions' contents (of a region only what its layout
/// depends on). The destructuring is exhaustive so that a new field of [`Case`], [`Memory`] or
/// [`Region`] has to be sorted here.
#[derive(Debug, PartialEq)]
pub(super) struct Surround<'a> {
    target: &'a Target,
    ptx_version: &'a Option<String>,
    launch: &'a Launch,
    check: &'a [String],
    global: Vec<(&'a str, u64, u64, u64)>,
    shared: Vec<(&'a str, u64, u64, u64)>,
    mbarriers: &'a [MbarrierDecl],
    tensor_maps: &'a [TensorMapDecl],
    tmem: &'a [TmemDecl],
    shared_allocation: &'a Option<u64>,
}

impl<'a> Surround<'a> {
    pub(super) fn of(case: &'a Case) -> Self {
        let Case {
            name: _,
            description: _,
            target,
            ptx_version,
            launch,
            memory,
            check,
            // Each key takes these its own way.
            params: _,
            program: _,
            expect: _,
            observed: _,
            parsed: _,
        } = case;
        let Memory {
            global,
            shared,
            mbarriers,
            tensor_maps,
            tmem,
            shared_allocation,
        } = memory;
        let regions = |rs: &'a [Region]| -> Vec<(&'a str, u64, u64, u64)> {
            rs.iter()
                .map(|r| {
                    let Region {
                        name,
                        size,
                        align,
                        misalign,
                        init: _,
                    } = r;
                    (name.as_str(), *size, *align, *misalign)
                })
                .collect()
        };
        Surround {
            target,
            ptx_version,
            launch,
            check,
            global: regions(global),
            shared: regions(shared),
            mbarriers,
            tensor_maps,
            tmem,
            shared_allocation,
        }
    }
}

/// `st` with every operand value the emitter loads from the parameter block set to zero.
fn masked(st: &Statement) -> Statement {
    let mut st = st.clone();
    let zero = |v: &mut Value| {
        if let Value::Imm(i) = v {
            *i = 0;
        }
    };
    st.instr.visit_operands(&mut |slot| match slot {
        // A negative offset is an emission error: it stays.
        Slot::Addr { addr, .. } => addr.offset = addr.offset.min(0),
        Slot::Value { value, .. } => zero(value),
        Slot::Tensor { tensor, .. } => tensor.coords.iter_mut().for_each(zero),
        Slot::Vector { values, .. } => values.iter_mut().for_each(zero),
    });
    st
}

fn masked_param(p: &Param) -> Param {
    match p {
        Param::Int(_) => Param::Int(0),
        Param::Typed { ty, .. } => Param::Typed {
            value: 0,
            ty: ty.clone(),
        },
        Param::Mapa { mapa, .. } => Param::Mapa {
            mapa: mapa.clone(),
            cta: 0,
        },
    }
}

/// What of a step its lines depend on: the masked statement of a `ptx:` step, the mbarrier and
/// parity a `wait_parity` waits for, where a `store` stores and how many bytes.
// Most steps are `ptx:` steps: boxing the statement would add an allocation to nearly all.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, PartialEq)]
enum StepText<'a> {
    Ptx(Statement),
    Wait {
        mbar: &'a str,
        parity: u32,
    },
    Store {
        at: &'a str,
        bytes: usize,
    },
    /// A `ptx:` step without its statement: an emission error (the text stays in the key).
    Unparsed(&'a StepOp),
}

/// The text key of a parsed case ([`text_key`]): compared whole, hashed in part (each step's
/// thread, kind and instruction family), never with a value the parameter block carries.
#[derive(Debug, PartialEq)]
pub(super) struct TextKey<'a> {
    surround: Surround<'a>,
    params: Vec<(&'a str, Param)>,
    steps: Vec<(&'a Ctas, u32, &'a Option<String>, StepText<'a>)>,
}

/// As for the program key (`super::instances`): a key unequal to itself only emits alone.
impl Eq for TextKey<'_> {}

impl Hash for TextKey<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        for (_, thread, _, op) in &self.steps {
            thread.hash(h);
            match op {
                StepText::Ptx(st) => st.instr.family().hash(h),
                StepText::Wait { mbar, parity } => (mbar, parity).hash(h),
                StepText::Store { at, bytes } => (at, bytes).hash(h),
                StepText::Unparsed(_) => {}
            }
        }
    }
}

/// The text key of `p` ([`Surround`] and each step's and param's masked form). The
/// destructuring of [`Step`] is exhaustive so that a new field has to be sorted here.
pub(super) fn text_key<'a>(p: &Parsed<'a>) -> TextKey<'a> {
    let (params, program) = (&p.case.params, &p.case.program);
    let steps = program
        .iter()
        .zip(&p.stmts)
        .map(|(step, st)| {
            let Step {
                cta,
                thread,
                concurrent,
                op,
            } = step;
            let text = match (op, st) {
                (StepOp::Ptx(_), Some(st)) => StepText::Ptx(masked(st)),
                (StepOp::WaitParity { mbar, parity }, _) => StepText::Wait {
                    mbar,
                    parity: *parity,
                },
                (StepOp::Store { at, bytes }, _) => StepText::Store {
                    at,
                    bytes: bytes.len(),
                },
                (op, None) => StepText::Unparsed(op),
            };
            (cta, *thread, concurrent, text)
        })
        .collect();
    TextKey {
        surround: Surround::of(p.case),
        params: params
            .iter()
            .map(|(n, v)| (n.as_str(), masked_param(v)))
            .collect(),
        steps,
    }
}
