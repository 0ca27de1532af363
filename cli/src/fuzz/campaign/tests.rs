use super::coverage::analyze;
use super::{
    check_block_here, check_program, generate_analyzable, legal_block, meminfo_available,
    reference_oracle_passes, settled, BlockSpec, Blocks, MAX_LEGAL_BLOCK,
};
use crate::shard::Shard;
use ptxconform_reference::case::{load_str, Case};
use ptxconform_reference::gen::bytes::ValueClasses;
use ptxconform_reference::gen::oracle::{check_cpu_with, program_yaml, CpuChecks};
use ptxconform_reference::gen::swarm::SwarmBits;
use ptxconform_reference::gen::{GenConfig, Generated, Intent};
use ptxconform_reference::sem::exec::{execute_with, ExecOptions, HwOutcome, TraceDetail};
use ptxconform_reference::sem::profile::Profile;

/// A one-CTA cp.async case whose copy step is `copy` (with parameter `p`, a predicate, at
/// `taken`).
fn cp_async(copy: &str, taken: bool) -> Case {
    let text = format!(
        "name: t\ntarget: sm_80\n\
         launch: {{ grid: [1, 1, 1], cluster: [1, 1, 1], threads: 32 }}\n\
         params: {{ p: {{ value: {}, type: pred }} }}\n\
         memory:\n  global: [ {{ name: src, size: 16, init: {{ fill: 1 }} }} ]\n  \
         shared: [ {{ name: dst, size: 16, init: {{ fill: 0 }} }} ]\n\
         program:\n  - ptx: \"{copy}\"\n  - ptx: cp.async.commit_group\n  - ptx: cp.async.wait_group 0\n",
        taken as u8
    );
    load_str(&text, "t.yaml").unwrap().remove(0)
}

/// Legal then mixed programs of `seed`: `shapes` shapes of each, `per` value sets of each shape,
/// with what the campaign analyses them by and the value set's number.
fn drawn(
    seed: u64,
    shapes: u64,
    per: u64,
) -> Vec<(Generated, Option<ValueClasses>, SwarmBits, u64)> {
    let mut out = vec![];
    for cfg in [GenConfig::legal(), GenConfig::mixed()] {
        for shape in 0..shapes {
            for j in 0..per {
                let (g, classes, swarm) = generate_analyzable(seed, shape, j, per, &cfg);
                out.push((g, classes, swarm, j));
            }
        }
    }
    out
}

