use super::*;
use ptxconform_core::differential::{predicted, Altered, Predicted, Ran, Run};
use ptxconform_core::evaluate::evaluate;
use ptxconform_gpu::emit::{emit, emit_all, emit_guarded, Guards};
use ptxconform_reference::target::Target;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/litmus/races.yaml")
}

fn case(name: &str) -> Case {
    load_file(&corpus())
        .unwrap()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap()
}

/// What instance `k` shows, given the model's prediction of it and where its race is.
type Show = Box<dyn Fn(u64, Observation, &RaceSites) -> Ran + Send>;

/// A device behind the [`Backend`] trait: each instance (its number read from its `NAME#k`)
/// shows what `show` makes of the model's prediction; it notes how many instances each batch
/// held, and reports a kernel naming the instance.
struct Fake {
    show: Show,
    launches: Vec<usize>,
}

impl Fake {
    fn showing(show: impl Fn(u64, Observation, &RaceSites) -> Ran + Send + 'static) -> Fake {
        Fake {
            show: Box::new(show),
            launches: vec![],
        }
    }

    /// Every uncertain byte of `region` is `value(k)` in instance `k`.
    fn racy(region: &'static str, value: fn(u64) -> u8) -> Fake {
        Fake::showing(move |k, o, s| Ran::Observed(with_race(o, s, region, value(k))))
    }
}

/// `o` with every uncertain byte of `region` set to `v`.
fn with_race(mut o: Observation, sites: &RaceSites, region: &str, v: u8) -> Observation {
    let bytes = o.regions.get_mut(region).unwrap();
    for (key, s) in &sites.bytes {
        if key == region {
            for (i, _) in s {
                bytes[*i] = v;
            }
        }
    }
    o
}

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
        self.launches.push(cases.len());
        let runs = cases
            .iter()
            .map(|(c, ex)| {
                let (_, k) = c.name.rsplit_once('#').expect("an instance name");
                let o = predicted(&self.info(), ex);
                Run {
                    ran: (self.show)(k.parse().unwrap(), o, &RaceSites::of(ex)),
                    ptx: Some(format!("// kernel of {}\n", c.name).into()),
                    wall_us: 0,
                    device: String::new(),
                    build: None,
                }
            })
            .collect();
        Ok(runs)
    }
}

fn sched(instances: u64, per_launch: usize, stress: Stress) -> Schedule {
    Schedule {
        instances,
        per_launch,
        stress,
        seed: 7,
        seconds: None,
    }
}

fn run<B: Backend + Send>(b: &mut B, c: &Case, n: u64, per: usize, stress: Stress) -> CaseLitmus {
    run_case(std::slice::from_mut(b), "t.yaml", c, sched(n, per, stress)).unwrap()
}

/// Outcomes are counted exactly, each with the first instance that showed it; each launch is one
/// batch of the core, of the planned size.
#[test]
fn histogram_counts_each_outcome_exactly() {
    let c = case("litmus.bulk_g2s.overlap");
    let mut f = Fake::racy("dst@cta0", |k| if k % 4 == 0 { 2 } else { 1 });
    let r = run(&mut f, &c, 10, 3, Stress::None);
    assert_eq!((r.instances, r.launches), (10, 4));
    assert_eq!(f.launches, vec![3, 3, 3, 1]);
    assert!(r.divergences.is_empty(), "{:?}", r.divergences);
    let got: Vec<(&str, u64, u64)> = r
        .outcomes
        .iter()
        .map(|s| (s.outcome.as_str(), s.count, s.first_instance))
        .collect();
    let ones = "completed dst@cta0=01010101010101010101010101010101 bar@cta0=p0:1,p1:0";
    let twos = "completed dst@cta0=02020202020202020202020202020202 bar@cta0=p0:1,p1:0";
    assert_eq!(got, vec![(ones, 7, 1), (twos, 3, 0)]);
    assert!((r.outcomes[0].frequency - 0.7).abs() < 1e-12);
    assert_eq!(r.allowed, vec!["dst@cta0[0..16]: {01|02}".to_string()]);
}

