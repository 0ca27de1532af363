//! The campaign against fake hardware (no GPU needed): a planted divergence is found, minimized
//! and saved as a loadable regression case; known signatures suppress it; `--resume` continues
//! the seed sequence.

use super::campaign::{Campaign, Explore, Options, Stop};
use super::minimize::{cost, minimize, Budget};
use super::*;
use ptxconform_core::differential::{predicted, Run};
use ptxconform_core::evaluate::evaluate;
use ptxconform_core::judge::expected_regions;
use ptxconform_core::known::{KnownDivergence, KnownDivergences};
use ptxconform_core::result::ExpectedByte;
use ptxconform_reference::case::validate::parse_steps;
use ptxconform_reference::case::{load_file, StepOp};
use ptxconform_reference::case::{to_yaml, Ending};
use ptxconform_reference::gen::swarm::Features;
use ptxconform_reference::ptx::cp_async::{CpAsyncOp, CpSize};
use ptxconform_reference::ptx::Instruction;
use ptxconform_reference::sem::exec::Execution;
use ptxconform_reference::target::Target;
use std::path::Path;

/// Does the case run a 16-byte cp.async?
fn has_cp_async_16(c: &Case) -> bool {
    parse_steps(c).into_iter().any(|(_, st)| {
        matches!(st, Ok(st) if matches!(&st.instr, Instruction::CpAsync(CpAsyncOp::Copy(x)) if x.size == CpSize::B16))
    })
}

/// Fake hardware: matches the reference, except that a case running a 16-byte cp.async comes
/// back with one byte of `sbuf` flipped (when `flip`). Records the names of the cases it ran.
struct Fake {
    flip: fn(&Case) -> bool,
    ran: Vec<String>,
    batches: usize,
}

impl Fake {
    fn new(flip: bool) -> Fake {
        Fake::on(if flip { has_cp_async_16 } else { |_| false })
    }
    fn on(flip: fn(&Case) -> bool) -> Fake {
        Fake {
            flip,
            ran: vec![],
            batches: 0,
        }
    }
}

/// The model's own prediction, with the flip applied.
impl Backend for Fake {
    fn info(&self) -> RunInfo {
        RunInfo {
            device: "fake".into(),
            ..RunInfo::default()
        }
    }
    fn runs(&self, _: Target) -> bool {
        true
    }
    fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
        self.batches += 1;
        let info = self.info();
        Ok(cases
            .iter()
            .map(|(c, ex)| {
                self.ran.push(c.name.clone());
                let mut obs = predicted(&info, ex);
                if (self.flip)(c) {
                    let sbuf = obs.regions.iter_mut().find(|(k, _)| k.starts_with("sbuf@"));
                    let known = expected_regions(c, ex);
                    if let Some((name, bytes)) = sbuf {
                        let exp = known.iter().find(|(n, _)| n == name).map(|(_, e)| e);
                        if let Some(i) = exp.and_then(|e| e.iter().position(ExpectedByte::is_known))
                        {
                            bytes[i] ^= 0xff;
                        }
                    }
                }
                Run {
                    ptx: Some("// fake".into()),
                    ..Run::observed(obs)
                }
            })
            .collect())
    }
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptxc-fuzz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn opts(dir: &Path, known: KnownDivergences, resume: bool) -> Options {
    Options {
        seed: 7,
        out: dir.join("out"),
        regressions: dir.join("regressions"),
        known,
        resume,
        batch: 16,
        blocks: crate::fuzz::campaign::Blocks::fixed(16),
        minimize_rounds: 60,
        shard: crate::shard::Shard::ALL,
        planted: None,
        profile: ptxconform_core::judge::DEFAULT_PROFILE,
        values_per_shape: 4,
        mutants: false,
        // Steering makes programs depend on the map; these tests compare programs across runs.
        explore: Explore {
            steer: false,
            probe_shapes: 8,
            ..Explore::default()
        },
    }
}

/// Shards of a campaign split its programs: two halves see exactly the programs (here: their
/// intents, with the mixed config) of the whole, and a shard resumes only as itself.
#[test]
fn shards_partition_a_campaign() {
    use crate::shard::Shard;
    let dir = tmp("shards");
    let cfg = GenConfig {
        illegal_per_256: 64,
        undefined_per_256: 64,
        racy_per_256: 64,
        ..cfg()
    };
    let run = |name: &str, shard: Shard, programs: u64, resume: bool| {
        let mut o = opts(&dir.join(name), KnownDivergences::default(), resume);
        o.shard = shard;
        let mut c = Campaign::open(cfg.clone(), o, None)?;
        let stop = Stop::programs(programs);
        c.run(&stop, false)
    };
    let whole = run("whole", Shard::ALL, 64, false).unwrap();
    let a = run("a", Shard::new(0, 2).unwrap(), 32, false).unwrap();
    let b = run("b", Shard::new(1, 2).unwrap(), 32, false).unwrap();
    let mut sum = a.intents.clone();
    for (k, v) in &b.intents {
        *sum.entry(k.clone()).or_default() += v;
    }
    assert_eq!(sum, whole.intents);
    assert!(whole.intents.len() > 1, "{:?}", whole.intents);
    assert_eq!(a.shard, "0/2");
    let e = run("a", Shard::new(1, 2).unwrap(), 1, true).unwrap_err();
    assert!(e.contains("shard `0/2`"), "{e}");
    std::fs::remove_dir_all(dir).ok();
}