/// Undefined programs with concurrent episodes reach the run-on positions of silicon's reading,
/// and the coverage map counts each as a cell named by the position.
#[test]
fn silicon_readings_are_coverage_cells() {
    use super::coverage::Cell;
    use ptxconform_reference::sem::exec::ASSUMPTIONS;
    let cfg = GenConfig {
        concurrent_per_256: 128,
        ..GenConfig::mixed()
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut map = super::coverage::CoverageMap::default();
    for shape in 0..300 {
        let (g, classes, swarm) = generate_analyzable(5, shape, 0, 1, &cfg);
        let Some(a) = analyze(&g, classes, swarm, Profile::Sm90) else {
            continue;
        };
        // What hardware did is counted on the program's reading cells too.
        map.outcome(&a, HwOutcome::Hangs);
        for c in a.cells {
            if let Cell::Reading { id } = &c {
                assert!(ASSUMPTIONS.contains(&id.as_str()), "{id}");
                assert!(
                    map.cells[&c].outcomes.contains(&(HwOutcome::Hangs, 1)) || seen.contains(id)
                );
                seen.insert(id.clone());
            }
        }
    }
    assert!(seen.contains("A-WAIT-RUNS-ON-HW"), "{seen:?}");
    assert!(seen.len() >= 3, "{seen:?}");
}

/// Copies are told by their parsed instruction: a copy that moves nothing (its guard false) is
/// no hardware candidate, whatever its text starts with.
#[test]
fn a_copy_that_moves_nothing_is_not_settled() {
    let copy = "cp.async.cg.shared.global [dst], [src], 16";
    assert!(settled(&cp_async(copy, true)));
    assert!(settled(&cp_async(&format!("@p {copy}"), true)));
    assert!(!settled(&cp_async(&format!("@p {copy}"), false)));
}

mod trap_budget {
    use crate::fuzz::campaign::coverage::{Cell, CoverageMap};
    use crate::fuzz::campaign::trap_budget::{select, Candidate, Ledger, THIN_BELOW};
    use std::collections::BTreeSet;

    fn rule(r: &str) -> Cell {
        Cell::Rule { rule: r.into() }
    }

    /// Thin evidence runs first (fewest runs first, counting those chosen), then an unhit cell,
    /// then one per shape; the rest are skipped.
    #[test]
    fn thin_evidence_then_new_cells_then_one_per_shape() {
        let (thin, well, new) = ([rule("thin")], [rule("well")], [rule("new")]);
        let cands = [
            Candidate {
                shape: 1,
                rule: Some("well"),
                cells: &well,
            },
            Candidate {
                shape: 1,
                rule: Some("well"),
                cells: &well,
            },
            Candidate {
                shape: 2,
                rule: Some("new"),
                cells: &new,
            },
            Candidate {
                shape: 3,
                rule: Some("thin"),
                cells: &thin,
            },
            Candidate {
                shape: 3,
                rule: Some("thin"),
                cells: &thin,
            },
            Candidate {
                shape: 4,
                rule: Some("well"),
                cells: &well,
            },
        ];
        let mut map = CoverageMap::default();
        for c in [rule("well"), rule("thin")] {
            map.cells.entry(c).or_default().hits = 1;
        }
        // `new` is well evidenced but no program has hit its cell; `thin` has one run short.
        let runs = |r: &str| match r {
            "thin" => THIN_BELOW as u64 - 2,
            _ => 100,
        };
        let pick = |n: usize| select(&cands, n, &runs, &map, &mut BTreeSet::new());
        // Two of `thin` bring it to THIN_BELOW runs.
        assert_eq!(pick(2), [false, false, false, true, true, false]);
        assert_eq!(pick(3), [false, false, true, true, true, false]);
        // Then the first program of each shape none ran: 1 and 4 (3 ran).
        assert_eq!(pick(9), [true, false, true, true, true, true]);
        assert_eq!(pick(0), [false; 6]);
        // A shape that ran in an earlier block runs no more by the last rule.
        let mut ran = BTreeSet::from([4]);
        assert_eq!(
            select(&cands, 9, &runs, &map, &mut ran),
            [true, false, true, true, true, false]
        );
    }

    /// The allowance keeps trap time within the share of hardware time, after one trap that
    /// measures what a trap costs.
    #[test]
    fn allowance_keeps_the_share() {
        let mut l = Ledger::default();
        assert_eq!(l.allowance(0.2), 1);
        assert_eq!(l.allowance(0.0), 0);
        assert_eq!(l.allowance(1.0), usize::MAX);
        l.trap_runs = 1;
        l.trap_seconds = 0.5;
        l.other_seconds = 10.0;
        // 0.2 / 0.8 × 10 s = 2.5 s of traps, 0.5 s spent: 4 more of 0.5 s.
        assert_eq!(l.allowance(0.2), 4);
        l.trap_seconds = 3.0;
        l.trap_runs = 6;
        assert_eq!(l.allowance(0.2), 0);
        assert!((l.trap_share() - 3.0 / 13.0).abs() < 1e-9);
    }
}

/// A block's checks with the reference run once give what the oracles, the coverage analysis and
/// the pipeline's reference each gave with runs of their own: the CPU oracles' verdict, the
/// program's cells and prediction, its execution (the YAML round trip on a shape's first value set
/// only). Over legal and mixed programs, and the recorded
/// reductions of the corpus (where the sm_90 profile departs from the text's reading, so the
/// reference oracle decides by its own run), under both profiles.
#[test]
fn one_reference_run_serves_the_oracle_the_map_and_the_judge() {
    let mut programs: Vec<_> = drawn(3, 12, 4)
        .into_iter()
        .map(|(g, classes, swarm, j)| (g, classes, swarm, j == 0))
        .collect();
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/reduce/global.yaml");
    for case in ptxconform_reference::case::load_file(&file).unwrap() {
        let g = Generated {
            case,
            intent: Intent::WellDefined,
            episodes: 1,
        };
        // Their NaN operands do not compare equal after a YAML round trip: checked as a shape's
        // later value sets are.
        programs.push((g, None, SwarmBits(0), false));
    }
    let (mut read_off, mut departed) = (0, 0);
    for profile in [Profile::Sm90, Profile::Spec] {
        let spec = BlockSpec {
            seed: 3,
            cfg: GenConfig::legal(),
            shard: Shard::ALL,
            per: 4,
            profile,
            coverage: true,
            hardware: true,
            targets: vec![],
            warm: None,
        };
        for (g, classes, swarm, first) in &programs {
            let got = check_program(&spec, g, *first, (*classes, *swarm));
            let checks = CpuChecks {
                yaml_round_trip: *first,
            };
            let want = check_cpu_with(g, &program_yaml(g), checks);
            assert_eq!(got.verdict, want, "{}", g.case.name);
            if want.is_err() {
                continue;
            }
            assert_eq!(got.analysis, analyze(g, *classes, *swarm, profile));
            let ex = execute_with(
                &g.case,
                ExecOptions::of(profile).keeping(TraceDetail::Touches),
            )
            .ok();
            let given = got.executed.as_ref().map(|e| &e.execution);
            assert_eq!(given, ex.as_ref().filter(|_| got.analysis.is_some()));
            if let Some(x) = &ex {
                read_off += usize::from(reference_oracle_passes(g, x, profile));
                departed += usize::from(!x.departures.is_empty());
            }
        }
    }
    // Both ways of deciding the reference oracle were taken.
    assert!(
        read_off > 100 && departed > 0,
        "{read_off} read off, {departed} departed"
    );
}

/// A block's programs recorded at once (in parts summed on host threads) leave each cell as the
/// programs that had it say, in turn: hits counted, the swarm bits every one had on (and the
/// probe's, where it found the cell), and the deviation all agreed on; over a map a probe
/// started.
#[test]
fn a_block_recorded_at_once_is_its_programs_recorded_in_turn() {
    use super::coverage::{CoverageMap, Entry};
    let analyses: Vec<_> = drawn(5, 200, 4)
        .into_iter()
        .filter_map(|(g, classes, swarm, _)| analyze(&g, classes, swarm, Profile::Sm90))
        .collect();
    assert!(
        analyses.len() > 1024,
        "{} programs: one part",
        analyses.len()
    );
    let mut start = CoverageMap::default();
    start.probe(&GenConfig::legal(), Profile::Sm90, 16);
    let mut want = start.clone();
    for a in &analyses {
        for c in &a.cells {
            let e = want.cells.entry(c.clone()).or_insert_with(Entry::default);
            if !e.probed && e.hits == 0 {
                e.needs = a.swarm.0;
                e.deviation = a.deviation;
            } else {
                e.needs &= a.swarm.0;
                if e.deviation != a.deviation {
                    e.deviation = None;
                }
            }
            e.hits += 1;
        }
    }
    let mut got = start.clone();
    got.record_all(&analyses.iter().collect::<Vec<_>>());
    assert_eq!(got, want);
    // New cells, probed cells hit again, and cells whose programs agreed on a deviation.
    let probed_hit = got.cells.values().filter(|e| e.probed && e.hits > 0);
    let deviating = got
        .cells
        .values()
        .filter(|e| !e.probed && e.deviation.is_some());
    assert!(got.cells.len() > start.cells.len());
    assert!(probed_hit.count() > 0 && deviating.count() > 0);
}

/// A legal block is 1,024 programs a thread; past 16,384 only as far as an eighth of the
/// available memory holds them at 200 KiB each, and never past the largest measured.
#[test]
fn legal_blocks_grow_with_threads_as_memory_allows() {
    const GIB: u64 = 1 << 30;
    assert_eq!(legal_block(1, Some(64 * GIB)), 2048);
    assert_eq!(legal_block(16, Some(64 * GIB)), 16_384);
    assert_eq!(legal_block(32, Some(128 * GIB)), 32_768);
    assert_eq!(legal_block(64, Some(512 * GIB)), MAX_LEGAL_BLOCK);
    assert_eq!(legal_block(128, Some(512 * GIB)), MAX_LEGAL_BLOCK);
    // 4 GiB / 8 / 200 KiB = 2,621 programs: no growth past 16,384, and none lost below it.
    assert_eq!(legal_block(64, Some(4 * GIB)), 16_384);
    assert_eq!(legal_block(64, None), 16_384);
    // 32 GiB / 8 / 200 KiB = 20,971 programs.
    assert_eq!(legal_block(64, Some(32 * GIB)), 20_971);
}

/// Blocks double from the first up to their most; `--batch` fixes every block.
#[test]
fn blocks_double_from_the_first_to_their_most() {
    let b = Blocks {
        first: 4096,
        most: 16_384,
    };
    let lens: Vec<usize> = (0..5).map(|i| b.nth(i)).collect();
    assert_eq!(lens, [4096, 8192, 16_384, 16_384, 16_384]);
    assert_eq!(b.nth(200), 16_384, "no overflow far along");
    assert!((0..70).all(|i| Blocks::fixed(3000).nth(i) == 3000));
    // A ceiling below the first block leaves the first.
    let small = Blocks {
        first: 4096,
        most: 100,
    };
    assert_eq!(small.nth(3), 4096);
}

/// `MemAvailable` is read in kB from `/proc/meminfo`; a text without it gives nothing.
#[test]
fn reads_available_memory() {
    let info =
        "MemTotal:       131072000 kB\nMemFree:        1000 kB\nMemAvailable:   125829120 kB\n";
    assert_eq!(meminfo_available(info), Some(125_829_120 * 1024));
    assert_eq!(meminfo_available("MemTotal: 1 kB\n"), None);
    assert_eq!(meminfo_available("MemAvailable: lots\n"), None);
}

#[test]
fn sustained_counts_after_the_first_block() {
    let s = |t: u64, n: u64, e: u64, p: u64| {
        super::Sustained::of(
            (std::time::Duration::from_secs(t), n),
            std::time::Duration::from_secs(e),
            p,
        )
    };
    let r = s(2, 100, 12, 1100).unwrap();
    assert_eq!((r.warmup_s, r.warmup_programs), (2.0, 100));
    assert_eq!(
        r.programs_per_s, 100.0,
        "1,000 programs in the 10 s after the first block"
    );
    assert_eq!(s(2, 100, 12, 100), None, "nothing after the first block");
    assert_eq!(s(2, 100, 2, 200), None, "no time after it");
}

/// A hardware side that only compiles ahead: it logs when each block's compile starts and ends
/// (the first case of the block's shapes), taking `pause` for each.
struct Warming {
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    pause: std::time::Duration,
}

impl ptxconform_core::differential::Prepare for Warming {
    fn prepare(
        &self,
        _: &[(&Case, &ptxconform_reference::sem::exec::Execution)],
    ) -> ptxconform_core::differential::Prepared {
        unreachable!("a block only warms")
    }
    fn warm(&self, cases: &[&Case]) {
        let first = cases.first().map_or("", |c| c.name.as_str());
        self.log.lock().unwrap().push(format!("start {first}"));
        std::thread::sleep(self.pause);
        self.log.lock().unwrap().push(format!("end {first}"));
    }
}

fn warming_spec(log: &std::sync::Arc<std::sync::Mutex<Vec<String>>>) -> BlockSpec {
    warming_spec_pausing(log, std::time::Duration::from_millis(200))
}

fn warming_spec_pausing(
    log: &std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    pause: std::time::Duration,
) -> BlockSpec {
    BlockSpec {
        seed: 7,
        cfg: GenConfig::legal(),
        shard: Shard::ALL,
        per: 4,
        profile: Profile::Sm90,
        coverage: false,
        hardware: true,
        targets: vec![],
        warm: Some(std::sync::Arc::new(Warming {
            log: log.clone(),
            pause,
        })),
    }
}

/// A block hands over one program of each shape it runs, and its programs run under the
/// kernels those compile to: every hardware program's kernel key is one handed over, and every
/// one handed over is some program's.
#[test]
fn a_block_hands_over_the_kernels_its_programs_run_under() {
    let log = Default::default();
    let (block, handed) = check_block_here(&warming_spec(&log), 0..64);
    assert!(
        log.lock().unwrap().is_empty(),
        "drawing compiles nothing itself"
    );
    let key = |c: &Case| ptxconform_gpu::emit::emit(c).unwrap().shape_key;
    let handed: Vec<u64> = handed.iter().map(key).collect();
    let shapes: std::collections::BTreeSet<u64> = block.iter().map(|p| p.shape).collect();
    assert_eq!(handed.len(), shapes.len(), "one program a shape");
    let run: std::collections::BTreeSet<u64> = block.iter().filter_map(|p| p.kernel).collect();
    let handed: std::collections::BTreeSet<u64> = handed.into_iter().collect();
    assert_eq!(run, handed);
    assert!(block
        .iter()
        .all(|p| p.kernel.is_some() == (p.checked.is_ok() && p.executed.is_some())));
}

/// Blocks drawn ahead have their shapes compiled one block at a time, in the order drawn, even
/// when each compile takes longer than the next block's drawing.
#[test]
fn drawn_blocks_compile_one_at_a_time_in_order() {
    let log: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
    let mut drawer = super::drawer::Drawer::new().unwrap();
    for b in 0..3u64 {
        drawer
            .ask(warming_spec(&log), b * 16..(b + 1) * 16)
            .unwrap();
    }
    let firsts: Vec<String> = (0..3)
        .map(|_| drawer.take().unwrap().0[0].generated.case.name.clone())
        .collect();
    let t = std::time::Instant::now();
    while log.lock().unwrap().len() < 6 && t.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let want: Vec<String> = firsts
        .iter()
        .flat_map(|f| [format!("start {f}"), format!("end {f}")])
        .collect();
    assert_eq!(*log.lock().unwrap(), want);
}

/// Once the campaign is done with its drawer, blocks still waiting for their compile are not
/// compiled; the one compiling finishes.
#[test]
fn blocks_waiting_to_compile_are_dropped_with_the_drawer() {
    let log: std::sync::Arc<std::sync::Mutex<Vec<String>>> = Default::default();
    let pause = std::time::Duration::from_secs(4);
    let mut drawer = super::drawer::Drawer::new().unwrap();
    for b in 0..3u64 {
        drawer
            .ask(warming_spec_pausing(&log, pause), b * 16..(b + 1) * 16)
            .unwrap();
    }
    let first = drawer.take().unwrap().0[0].generated.case.name.clone();
    for _ in 1..3 {
        drawer.take().unwrap();
    }
    drop(drawer);
    let t = std::time::Instant::now();
    while log.lock().unwrap().len() < 2 && t.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(
        *log.lock().unwrap(),
        [format!("start {first}"), format!("end {first}")]
    );
}