/// A value outside the allowed set is a divergence, with the judge's words; allowed ones are not.
#[test]
fn a_value_outside_the_allowed_set_is_a_divergence() {
    let c = case("litmus.bulk_s2g.two_copies");
    let mut f = Fake::racy("dst", |k| if k == 5 { 7 } else { 5 + (k % 2) as u8 });
    let r = run(&mut f, &c, 8, 8, Stress::None);
    assert_eq!(r.outcomes.iter().map(|s| s.count).sum::<u64>(), 7);
    let (i, o) = r.first_divergence.as_ref().unwrap();
    assert_eq!((*i, o.regions["dst"][0]), (5, 7));
    assert_eq!(r.ptx, "// kernel of litmus.bulk_s2g.two_copies#5\n");
    assert_eq!(r.divergences.len(), 1);
    let d = &r.divergences[0];
    assert_eq!((d.count, d.first_instance), (1, 5));
    assert_eq!(d.outcome, format!("completed dst={}", "07".repeat(16)));
    assert!(
        d.divergence
            .starts_with("diverge: dst byte 0: observed 0x07"),
        "{}",
        d.divergence
    );
    let md = markdown(&LitmusReport {
        device: "fake".into(),
        driver: String::new(),
        date: String::new(),
        commit: String::new(),
        stress: Stress::None,
        per_launch: 8,
        cases: vec![r],
    });
    assert!(md.contains("| **DIVERGENCE** `completed dst=0707"), "{md}");
}

/// The model's own backends go through the same judge: its prediction is one allowed outcome in
/// every instance; a broken canary in every instance is a divergence in every one.
#[test]
fn the_models_backends_are_judged_per_instance() {
    let c = case("litmus.cp_async.no_wait");
    let mut model = Predicted {
        info: RunInfo::default(),
    };
    let r = run(&mut model, &c, 12, 5, Stress::None);
    assert_eq!((r.instances, r.launches), (12, 3));
    assert!(r.divergences.is_empty() && r.not_observed == 0);
    let least = format!("completed dst@cta0={}", "01".repeat(16));
    assert_eq!(
        (r.outcomes[0].outcome.as_str(), r.outcomes[0].count),
        (least.as_str(), 12)
    );
    let mut broken = Altered {
        change: Some(|o| o.canaries_broken = vec!["src".into()]),
    };
    let r = run(&mut broken, &c, 12, 5, Stress::None);
    assert!(r.outcomes.is_empty());
    assert_eq!(
        (r.divergences[0].count, r.divergences[0].first_instance),
        (12, 0)
    );
    assert!(r.divergences[0].divergence.contains("canary"));
}

/// The same device behaviour gives the same report; `shuffle` launch sizes are a function of
/// the seed, within [per/2, per], and still add up to the instances asked for.
#[test]
fn campaigns_are_deterministic() {
    let c = case("litmus.cp_async.two_groups_same_dst");
    let value = |k: u64| 1 + u8::from((k * 7).is_multiple_of(3));
    let mut a = Fake::racy("dst@cta0", value);
    let mut b = Fake::racy("dst@cta0", value);
    let ra = run(&mut a, &c, 1000, 64, Stress::Shuffle);
    let rb = run(&mut b, &c, 1000, 64, Stress::Shuffle);
    assert_eq!(ra.outcomes, rb.outcomes);
    assert_eq!(a.launches, b.launches);
    assert_eq!(a.launches.iter().sum::<usize>(), 1000);
    let full = &a.launches[..a.launches.len() - 1];
    assert!(full.iter().all(|&n| (32..=64).contains(&n)), "{full:?}");
    assert!(full.iter().any(|&n| n != full[0]), "sizes vary: {full:?}");
    // Three workers share the same launches and give the same histogram.
    let mut three: Vec<Fake> = (0..3).map(|_| Fake::racy("dst@cta0", value)).collect();
    let r3 = run_case(&mut three, "t.yaml", &c, sched(1000, 64, Stress::Shuffle)).unwrap();
    assert_eq!(r3.outcomes, ra.outcomes);
    assert_eq!(r3.launches, a.launches.len() as u64);
    let mut sizes: Vec<usize> = three.iter().flat_map(|f| f.launches.clone()).collect();
    let mut want = a.launches.clone();
    sizes.sort_unstable();
    want.sort_unstable();
    assert_eq!(sizes, want);
    assert!(three.iter().all(|f| !f.launches.is_empty()));
}

