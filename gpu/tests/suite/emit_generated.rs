//! Generated programs of one shape ([`gen::generate_shaped`]: one shape stream, many value
//! streams) emit one kernel text, and their values reach the parameter block or the regions.

use ptxconform_gpu::emit::emit;
use ptxconform_reference::case::init::pattern;
use ptxconform_reference::gen::swarm::{Families, Family};
use ptxconform_reference::gen::{self, GenConfig, BLOCK, HEADER};
use std::collections::BTreeSet;

const SHAPES: u64 = 150;
const VALUES: u64 = 8;

/// Over `SHAPES` shapes of `cfg`: shapes whose value sets differ somewhere (parameter block,
/// shared image, regions), and those whose parameter blocks differ; panics where one shape's
/// value sets emit different kernels.
fn one_kernel_per_shape(cfg: &GenConfig) -> (usize, usize) {
    let (mut varied, mut operands) = (0, 0);
    for s in 0..SHAPES {
        let shape = pattern(
            0x5eed ^ s.wrapping_mul(0x9e37_79b9),
            HEADER + BLOCK * cfg.max_episodes,
        );
        let mut keys = BTreeSet::new();
        let mut cases = BTreeSet::new();
        let mut pblocks = BTreeSet::new();
        let mut first_ptx = None;
        for v in 0..VALUES {
            let values = pattern(s << 8 | v, gen::value_len(cfg));
            let g = gen::generate_shaped(&shape, &values, cfg);
            if matches!(g.intent, gen::Intent::Illegal { .. }) {
                // Illegal programs never reach the emitter (the campaign skips them).
                continue;
            }
            let e = emit(&g.case).unwrap_or_else(|e| panic!("shape {s} values {v}: {e}"));
            if first_ptx.is_none() {
                first_ptx = Some(e.ptx.clone());
            }
            if keys.insert(e.shape_key) && keys.len() > 1 {
                let a = first_ptx.as_deref().unwrap_or_default();
                let diff: Vec<(&str, &str)> = a
                    .lines()
                    .zip(e.ptx.lines())
                    .filter(|(x, y)| x != y)
                    .take(3)
                    .collect();
                panic!(
                    "shape {s}: value set {v} emits another kernel ({}); first differing lines {diff:?}",
                    g.case.description
                );
            }
            cases.insert(format!(
                "{:?}",
                (&g.case.params, &g.case.program, &g.case.memory)
            ));
            pblocks.insert(e.pblock.clone());
        }
        varied += usize::from(cases.len() > 1);
        operands += usize::from(pblocks.len() > 1);
    }
    (varied, operands)
}

#[test]
fn value_sets_of_a_shape_share_the_kernel() {
    let (varied, operands) = one_kernel_per_shape(&GenConfig::legal());
    // Most shapes have some value the value sets vary (region contents at least), and many an
    // operand the kernel reads from its parameter block.
    assert!(
        varied as u64 > SHAPES / 2,
        "{varied} of {SHAPES} shapes varied"
    );
    assert!(
        operands as u64 > SHAPES / 4,
        "{operands} of {SHAPES} shapes varied operands"
    );
    eprintln!("of {SHAPES} shapes: {varied} vary values, {operands} parameter-block operands");
}

#[test]
fn value_sets_of_a_shape_share_the_kernel_in_every_family() {
    for f in Family::ALL {
        let cfg = GenConfig {
            families: Families::of(&[f]),
            ..GenConfig::legal()
        };
        let (varied, operands) = one_kernel_per_shape(&cfg);
        eprintln!("{f:?}: of {SHAPES} shapes {varied} vary values, {operands} operands");
    }
    // Deviating programs keep their shape too (the deviation is a shape choice).
    one_kernel_per_shape(&GenConfig::mixed().with_concurrency(64));
}