fn cfg() -> GenConfig {
    GenConfig {
        targets: vec![Target::SM_90A],
        families: Families::of(&[Family::CpAsync, Family::Mbarrier, Family::Store]),
        ..GenConfig::legal()
    }
}

/// A campaign of [`cfg`] and [`opts`] (no known divergences) in `dir`, on `hw`.
fn campaign<'h>(dir: &Path, resume: bool, hw: Option<&'h mut dyn Backend>) -> Campaign<'h> {
    Campaign::open(cfg(), opts(dir, KnownDivergences::default(), resume), hw).unwrap()
}

#[test]
fn planted_divergence_is_minimized_and_saved() {
    let dir = tmp("planted");
    let mut hw = Fake::new(true);
    let mut c = campaign(&dir, false, Some(&mut hw));
    let stats = c.run(&Stop::programs(40), false).unwrap();
    assert_eq!(stats.programs, 40);
    assert!(stats.divergences > 1, "{stats:?}");
    assert_eq!(
        stats.findings.len(),
        1,
        "one planted fault, one signature: {:?}",
        stats.findings
    );
    assert_eq!(
        stats.duplicates,
        stats.divergences - 1,
        "later hits are duplicates"
    );
    let (sig, file) = stats.findings.iter().next().unwrap();
    assert!(sig.ends_with("/diverge/sbuf"), "{sig}");
    let cases = load_file(Path::new(file)).unwrap();
    assert_eq!(cases.len(), 1);
    let m = &cases[0];
    assert!(m.name.starts_with("regress."), "{}", m.name);
    assert!(m.description.contains("seed 7"), "{}", m.description);
    assert!(
        m.program.len() <= 3,
        "minimized to {} steps:\n{}",
        m.program.len(),
        to_yaml(&cases)
    );
    assert!(has_cp_async_16(m));
    assert!(validate_errors(m).is_empty(), "{:?}", validate_errors(m));
    assert_eq!(
        evaluate("", m).0.verdict,
        Verdict::ReferencePass,
        "the regression passes reference-only runs"
    );
    assert_eq!(m.launch.ctas(), 1);
    // The regression carries the fake's observation: replaying it without hardware shows the
    // divergence, as the run that found it did...
    let known = KnownDivergences::default();
    let replayed = run_cases(
        &mut Fake::new(false),
        &known,
        ptxconform_core::judge::DEFAULT_PROFILE,
        std::slice::from_ref(m),
    )
    .unwrap();
    assert_eq!(replayed[0].result.verdict, Verdict::ReferenceFail);
    assert!(
        replayed[0].result.detail.contains("recorded on fake")
            && replayed[0].result.detail.contains("sbuf@cta0"),
        "{}",
        replayed[0].result.detail
    );
    // ...and without it, it still reproduces on the fake; the divergence report was written as
    // `run` writes it.
    let mut fresh = m.clone();
    fresh.observed.clear();
    assert_eq!(
        run_cases(
            &mut Fake::new(true),
            &known,
            ptxconform_core::judge::DEFAULT_PROFILE,
            std::slice::from_ref(&fresh),
        )
        .unwrap()[0]
            .result
            .verdict,
        Verdict::Diverge
    );
    let report = dir.join("out/divergences").join(format!("{}.yaml", m.name));
    assert!(load_file(&report).is_ok(), "{}", report.display());
    // The figures say which profile the hardware was judged under.
    let figures: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/campaign.json")).unwrap())
            .unwrap();
    assert_eq!(figures["profile"], "sm_90");
    // `run` picks the regressions folder up like any folder under cases/.
    let (loaded, errors) = ptxconform_core::corpus::load_corpus(&[dir.join("regressions")]);
    assert!(errors.is_empty() && loaded.len() == 1 && loaded[0].case.name == m.name);
    std::fs::remove_dir_all(dir).ok();
}

fn validate_errors(c: &Case) -> Vec<String> {
    use ptxconform_reference::case::validate::case_errors;
    case_errors(c).into_iter().map(|p| p.message).collect()
}

