//! The differential core: the reference executes each case, a [`Backend`] observes it, the
//! [`judge`](crate::judge) compares the two. Every path goes through [`run_batch`] — `run`,
//! `fuzz`, `sweep` and `bench` with the GPU, `run --replay` with recorded observations
//! ([`Replay`]), tests with the model's own prediction ([`Predicted`]) or a fake — or, for many
//! runs of one program (`litmus`), through [`run_copies`].

use crate::evaluate::{evaluate_executed, evaluate_under};
use crate::judge::replay;
use crate::known::KnownDivergences;
use crate::result::{CaseResult, RunInfo};
use ptxconform_reference::case::{Case, Ending, Observation, Parity};
use ptxconform_reference::sem::exec::{Execution, HwOutcome, Outcome};
use ptxconform_reference::sem::memory::Byte;
use ptxconform_reference::sem::profile::Profile;
use ptxconform_reference::target::Target;
use std::sync::Arc;
use std::time::Duration;

mod pipeline;
pub use pipeline::{
    first_step, run_batch, run_batch_carrying, run_batch_executed, run_batch_under, run_copies,
    run_copies_then, Carry, Readied, Steps, Upcoming,
};

/// Copies `first..first + n` of `case`, named `NAME#i` and otherwise identical.
pub fn copies(case: &Case, first: u64, n: usize) -> Vec<Case> {
    (first..first + n as u64)
        .map(|i| Case {
            name: format!("{}#{i}", case.name),
            ..case.clone()
        })
        .collect()
}

/// What a backend made of one case.
#[derive(Clone, Debug)]
// One per case, moved into its result: boxing the observation would cost an allocation per case
// and gain nothing.
#[allow(clippy::large_enum_variant)]
pub enum Ran {
    /// It ran; this is what the device showed.
    Observed(Observation),
    /// It could not run here (the reason, e.g. "needs PTX ISA 9.1").
    NotRun(String),
    /// The harness failed on it (JIT error, launch error, worker crash): no observation.
    Failed(String),
    /// Builds of its kernel saw different things (the groups of builds, in words).
    Disagree(String),
}

/// One case's run on a backend, with the program that ran (for divergence reports).
#[derive(Clone, Debug)]
pub struct Run {
    pub ran: Ran,
    pub ptx: Option<std::sync::Arc<str>>,
    pub wall_us: u64,
    /// Which device ran it, when a backend has several (empty: the backend's only one).
    pub device: String,
    /// The build that made its kernel and why (`None`: a backend without builds).
    pub build: Option<crate::result::RanBuild>,
}

impl Run {
    /// A run that is only its outcome (no kernel text, wall time, device or build).
    pub fn of(ran: Ran) -> Run {
        Run {
            ran,
            ptx: None,
            wall_us: 0,
            device: String::new(),
            build: None,
        }
    }

    pub fn observed(obs: Observation) -> Run {
        Run::of(Ran::Observed(obs))
    }
}

/// Something that runs cases and says what it saw: the GPU, recorded observations, the model's
/// own prediction, a fake.
pub trait Backend {
    /// The device, in words (recorded into observations and reports).
    fn info(&self) -> RunInfo;
    /// Can programs built for `t` run here?
    fn runs(&self, t: Target) -> bool;
    /// One run per case, in order. Each case comes with the reference's execution of it (a GPU
    /// uses the prediction to keep cases that may trap apart from the rest).
    fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String>;
    /// Host time the core spent before (reference) and after (judge) this backend's work.
    fn host_time(&mut self, _reference: Duration, _judge: Duration) {}
    /// Work on a batch that needs none of the backend's changing state (emission, composing
    /// launches), which the core then does ahead: while the backend observes one batch, the next
    /// is prepared on host threads. `None`: nothing to prepare.
    fn preparer(&self) -> Option<Arc<dyn Prepare>> {
        None
    }
    /// Runs `first..first + n` of `case`, each its own instance of one program (a litmus
    /// campaign), all judged against `ex`. By default [`Backend::observe`] of copies named
    /// `NAME#i`; a backend that can run one program many times without preparing each copy
    /// does so.
    fn observe_copies(
        &mut self,
        case: &Case,
        ex: &Execution,
        first: u64,
        n: usize,
    ) -> Result<Vec<Run>, String> {
        let copies = copies(case, first, n);
        let pairs: Vec<(&Case, &Execution)> = copies.iter().map(|c| (c, ex)).collect();
        self.observe(&pairs)
    }
    /// [`Backend::observe`] of cases that this backend's [`Backend::preparer`] prepared.
    fn observe_prepared(
        &mut self,
        cases: &[(&Case, &Execution)],
        _prepared: Prepared,
    ) -> Result<Vec<Run>, String> {
        self.observe(cases)
    }
    /// [`Backend::observe_prepared`] in two parts: this backend's run of the cases, and the
    /// [`Decode`] of what it gave back into one run per case, which needs nothing of the
    /// backend. The pipeline decodes and judges one step on host threads while the backend
    /// runs the next. By default the whole observation happens here.
    fn run_prepared(
        &mut self,
        cases: &[(&Case, &Execution)],
        prepared: Prepared,
    ) -> Result<Decode, String> {
        Ok(decoded(self.observe_prepared(cases, prepared)?))
    }
    /// Backends that observe whole steps of a batch side by side, each on a thread of its own
    /// (a fleet's engines, one per device). With two or more the pipeline runs one pipeline per
    /// lane: each lane takes the next step, with the reference and its own
    /// [`Backend::preparer`] evaluating and preparing the step it takes next while it observes
    /// one. Fewer than two (empty by default): this backend observes every step itself.
    fn lanes(&mut self) -> Vec<&mut (dyn Backend + Send)> {
        Vec::new()
    }
    /// The recordings this backend observes (`run --replay`). The reference side then leaves
    /// each case's replayed recording to the judge, so a recording that disagrees is reported as
    /// the divergence a live run seeing the same would report, not as a reference failure.
    fn replays(&self) -> Option<Replay> {
        None
    }
}

