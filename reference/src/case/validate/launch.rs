//! The launch: threads per CTA, grid and cluster dimensions within CUDA's limits, clusters
//! only where the target has them.

use super::{p, pi, product, Out, MAX_CLUSTER, MAX_THREADS, PORTABLE_CLUSTER};
use crate::case::model::*;

pub(super) fn launch(c: &Case, o: &mut Out) {
    let l = &c.launch;
    if !(1..=MAX_THREADS).contains(&l.threads) {
        o.err(
            p(&["launch", "threads"]),
            format!(
                "threads per CTA must be 1..={MAX_THREADS}, not {}",
                l.threads
            ),
        );
    }
    // CUDA grid limits: x < 2^31, y and z ≤ 65535.
    let grid_max = [i32::MAX as u32, 65535, 65535];
    for (d, &max) in grid_max.iter().enumerate() {
        if l.grid[d] == 0 || l.grid[d] > max {
            o.err(
                pi(&["launch", "grid"], d),
                format!("grid dimension {d} must be 1..={}, not {}", max, l.grid[d]),
            );
        }
        if l.cluster[d] == 0 {
            o.err(
                pi(&["launch", "cluster"], d),
                "cluster dimensions are at least 1",
            );
        } else if !l.grid[d].is_multiple_of(l.cluster[d]) {
            o.err(
                pi(&["launch", "cluster"], d),
                format!(
                    "cluster dimension {d} ({}) must divide grid dimension {d} ({})",
                    l.cluster[d], l.grid[d]
                ),
            );
        }
    }
    // Assumption: a grid's CTA count fits 32 bits (`Launch::ctas` is a u32).
    if product(&l.grid) > u32::MAX as u128 {
        o.err(
            p(&["launch", "grid"]),
            format!(
                "the grid has {} CTAs; at most {} are allowed",
                product(&l.grid),
                u32::MAX
            ),
        );
    }
    let size = product(&l.cluster);
    if size > MAX_CLUSTER as u128 {
        o.err(
            p(&["launch", "cluster"]),
            format!("cluster of {size} CTAs exceeds the maximum of {MAX_CLUSTER}"),
        );
    } else if size > PORTABLE_CLUSTER as u128 {
        o.note(
            p(&["launch", "cluster"]),
            format!("cluster of {size} CTAs exceeds the portable maximum of {PORTABLE_CLUSTER}; it needs the non-portable cluster size attribute"),
        );
    }
    if size > 1 && c.target.sm < 90 {
        o.err(
            p(&["launch", "cluster"]),
            format!("clusters need sm_90 or later; the target is {}", c.target),
        );
    }
}