#[test]
fn known_signature_suppresses() {
    let dir = tmp("known");
    let known = KnownDivergences {
        known: vec![KnownDivergence {
            name: "flip".into(),
            case: String::new(),
            signature: Some("*/diverge/sbuf".into()),
            avoid: vec![],
            culprit: Default::default(),
            seen_on: ptxconform_core::known::SeenOn {
                devices: vec!["*".into()],
                drivers: vec!["*".into()],
            },
            reason: "planted".into(),
        }],
    };
    let mut hw = Fake::new(true);
    let mut c = Campaign::open(cfg(), opts(&dir, known, false), Some(&mut hw)).unwrap();
    let stats = c.run(&Stop::programs(40), false).unwrap();
    assert!(stats.known > 1, "{stats:?}");
    assert_eq!(stats.divergences, 0);
    assert!(stats.findings.is_empty());
    assert!(!dir.join("regressions").exists(), "nothing saved");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn resume_continues_the_seed_sequence() {
    let (a, b) = (tmp("resume-a"), tmp("resume-b"));
    let mut whole = Fake::new(false);
    campaign(&a, false, Some(&mut whole))
        .run(&Stop::programs(20), false)
        .unwrap();
    let mut first = Fake::new(false);
    let s1 = campaign(&b, false, Some(&mut first))
        .run(&Stop::programs(10), false)
        .unwrap();
    assert_eq!(s1.programs, 10);
    let mut second = Fake::new(false);
    let s2 = campaign(&b, true, Some(&mut second))
        .run(&Stop::programs(10), false)
        .unwrap();
    assert_eq!(s2.programs, 20);
    assert_eq!(s2.gpu_cases, whole.ran.len() as u64);
    let split: Vec<String> = first.ran.iter().chain(&second.ran).cloned().collect();
    assert_eq!(
        split, whole.ran,
        "resumed run generates the programs an uninterrupted one does"
    );
    // Without --resume the sequence starts over.
    let mut again = Fake::new(false);
    campaign(&b, false, Some(&mut again))
        .run(&Stop::programs(10), false)
        .unwrap();
    assert_eq!(again.ran, first.ran);
    std::fs::remove_dir_all(a).ok();
    std::fs::remove_dir_all(b).ok();
}

#[test]
fn reference_only_campaign_counts_programs() {
    let dir = tmp("cpu");
    let mut c = Campaign::open(
        GenConfig::mixed(),
        opts(&dir, KnownDivergences::default(), false),
        None,
    )
    .unwrap();
    let s = c.run(&Stop::programs(50), false).unwrap();
    assert_eq!((s.programs, s.gpu_cases), (50, 0));
    assert_eq!(s.intents.values().sum::<u64>(), 50);
    assert_eq!(
        s.violations, 0,
        "the generator's oracles hold: {:?}",
        s.findings
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn minimizer_batches_and_respects_admissibility() {
    // Keep any case with a 16-byte cp.async; only well-defined, validating candidates count.
    let g = (0..200u64)
        .map(|k| {
            ptxconform_reference::gen::generate_bytes(
                &super::campaign::program_bytes(3, k, &cfg()),
                &cfg(),
            )
        })
        .find(|g| has_cp_async_16(&g.case) && g.case.program.len() > 6)
        .expect("a program with a 16-byte cp.async");
    let admissible = |c: &Case| {
        validate_errors(c).is_empty() && evaluate("", c).0.verdict == Verdict::ReferencePass
    };
    let mut batches = 0;
    let mut test = |cs: &[Case]| -> Result<Vec<Option<()>>, String> {
        batches += 1;
        assert!(cs.len() <= 8);
        Ok(cs
            .iter()
            .map(|c| has_cp_async_16(c).then_some(()))
            .collect())
    };
    let m = minimize(
        &g.case,
        &admissible,
        &mut test,
        Budget {
            batch: 8,
            rounds: 500,
            until: None,
        },
    )
    .unwrap();
    assert!(
        m.case.program.len() <= 3 && m.case.program.len() < g.case.program.len(),
        "{:?}",
        m.case.program
    );
    assert!(cost(&m.case) < cost(&g.case));
    assert!(admissible(&m.case));
    assert_eq!(batches, m.rounds);
}

#[test]
fn signatures() {
    let r = CaseResult {
        // The words do not matter: the differences decide, the first differing byte first.
        detail: "d".into(),
        differences: vec![
            Difference::Canaries {
                regions: vec!["src".into()],
            },
            Difference::Byte {
                region: "sbuf@cta3".into(),
                offset: 7,
                expected: ExpectedByte::Known(1),
                observed: 2,
            },
        ],
        ..CaseResult::new("x", "f", "cp.async.bulk", Verdict::Diverge)
    };
    let s = Signature::of(&r);
    assert_eq!(s.key(), "cp.async.bulk/diverge/sbuf");
    let canaries = CaseResult {
        differences: r.differences[..1].to_vec(),
        ..r.clone()
    };
    assert_eq!(
        Signature::of(&canaries).key(),
        "cp.async.bulk/diverge/canaries"
    );
    let t = CaseResult {
        verdict: Verdict::TrapUnexpected,
        detail: "no words".into(),
        differences: vec![Difference::Ending {
            ended: Ending::trap(715),
        }],
        diffs: vec![],
        ..r.clone()
    };
    assert_eq!(
        Signature::of(&t).key(),
        "cp.async.bulk/trap_unexpected/trap IllegalInstruction"
    );
    let other_family = Signature {
        family: "cp.async".into(),
        ..s.clone()
    };
    assert!(s.same_failure(&other_family) && s.hash() != other_family.hash());
    let v = Signature::of_violation(
        "cp.async",
        "reference",
        "intended WellDefined, executor says Undefined(\"x\") at step 12",
    );
    assert!(
        v.key()
            .starts_with("cp.async/reference_fail/reference: intended")
            && !v.key().chars().any(|c| c.is_ascii_digit()),
        "{}",
        v.key()
    );
    assert_eq!(
        parse_families("cp_async, bulk-copy,Mbarrier").unwrap(),
        Families::of(&[Family::CpAsync, Family::BulkCopy, Family::Mbarrier])
    );
    assert_eq!(
        parse_families("tensor,tcgen05").unwrap(),
        Families::of(&[Family::Tensor, Family::Tcgen05])
    );
    let e = parse_families("tma").err().unwrap();
    assert!(e.contains("(one of cp_async, bulk_copy, "), "{e}");
}

/// Does the case run a multicast bulk copy?
fn has_multicast(c: &Case) -> bool {
    c.program.iter().any(|s| matches!(&s.op, StepOp::Ptx(t) if t.starts_with("cp.async.bulk") && t.contains(".multicast::cluster")))
}

fn has_bulk_g2s(c: &Case) -> bool {
    c.program.iter().any(|s| matches!(&s.op, StepOp::Ptx(t) if t.starts_with("cp.async.bulk.shared::cluster.global")))
}

#[test]
fn planted_bulk_divergences_minimize_with_consistent_mbarrier_setup() {
    let cfg = GenConfig {
        targets: vec![Target::SM_90A],
        families: Families::of(&[Family::BulkCopy, Family::Mbarrier, Family::Store]),
        ..GenConfig::legal()
    };
    for (what, pred, most) in [
        ("g2s", has_bulk_g2s as fn(&Case) -> bool, 5),
        ("multicast", has_multicast, 5),
    ] {
        let dir = tmp(what);
        let mut hw = Fake::on(pred);
        let mut c = Campaign::open(
            cfg.clone(),
            opts(&dir, KnownDivergences::default(), false),
            Some(&mut hw),
        )
        .unwrap();
        let stats = c.run(&Stop::programs(60), false).unwrap();
        assert!(!stats.findings.is_empty(), "{what}: {stats:?}");
        for file in stats.findings.values() {
            let m = &load_file(Path::new(file)).unwrap()[0];
            eprintln!("{what}: {}", to_yaml(std::slice::from_ref(m)));
            assert!(pred(m), "{what}");
            assert_eq!(evaluate("", m).0.verdict, Verdict::ReferencePass);
            // init, expect_tx (+ arrive), the copy, the wait (per destination CTA for multicast)
            assert!(
                m.program.len() < most + m.launch.ctas() as usize,
                "{what}: {} steps",
                m.program.len()
            );
        }
        if std::env::var_os("KEEP").is_none() {
            std::fs::remove_dir_all(dir).ok();
        }
    }
}

#[test]
fn steering_turns_off_the_features_known_findings_name() {
    use ptxconform_reference::gen::generate_bytes;
    let known = |avoid: &str| KnownDivergences {
        known: vec![KnownDivergence {
            name: "hint-traps".into(),
            case: String::new(),
            signature: None,
            avoid: vec![avoid.into()],
            culprit: Default::default(),
            seen_on: ptxconform_core::known::SeenOn {
                devices: vec!["*".into()],
                drivers: vec!["*".into()],
            },
            reason: "r".into(),
        }],
    };
    let (f, why) = known("cache_hint").avoided().unwrap();
    assert!(f.cache_hint && !f.fill);
    assert_eq!(
        why,
        vec![("cache_hint".to_string(), "hint-traps".to_string())]
    );
    let e = known("cache_hints").avoided().unwrap_err();
    assert!(e.contains("hint-traps") && e.contains("cache_hints"), "{e}");

    let hinted = |cfg: &GenConfig| {
        (0..400u64)
            .filter(|k| {
                let g = generate_bytes(&campaign::program_bytes(7, *k, cfg), cfg);
                g.case
                    .program
                    .iter()
                    .any(|s| format!("{s:?}").contains("cache_hint"))
            })
            .count()
    };
    let mut cfg = GenConfig::legal();
    assert!(
        hinted(&cfg) > 0,
        "the generator uses .L2::cache_hint unsteered"
    );
    cfg.avoid = f;
    assert_eq!(hinted(&cfg), 0, "steered programs never use it");
}

/// A trap names no instruction: a program whose first copy is a bulk prefetch but which also
/// holds H1's `cp.async … .L2::cache_hint` is explained by H1, one without the hint is not.
#[test]
fn a_trap_is_explained_by_a_known_finding_the_program_can_reach() {
    let known = KnownDivergences::load(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../reports/known-divergences.yaml"
    )))
    .unwrap();
    let case = |hint: &str| {
        let y = format!(
            "- name: t\n  target: sm_90a\n  launch: {{ grid: [1, 1, 1], threads: 32 }}\n  memory:\n    \
             global: [{{ name: g, size: 256, align: 128 }}]\n    shared: [{{ name: s, size: 256, align: 128 }}]\n  \
             params: {{ policy: {{ value: 0, type: b64 }} }}\n  program:\n  \
             - ptx: cp.async.bulk.prefetch.L2.global [g], 128\n  \
             - ptx: cp.async.ca.shared.global{hint} [s], [g], 16{}\n  \
             - ptx: cp.async.wait_all\n",
            if hint.is_empty() { "" } else { ", policy" }
        );
        ptxconform_reference::case::load_str(&y, "t.yaml")
            .unwrap()
            .remove(0)
    };
    let at = "trap_unexpected/trap IllegalInstruction";
    let hinted = case(".L2::cache_hint");
    assert_eq!(
        ptxconform_core::evaluate::family_of(&hinted),
        "cp.async.bulk.prefetch"
    );
    let k = known.explaining_trap(
        Features::used_by(&hinted),
        &ptxconform_core::evaluate::families_of(&hinted),
        at,
    );
    assert_eq!(
        k.map(|k| k.name.as_str()),
        Some("cp-async-cache-hint-policy-traps")
    );
    let plain = case("");
    assert!(known
        .explaining_trap(
            Features::used_by(&plain),
            &ptxconform_core::evaluate::families_of(&plain),
            at
        )
        .is_none());
}

/// A planted case replaces every N-th program's hardware run (named for the program), and a
/// known finding that names it keeps it from counting as a divergence.
#[test]
fn planted_case_runs_every_nth_program() {
    let dir = tmp("plant");
    let trap = ptxconform_core::corpus::corpus_case(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases"),
        "cp_async/copy.yaml",
        "cp_async.ca.4.shared.full.hint",
    )
    .unwrap();
    // Its shared buffer named as the fake flips it.
    let yaml = to_yaml(std::slice::from_ref(&trap)).replace("buf", "sbuf");
    let trap = ptxconform_reference::case::load_str(&yaml, "planted")
        .unwrap()
        .remove(0);
    let known = KnownDivergences {
        known: vec![KnownDivergence {
            name: "planted".into(),
            case: "cp_async.ca.4.shared.full.hint.planted*".into(),
            signature: None,
            avoid: vec![],
            culprit: Default::default(),
            seen_on: ptxconform_core::known::SeenOn {
                devices: vec!["*".into()],
                drivers: vec!["*".into()],
            },
            reason: "a test".into(),
        }],
    };
    let mut o = opts(&dir, known, false);
    o.planted = Some(super::campaign::Planted {
        every: 8,
        case: trap,
    });
    // Every planted run comes back different from the model: a "trap" in all but name.
    let mut hw = Fake::on(|c| c.name.contains(".planted"));
    let mut c = Campaign::open(cfg(), o, Some(&mut hw as &mut dyn Backend)).unwrap();
    let s = c.run(&Stop::programs(32), false).unwrap();
    drop(c);
    let planted: Vec<&String> = hw.ran.iter().filter(|n| n.contains(".planted")).collect();
    assert_eq!(
        planted,
        ["7", "15", "23", "31"]
            .iter()
            .map(|k| format!("cp_async.ca.4.shared.full.hint.planted{k}"))
            .collect::<Vec<_>>()
            .iter()
            .collect::<Vec<_>>()
    );
    assert_eq!(s.gpu_cases, 32);
    assert_eq!(
        (s.known, s.divergences, s.minimized_written),
        (4, 0, 0),
        "{s:?}"
    );
    std::fs::remove_dir_all(dir).ok();
}

/// A campaign's hardware finding, once minimized, is re-run under the other builds and carries
/// its culprit: here the -O3 builds flip a byte and the -O0 build does not (a compiler defect).
#[test]
fn a_finding_is_attributed_to_the_builds_that_depart() {
    let dir = tmp("attributed");
    let mut hw = Fake::new(true);
    let mut c = campaign(&dir, false, Some(&mut hw));
    let make: ptxconform_gpu::attribution::MakeBackend =
        Box::new(|cg: &ptxconform_gpu::builds::Codegen| {
            let flips = cg.to_string().ends_with("-O3");
            Ok(Box::new(Fake::new(flips)) as Box<dyn Backend>)
        });
    c.attributor = Some(ptxconform_gpu::attribution::Attributor::with(
        &KnownDivergences::default(),
        "ptxas-13.0-O3".parse().unwrap(),
        vec![
            "ptxas-13.5-O3".parse().unwrap(),
            "ptxas-13.0-O0".parse().unwrap(),
        ],
        (9, 0),
        make,
    ));
    let stats = c.run(&Stop::programs(40), false).unwrap();
    assert_eq!(stats.findings.len(), 1, "{stats:?}");
    let (sig, file) = stats.findings.iter().next().unwrap();
    assert_eq!(
        stats.culprits.get(sig).map(String::as_str),
        Some("compiler: ptxas-13.0-O3, ptxas-13.5-O3"),
        "{stats:?}"
    );
    let name = Path::new(file)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let div = dir.join("out").join("divergences");
    let at = std::fs::read_to_string(div.join(format!("{name}.attribution.json"))).unwrap();
    assert!(at.contains("ptxas-13.0-O0"), "{at}");
    let result = std::fs::read_to_string(div.join(format!("{name}.result.json"))).unwrap();
    assert!(result.contains("\"attribution\""), "{result}");
    // The journal keeps the culprit across a resume.
    let journal = std::fs::read_to_string(dir.join("out").join("journal.jsonl")).unwrap();
    assert!(journal.contains("\"culprit\":\"compiler: ptxas-13.0-O3, ptxas-13.5-O3\""));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Programs come in shapes: K value sets of a shape share one kernel (few distinct shapes, many
/// distinct programs), the campaign records its generator version and K, and a journal of
/// another version or K is not resumed.
#[test]
fn programs_are_shapes_times_values_and_resume_keeps_both() {
    let dir = tmp("shapes");
    let run = |per: u64, programs: u64, resume: bool| {
        let mut o = opts(&dir, KnownDivergences::default(), resume);
        o.values_per_shape = per;
        let mut c = Campaign::open(cfg(), o, None)?;
        c.run(&Stop::programs(programs), false)
    };
    let s = run(16, 64, false).unwrap();
    assert_eq!(
        (s.generator, s.values_per_shape),
        (ptxconform_reference::gen::GENERATOR_VERSION, 16)
    );
    assert!(
        (1..=4).contains(&s.distinct_shapes),
        "64 programs of 16 value sets: at most 4 kernels, {s:?}"
    );
    assert!(
        s.distinct_programs > 2 * s.distinct_shapes,
        "value sets are distinct programs: {s:?}"
    );
    let e = run(8, 1, true).unwrap_err();
    assert!(e.contains("16 value sets per shape"), "{e}");
    assert!(e.contains("resume it with --values-per-shape 16"), "{e}");
    // A journal from before generator versions.
    let journal = dir.join("out").join("journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let old = text.replace(
        &format!(
            "\"generator\":{}",
            ptxconform_reference::gen::GENERATOR_VERSION
        ),
        "\"generator\":0",
    );
    assert_ne!(old, text);
    std::fs::write(&journal, old).unwrap();
    let e = run(16, 1, true).unwrap_err();
    assert!(e.contains("generator version 0"), "{e}");
    // One value set per shape: every program that runs is its own kernel.
    let one = run(1, 32, false).unwrap();
    assert_eq!(one.distinct_shapes, one.distinct_programs, "{one:?}");
    assert!(one.distinct_shapes > 16, "{one:?}");
    std::fs::remove_dir_all(dir).ok();
}

/// `--mutants`: every observation is judged under every mutant still alive; the first kill of
/// each is recorded with its program, and survives a resume.
#[cfg(feature = "mutants")]
#[test]
fn campaign_records_each_mutants_first_kill() {
    use ptxconform_reference::sem::mutant::Mutant;
    let dir = tmp("mutants");
    let run = |programs: u64, resume: bool| {
        let mut o = opts(&dir, KnownDivergences::default(), resume);
        o.mutants = true;
        let mut hw = Fake::new(false);
        let mut c = Campaign::open(cfg(), o, Some(&mut hw))?;
        c.run(&Stop::programs(programs), false)
    };
    let s = run(48, false).unwrap();
    assert_eq!(s.mutants, Mutant::ALL.len() as u64);
    // The fake silicon is the model's prediction: it kills the mutants that change it.
    assert!(!s.mutant_kills.is_empty(), "{s:?}");
    for (id, k) in &s.mutant_kills {
        assert!(Mutant::ALL.iter().any(|m| m.id() == id), "{id}");
        assert!(
            k.program < 48 && k.programs <= 48 && k.fingerprint.len() == 16,
            "{k:?}"
        );
    }
    let more = run(16, true).unwrap();
    for (id, k) in &s.mutant_kills {
        assert_eq!(more.mutant_kills.get(id), Some(k), "first kills are kept");
    }
    std::fs::remove_dir_all(dir).ok();
}

/// Programs the reference predicts to trap are skipped under a trap budget of 0: counted as
/// skipped (in the figures and across a resume), never run, never a verdict.
#[test]
fn trap_budget_skips_predicted_traps_and_resumes() {
    use super::campaign::trap_budget::TrapBudget;
    let dir = tmp("trap-budget");
    let cfg = GenConfig {
        families: Families::of(&[Family::CpAsync, Family::BulkCopy, Family::Mbarrier]),
        undefined_per_256: 160,
        ..cfg()
    };
    let run = |resume: bool, programs: u64| {
        let mut o = opts(&dir, KnownDivergences::default(), resume);
        o.explore.trap_budget = Some(TrapBudget(0.0));
        // No sweep records as evidence (the tests run outside the repository root).
        o.explore.evidence_sweeps = dir.join("no-sweeps");
        std::fs::create_dir_all(&o.explore.evidence_sweeps).unwrap();
        let mut hw = Fake::new(false);
        let mut c = Campaign::open(cfg.clone(), o, Some(&mut hw)).unwrap();
        let s = c.run(&Stop::programs(programs), false).unwrap();
        (s, hw.ran.len() as u64)
    };
    let (s, ran) = run(false, 96);
    let l = &s.trap_budget;
    assert!(l.predicted_traps > 0, "{l:?}");
    assert_eq!((l.skipped, l.trap_runs), (l.predicted_traps, 0), "{l:?}");
    assert_eq!(s.gpu_cases, ran);
    assert_eq!(s.verdicts.values().sum::<u64>(), s.gpu_cases);
    let hardware_bound = s.programs - s.intents.get("illegal").copied().unwrap_or(0) - s.violations;
    assert_eq!(s.gpu_cases + l.skipped, hardware_bound, "{s:?}");
    let figures: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/campaign.json")).unwrap())
            .unwrap();
    assert_eq!(figures["trap_budget"]["skipped"], l.skipped);
    let (r, _) = run(true, 32);
    assert_eq!(r.programs, 128);
    assert!(r.trap_budget.skipped >= l.skipped);
    assert_eq!(r.trap_budget.share, Some(0.0));
    std::fs::remove_dir_all(dir).ok();
}

/// The coverage map is in campaign.json and a resumed campaign reloads it: two halves, resumed,
/// end with the map (and, steered by it, the programs) of one uninterrupted campaign.
#[test]
fn coverage_map_roundtrips_and_resumes() {
    use super::campaign::coverage::CoverageMap;
    let dir = tmp("coverage");
    let run = |name: &str, resume: bool, programs: u64| {
        let mut o = opts(&dir.join(name), KnownDivergences::default(), resume);
        o.explore.steer = true;
        let mut c = Campaign::open(cfg(), o, None).unwrap();
        let s = c.run(&Stop::programs(programs), false).unwrap();
        (s, c.coverage.clone())
    };
    let (whole, map) = run("whole", false, 64);
    run("split", false, 32);
    let (split, resumed) = run("split", true, 32);
    let (reachable, hit) = map.counts();
    assert!(hit > 10 && reachable >= hit, "{}", map.summary());
    assert_eq!(resumed, map);
    assert_eq!(split.intents, whole.intents);
    let text = std::fs::read_to_string(dir.join("whole/out/campaign.json")).unwrap();
    let saved: serde_json::Value = serde_json::from_str(&text).unwrap();
    let back: CoverageMap = serde_json::from_value(saved["coverage"].clone()).unwrap();
    assert_eq!(back, map);
    assert!(dir.join("whole/out/campaign-coverage.md").exists());
    // Resuming with another steering setting is refused: the programs would differ.
    let mut o = opts(&dir.join("split"), KnownDivergences::default(), true);
    o.explore.steer = false;
    let e = Campaign::open(cfg(), o, None).err().unwrap();
    assert!(e.contains("--no-coverage-steer"), "{e}");
    std::fs::remove_dir_all(dir).ok();
}

/// `--until-coverage` ends the campaign once every reachable cell is hit, long before its
/// program limit.
#[test]
fn until_coverage_stops_when_every_cell_is_hit() {
    let dir = tmp("until-coverage");
    let mut o = opts(&dir, KnownDivergences::default(), false);
    o.explore.steer = true;
    o.explore.probe_shapes = 2;
    let mut c = Campaign::open(cfg(), o, None).unwrap();
    let s = c
        .run(
            &Stop {
                seconds: None,
                programs: Some(4096),
                coverage: true,
            },
            false,
        )
        .unwrap();
    assert!(c.coverage.complete(), "{}", c.coverage.summary());
    assert!(s.programs < 4096, "{}", s.programs);
    std::fs::remove_dir_all(dir).ok();
}

/// Steering writes the swarm's header bytes where the generator draws them: a shape whose bits
/// name only the cp.async family has no bulk, tensor or tcgen05 instruction, where the same
/// shapes unsteered have some.
#[test]
fn steered_swarm_bits_are_the_ones_drawn() {
    use ptxconform_reference::gen::swarm::SwarmBits;
    use ptxconform_reference::ptx::Instruction;
    let cfg = GenConfig::legal();
    let only = SwarmBits(u16::from(Families::of(&[Family::CpAsync]).0));
    let other = |g: &ptxconform_reference::gen::Generated| {
        parse_steps(&g.case).into_iter().any(|(_, s)| {
            matches!(
                s.map(|s| s.instr),
                Ok(Instruction::Bulk(_) | Instruction::Tensor(_) | Instruction::Tcgen05(_))
            )
        })
    };
    let (mut steered, mut unsteered) = (0, 0);
    for k in 0..32 {
        let mut bytes = campaign::program_bytes(5, k, &cfg);
        unsteered += usize::from(other(&ptxconform_reference::gen::generate_bytes(
            &bytes, &cfg,
        )));
        only.write(&mut bytes);
        assert_eq!(SwarmBits::of_header(&bytes, &cfg), only);
        steered += usize::from(other(&ptxconform_reference::gen::generate_bytes(
            &bytes, &cfg,
        )));
    }
    assert_eq!(steered, 0);
    assert!(unsteered > 0);
}

/// The deviation byte steering writes asks `gen::build` for that deviation: a racy or undefined
/// program (or a well-defined one where no enabled family can deviate so), never another kind.
#[test]
fn steered_deviation_byte_is_the_one_drawn() {
    use ptxconform_reference::gen::swarm::{deviation_byte, DEVIATION_BYTE};
    use ptxconform_reference::gen::{generate_bytes, Deviation, Intent};
    let cfg = GenConfig::mixed();
    for d in [Deviation::Undefined, Deviation::Racy] {
        let (mut asked, mut drawn) = (0, 0);
        for k in 0..64 {
            let mut bytes = campaign::program_bytes(9, k, &cfg);
            let kind = |g: &ptxconform_reference::gen::Generated| match g.intent {
                Intent::Undefined { .. } => Some(Deviation::Undefined),
                Intent::Racy { .. } => Some(Deviation::Racy),
                Intent::Illegal { .. } => Some(Deviation::Illegal),
                Intent::WellDefined => None,
            };
            drawn += usize::from(kind(&generate_bytes(&bytes, &cfg)) == Some(d));
            bytes[DEVIATION_BYTE] = deviation_byte(&cfg, d).unwrap();
            if let Some(got) = kind(&generate_bytes(&bytes, &cfg)) {
                assert_eq!(got, d, "shape {k}");
                asked += 1;
            }
        }
        assert!(
            asked > 32 && asked > 2 * drawn,
            "{d:?}: {asked} asked, {drawn} drawn"
        );
    }
    assert_eq!(
        deviation_byte(&GenConfig::legal(), Deviation::Undefined),
        None
    );
}

/// A campaign's sustained rate leaves its first block out: with blocks of 16 and 64 programs
/// it counts the 48 after the first block, over the time after it; a run of one block has none.
#[test]
fn the_sustained_rate_leaves_the_first_block_out() {
    let dir = tmp("sustained");
    let mut hw = Fake::new(false);
    let mut c = campaign(&dir.join("four"), false, Some(&mut hw));
    let stats = c.run(&Stop::programs(64), false).unwrap();
    assert_eq!(stats.programs, 64);
    let s = c.sustained.expect("four blocks");
    assert_eq!(s.warmup_programs, 16, "{s:?}");
    assert!(s.warmup_s > 0.0 && s.programs_per_s > 0.0, "{s:?}");
    let after = stats.seconds - s.warmup_s;
    assert!(
        (s.programs_per_s * after - 48.0).abs() < 1e-6 * 48.0,
        "48 programs after the first block, in the {after}s after it: {s:?}"
    );
    let mut one = campaign(&dir.join("one"), false, None);
    one.run(&Stop::programs(16), false).unwrap();
    assert_eq!(one.sustained, None, "one block has no rate after it");
    std::fs::remove_dir_all(dir).ok();
}

/// [`Fake`] hardware (no flip) whose observation of a step takes a while, and which logs the
/// first case of each step its preparer prepares and of each step it observes.
struct Paced {
    fake: Fake,
    delay: std::time::Duration,
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

struct PrepareLog(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

fn first_name(cases: &[(&Case, &Execution)]) -> String {
    cases.first().map_or(String::new(), |c| c.0.name.clone())
}

impl ptxconform_core::differential::Prepare for PrepareLog {
    fn prepare(&self, cases: &[(&Case, &Execution)]) -> ptxconform_core::differential::Prepared {
        let line = format!("prepare {}", first_name(cases));
        self.0.lock().unwrap().push(line);
        ptxconform_core::differential::Prepared::new(())
    }
}

impl Backend for Paced {
    fn info(&self) -> RunInfo {
        self.fake.info()
    }
    fn runs(&self, t: Target) -> bool {
        self.fake.runs(t)
    }
    fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
        std::thread::sleep(self.delay);
        let line = format!("observe {}", first_name(cases));
        self.log.lock().unwrap().push(line);
        self.fake.observe(cases)
    }
    fn preparer(&self) -> Option<std::sync::Arc<dyn ptxconform_core::differential::Prepare>> {
        Some(std::sync::Arc::new(PrepareLog(self.log.clone())))
    }
}

/// While the hardware runs a block, the next block's first step, once drawn, is evaluated and
/// prepared beside it; the next block then runs that step as prepared, and every program runs
/// once, judged as without it.
#[test]
fn a_block_runs_its_first_step_as_made_ready_beside_the_block_before() {
    let dir = tmp("readied");
    let mut hw = Paced {
        fake: Fake::new(false),
        delay: std::time::Duration::from_millis(300),
        log: Default::default(),
    };
    let mut c = campaign(&dir, false, Some(&mut hw));
    let stats = c.run(&Stop::programs(128), false).unwrap();
    drop(c);
    assert_eq!(stats.programs, 128);
    assert_eq!(stats.divergences, 0, "{stats:?}");
    assert_eq!(
        hw.fake.ran.len() as u64,
        stats.gpu_cases,
        "every program ran once"
    );
    let log = hw.log.lock().unwrap();
    let firsts = |what: &str| -> Vec<&str> {
        log.iter()
            .filter_map(|l| l.strip_prefix(what))
            .collect::<Vec<_>>()
    };
    // Every step was prepared once, in the order it ran.
    assert_eq!(firsts("prepare "), firsts("observe "), "{log:?}");
    // A step observed after another step's preparation (its successor's, made ready beside
    // it): without the carry each step is prepared, then observed, then the next prepared.
    let mut last_prepared = None;
    let mut readied = 0;
    for l in log.iter() {
        if let Some(p) = l.strip_prefix("prepare ") {
            last_prepared = Some(p);
        } else if let Some(o) = l.strip_prefix("observe ") {
            readied += usize::from(last_prepared != Some(o));
        }
    }
    let steps = firsts("observe ").len();
    // Usually 6 of 8 (the first block has none before it); a loaded host draws later.
    assert!(
        readied >= 1,
        "{readied} of {steps} blocks' first steps made ready beside the block before: {log:?}"
    );
    std::fs::remove_dir_all(dir).ok();
}

/// A block's programs predicted neither to trap nor to hang run in one step however many they
/// are (here more than two of the pipeline's steps of 2,048), each once.
#[test]
fn a_blocks_first_part_runs_in_one_step() {
    let dir = tmp("whole");
    let mut hw = Paced {
        fake: Fake::new(false),
        delay: std::time::Duration::ZERO,
        log: Default::default(),
    };
    let mut o = opts(&dir, KnownDivergences::default(), false);
    let block = 4096 + 100;
    o.batch = block;
    o.blocks = crate::fuzz::campaign::Blocks::fixed(block);
    let mut c = Campaign::open(cfg(), o, Some(&mut hw)).unwrap();
    let stats = c.run(&Stop::programs(2 * block as u64), false).unwrap();
    drop(c);
    assert_eq!(stats.programs, 2 * block as u64);
    assert_eq!(
        hw.fake.ran.len() as u64,
        stats.gpu_cases,
        "every program ran once"
    );
    let log = hw.log.lock().unwrap();
    let observed = log.iter().filter(|l| l.starts_with("observe ")).count();
    assert_eq!(observed, 2, "one step a block: {log:?}");
    std::fs::remove_dir_all(dir).ok();
}