/// A backend's host-side work on a batch, done apart from the backend (see
/// [`Backend::preparer`]).
pub trait Prepare: Send + Sync {
    fn prepare(&self, cases: &[(&Case, &Execution)]) -> Prepared;
    /// Make ready, ahead of their batch, what the programs of `cases` need whatever their
    /// values (a GPU backend: their compiled kernels), so that the batch later waits for none
    /// of it. A campaign calls it with one case per shape as soon as it has generated them.
    fn warm(&self, _cases: &[&Case]) {}
}

/// The host's side of a step a backend ran ([`Backend::run_prepared`]): given the step's cases
/// (the ones it ran, in order), one run per case.
pub type Decode = Box<dyn FnOnce(&[(&Case, &Execution)]) -> Result<Vec<Run>, String> + Send>;

/// The [`Decode`] of runs a backend has already decoded.
pub fn decoded(runs: Vec<Run>) -> Decode {
    Box::new(move |_| Ok(runs))
}

/// What a [`Prepare`] made of a batch, opaque to the core; only its own backend reads it.
pub struct Prepared(Box<dyn std::any::Any + Send>);

impl Prepared {
    pub fn new<T: std::any::Any + Send>(v: T) -> Prepared {
        Prepared(Box::new(v))
    }
    /// The prepared value, if it is a `T`.
    pub fn take<T: std::any::Any>(self) -> Option<T> {
        self.0.downcast().ok().map(|b| *b)
    }
}

/// A case's judged result, with its observation and program.
#[derive(Clone, Debug)]
pub struct Judged {
    pub result: CaseResult,
    pub observation: Option<Observation>,
    pub ptx: Option<std::sync::Arc<str>>,
}

/// The reference's side of a case under `profile`: its result (legality, the model's run,
/// `expect`, every recorded observation replayed through the judge) and, when that is no
/// failure, the execution a backend's observation is judged against.
pub fn reference_side(
    file: &str,
    case: &Case,
    known: &KnownDivergences,
    profile: Profile,
) -> (CaseResult, Option<Execution>) {
    reference_side_leaving(file, case, known, profile, None)
}

/// [`reference_side`] that leaves the recorded observation `observed[judged]` out of the replay:
/// a backend judges it afterwards as it would a live one (see [`Backend::replays`]).
pub fn reference_side_leaving(
    file: &str,
    case: &Case,
    known: &KnownDivergences,
    profile: Profile,
    judged: Option<usize>,
) -> (CaseResult, Option<Execution>) {
    reference_side_given(file, case, known, profile, judged, None)
}

/// A case's execution under a batch's profile, made before the batch by its caller (a fuzz
/// campaign runs the reference once per program for its CPU oracle and coverage map), and how
/// long that run took. The pipeline then judges against it instead of running the reference
/// again.
pub struct Executed {
    pub execution: Execution,
    pub took: Duration,
}

/// [`reference_side_leaving`] over the execution `given`, if any, instead of a run of its own.
pub(super) fn reference_side_given(
    file: &str,
    case: &Case,
    known: &KnownDivergences,
    profile: Profile,
    judged: Option<usize>,
    given: Option<Executed>,
) -> (CaseResult, Option<Execution>) {
    let (mut r, ex) = match given {
        Some(e) => evaluate_executed(file, case, Ok(e.execution), e.took),
        None => evaluate_under(file, case, profile),
    };
    let ex = ex.ok().filter(|_| r.verdict.goes_on());
    if let Some(x) = &ex {
        replay(case, x, known, judged, &mut r);
    }
    let ex = ex.filter(|_| !r.verdict.is_failure());
    (r, ex)
}

/// The model's own prediction as an observation: completion (or the trap, timeout or driver
/// refusal it expects) with every uncertain byte resolved to its least allowed value. Judged against the same
/// execution it must pass; it is the backend of GPU-free tests of the whole pipeline.
pub fn predicted(info: &RunInfo, ex: &Execution) -> Observation {
    let byte = |b: &Byte| match b {
        Byte::Known(v) => *v,
        Byte::OneOf(s) => s.iter().next().unwrap_or(0),
    };
    let mut obs = Observation {
        device: info.device.clone(),
        driver: info.driver.clone(),
        date: info.date.clone(),
        build: None,
        outcome: match ex.prediction.first() {
            // The driver refuses the encode before any launch.
            _ if !ex.driver_rejects.is_empty() => Ending::Rejected(format!(
                "predicted: the driver model refuses tensor map `{}`",
                ex.driver_rejects[0].0
            )),
            HwOutcome::Completes => Ending::Completed,
            HwOutcome::Hangs => Ending::Timeout(vec![]),
            HwOutcome::Traps(kind) => Ending::Trap {
                kind,
                code: kind.code(),
            },
            HwOutcome::Refused => Ending::Rejected("predicted: the driver refuses".into()),
        },
        regions: Default::default(),
        partial: Default::default(),
        mbarriers: Default::default(),
        tmem: Default::default(),
        canaries_broken: vec![],
        not_reached: vec![],
    };
    if !obs.outcome.read_back() || matches!(ex.outcome, Outcome::Undefined { .. }) {
        return obs;
    }
    let fs = &ex.final_state;
    for (name, bytes) in &fs.global {
        obs.regions
            .insert(name.clone(), bytes.iter().map(byte).collect());
    }
    for (cta, regions) in fs.shared.iter().enumerate() {
        for (name, bytes) in regions {
            let key = crate::judge::shared_key(name, cta);
            obs.regions.insert(key, bytes.iter().map(byte).collect());
        }
    }
    for (cta, ms) in fs.mbarriers.iter().enumerate() {
        for (name, st) in ms {
            if let (true, Some(cur)) = (st.valid, st.phase_parity) {
                let p = Parity {
                    parity0_done: cur != 0,
                    parity1_done: cur != 1,
                };
                obs.mbarriers.insert(crate::judge::shared_key(name, cta), p);
            }
        }
    }
    for (cta, ts) in fs.tmem.iter().enumerate() {
        for (name, cells) in ts {
            let words = cells
                .iter()
                .map(|c| match c {
                    ptxconform_reference::sem::tcgen05::tmem::Cell::Known(v) => *v,
                    ptxconform_reference::sem::tcgen05::tmem::Cell::Unwritten => 0,
                })
                .collect();
            obs.tmem.insert(crate::judge::shared_key(name, cta), words);
        }
    }
    obs
}