/// A case the reference leaves certain is refused (nothing to observe), naming the case.
#[test]
fn a_case_without_a_race_is_refused() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/bulk/g2s.yaml");
    let c = load_file(&f).unwrap().remove(0);
    let mut fake = Fake::racy("dst@cta0", |_| 1);
    let e = run_case(
        std::slice::from_mut(&mut fake),
        "g2s.yaml",
        &c,
        sched(4, 4, Stress::None),
    )
    .unwrap_err();
    assert!(
        e.contains(&format!("`{}`", c.name)) && e.contains("no byte uncertain"),
        "{e}"
    );
    assert!(fake.launches.is_empty());
}

/// Every litmus case: passes on the reference with at least two allowed values for some byte;
/// its instances have one kernel (so the engine runs a batch of them as one launch), which
/// assembles with ptxas.
#[test]
fn every_litmus_case_is_racy_and_its_instances_share_a_kernel() {
    let cases = load_file(&corpus()).unwrap();
    assert!(cases.len() >= 6);
    let ptxas = ptxconform_gpu::ptxas::for_tests();
    for c in &cases {
        let (r, ex) = evaluate("races.yaml", c);
        assert!(!r.verdict.is_failure(), "{}: {}", c.name, r.detail);
        let ex = ex.unwrap();
        // A profile departure would make the judge execute each instance again.
        assert!(ex.departures.is_empty(), "{}", c.name);
        let sites = RaceSites::of(&ex);
        assert!(
            sites
                .bytes
                .iter()
                .any(|(_, s)| s.iter().any(|(_, v)| v.len() >= 2)),
            "{}: no uncertain byte",
            c.name
        );
        let plain = emit(c).unwrap();
        let copies = ptxconform_core::differential::copies(c, 40, 3);
        assert_eq!(copies[2].name, format!("{}#42", c.name));
        for em in emit_all(&copies.iter().collect::<Vec<_>>()) {
            let em = em.unwrap();
            assert_eq!(
                (em.shape_key, em.launch, &em.shared_init),
                (plain.shape_key, plain.launch, &plain.shared_init),
                "{}",
                c.name
            );
        }
        // Stressed, every instance's kernel is one kernel of its own.
        let spun = stress_ptx(c, plain.clone(), Stress::Spin);
        assert_ne!(plain.shape_key, spun.shape_key, "{}", c.name);
        assert_eq!(spun.ptx.matches("$L_litmus_spin:").count(), 1);
        if let Some(p) = &ptxas {
            for em in [&plain, &spun] {
                assert_eq!(p.assemble(&em.ptx, em.target), Ok(()), "{}", c.name);
            }
        }
    }
}

