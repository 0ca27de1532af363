//! The tcgen05 corpus (`cases/tcgen05/`) on the reference executor: every case validates, targets
//! sm_100a and meets its expectation; the corpus covers every tcgen05.cp form and swizzle mode
//! and every program-reachable tcgen05 UB rule; and a property test checks the executor's Tensor
//! Memory against an independent per-cell computation.

use std::collections::BTreeSet;
use std::path::Path;

use proptest::prelude::*;
use ptxconform_reference::case::validate::case_errors;
use ptxconform_reference::case::{load_dir, Case, Expect};
use ptxconform_reference::sem::exec::{execute, Outcome};
use ptxconform_reference::sem::tcgen05::tmem::Cell;
use ptxconform_reference::sem::ub;
use ptxconform_reference::target::Target;

fn corpus() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/tcgen05");
    let mut out = Vec::new();
    for (path, r) in load_dir(&dir) {
        out.extend(r.unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    }
    out
}

#[test]
fn every_tcgen05_case_validates_and_meets_its_expectation() {
    let cases = corpus();
    assert!(cases.len() >= 60, "only {} tcgen05 cases", cases.len());
    let sm100a: Target = "sm_100a".parse().unwrap();
    let mut failures = Vec::new();
    for c in &cases {
        assert_eq!(c.target, sm100a, "{}", c.name);
        let errs: Vec<_> = case_errors(c).into_iter().map(|p| p.message).collect();
        if !errs.is_empty() {
            failures.push(format!("{}: invalid: {errs:?}", c.name));
            continue;
        }
        let x = match execute(c) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{}: cannot execute: {e}", c.name));
                continue;
            }
        };
        let ok = match (&c.expect, &x.outcome) {
            (None | Some(Expect::Pass), Outcome::Defined) => true,
            (Some(Expect::Undefined(r)), Outcome::Undefined { ub, .. }) => ub.rule == *r,
            _ => false,
        };
        if !ok {
            failures.push(format!(
                "{}: expected {:?}, got {:?}",
                c.name, c.expect, x.outcome
            ));
        }
        // A defined copy case observes its checked allocation, and the copy wrote known cells.
        if ok && c.name.starts_with("tcgen05.cp.") {
            let cells = &x.final_state.tmem[0]["acc"];
            assert_eq!(cells.len(), 128 * 32, "{}", c.name);
            assert!(
                cells.iter().any(|v| matches!(v, Cell::Known(_))),
                "{}: nothing known",
                c.name
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} tcgen05 cases fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn corpus_covers_every_form_and_reachable_rule() {
    let cases = corpus();
    let texts: Vec<String> = cases
        .iter()
        .flat_map(|c| c.program.iter().map(|s| format!("{:?}", s.op)))
        .collect();
    let has = |s: &str| texts.iter().any(|t| t.contains(s));
    for shape in [
        "128x256b ",
        "4x256b ",
        "128x128b ",
        "64x128b.warpx2::02_13",
        "64x128b.warpx2::01_23",
        "32x128b.warpx4",
    ] {
        for g in ["cta_group::1", "cta_group::2"] {
            for dc in ["", ".b8x16.b4x16_p64", ".b8x16.b6x16_p32"] {
                let form = format!("tcgen05.cp.{g}.{}{dc}", shape.trim());
                assert!(
                    texts
                        .iter()
                        .any(|t| t.contains(&form) && (dc.is_empty() != t.contains(".b8x16"))),
                    "no case for {form}"
                );
            }
        }
    }
    for swz in ["128B_base32b", "128B", "64B", "32B"] {
        assert!(
            cases
                .iter()
                .any(|c| c.name.starts_with(&format!("tcgen05.cp.swizzle_{swz}."))),
            "swizzle {swz}"
        );
    }
    assert!(has("tcgen05.alloc") && has("tcgen05.dealloc") && has("relinquish_alloc_permit"));
    let covered: BTreeSet<String> = cases
        .iter()
        .filter_map(|c| match &c.expect {
            Some(Expect::Undefined(r)) => Some(r.clone()),
            _ => None,
        })
        .collect();
    for r in ub::of_layer(ub::Layer::Tcgen05) {
        if ub::NOT_PROGRAM_REACHABLE.contains(&r.id) {
            assert!(!covered.contains(r.id));
            continue;
        }
        assert!(covered.contains(r.id), "tcgen05 rule {} has no case", r.id);
    }
}

// ---------------------------------------------------------------------------------------------
// Property: executor (through a case) == an independent per-cell computation
// ---------------------------------------------------------------------------------------------

const REGION: usize = 17 * 1024;

/// (shape, multicast, rows, chunks, multicast warps of source-row half h)
const FORMS: [(&str, &str, u32, u32); 6] = [
    ("128x256b", "", 128, 2),
    ("4x256b", "", 4, 2),
    ("128x128b", "", 128, 1),
    ("64x128b", ".warpx2::02_13", 64, 1),
    ("64x128b", ".warpx2::01_23", 64, 1),
    ("32x128b", ".warpx4", 32, 1),
];
/// (descriptor code, row bytes, xor bits, unit shift)
const SWIZZLES: [(u64, u32, u32, u32); 5] = [
    (0, 16, 0, 4),
    (1, 128, 2, 5),
    (2, 128, 3, 4),
    (4, 64, 2, 4),
    (6, 32, 1, 4),
];

/// Source byte address of chunk `ch` of row `r` (K-major canonical layout, then the swizzle XOR
/// with the row phase corrected by the base offset).
fn chunk_addr(start: u32, lbo: u32, sbo: u32, swz: usize, base: u32, r: u32, ch: u32) -> u32 {
    let (code, rb, bits, shift) = SWIZZLES[swz];
    if code == 0 {
        return start + (r % 8) * 16 + (r / 8) * sbo + ch * lbo;
    }
    let a = start + (r % 8) * rb + (r / 8) * sbo + ch * 16;
    let phase = ((a >> 7).wrapping_sub(base)) & ((1 << bits) - 1);
    a ^ (phase << shift)
}

/// The 16 destination bytes of a source chunk: raw, or 4-/6-bit elements each placed at bit 2 of a byte.
fn expand(chunk: &[u8], decomp: usize) -> Vec<u8> {
    let n = match decomp {
        0 => return chunk.to_vec(),
        1 => 4,
        _ => 6,
    };
    let mut v = 0u128;
    for (i, b) in chunk.iter().enumerate() {
        v |= (*b as u128) << (8 * i);
    }
    (0..16)
        .map(|i| (((v >> (n * i)) & ((1 << n) - 1)) as u8) << 2)
        .collect()
}

fn lanes_of(mc: &str, lane0: u32, r: u32) -> Vec<u32> {
    let (h, i) = (r / 32, r % 32);
    let warps = match mc {
        "" => return vec![lane0 + r],
        ".warpx4" => vec![0, 1, 2, 3],
        ".warpx2::02_13" => vec![2 * h, 2 * h + 1],
        _ => vec![h, 2 + h],
    };
    warps.into_iter().map(|w| 32 * w + i).collect()
}

#[derive(Clone, Debug)]
struct Pick {
    form: usize,
    group: u32,
    decomp: usize,
    swz: usize,
    base: u32,
    start16: u32,
    lbo16: u32,
    sbo16: u32,
    lane: u32,
    col: u32,
    seed: u64,
}

fn pick() -> impl Strategy<Value = Pick> {
    (
        0..6usize,
        1..=2u32,
        0..3usize,
        0..5usize,
        0..8u32,
        0..64u32,
        1..32u32,
        8..64u32,
        0..125u32,
        0..25u32,
        any::<u64>(),
    )
        .prop_map(
            |(form, group, decomp, swz, base, start16, lbo16, sbo16, lane, col, seed)| Pick {
                form,
                group,
                decomp,
                swz,
                base,
                start16,
                lbo16,
                sbo16,
                lane,
                col,
                seed,
            },
        )
}

fn bytes_of(seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..REGION)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn executor_tmem_matches_independent_cells(p in pick()) {
        let (shape, mc, rows, chunks) = FORMS[p.form];
        let (code, rb, _, _) = SWIZZLES[p.swz];
        // Mode 1 needs a 32-byte aligned start; swizzled layouts use one atom per SBO.
        let start = if code == 1 { p.start16 & !1 } else { p.start16 } * 16;
        let (lbo, sbo) = if code == 0 { (p.lbo16 * 16, p.sbo16 * 16) } else { (16, 8 * rb) };
        let lane0 = if mc.is_empty() { p.lane.min(128 - rows) } else { 0 };
        let desc: u64 = (start as u64 >> 4) | ((lbo as u64 >> 4) << 16) | ((sbo as u64 >> 4) << 32) | (1 << 46)
            | ((p.base as u64) << 49) | (code << 61);
        let taddr = (lane0 << 16) | p.col;
        let dc = ["", ".b8x16.b4x16_p64", ".b8x16.b6x16_p32"][p.decomp];
        let src = bytes_of(p.seed);
        let list: Vec<String> = src.iter().map(|b| b.to_string()).collect();
        let two = p.group == 2;
        let (all, zero) = if two { ("cta: all, ", "cta: 0, ") } else { ("", "") };
        let commit = if two {
            "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar], mask;"
        } else {
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];"
        };
        let yaml = format!(
            "- name: prop\n  target: sm_100a\n  launch: {launch}\n  memory:\n    shared: [ {{ name: src, size: {REGION}, align: 1024, init: {{ bytes: [{bytes}] }} }} ]\n    mbarriers: [ {{ name: bar }} ]\n    tmem: [ {{ name: acc, columns: 32 }} ]\n  params:\n    sdesc: {{ value: {d}, type: b64 }}\n    mask: {{ value: 3, type: b16 }}\n  program:\n    - {{ {all}ptx: 'mbarrier.init.shared::cta.b64 [bar], 1;' }}\n    - {{ {all}ptx: 'tcgen05.alloc.cta_group::{g}.sync.aligned.shared::cta.b32 [acc], 32;' }}\n    - {{ {zero}ptx: 'tcgen05.cp.cta_group::{g}.{shape}{mc}{dc} [acc+{taddr}], sdesc;' }}\n    - {{ {zero}ptx: '{commit}' }}\n    - {{ {all}wait_parity: {{ mbar: bar, parity: 0 }} }}\n  check: [ acc ]\n",
            launch = if two { "{ grid: [2, 1, 1], cluster: [2, 1, 1], threads: 128 }" } else { "{ threads: 128 }" },
            bytes = list.join(", "),
            d = desc as i64,
            g = p.group,
        );
        let case = ptxconform_reference::case::load_str(&yaml, "prop").map_err(|e| TestCaseError::fail(e.to_string()))?.remove(0);
        let x = execute(&case).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&x.outcome, &Outcome::Defined);
        let mut want = vec![Cell::Unwritten; 128 * 32];
        for r in 0..rows {
            for ch in 0..chunks {
                let a = chunk_addr(start, lbo, sbo, p.swz, p.base, r, ch) as usize;
                let out = expand(&src[a..a + 16], p.decomp);
                for lane in lanes_of(mc, lane0, r) {
                    for w in 0..4u32 {
                        let c = p.col + 4 * ch + w;
                        let o = 4 * w as usize;
                        want[(lane * 32 + c) as usize] = Cell::Known(u32::from_le_bytes([out[o], out[o + 1], out[o + 2], out[o + 3]]));
                    }
                }
            }
        }
        for cta in 0..p.group as usize {
            prop_assert!(x.final_state.tmem[cta]["acc"] == want, "CTA {} cells differ", cta);
        }
    }
}

/// A-EXEC-TCGEN05-COMPLETE: copied cells are unconfirmed (any value) until a wait on the
/// mbarrier of a commit covering the copy; the alloc writes the address word.
#[test]
fn copies_are_observable_only_after_a_wait_on_their_commit() {
    let c = corpus()
        .into_iter()
        .find(|c| c.name == "tcgen05.cp.128x128b.cta1")
        .expect("case");
    let known = |c: &Case| {
        let x = execute(c).unwrap();
        assert_eq!(x.outcome, Outcome::Defined, "{}", c.name);
        x.final_state.tmem[0]["acc"]
            .iter()
            .filter(|v| matches!(v, Cell::Known(_)))
            .count()
    };
    assert_eq!(known(&c), 128 * 4, "128 lanes x 4 columns copied");
    let mut no_wait = c.clone();
    no_wait.program.pop(); // the wait_parity step
    assert_eq!(known(&no_wait), 0);
    let mut no_commit = c.clone();
    no_commit.program.remove(3); // the commit: the wait then never completes
    let x = execute(&no_commit).unwrap();
    assert!(
        matches!(&x.outcome, Outcome::Undefined { ub, .. } if ub.rule == "wait.never_completes"),
        "{:?}",
        x.outcome
    );
}