/// The model as a backend: it observes what it predicts.
pub struct Predicted {
    pub info: RunInfo,
}

impl Backend for Predicted {
    fn info(&self) -> RunInfo {
        self.info.clone()
    }
    fn runs(&self, _: Target) -> bool {
        true
    }
    fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
        Ok(cases
            .iter()
            .map(|(_, ex)| Run::observed(predicted(&self.info, ex)))
            .collect())
    }
}

/// The model's own prediction with a change made to every observation (a trap, a flipped byte):
/// a device that departs in a known way, for tests of what consumes observations.
pub struct Altered {
    pub change: Option<fn(&mut Observation)>,
}

impl Backend for Altered {
    fn info(&self) -> RunInfo {
        RunInfo::default()
    }
    fn runs(&self, _: Target) -> bool {
        true
    }
    fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
        Ok(cases
            .iter()
            .map(|(_, ex)| {
                let mut o = predicted(&RunInfo::default(), ex);
                if let Some(f) = self.change {
                    f(&mut o);
                }
                Run::observed(o)
            })
            .collect())
    }
}

/// Recorded observations as a backend: each case's newest observation from a device whose name
/// contains `device` (case-insensitive). `run --replay DEVICE` judges a corpus as the recorded
/// runs saw it, without a GPU.
#[derive(Clone, Debug)]
pub struct Replay {
    pub device: String,
}

impl Replay {
    /// The case's newest observation from a matching device.
    pub fn newest<'c>(&self, case: &'c Case) -> Option<&'c Observation> {
        self.newest_index(case).map(|i| &case.observed[i])
    }

    /// Where [`Replay::newest`] is in `case.observed`.
    pub fn newest_index(&self, case: &Case) -> Option<usize> {
        let want = self.device.to_ascii_lowercase();
        case.observed
            .iter()
            .enumerate()
            .filter(|(_, o)| o.device.to_ascii_lowercase().contains(&want))
            .max_by(|(_, a), (_, b)| a.date.cmp(&b.date))
            .map(|(i, _)| i)
    }

    /// A replay in which no case has a matching observation would report every case "not run":
    /// almost surely a misspelt device. The error names the devices that were recorded.
    pub fn check_any<'c>(&self, cases: impl IntoIterator<Item = &'c Case>) -> Result<(), String> {
        let mut devices = std::collections::BTreeSet::new();
        for c in cases {
            if self.newest(c).is_some() {
                return Ok(());
            }
            devices.extend(c.observed.iter().map(|o| o.device.as_str()));
        }
        let known: Vec<&str> = devices.into_iter().collect();
        Err(format!(
            "--replay {}: no selected case has an observation recorded on a device whose name \
             contains it (recorded: {})",
            self.device,
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ))
    }
}

