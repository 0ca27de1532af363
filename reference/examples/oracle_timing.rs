//! Where the fuzz targets' time goes: generate cases from pseudo-random inputs (the length mix
//! libFuzzer feeds: 0..=max_len bytes) and time generation and every oracle separately.
//!
//! `cargo run --release -p ptxconform-reference --example oracle_timing -- [N] [MAX_LEN] [ROUNDS]`

use ptxconform_reference::case::{load_str, to_yaml, validate::validate_case};
use ptxconform_reference::gen::oracle::{
    Oracle, Reference, StaticLegality, Validates, YamlRoundTrip,
};
use ptxconform_reference::gen::{generate_bytes, GenConfig, Generated};
use std::time::{Duration, Instant};

/// xorshift64*: deterministic inputs without a dependency.
fn next(s: &mut u64) -> u64 {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    s.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

fn time<T>(acc: &mut Duration, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    *acc += t.elapsed();
    r
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(3000);
    let max_len: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(256);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    let cfg = GenConfig::mixed();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let inputs: Vec<Vec<u8>> = (0..n)
        .map(|_| {
            let len = (next(&mut seed) % (max_len as u64 + 1)) as usize;
            (0..len).map(|_| next(&mut seed) as u8).collect()
        })
        .collect();

    if std::env::var_os("SHOW").is_some() {
        print!(
            "{}",
            to_yaml(std::slice::from_ref(&generate_bytes(&inputs[1], &cfg).case))
        );
        return;
    }
    // Best of several rounds per phase: the machine is shared, the minimum is the least disturbed.
    let oracles: [(&str, &dyn Oracle); 4] = [
        ("validates", &Validates),
        ("static_legality", &StaticLegality),
        ("yaml_roundtrip", &YamlRoundTrip),
        ("reference", &Reference),
    ];
    const PHASES: usize = 8;
    let names = [
        "generate",
        "validates",
        "static_legality",
        "yaml_roundtrip",
        "reference",
        "  validate_case",
        "  to_yaml",
        "  load_str",
    ];
    let mut best = [Duration::MAX; PHASES];
    let (mut steps, mut yaml_bytes, mut fails) = (0usize, 0usize, 0usize);
    for round in 0..rounds {
        let mut t = [Duration::ZERO; PHASES];
        for inp in &inputs {
            let g: Generated = time(&mut t[0], || generate_bytes(inp, &cfg));
            for (i, (_, o)) in oracles.iter().enumerate() {
                if time(&mut t[1 + i], || o.check(&g)).is_err() && round == 0 {
                    fails += 1;
                }
            }
            // The parts of the two heavy oracles.
            time(&mut t[5], || validate_case(&g.case));
            let text = time(&mut t[6], || to_yaml(std::slice::from_ref(&g.case)));
            let _ = time(&mut t[7], || load_str(&text, "generated"));
            if round == 0 {
                steps += g.case.program.len();
                yaml_bytes += text.len();
            }
        }
        for (b, x) in best.iter_mut().zip(t) {
            *b = (*b).min(x);
        }
    }
    let per = |d: Duration| d.as_secs_f64() * 1e6 / n as f64;
    println!("{n} inputs of 0..={max_len} bytes, best of {rounds} rounds: {:.1} steps/case, {:.0} YAML bytes/case, {fails} oracle failures", steps as f64 / n as f64, yaml_bytes as f64 / n as f64);
    for (name, d) in names.iter().zip(best) {
        println!("{:<22}{:>10.1} us/case", name, per(d));
    }
    let sum: Duration = best[..5].iter().sum();
    println!(
        "{:<22}{:>10.1} us/case (generate + oracles) => {:.0} cases/s uninstrumented",
        "total",
        per(sum),
        n as f64 / sum.as_secs_f64()
    );
}