/// The spin goes before the step after the first asynchronous copy, or before the epilogue.
#[test]
fn the_spin_precedes_the_racing_step() {
    assert_eq!(racing_step(&case("litmus.bulk_g2s.overlap")), Some(3));
    assert_eq!(racing_step(&case("litmus.bulk_g2s.no_wait")), None);
    let c = case("litmus.bulk_g2s.overlap");
    // As the engine emits a program it rewrites: a guard a step.
    let em = stress_ptx(&c, emit_guarded(&c, Guards::PerStep).unwrap(), Stress::Spin);
    let spin = em.ptx.find("$L_litmus_spin:").unwrap();
    let issues: Vec<usize> = em
        .ptx
        .match_indices("cp.async.bulk.shared")
        .map(|m| m.0)
        .collect();
    assert!(issues[0] < spin && spin < issues[1], "{issues:?} {spin}");
    // Every thread runs the spin: it follows the copy's skip label, and the racing step's own
    // guard follows it.
    let lines: Vec<&str> = em.ptx.lines().collect();
    let open = lines
        .iter()
        .position(|l| l.starts_with("{ // litmus"))
        .unwrap();
    let close = open + lines[open..].iter().position(|l| *l == "}").unwrap();
    assert!(
        lines[open - 1].starts_with("$L_skip_"),
        "{}",
        lines[open - 1]
    );
    assert!(
        lines[close + 1].starts_with("setp.eq.u32") || lines[close + 1] == "bar.sync 0;",
        "{}",
        lines[close + 1]
    );
    let c = case("litmus.bulk_g2s.no_wait");
    let em = stress_ptx(&c, emit(&c).unwrap(), Stress::Spin);
    let spin = em.ptx.find("$L_litmus_spin:").unwrap();
    assert!(em.ptx.find("cp.async.bulk.shared").unwrap() < spin);
    assert!(spin < em.ptx.find("mbarrier.test_wait.parity").unwrap());
}

/// `FILE:NAME` picks one case; a name no case has is an error naming the file.
#[test]
fn case_selection() {
    let f = corpus().display().to_string();
    let one = select(&[format!("{f}:litmus.cp_async.no_wait")]).unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(select(std::slice::from_ref(&f)).unwrap().len(), 7);
    let e = select(&[format!("{f}:nope")]).unwrap_err();
    assert!(e.contains("no case `nope`"), "{e}");
}

/// A certain byte out of place is a divergence even where the racy bytes show an allowed
/// outcome: it is not counted in that outcome's bin. An instance the backend could not run is
/// counted apart, with its reason.
#[test]
fn divergences_elsewhere_and_failed_instances_are_apart() {
    let c = case("litmus.bulk_s2g.two_copies");
    let mut f = Fake::showing(|k, mut o, _| match k {
        1 => {
            o.canaries_broken = vec!["dst".into()];
            Ran::Observed(o)
        }
        3 | 4 => Ran::Failed(format!("launch {k} failed")),
        _ => Ran::Observed(o),
    });
    let r = run(&mut f, &c, 6, 6, Stress::None);
    let (ok, div) = (&r.outcomes, &r.divergences);
    assert_eq!((ok.len(), ok[0].count), (1, 3));
    assert_eq!((div.len(), div[0].count, div[0].first_instance), (1, 1, 1));
    assert_eq!(div[0].outcome, ok[0].outcome);
    assert!(
        div[0].divergence.contains("canary"),
        "{}",
        div[0].divergence
    );
    assert_eq!(r.not_observed, 2);
    assert_eq!(r.not_observed_reason, "instance 3: launch 3 failed");
}

/// Joining workers' tallies adds counts and keeps the least first instance, also of instances
/// that were not observed.
#[test]
fn tallies_join() {
    let mut a = Tally::default();
    a.add("x".into(), 4, String::new());
    a.not_observed(9, "late".into());
    let mut b = Tally::default();
    b.add("x".into(), 1, String::new());
    b.add("y".into(), 2, "diverge: z".into());
    b.not_observed(3, "early".into());
    b.not_observed(7, "later".into());
    a.merge(b);
    assert_eq!(a.not_observed, 3);
    assert_eq!(a.not_observed_first, Some((3, "early".into())));
    let (ok, div) = a.into_lists(6);
    assert_eq!((ok[0].count, ok[0].first_instance), (2, 1));
    assert_eq!(
        (div[0].count, div[0].divergence.as_str()),
        (1, "diverge: z")
    );
}

