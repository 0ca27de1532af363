//! Unit tests of the tensor copies, one module per topic; the map fixtures they share are here.

mod copies;
mod driver;
mod golden;
mod im2col;
mod params;
mod properties;
mod rules;

use super::tensormap::*;
use crate::target::Target;

const SM90: Target = Target::SM_90A;
const SM100: Target = Target::SM_100A;

fn t2() -> TensorMapParams {
    // 64 x 32 float32, box 16 x 8 (inner 64 bytes).
    TensorMapParams::tiled(DataType::Float32, vec![64, 32], vec![16, 8])
}
fn t3() -> TensorMapParams {
    TensorMapParams::tiled(DataType::Float16, vec![16, 8, 4], vec![16, 4, 2])
}
fn packed(ty: DataType) -> TensorMapParams {
    TensorMapParams::tiled(
        ty,
        vec![256, 4],
        vec![if ty.is_packed16() { 128 } else { 64 }, 2],
    )
}
fn i2c4() -> TensorMapParams {
    TensorMapParams::im2col(
        DataType::Float16,
        vec![8, 9, 14, 2],
        vec![-1, -1],
        vec![-1, -1],
        8,
        64,
    )
}
fn wide() -> TensorMapParams {
    TensorMapParams::im2col_wide(
        DataType::Float16,
        vec![64, 9, 7, 2],
        0,
        0,
        64,
        128,
        WideMode::W,
    )
}
fn with(mut p: TensorMapParams, f: impl FnOnce(&mut TensorMapParams)) -> TensorMapParams {
    f(&mut p);
    p
}

/// An interleaved (16B) im2col map with explicit strides (granules of 16 bytes).
fn i2c_interleaved(dims: Vec<u64>, lower: Vec<i32>, upper: Vec<i32>, ppc: u32) -> TensorMapParams {
    let mut strides = vec![dims[0] * 16];
    for d in &dims[1..dims.len() - 1] {
        strides.push(strides.last().unwrap() * d);
    }
    with(
        TensorMapParams::im2col(DataType::Uint32, dims, lower, upper, 4, ppc),
        |p| {
            p.interleave = Interleave::B16;
            p.global_strides = strides;
        },
    )
}

fn vmap(p: TensorMapParams, t: Target) -> ValidatedMap {
    validate(&p, t).unwrap_or_else(|e| panic!("{e}"))
}

fn global_bytes(m: &ValidatedMap) -> usize {
    let last = m.rank - 1;
    (m.byte_strides[last] * m.global_dim[last]) as usize + 64
}