impl Backend for Replay {
    fn replays(&self) -> Option<Replay> {
        Some(self.clone())
    }
    fn info(&self) -> RunInfo {
        RunInfo {
            device: format!("recorded observations of `{}`", self.device),
            driver: String::new(),
            date: crate::result::today(),
            mode: "reference + replayed hardware".into(),
            ptxconform: env!("CARGO_PKG_VERSION").into(),
            ..RunInfo::default()
        }
    }
    fn runs(&self, _: Target) -> bool {
        true
    }
    fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
        Ok(cases
            .iter()
            .map(|(case, _)| match self.newest(case) {
                Some(o) => Run::observed(o.clone()),
                None => Run::of(Ran::NotRun(format!(
                    "no observation recorded on `{}`",
                    self.device
                ))),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::pipeline::{step_lengths, PIPELINE_CASES};
    use super::*;
    use crate::evaluate::evaluate;
    use crate::judge::DEFAULT_PROFILE;
    use crate::result::{Difference, Verdict};
    use ptxconform_reference::case::load_str;
    use std::collections::BTreeMap;
    use std::time::Instant;

    const CASE: &str = r#"
name: copy4
target: sm_90a
memory:
  global: [ { name: src, size: 16, init: { bytes: [1,2,3,4] } } ]
  shared: [ { name: buf, size: 16, init: { fill: 170 } } ]
  mbarriers: [ { name: bar } ]
program:
  - ptx: mbarrier.init.shared.b64 [bar], 1
  - ptx: cp.async.ca.shared.global [buf], [src], 4
  - ptx: cp.async.wait_all
  - ptx: mbarrier.arrive.shared.b64 _, [bar]
check: [buf]
"#;

    fn info(device: &str) -> RunInfo {
        RunInfo {
            device: device.into(),
            date: "2026-11-24".into(),
            ..RunInfo::default()
        }
    }

    fn one(b: &mut dyn Backend, c: &Case) -> Judged {
        let known = KnownDivergences::default();
        run_batch(b, &known, &[("t.yaml", c)]).unwrap().remove(0)
    }

    /// The model's prediction, judged against the model, passes for every corpus case the
    /// reference accepts: the judge and the observation form agree with each other.
    #[test]
    fn every_corpus_case_passes_against_its_own_prediction() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let (loaded, errors) = crate::corpus::load_corpus(&[dir]);
        assert!(errors.is_empty(), "{errors:?}");
        let mut b = Predicted {
            info: info("model"),
        };
        let cases: Vec<(&str, &Case)> = loaded.iter().map(|l| (l.file.as_str(), &l.case)).collect();
        let known = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../reports/known-divergences.yaml");
        let known = KnownDivergences::load(&known).unwrap();
        let out = run_batch(&mut b, &known, &cases).unwrap();
        let mut passed = 0;
        for (l, j) in loaded.iter().zip(&out) {
            assert!(
                !j.result.verdict.is_failure(),
                "{} `{}`: {} {}",
                l.file,
                l.case.name,
                j.result.verdict.name(),
                j.result.detail
            );
            passed += usize::from(j.result.verdict == Verdict::Pass);
        }
        assert!(passed > 2000, "{passed} of {} pass", out.len());
    }

    /// Each part of an observation is judged: bytes, mbarrier parity, canaries, CTAs reaching
    /// the end, traps.
    #[test]
    fn judge_checks_every_part_of_an_observation() {
        let c = load_str(CASE, "t.yaml").unwrap().remove(0);
        let (_, ex) = evaluate("t.yaml", &c);
        let good = predicted(&info("d"), &ex.unwrap());
        assert_eq!(good.regions["buf@cta0"][..5], [1, 2, 3, 4, 0xaa]);
        let p = good.mbarriers["bar@cta0"];
        assert!(p.parity0_done && !p.parity1_done, "{p:?}");
        let judged = |o: Observation| {
            let mut c = c.clone();
            c.observed.clear();
            one(&mut Fixed(o), &c).result
        };
        let verdict = |o: Observation| {
            let r = judged(o);
            // The detail is the rendering of the typed differences (before the reference's
            // summary of an abnormal ending).
            let rendered = crate::result::render(&r.differences);
            assert!(r.detail.starts_with(&rendered), "{} / {rendered}", r.detail);
            (r.verdict, r.detail)
        };
        assert_eq!(verdict(good.clone()).0, Verdict::Pass);
        let mut o = good.clone();
        o.regions.get_mut("buf@cta0").unwrap()[2] = 9;
        let (v, d) = verdict(o);
        assert_eq!(v, Verdict::Diverge);
        assert!(d.contains("buf@cta0 byte 2: observed 0x09"), "{d}");
        let mut o = good.clone();
        o.mbarriers.get_mut("bar@cta0").unwrap().parity1_done = true;
        assert!(verdict(o).1.contains("mbarrier bar@cta0"));
        let mut o = good.clone();
        o.canaries_broken = vec!["src".into()];
        assert!(verdict(o).1.contains("canary"));
        let mut o = good.clone();
        o.not_reached = vec![0];
        assert!(verdict(o).1.contains("did not reach the end"));
        let mut o = good.clone();
        o.outcome = Ending::trap(700);
        let (v, d) = verdict(o);
        assert_eq!(v, Verdict::TrapUnexpected);
        assert!(d.starts_with("trap IllegalAddress (CUDA error 700)"), "{d}");
        let mut o = good.clone();
        o.outcome = Ending::Timeout(vec![3]);
        assert_eq!(verdict(o.clone()).0, Verdict::TimeoutUnexpected);
        assert_eq!(
            judged(o).differences,
            [Difference::Ending {
                ended: Ending::Timeout(vec![3])
            }]
        );
        // Every part found at once, typed, in the judge's order.
        let mut o = good;
        o.regions.get_mut("buf@cta0").unwrap()[2] = 9;
        o.mbarriers.get_mut("bar@cta0").unwrap().parity1_done = true;
        o.canaries_broken = vec!["src".into()];
        o.not_reached = vec![0];
        let r = judged(o);
        assert_eq!(
            r.differences,
            [
                Difference::Canaries {
                    regions: vec!["src".into()]
                },
                Difference::NotReached { ctas: vec![0] },
                Difference::Byte {
                    region: "buf@cta0".into(),
                    offset: 2,
                    expected: crate::result::ExpectedByte::Known(3),
                    observed: 9
                },
                Difference::Parity {
                    mbarrier: "bar@cta0".into(),
                    parity: 1,
                    parity0_done: true,
                    parity1_done: true
                },
            ]
        );
    }

    /// A recorded observation is replayed through the judge: one the model agrees with keeps
    /// the case passing, one it disagrees with is a reference failure naming the recording; the
    /// replay backend judges the newest recording of the asked device as a live run would.
    #[test]
    fn recorded_observations_replay_through_the_judge() {
        let mut c = load_str(CASE, "t.yaml").unwrap().remove(0);
        let (_, ex) = evaluate("t.yaml", &c);
        let mut old = predicted(&info("NVIDIA H100"), &ex.unwrap());
        old.date = "2026-11-01".into();
        let mut new = old.clone();
        new.date = "2026-11-24".into();
        new.regions.get_mut("buf@cta0").unwrap()[3] = 5;
        c.observed = vec![old.clone()];
        let mut reference = Predicted { info: info("m") };
        assert_eq!(one(&mut reference, &c).result.verdict, Verdict::Pass);
        c.observed.push(new);
        let j = one(&mut reference, &c);
        assert_eq!(j.result.verdict, Verdict::ReferenceFail);
        assert!(
            j.result
                .detail
                .contains("recorded on NVIDIA H100 (2026-11-24)")
                && j.result.detail.contains("buf@cta0 byte 3"),
            "{}",
            j.result.detail
        );
        // The replay backend takes the newest recording of the device (without the core's own
        // replay of every recording, which would already fail the case).
        let mut replay = Replay {
            device: "h100".into(),
        };
        let ex = evaluate("t.yaml", &c).1.unwrap();
        let runs = replay.observe(&[(&c, &ex)]).unwrap();
        let Ran::Observed(o) = &runs[0].ran else {
            panic!("{:?}", runs[0].ran)
        };
        assert_eq!(o.date, "2026-11-24");
        let mut other = Replay {
            device: "H200".into(),
        };
        assert!(matches!(
            other.observe(&[(&c, &ex)]).unwrap()[0].ran,
            Ran::NotRun(_)
        ));
        // A device no selected case was recorded on is an error that names those recorded.
        assert_eq!(replay.check_any([&c]), Ok(()));
        let e = other.check_any([&c]).unwrap_err();
        assert!(
            e.starts_with("--replay H200: no selected case")
                && e.ends_with("(recorded: NVIDIA H100)"),
            "{e}"
        );
    }

    /// The model's prediction, noting how many cases each `observe` call got.
    struct Counting(Predicted, Vec<usize>);

    impl Backend for Counting {
        fn info(&self) -> RunInfo {
            self.0.info()
        }
        fn runs(&self, t: Target) -> bool {
            self.0.runs(t)
        }
        fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
            self.1.push(cases.len());
            self.0.observe(cases)
        }
    }

    /// `n` copies of [`CASE`] named `c0`, `c1`, ...
    fn numbered(n: usize) -> Vec<Case> {
        let c = load_str(CASE, "t.yaml").unwrap().remove(0);
        (0..n)
            .map(|i| Case {
                name: format!("c{i}"),
                ..c.clone()
            })
            .collect()
    }

    /// A batch larger than one pipeline step is observed in steps, and its results come back
    /// one per case, in order.
    #[test]
    fn large_batches_run_in_pipelined_steps_in_order() {
        let cases = numbered(2 * PIPELINE_CASES + 5);
        let pairs: Vec<(&str, &Case)> = cases.iter().map(|c| ("t.yaml", c)).collect();
        let mut b = Counting(
            Predicted {
                info: info("model"),
            },
            vec![],
        );
        let out = run_batch(&mut b, &KnownDivergences::default(), &pairs).unwrap();
        assert_eq!(b.1, vec![2048, 2048, 5]);
        assert_eq!(out.len(), cases.len());
        for (i, j) in out.iter().enumerate() {
            assert_eq!(j.result.case, format!("c{i}"));
            assert_eq!(j.result.verdict, Verdict::Pass, "{}", j.result.detail);
        }
        // An empty batch still reaches the backend once, with nothing.
        b.1.clear();
        assert!(run_batch(&mut b, &KnownDivergences::default(), &[])
            .unwrap()
            .is_empty());
        assert_eq!(b.1, vec![0]);
    }

    /// A backend whose preparer names the cases it prepared, and whose observation of a step
    /// waits (bounded) for the next step's preparation where told to.
    struct Preparing {
        inner: Predicted,
        log: Arc<std::sync::Mutex<Vec<String>>>,
        /// (first case of a step, first case of the next): observing the one waits for the
        /// other's preparation.
        waits: Vec<(&'static str, &'static str)>,
    }

    struct Names(Arc<std::sync::Mutex<Vec<String>>>);

    fn first_and_len(cases: &[(&Case, &Execution)]) -> String {
        let first = cases.first().map_or("-", |c| c.0.name.as_str());
        format!("{first} {}", cases.len())
    }

    impl Prepare for Names {
        fn prepare(&self, cases: &[(&Case, &Execution)]) -> Prepared {
            self.0
                .lock()
                .unwrap()
                .push(format!("prepare {}", first_and_len(cases)));
            Prepared::new(cases.iter().map(|c| c.0.name.clone()).collect::<Vec<_>>())
        }
    }

    impl Backend for Preparing {
        fn info(&self) -> RunInfo {
            self.inner.info()
        }
        fn runs(&self, t: Target) -> bool {
            self.inner.runs(t)
        }
        fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
            let line = format!("unprepared {}", first_and_len(cases));
            self.log.lock().unwrap().push(line);
            self.inner.observe(cases)
        }
        fn preparer(&self) -> Option<Arc<dyn Prepare>> {
            Some(Arc::new(Names(self.log.clone())))
        }
        fn observe_prepared(
            &mut self,
            cases: &[(&Case, &Execution)],
            prepared: Prepared,
        ) -> Result<Vec<Run>, String> {
            let names: Vec<String> = cases.iter().map(|c| c.0.name.clone()).collect();
            assert_eq!(prepared.take::<Vec<String>>(), Some(names));
            let first = cases.first().map_or("", |c| c.0.name.as_str());
            if let Some((_, next)) = self.waits.iter().find(|(at, _)| *at == first) {
                let wanted = format!("prepare {next} ");
                let t = Instant::now();
                while t.elapsed() < Duration::from_secs(30)
                    && !self
                        .log
                        .lock()
                        .unwrap()
                        .iter()
                        .any(|l| l.starts_with(&wanted))
                {
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
            let line = format!("observe {}", first_and_len(cases));
            self.log.lock().unwrap().push(line);
            self.inner.observe(cases)
        }
    }

    /// Each step reaches the backend with what its preparer made of exactly that step's cases,
    /// and the next step is prepared while the backend observes the one before.
    #[test]
    fn the_next_step_is_prepared_while_the_backend_observes() {
        let cases = numbered(2 * PIPELINE_CASES + 5);
        let pairs: Vec<(&str, &Case)> = cases.iter().map(|c| ("t.yaml", c)).collect();
        let mut b = Preparing {
            inner: Predicted {
                info: info("model"),
            },
            log: Default::default(),
            waits: vec![("c0", "c2048"), ("c2048", "c4096")],
        };
        let out = run_batch(&mut b, &KnownDivergences::default(), &pairs).unwrap();
        assert_eq!(out.len(), cases.len());
        assert!(out.iter().all(|j| j.result.verdict == Verdict::Pass));
        assert_eq!(
            *b.log.lock().unwrap(),
            [
                "prepare c0 2048",
                "prepare c2048 2048",
                "observe c0 2048",
                "prepare c4096 5",
                "observe c2048 2048",
                "observe c4096 5"
            ]
        );
    }

    /// Cases `{prefix}0..{prefix}{n}`.
    fn named(prefix: &str, n: usize) -> Vec<Case> {
        let mut cs = numbered(n);
        for (i, c) in cs.iter_mut().enumerate() {
            c.name = format!("{prefix}{i}");
        }
        cs
    }

    /// A batch's last step runs while the next batch's first step is evaluated and prepared,
    /// and that batch then runs the step as it was made ready, without preparing it again; a
    /// step made ready for other cases, or under another profile, is prepared again.
    #[test]
    fn the_next_batchs_first_step_is_made_ready_beside_the_last_step() {
        let known = KnownDivergences::default();
        let (a, b) = (
            named("a", PIPELINE_CASES + 5),
            named("b", PIPELINE_CASES + 3),
        );
        let pa: Vec<(&str, &Case)> = a.iter().map(|c| ("t.yaml", c)).collect();
        let pb: Vec<(&str, &Case)> = b.iter().map(|c| ("t.yaml", c)).collect();
        let none = |n: usize| (0..n).map(|_| None).collect::<Vec<_>>();
        // Observing a step waits for the preparation that should run beside it.
        let mut backend = Preparing {
            inner: Predicted {
                info: info("model"),
            },
            log: Default::default(),
            waits: vec![("a0", "a2048"), ("a2048", "b0"), ("b0", "b2048")],
        };
        let first = first_step(pb.len(), 0, Steps::Pipelined);
        assert_eq!(first, PIPELINE_CASES);
        let upcoming = || Upcoming {
            cases: &pb[..first],
            executed: none(first),
        };
        let mut run = |profile, cs: &[(&str, &Case)], readied, upcoming| {
            let carry = Carry {
                readied,
                upcoming,
                steps: Steps::Pipelined,
            };
            run_batch_carrying(profile, &mut backend, &known, cs, none(cs.len()), carry).unwrap()
        };
        let (out, readied) = run(DEFAULT_PROFILE, &pa, None, Some(upcoming()));
        assert_eq!(out.len(), a.len());
        let readied = readied.expect("the next batch's first step was made ready");
        let (out, again) = run(DEFAULT_PROFILE, &pb, Some(readied), None);
        assert!(again.is_none());
        let names: Vec<&str> = out.iter().map(|j| j.result.case.as_str()).collect();
        let want: Vec<&str> = b.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, want);
        assert!(out.iter().all(|j| j.result.verdict == Verdict::Pass));
        // Made ready for `b`, given to `a`: `a`'s first step is evaluated and prepared again.
        let (_, readied) = run(DEFAULT_PROFILE, &pa, None, Some(upcoming()));
        let (out, _) = run(DEFAULT_PROFILE, &pa, readied, None);
        assert!(out.iter().all(|j| j.result.verdict == Verdict::Pass));
        assert_eq!(out.len(), a.len());
        // Made ready under one profile, given to a batch under the other: prepared again.
        let (_, readied) = run(Profile::Spec, &pa, None, Some(upcoming()));
        let (out, _) = run(DEFAULT_PROFILE, &pb, readied, None);
        assert!(out.iter().all(|j| j.result.verdict == Verdict::Pass));
        let log = backend.log.lock().unwrap();
        assert_eq!(
            log[..8],
            [
                "prepare a0 2048",
                "prepare a2048 5",
                "observe a0 2048",
                "prepare b0 2048",
                "observe a2048 5",
                "prepare b2048 3",
                "observe b0 2048",
                "observe b2048 3"
            ]
        );
        let count = |line: &str| log.iter().filter(|l| *l == line).count();
        assert_eq!(count("prepare a0 2048"), 4, "{log:?}");
        assert_eq!(
            count("prepare b0 2048"),
            4,
            "made ready three times, again once: {log:?}"
        );
    }

    /// A backend whose decoding of a step waits (up to 30 s) for its run of the step after,
    /// logging both.
    struct Decoding {
        inner: Predicted,
        log: Arc<std::sync::Mutex<Vec<String>>>,
    }

    impl Backend for Decoding {
        fn info(&self) -> RunInfo {
            self.inner.info()
        }
        fn runs(&self, t: Target) -> bool {
            self.inner.runs(t)
        }
        fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
            self.inner.observe(cases)
        }
        fn preparer(&self) -> Option<Arc<dyn Prepare>> {
            Some(Arc::new(Names(Default::default())))
        }
        fn run_prepared(
            &mut self,
            cases: &[(&Case, &Execution)],
            _: Prepared,
        ) -> Result<Decode, String> {
            let runs = self.inner.observe(cases)?;
            let mut log = self.log.lock().unwrap();
            log.push(format!("run {}", first_and_len(cases)));
            let (log, ran) = (self.log.clone(), log.len());
            let me = first_and_len(cases);
            Ok(Box::new(move |_| {
                let t = Instant::now();
                let later =
                    |l: &Vec<String>| l.iter().filter(|x| x.starts_with("run")).count() > ran;
                while !me.ends_with(" 5") && t.elapsed() < Duration::from_secs(30) {
                    if later(&log.lock().unwrap()) {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                log.lock().unwrap().push(format!("decoded {me}"));
                Ok(runs)
            }))
        }
    }

    /// A step is decoded and judged while the backend runs the step after it.
    #[test]
    fn a_step_is_decoded_while_the_backend_runs_the_next() {
        let cases = numbered(2 * PIPELINE_CASES + 5);
        let pairs: Vec<(&str, &Case)> = cases.iter().map(|c| ("t.yaml", c)).collect();
        let mut b = Decoding {
            inner: Predicted {
                info: info("model"),
            },
            log: Default::default(),
        };
        let out = run_batch(&mut b, &KnownDivergences::default(), &pairs).unwrap();
        assert_eq!(out.len(), cases.len());
        assert!(out.iter().all(|j| j.result.verdict == Verdict::Pass));
        assert_eq!(
            *b.log.lock().unwrap(),
            [
                "run c0 2048",
                "run c2048 2048",
                "decoded c0 2048",
                "run c4096 5",
                "decoded c2048 2048",
                "decoded c4096 5"
            ]
        );
    }

    /// A lane of [`Lanes`]: a [`Preparing`] (its own log) that notes whether it observed while
    /// another lane did, and refuses a step its preparer did not prepare.
    struct Lane {
        inner: Preparing,
        observing: Arc<std::sync::atomic::AtomicUsize>,
        overlapped: Arc<std::sync::atomic::AtomicBool>,
    }

    impl Backend for Lane {
        fn info(&self) -> RunInfo {
            self.inner.info()
        }
        fn runs(&self, t: Target) -> bool {
            self.inner.runs(t)
        }
        fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
            Err(format!("unprepared {}", first_and_len(cases)))
        }
        fn preparer(&self) -> Option<Arc<dyn Prepare>> {
            self.inner.preparer()
        }
        fn observe_prepared(
            &mut self,
            cases: &[(&Case, &Execution)],
            prepared: Prepared,
        ) -> Result<Vec<Run>, String> {
            use std::sync::atomic::Ordering::SeqCst;
            // Until two lanes have observed at once, each waits (bounded) for another.
            self.observing.fetch_add(1, SeqCst);
            let t = Instant::now();
            while !self.overlapped.load(SeqCst) && t.elapsed() < Duration::from_secs(30) {
                if self.observing.load(SeqCst) >= 2 {
                    self.overlapped.store(true, SeqCst);
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            let runs = self.inner.observe_prepared(cases, prepared);
            self.observing.fetch_sub(1, SeqCst);
            runs
        }
    }

    /// A backend of lanes only.
    struct Lanes(Vec<Lane>);

    impl Backend for Lanes {
        fn info(&self) -> RunInfo {
            self.0[0].info()
        }
        fn runs(&self, t: Target) -> bool {
            self.0.iter().all(|l| l.runs(t))
        }
        fn observe(&mut self, _: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
            Err("a backend of lanes observes through its lanes".into())
        }
        fn lanes(&mut self) -> Vec<&mut (dyn Backend + Send)> {
            self.0
                .iter_mut()
                .map(|l| l as &mut (dyn Backend + Send))
                .collect()
        }
    }

    /// A backend of lanes runs whole steps on each, side by side: every step once, prepared by
    /// the lane that observes it, and the results in order.
    #[test]
    fn lanes_observe_whole_steps_side_by_side() {
        let cases = numbered(8 * PIPELINE_CASES + 5);
        let pairs: Vec<(&str, &Case)> = cases.iter().map(|c| ("t.yaml", c)).collect();
        let observing = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let overlapped = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let lane = || Lane {
            inner: Preparing {
                inner: Predicted {
                    info: info("model"),
                },
                log: Default::default(),
                waits: vec![],
            },
            observing: observing.clone(),
            overlapped: overlapped.clone(),
        };
        let mut b = Lanes(vec![lane(), lane()]);
        let out = run_batch(&mut b, &KnownDivergences::default(), &pairs).unwrap();
        assert_eq!(out.len(), cases.len());
        for (i, j) in out.iter().enumerate() {
            assert_eq!(j.result.case, format!("c{i}"));
            assert_eq!(j.result.verdict, Verdict::Pass, "{}", j.result.detail);
        }
        assert!(overlapped.load(std::sync::atomic::Ordering::SeqCst));
        let mut observed = Vec::new();
        for l in &b.0 {
            let log = l.inner.log.lock().unwrap();
            for (k, line) in log.iter().enumerate() {
                if let Some(step) = line.strip_prefix("observe ") {
                    assert!(log[..k].contains(&format!("prepare {step}")), "{log:?}");
                    observed.push(step.to_string());
                }
            }
        }
        observed.sort_by_key(|s| s[1..].split(' ').next().unwrap().parse::<usize>().unwrap());
        let want: Vec<String> = (0..8)
            .map(|k| format!("c{} 2048", k * 2048))
            .chain(["c16384 5".to_string()])
            .collect();
        assert_eq!(observed, want);
    }

    /// A lane that fails fails the whole batch, with its error, and the other lane observes no
    /// step after that (a lane that panics alike, with its message).
    #[test]
    fn a_failing_lane_fails_the_batch() {
        use std::sync::atomic::{AtomicBool, Ordering};
        /// Set by the lane that fails, as it fails: the slow lane's step lasts until then (and a
        /// while after, for the batch to hear of it), however long the failing lane's first step
        /// took to prepare on a loaded host.
        static FAILED: AtomicBool = AtomicBool::new(false);
        struct Failing;
        impl Backend for Failing {
            fn info(&self) -> RunInfo {
                info("model")
            }
            fn runs(&self, _: Target) -> bool {
                true
            }
            fn observe(&mut self, _: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
                FAILED.store(true, Ordering::SeqCst);
                Err("the device is gone".into())
            }
        }
        /// Counts the steps it observes, each lasting until the other lane has failed.
        struct Slow(Counting);
        impl Backend for Slow {
            fn info(&self) -> RunInfo {
                self.0.info()
            }
            fn runs(&self, _: Target) -> bool {
                true
            }
            fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
                let t = std::time::Instant::now();
                while !FAILED.load(Ordering::SeqCst) && t.elapsed() < Duration::from_secs(60) {
                    std::thread::sleep(Duration::from_millis(10));
                }
                std::thread::sleep(Duration::from_secs(1));
                self.0.observe(cases)
            }
        }
        struct Two<F>(F, Slow);
        impl<F: Backend + Send> Backend for Two<F> {
            fn info(&self) -> RunInfo {
                self.1.info()
            }
            fn runs(&self, _: Target) -> bool {
                true
            }
            fn observe(&mut self, _: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
                Err("a backend of lanes observes through its lanes".into())
            }
            fn lanes(&mut self) -> Vec<&mut (dyn Backend + Send)> {
                vec![&mut self.0, &mut self.1]
            }
        }
        let cases = numbered(16 * PIPELINE_CASES);
        let pairs: Vec<(&str, &Case)> = cases.iter().map(|c| ("t.yaml", c)).collect();
        let slow = || {
            Slow(Counting(
                Predicted {
                    info: info("model"),
                },
                vec![],
            ))
        };
        let mut b = Two(Failing, slow());
        let e = run_batch(&mut b, &KnownDivergences::default(), &pairs).unwrap_err();
        assert_eq!(e, "the device is gone");
        // Of 16 steps the slow lane observed at most the one it was observing when the other
        // failed, not the one it had taken next.
        assert!(b.1 .0 .1.len() <= 1, "{:?}", b.1 .0 .1);
        /// A lane that panics.
        struct Panicking;
        impl Backend for Panicking {
            fn info(&self) -> RunInfo {
                info("model")
            }
            fn runs(&self, _: Target) -> bool {
                true
            }
            fn observe(&mut self, _: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
                FAILED.store(true, Ordering::SeqCst);
                panic!("the driver is confused")
            }
        }
        FAILED.store(false, Ordering::SeqCst);
        let mut b = Two(Panicking, slow());
        let e = run_batch(&mut b, &KnownDivergences::default(), &pairs).unwrap_err();
        assert_eq!(e, "a lane panicked: the driver is confused");
        assert!(b.1 .0 .1.len() <= 1, "{:?}", b.1 .0 .1);
    }

    /// The model's prediction, noting the first `buf` byte of the execution each case came with.
    struct Seen(Predicted, Vec<(String, Byte)>);

    impl Backend for Seen {
        fn info(&self) -> RunInfo {
            self.0.info()
        }
        fn runs(&self, t: Target) -> bool {
            self.0.runs(t)
        }
        fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
            for (c, ex) in cases {
                self.1
                    .push((c.name.clone(), ex.final_state.shared[0]["buf"][0]));
            }
            self.0.observe(cases)
        }
    }

    /// Executions a caller made stand for the reference's run of their own cases, across
    /// pipeline steps (the backend and the judge get them), and the case's own execution judges
    /// as the reference's run would.
    #[test]
    fn given_executions_stand_for_the_reference_run() {
        let cases = numbered(2 * PIPELINE_CASES + 5);
        let pairs: Vec<(&str, &Case)> = cases.iter().map(|c| ("t.yaml", c)).collect();
        let other = load_str(&CASE.replace("[1,2,3,4]", "[9,2,3,4]"), "t.yaml")
            .unwrap()
            .remove(0);
        let (_, other) = evaluate("t.yaml", &other);
        let (_, own) = evaluate("t.yaml", &cases[0]);
        let (other, own) = (other.unwrap(), own.unwrap());
        // Case i gets the other case's execution at i = 7 mod 1000, its own at 8 mod 1000.
        let given = |i: usize| match i % 1000 {
            7 => Some(other.clone()),
            8 => Some(own.clone()),
            _ => None,
        };
        let executed = (0..cases.len())
            .map(|i| {
                given(i).map(|execution| Executed {
                    execution,
                    took: Duration::from_micros(3),
                })
            })
            .collect();
        let known = KnownDivergences::default();
        let mut b = Seen(
            Predicted {
                info: info("model"),
            },
            vec![],
        );
        let out = run_batch_executed(DEFAULT_PROFILE, &mut b, &known, &pairs, executed).unwrap();
        let mut plain = Seen(
            Predicted {
                info: info("model"),
            },
            vec![],
        );
        let reference = run_batch(&mut plain, &known, &pairs).unwrap();
        assert_eq!(out.len(), cases.len());
        let seen: BTreeMap<String, Byte> = std::mem::take(&mut b.1).into_iter().collect();
        for (i, (j, r)) in out.iter().zip(&reference).enumerate() {
            let name = format!("c{i}");
            let want = if i % 1000 == 7 { 9 } else { 1 };
            assert_eq!(seen[&name], Byte::Known(want), "{name}");
            assert_eq!(j.result.case, name);
            assert_eq!(j.result.verdict, Verdict::Pass, "{}", j.result.detail);
            if i % 1000 != 7 {
                assert_eq!(
                    (&j.result.detail, &j.result.differences, &j.observation),
                    (&r.result.detail, &r.result.differences, &r.observation),
                    "{name}"
                );
            }
        }
        // One entry per case, or none of it runs.
        let short = vec![None];
        assert!(run_batch_executed(DEFAULT_PROFILE, &mut b, &known, &pairs, short).is_err());
    }

    #[test]
    fn batches_go_in_equal_steps_the_last_the_rest() {
        let steps = |n, lanes| step_lengths(n, lanes, Steps::Pipelined);
        assert_eq!(steps(0, 1), vec![0]);
        assert_eq!(steps(PIPELINE_CASES, 1), vec![PIPELINE_CASES]);
        assert_eq!(steps(20_000, 1), [vec![2048; 9], vec![1568]].concat());
        assert_eq!(steps(1 << 20, 1).iter().sum::<usize>(), 1 << 20);
        // Lanes get four steps each where steps need not be smaller than LANE_STEP_MIN.
        assert_eq!(steps(2808, 2), vec![351; 8]);
        assert_eq!(steps(16_384, 2), vec![2048; 8]);
        assert_eq!(steps(32_768, 2), vec![2048; 16]);
        assert_eq!(steps(600, 2), vec![256, 256, 88]);
        assert_eq!(steps(0, 2), vec![0]);
    }

    /// A batch of one lane cut whole is one step, however long; lanes still get their steps.
    #[test]
    fn a_whole_batch_is_one_step_on_one_lane() {
        let whole = |n, lanes| step_lengths(n, lanes, Steps::Whole);
        assert_eq!(whole(0, 1), vec![0]);
        assert_eq!(whole(16_384, 1), vec![16_384]);
        assert_eq!(whole(65_536, 0), vec![65_536]);
        assert_eq!(first_step(16_384, 1, Steps::Whole), 16_384);
        assert_eq!(whole(16_384, 2), vec![2048; 8]);
    }

    /// Copies of one case: one result per copy, named from `first`, each judged against the one
    /// execution.
    #[test]
    fn copies_are_judged_one_by_one() {
        let c = load_str(CASE, "t.yaml").unwrap().remove(0);
        let known = KnownDivergences::default();
        let mut b = Predicted {
            info: info("model"),
        };
        let out = run_copies(Profile::Sm90, &mut b, &known, ("t.yaml", &c), 40, 3).unwrap();
        let names: Vec<&str> = out.iter().map(|j| j.result.case.as_str()).collect();
        assert_eq!(names, ["copy4#40", "copy4#41", "copy4#42"]);
        assert!(out.iter().all(|j| j.result.verdict == Verdict::Pass));
        fn flip(o: &mut Observation) {
            o.regions.get_mut("buf@cta0").unwrap()[0] ^= 1;
        }
        let mut altered = Altered { change: Some(flip) };
        let out = run_copies(Profile::Sm90, &mut altered, &known, ("t.yaml", &c), 0, 2).unwrap();
        for j in &out {
            assert_eq!(j.result.verdict, Verdict::Diverge, "{}", j.result.case);
            assert!(
                j.result.detail.starts_with("buf@cta0 byte 0"),
                "{}",
                j.result.detail
            );
        }
    }

    /// A backend that observes one fixed observation.
    struct Fixed(Observation);

    impl Backend for Fixed {
        fn info(&self) -> RunInfo {
            info("fixed")
        }
        fn runs(&self, _: Target) -> bool {
            true
        }
        fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
            Ok(cases
                .iter()
                .map(|_| Run::observed(self.0.clone()))
                .collect())
        }
    }
}
