//! Tensor stores (tile, scatter4, im2col_no_offs) and reductions from the CTA's box buffer into
//! global memory through a bulk async-group: commit, then wait.

use super::{
    accepted, bit, declare, dim_of, fits, im2col, imms, legal, per16, policy, range, tile_coords,
    tiled, Opts, Shape, TBUF, TDST, TRIES,
};
use crate::gen::world::World;
use crate::gen::Intent;
use crate::ptx::bulk::BulkOp;
use crate::ptx::common::RedOp;
use crate::ptx::operand::{Address, TensorRef};
use crate::ptx::tensor::{
    self as syn, ReduceMode, TensorOp, TensorReduce, TensorStore, Tile, ToGlobal,
};
use crate::ptx::Instruction;
use crate::sem::exec::tensor::reduce_type;
use crate::sem::tensor;
use crate::sem::tensor::access::StoreMode;
use crate::sem::tensor::tensormap::{SplitMix, TensorMapParams};

/// A store (`reduce`: a reduction) from the CTA's box buffer into [`TDST`], then commit and wait.
pub(super) fn to_global(
    w: &mut World,
    g: &mut SplitMix,
    cta: u32,
    thread: u32,
    reduce: bool,
) -> Option<Intent> {
    let who = w.who(&[cta], thread);
    let blackwell = w.target.sm >= 100;
    let mut built = None;
    for attempt in 0..TRIES {
        let shape = match g.below(6) {
            0 => Shape::Im2col,
            1 if blackwell && !reduce && attempt < TRIES / 2 => Shape::Gather4,
            _ => Shape::Tile,
        };
        let (params, coords) = match shape {
            Shape::Im2col => {
                let p = im2col(g, true, reduce);
                let r = p.global_dim.len();
                let mut coords = tile_coords(
                    g,
                    &TensorMapParams {
                        box_dim: Some(vec![1; r]),
                        ..p.clone()
                    },
                    true,
                );
                coords[0] = (range(
                    g,
                    0,
                    (p.global_dim[0] as i64 - 1) / per16(p.tensor_data_type) as i64,
                ) * per16(p.tensor_data_type) as i64) as i32;
                (p, coords)
            }
            Shape::Gather4 => {
                let p = tiled(
                    g,
                    Opts {
                        four_rows: true,
                        ..Opts::default()
                    },
                );
                let mut coords = tile_coords(g, &p, true);
                coords.truncate(1);
                for _ in 0..4 {
                    coords.push(range(g, 0, p.global_dim[1] as i64 - 1) as i32);
                }
                (p, coords)
            }
            Shape::Tile => {
                let p = tiled(
                    g,
                    Opts {
                        reduce,
                        ..Opts::default()
                    },
                );
                let coords = tile_coords(g, &p, true);
                (p, coords)
            }
        };
        let Some(map) = accepted(&params, w) else {
            continue;
        };
        let plan_mode = match shape {
            Shape::Im2col => StoreMode::Im2colNoOffs,
            Shape::Gather4 => StoreMode::Scatter4,
            Shape::Tile => StoreMode::Tile,
        };
        let off = tensor::SMEM_ALIGN_BYTES * g.below(4) * g.below(2);
        let Ok(plan) = tensor::store(&map, plan_mode, &coords, off) else {
            continue;
        };
        if !fits(&plan) {
            continue;
        }
        let ops = ToGlobal {
            tensor: TensorRef {
                map: "tm".into(),
                coords: imms(&coords),
            },
            src_mem: Address::reg_off(TBUF, off as i64),
            cache_policy: policy(w, g),
        };
        let dim = dim_of(params.global_dim.len());
        let op = if reduce {
            let ops_ok: Vec<RedOp> = RedOp::ALL
                .iter()
                .copied()
                .filter(|o| reduce_type(*o, map.ty).is_some())
                .collect();
            if ops_ok.is_empty() {
                continue;
            }
            let mode = if shape == Shape::Im2col {
                ReduceMode::Im2colNoOffs
            } else {
                ReduceMode::Tile(Tile::Implicit)
            };
            TensorOp::Reduce(TensorReduce {
                dim,
                op: g.pick(&ops_ok),
                mode,
                ops,
            })
        } else {
            let mode = match shape {
                Shape::Im2col => syn::StoreMode::Im2colNoOffs,
                Shape::Gather4 => syn::StoreMode::Scatter4,
                Shape::Tile => syn::StoreMode::Tile(if bit(g) {
                    Tile::Explicit
                } else {
                    Tile::Implicit
                }),
            };
            TensorOp::Store(TensorStore { dim, mode, ops })
        };
        if legal(w, &Instruction::Tensor(op.clone())) {
            built = Some((params, op));
            break;
        }
    }
    let (params, mut op) = built?;
    let name = declare(w, TDST, params);
    match &mut op {
        TensorOp::Store(s) => s.ops.tensor.map = name,
        TensorOp::Reduce(r) => r.ops.tensor.map = name,
        _ => {}
    }
    w.ptx(&who, Instruction::Tensor(op));
    w.ptx(&who, Instruction::Bulk(BulkOp::CommitGroup));
    // §9.7.9.25.6.2: `.read` waits for the source reads only; the full wait follows.
    if bit(g) {
        w.ptx(
            &who,
            Instruction::Bulk(BulkOp::WaitGroup { read: true, n: 0 }),
        );
    }
    w.ptx(
        &who,
        Instruction::Bulk(BulkOp::WaitGroup { read: false, n: 0 }),
    );
    None
}
