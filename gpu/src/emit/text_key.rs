//! The text key of a parsed case: what of it the kernel text depends on. Everything of the case
//! but its name, description, expectation, recorded observations and regions' contents, with
//! the values the emitter routes through the parameter block masked: immediates of operand
//! slots (the slots the emitter itself visits), address offsets, `params` values and `mapa`
//! ranks, the bytes of `store` steps (their count stays). Cases of one key emit one text: the K
//! value sets of a fuzz shape differ only there.

use super::Parsed;
use ptxconform_reference::case::{Case, Memory, Param, Region, Step, StepOp};
use ptxconform_reference::ptx::operand::{Slot, Value};
use ptxconform_reference::ptx::Statement;

/// Name, size, alignment and misalignment of each region (what its layout depends on).
pub(super) fn region_shapes(rs: &[Region]) -> Vec<(&str, u64, u64, u64)> {
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

/// The text key of `p`, as bytes compared whole (`None` where it cannot be serialized: such a case is emitted alone).
/// The destructuring is exhaustive so that a new field of [`Case`], [`Memory`] or [`Step`] has
/// to be sorted here.
pub(super) fn text_key(p: &Parsed<'_>) -> Option<Vec<u8>> {
    let Case {
        name: _,
        description: _,
        target,
        ptx_version,
        launch,
        memory,
        params,
        program,
        check,
        expect: _,
        observed: _,
    } = p.case;
    let Memory {
        global,
        shared,
        mbarriers,
        tensor_maps,
        tmem,
        shared_allocation,
    } = memory;
    let params: Vec<(&String, Param)> = params.iter().map(|(n, v)| (n, masked_param(v))).collect();
    let steps: Vec<_> = program
        .iter()
        .zip(&p.stmts)
        .map(|(step, st)| {
            let Step {
                cta,
                thread,
                concurrent,
                op,
            } = step;
            // The statement as parsed (`Debug`: every field), or the step without its bytes.
            let op = match (op, st) {
                (StepOp::Ptx(_), Some(st)) => format!("{:?}", masked(st)),
                (StepOp::Store { at, bytes }, _) => format!("store {at:?} {}", bytes.len()),
                (op, _) => format!("{op:?}"),
            };
            (cta, thread, concurrent, op)
        })
        .collect();
    let view = (
        (target, ptx_version, launch, params, steps, check),
        (
            region_shapes(global),
            region_shapes(shared),
            mbarriers,
            tensor_maps,
            tmem,
            shared_allocation,
        ),
    );
    serde_json::to_vec(&view).ok()
}
