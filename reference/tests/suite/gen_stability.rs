//! Determinism (same bytes, same case) and locality (a flipped byte late in the input changes
//! only the steps of one episode, plus at most mbarrier parities after it).

use ptxconform_reference::case::init::SplitMix64;
use ptxconform_reference::case::model::{Case, Step};
use ptxconform_reference::gen::{generate_bytes, GenConfig, BLOCK, HEADER};

fn bytes(seed: u64, len: usize) -> Vec<u8> {
    SplitMix64(seed).take(len).map(|x| x as u8).collect()
}

#[test]
fn same_bytes_same_case() {
    for seed in 0..300 {
        let b = bytes(seed, HEADER + 6 * BLOCK);
        let cfg = GenConfig::mixed();
        assert_eq!(generate_bytes(&b, &cfg), generate_bytes(&b, &cfg));
    }
}

/// Steps outside the longest common prefix and suffix.
fn changed(a: &[Step], b: &[Step]) -> usize {
    let p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let s = a[p..]
        .iter()
        .rev()
        .zip(b[p..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    a.len().max(b.len()) - p - s
}

/// `a` and `b` agree except possibly in their last element (one declaration of the last episode).
fn last_may_differ<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    a.len().max(b.len()) <= same + 1
}

fn program(c: &Case) -> &[Step] {
    &c.program
}

#[test]
fn a_late_byte_changes_few_steps() {
    let cfg = GenConfig {
        max_episodes: 8,
        ..GenConfig::legal()
    };
    let mut worst = 0;
    let mut total = 0;
    for seed in 0..300u64 {
        let b = bytes(seed, HEADER + 8 * BLOCK);
        let g = generate_bytes(&b, &cfg);
        // A byte among the first ones of the last episode's chunk (the ones every episode reads).
        let at = HEADER + (g.episodes - 1) * BLOCK + (seed as usize % 8);
        let mut flipped = b.clone();
        flipped[at] ^= 1 << (seed % 8);
        let h = generate_bytes(&flipped, &cfg);
        assert_eq!(g.case.launch, h.case.launch);
        // Tensor and tcgen05 episodes declare their own map / shared source / TMEM word: only the
        // flipped (last) episode's declaration of each kind may differ, earlier ones must stay.
        let (gm, hm) = (&g.case.memory, &h.case.memory);
        assert!(
            last_may_differ(&gm.global, &hm.global),
            "seed {seed}: earlier global regions changed"
        );
        assert!(
            last_may_differ(&gm.shared, &hm.shared),
            "seed {seed}: earlier shared regions changed"
        );
        assert!(
            last_may_differ(&gm.mbarriers, &hm.mbarriers),
            "seed {seed}: earlier mbarriers changed"
        );
        assert!(
            last_may_differ(&gm.tensor_maps, &hm.tensor_maps),
            "seed {seed}: earlier tensor maps changed"
        );
        assert!(
            last_may_differ(&gm.tmem, &hm.tmem),
            "seed {seed}: earlier TMEM declarations changed"
        );
        let n = changed(program(&g.case), program(&h.case));
        // Only the last episode (at most ~20 steps) may differ: everything before it is shared.
        let prefix = program(&g.case)
            .iter()
            .zip(program(&h.case))
            .take_while(|(x, y)| x == y)
            .count();
        assert!(n <= 24, "seed {seed}: {n} steps changed");
        assert!(
            prefix + 24 >= program(&g.case).len().min(program(&h.case).len()),
            "seed {seed}: early steps changed"
        );
        worst = worst.max(n);
        total += n;
    }
    // Most flips of an early byte of the last episode's chunk change it.
    assert!(
        total >= 300,
        "flips changed only {total} steps in 300 cases: the last chunk is barely read"
    );
    eprintln!(
        "locality: worst {worst} steps, mean {:.2}",
        total as f64 / 300.0
    );
}

#[test]
fn a_header_byte_keeps_episodes_apart() {
    // Flipping a byte of episode 1 (of at least 4) changes episode 1, and later ones only in mbarrier
    // parities / init bookkeeping: most steps stay identical.
    let cfg = GenConfig {
        max_episodes: 8,
        ..GenConfig::legal()
    };
    let mut same = 0usize;
    let mut all = 0usize;
    for seed in 0..200u64 {
        let b = bytes(seed, HEADER + 8 * BLOCK);
        let mut f = b.clone();
        let g = generate_bytes(&b, &cfg);
        if g.episodes < 4 {
            continue;
        }
        f[HEADER + BLOCK + 5] ^= 0x10;
        let h = generate_bytes(&f, &cfg);
        all += g.case.program.len();
        same += g.case.program.len()
            - changed(&g.case.program, &h.case.program).min(g.case.program.len());
    }
    assert!(same * 10 >= all * 7, "only {same} of {all} steps unchanged");
}