/// A campaign writes `litmus.json` and `litmus.md` naming the device, the commit and every
/// case's outcomes.
#[test]
fn campaign_writes_json_and_markdown() {
    let dir = std::env::temp_dir().join(format!("ptxconform-litmus-{}", std::process::id()));
    let f = corpus().display().to_string();
    let args = LitmusArgs {
        cases: vec![format!("{f}:litmus.cp_async.no_wait")],
        instances: 20,
        per_launch: 8,
        seconds_per_case: None,
        stress: Stress::Shuffle,
        workers: 1,
        seed: 1,
        out: dir.clone(),
        device: 0,
        commit: None,
    };
    let cases = select(&args.cases).unwrap();
    let mut devs = vec![Fake::racy("dst@cta0", |k| match k {
        0..5 => 0xaa,
        17 => 0x42,
        _ => 1,
    })];
    let r = campaign(&mut devs, &cases, &args, "abc1234".into()).unwrap();
    assert_eq!(r.cases[0].instances, 20);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("litmus.json")).unwrap()).unwrap();
    assert_eq!(json["device"], "fake");
    assert_eq!(json["commit"], "abc1234");
    assert_eq!(json["stress"], "shuffle");
    assert_eq!(json["cases"][0]["outcomes"][0]["count"], 14);
    assert_eq!(json["cases"][0]["divergences"][0]["first_instance"], 17);
    // The first divergent instance is a runnable case with its observation, beside the kernel
    // the backend ran for it.
    let d = dir.join("divergences");
    let back = load_file(&d.join("litmus.cp_async.no_wait_17.yaml")).unwrap();
    assert_eq!(back[0].observed[0].regions["dst@cta0"][0], 0x42);
    let ptx = std::fs::read_to_string(d.join("litmus.cp_async.no_wait_17.ptx")).unwrap();
    assert_eq!(ptx, "// kernel of litmus.cp_async.no_wait#17\n");
    assert_eq!(json["cases"][0]["outcomes"][1]["count"], 5);
    let md = std::fs::read_to_string(dir.join("litmus.md")).unwrap();
    assert!(md.contains("commit: abc1234"), "{md}");
    assert!(
        md.contains(&format!("| `completed dst@cta0={}` | 5 |", "aa".repeat(16))),
        "{md}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A per-case time limit stops the launches early, and the figures count what ran.
#[test]
fn a_time_limit_stops_the_launches_and_counts_what_ran() {
    let c = case("litmus.bulk_g2s.overlap");
    let mut f = Fake::racy("dst@cta0", |_| 1);
    let r = run_case(
        std::slice::from_mut(&mut f),
        "t.yaml",
        &c,
        Schedule {
            seconds: Some(0.0),
            ..sched(1_000_000, 16, Stress::None)
        },
    )
    .unwrap();
    assert_eq!((r.instances, r.launches), (0, 0));
    assert!(r.outcomes.is_empty() && f.launches.is_empty());
}

/// A race of outcomes (A-TX-RACE-HW: the sm_90 prediction is completes or hangs, no byte left
/// uncertain) is a litmus too: instances that complete and instances that time out are both
/// counted as allowed, by their endings; a trap is a divergence.
#[test]
fn an_outcome_race_is_observed_by_its_endings() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/ub/tx_race.yaml");
    let c = load_file(&f).unwrap().remove(0);
    let show = |k: u64, mut o: Observation, _: &RaceSites| {
        o.outcome = match k % 5 {
            0 | 1 => Ending::Timeout(vec![]),
            4 if k == 9 => Ending::Trap {
                kind: ptxconform_reference::case::TrapKind::IllegalAddress,
                code: 700,
            },
            _ => Ending::Completed,
        };
        Ran::Observed(o)
    };
    let mut fake = Fake::showing(show);
    let r = run(&mut fake, &c, 20, 8, Stress::None);
    assert!(
        r.allowed.iter().any(|a| a.contains("completes or hangs")),
        "{:?}",
        r.allowed
    );
    let count = |p: &str| -> u64 {
        r.outcomes
            .iter()
            .filter(|o| o.outcome.starts_with(p))
            .map(|o| o.count)
            .sum()
    };
    assert_eq!((count("completed"), count("timeout")), (11, 8));
    assert_eq!(r.divergences.len(), 1);
    assert_eq!(
        (r.divergences[0].count, r.divergences[0].first_instance),
        (1, 9)
    );
}
