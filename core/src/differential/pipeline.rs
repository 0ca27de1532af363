//! The core's pipeline: a batch in steps, each step evaluated by the reference and prepared by
//! the backend on host threads while the backend runs the step before, then decoded and judged
//! on a thread of its own while the backend runs the step after.

use super::{
    reference_side, reference_side_given, Backend, Decode, Executed, Judged, Prepare, Prepared,
    Ran, Run,
};
use crate::judge::judge;
use crate::known::KnownDivergences;
use crate::result::{CaseResult, Verdict};
use ptxconform_reference::case::Case;
use ptxconform_reference::sem::exec::Execution;
use ptxconform_reference::sem::profile::Profile;
use ptxconform_reference::target::Target;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// [`run_batch_under`] the harness's [`crate::judge::DEFAULT_PROFILE`].
pub fn run_batch(
    backend: &mut dyn Backend,
    known: &KnownDivergences,
    cases: &[(&str, &Case)],
) -> Result<Vec<Judged>, String> {
    run_batch_under(crate::judge::DEFAULT_PROFILE, backend, known, cases)
}

/// Most cases per step of [`run_batch_under`]'s pipeline: the next step's cases are evaluated
/// and prepared on host threads while the backend observes this step's.
pub(super) const PIPELINE_CASES: usize = 2048;

/// How a batch of one lane is cut into steps ([`step_lengths`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Steps {
    /// Steps of [`PIPELINE_CASES`]: each step's reference side and preparation run while the
    /// step before it runs.
    #[default]
    Pipelined,
    /// The whole batch in one step, for batches run in a row whose first step the batch before
    /// made ready ([`Carry`]): nothing then runs alone, and a step's fixed costs (its
    /// fork-joins, a second launch for a shape whose programs a step boundary cuts) come once a
    /// batch. On an H200, `fuzz --config legal` blocks of 16,384 ran 20,417 and 20,198
    /// programs/s in one step against 18,287 and 19,256 in steps of 2,048 on the same machine
    /// start, with 7-11 % less of the process's CPU a program (`reports/bench/README.md`,
    /// h200-2026-12-01z).
    Whole,
}

/// The steps a batch of `n` cases goes in, for a backend of `lanes` lanes
/// ([`Backend::lanes`]; 1 for a backend that observes alone): one lane cuts it as `steps` says,
/// [`Steps::Pipelined`] in one step up to [`PIPELINE_CASES`], else steps of that many (the last
/// the rest). Only the first step's reference and preparation overlap nothing, and with the
/// device's side and the host's about equal a step waits for the longer of the two: equal steps
/// waste the least (on one H200 machine start a fuzz block of 16,384 in steps of 2,048 ran
/// 11,328 programs/s, in steps growing from 1,024 to 4,096 10,770; `reports/bench/README.md`,
/// h200-2026-11-29c). Several lanes get at least [`LANE_STEPS`] steps each where the batch
/// allows steps of [`LANE_STEP_MIN`], whatever `steps` says: a lane takes its first step and
/// the one it prepares next at once, and only the steps after those go to whichever lane frees
/// first, so that a lane slowed by traps does not hold the batch back.
pub(super) fn step_lengths(n: usize, lanes: usize, steps: Steps) -> Vec<usize> {
    let step = match (lanes, steps) {
        (0 | 1, Steps::Pipelined) => PIPELINE_CASES,
        (0 | 1, Steps::Whole) => n.max(1),
        (l, _) => n
            .div_ceil(LANE_STEPS * l)
            .clamp(LANE_STEP_MIN, PIPELINE_CASES),
    };
    if n <= step {
        return vec![n];
    }
    let mut out = vec![step; n / step];
    if !n.is_multiple_of(step) {
        out.push(n % step);
    }
    out
}

/// Fewest cases in a step of a backend with several lanes: each step is at least one launch
/// and its new shapes one ptxas run (with chunks of 32 fuzz programs, two engines on one device
/// ran slower than one: 229 against 355 programs/s on an H100).
pub(super) const LANE_STEP_MIN: usize = 256;

/// Fewest steps a lane gets of a batch large enough ([`step_lengths`]).
pub(super) const LANE_STEPS: usize = 4;

/// A step evaluated ahead: the reference's side of every case and how long that took, and what
/// the backend's preparer made of the cases to observe.
struct Ahead {
    evaluated: Vec<(CaseResult, Option<Execution>)>,
    reference: Duration,
    prepared: Option<Prepared>,
}

/// Run `cases` (file, case): the reference under `profile` on host threads (with every recorded
/// observation replayed), then the backend, then the judge. One result per case, in order; known
/// divergences are applied only to the replays (the caller decides for live results). Batches of
/// more than [`PIPELINE_CASES`] go in steps: while the backend observes one step, the next is
/// evaluated by the reference and prepared by the backend's [`Backend::preparer`].
pub fn run_batch_under(
    profile: Profile,
    backend: &mut dyn Backend,
    known: &KnownDivergences,
    cases: &[(&str, &Case)],
) -> Result<Vec<Judged>, String> {
    let none = (0..cases.len()).map(|_| None).collect();
    run_batch_executed(profile, backend, known, cases, none)
}

/// [`run_batch_under`] where the caller ran the reference on some cases already: `executed[i]`,
/// when given, is `cases[i]`'s execution under `profile`, and the reference does not run it
/// again. `executed` has one entry per case.
///
/// A backend with lanes ([`Backend::lanes`]) runs one pipeline per lane, side by side: each
/// lane takes the next step not yet taken, and prepares the step it takes next while it
/// observes one. The results do not depend on which lane ran which step.
pub fn run_batch_executed(
    profile: Profile,
    backend: &mut dyn Backend,
    known: &KnownDivergences,
    cases: &[(&str, &Case)],
    executed: Vec<Option<Executed>>,
) -> Result<Vec<Judged>, String> {
    let (judged, _) =
        run_batch_carrying(profile, backend, known, cases, executed, Carry::default())?;
    Ok(judged)
}

/// The cases of the first step of a batch to come ([`first_step`] of its length), and the
/// executions the caller already has of them, one entry per case.
pub struct Upcoming<'a> {
    pub cases: &'a [(&'a str, &'a Case)],
    pub executed: Vec<Option<Executed>>,
}

/// A batch's first step made ready while the batch before it ran its last step: the
/// reference's side of its cases and the backend's preparation of them, with the profile it was
/// judged under and the cases' names, which it serves only while they are the same.
pub struct Readied {
    profile: Profile,
    names: Vec<String>,
    ahead: Ahead,
}

/// What a batch of [`run_batch_carrying`] takes from the batch before it and makes ready for
/// the batch after it.
#[derive(Default)]
pub struct Carry<'a> {
    /// This batch's first step, made ready by the batch before.
    pub readied: Option<Readied>,
    /// The next batch's first step, to make ready while this batch's last step runs.
    pub upcoming: Option<Upcoming<'a>>,
    /// How this batch is cut into steps. `upcoming` holds the next batch's first step as
    /// [`first_step`] cuts it (a caller that cuts it otherwise has it evaluated again).
    pub steps: Steps,
}

/// Cases in the first step of a batch of `n` cases on a backend of `lanes` lanes, cut as `steps`
/// says: what an [`Upcoming`] holds.
pub fn first_step(n: usize, lanes: usize, steps: Steps) -> usize {
    step_lengths(n, lanes, steps)[0]
}

/// [`run_batch_executed`] as one batch of several in a row, so that the backend does not wait
/// between them for the reference's side and the preparation of a batch's first step: the
/// batch's last step runs while `carry.upcoming` is evaluated and prepared, and what that made
/// is returned, to be given as the next batch's `carry.readied`, with the same known divergences.
/// A readied step whose cases are not this batch's first step, or of another profile, is
/// evaluated again (its executions given before are gone).
/// Only a backend without lanes carries: one with lanes returns nothing readied, and evaluates
/// a readied step again.
pub fn run_batch_carrying(
    profile: Profile,
    backend: &mut dyn Backend,
    known: &KnownDivergences,
    cases: &[(&str, &Case)],
    executed: Vec<Option<Executed>>,
    carry: Carry<'_>,
) -> Result<(Vec<Judged>, Option<Readied>), String> {
    if executed.len() != cases.len() {
        return Err(format!(
            "{} executions given for {} cases",
            executed.len(),
            cases.len()
        ));
    }
    let replays = backend.replays();
    let lanes = backend.lanes().len();
    let runnable = runnable_of(&*backend, cases);
    let mut rest = cases;
    let lengths = step_lengths(cases.len(), lanes, carry.steps);
    let steps: Vec<&[(&str, &Case)]> = lengths
        .iter()
        .map(|&n| {
            let (step, after) = rest.split_at(n);
            rest = after;
            step
        })
        .collect();
    let (readied, upcoming) = match lanes {
        0 | 1 => (carry.readied, carry.upcoming),
        _ => (None, None),
    };
    let readied = readied.filter(|r| {
        r.profile == profile
            && r.names.len() == steps[0].len()
            && r.names.iter().zip(steps[0]).all(|(n, c)| *n == c.1.name)
    });
    let upcoming = upcoming.filter(|u| u.executed.len() == u.cases.len() && !u.cases.is_empty());
    let upcoming_runnable = upcoming
        .as_ref()
        .map(|u| runnable_of(&*backend, u.cases))
        .unwrap_or_default();
    let mut executed = executed.into_iter();
    let given = lengths
        .iter()
        .map(|&n| Mutex::new(executed.by_ref().take(n).collect()))
        .collect();
    let batch = Batch {
        profile,
        known,
        replays: replays.as_ref(),
        runnable: &runnable,
        judged: Mutex::new((0..steps.len()).map(|_| None).collect()),
        steps,
        given,
        next: AtomicUsize::new(0),
        stopped: AtomicBool::new(false),
        readied: Mutex::new(readied.map(|r| r.ahead)),
        upcoming: Mutex::new(upcoming.map(|u| (u, &upcoming_runnable))),
        made: Mutex::new(None),
    };
    if lanes < 2 {
        batch.lane(backend)?;
    } else {
        let ended: Vec<Result<(), String>> = std::thread::scope(|s| {
            let batch = &batch;
            let running: Vec<_> = backend
                .lanes()
                .into_iter()
                .enumerate()
                .map(|(k, lane)| {
                    std::thread::Builder::new()
                        .name(format!("lane-{k}"))
                        .spawn_scoped(s, move || batch.lane(lane))
                })
                .collect();
            running
                .into_iter()
                .map(|h| {
                    let h = h.map_err(|e| format!("lane thread: {e}"))?;
                    h.join().unwrap_or_else(|p| {
                        let why = p
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| p.downcast_ref::<String>().cloned())
                            .unwrap_or_default();
                        Err(format!("a lane panicked: {why}"))
                    })
                })
                .collect()
        });
        ended.into_iter().collect::<Result<(), String>>()?;
    }
    let made = batch.made.into_inner().unwrap_or_else(|e| e.into_inner());
    let judged = batch.judged.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut out = Vec::with_capacity(cases.len());
    for step in judged {
        out.extend(step.ok_or("a step of the batch was not run")?);
    }
    Ok((out, made))
}

/// The targets of `cases` that `backend` runs.
fn runnable_of(backend: &dyn Backend, cases: &[(&str, &Case)]) -> BTreeSet<Target> {
    let targets: BTreeSet<Target> = cases.iter().map(|c| c.1.target).collect();
    targets.into_iter().filter(|t| backend.runs(*t)).collect()
}

/// A batch in steps, shared by the lanes that run it.
struct Batch<'a> {
    profile: Profile,
    known: &'a KnownDivergences,
    replays: Option<&'a super::Replay>,
    runnable: &'a BTreeSet<Target>,
    steps: Vec<&'a [(&'a str, &'a Case)]>,
    /// Each step's executions made before the batch, taken by the lane that evaluates it.
    given: Vec<Mutex<Vec<Option<Executed>>>>,
    /// The next step no lane has taken.
    next: AtomicUsize,
    /// A lane failed: the others observe no further step.
    stopped: AtomicBool,
    /// Each step's results, once judged.
    judged: Mutex<Vec<Option<Vec<Judged>>>>,
    /// The first step, made ready by the batch before (taken by the lane that takes it).
    readied: Mutex<Option<Ahead>>,
    /// The next batch's first step, with the targets of it the backend runs (taken by the lane
    /// that finds no step left).
    upcoming: Mutex<Option<(Upcoming<'a>, &'a BTreeSet<Target>)>>,
    /// The next batch's first step, made ready.
    made: Mutex<Option<Readied>>,
}

impl Batch<'_> {
    /// The next step no lane has taken, unless every step is taken or a lane failed.
    fn take(&self) -> Option<usize> {
        if self.stopped.load(Ordering::Relaxed) {
            return None;
        }
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        (i < self.steps.len()).then_some(i)
    }

    /// Step `i` made ready: by the batch before, or now by the reference and `preparer`.
    fn ahead(&self, i: usize, preparer: Option<&Arc<dyn Prepare>>) -> Ahead {
        if i == 0 {
            if let Some(a) = lock(&self.readied).take() {
                return a;
            }
        }
        let given = std::mem::take(&mut *lock(&self.given[i]));
        self.evaluate(self.steps[i], given, self.runnable, preparer)
    }

    /// The reference's side of `cs` (with the executions `given`) and `preparer`'s preparation
    /// of those of them that run (their target in `runnable`), on the reference's pool.
    fn evaluate(
        &self,
        cs: &[(&str, &Case)],
        given: Vec<Option<Executed>>,
        runnable: &BTreeSet<Target>,
        preparer: Option<&Arc<dyn Prepare>>,
    ) -> Ahead {
        let run = || {
            use rayon::prelude::*;
            let t = Instant::now();
            let span = crate::trace::span("step: reference", cs.len());
            let evaluated: Vec<_> = cs
                .par_iter()
                .zip(given)
                .map(|((file, case), given)| {
                    let judged = self.replays.and_then(|r| r.newest_index(case));
                    reference_side_given(file, case, self.known, self.profile, judged, given)
                })
                .collect();
            let reference = t.elapsed();
            drop(span);
            let prepared = preparer.map(|p| {
                let _span = crate::trace::span("step: prepare", cs.len());
                let ready = ready(cs, evaluated.iter().map(|(_, x)| x.as_ref()), runnable);
                let pairs: Vec<(&Case, &Execution)> =
                    ready.iter().map(|&(k, x)| (cs[k].1, x)).collect();
                p.prepare(&pairs)
            });
            Ahead {
                evaluated,
                reference,
                prepared,
            }
        };
        crate::pools::install(crate::pools::Stage::Reference, run)
    }

    /// The next batch's first step made ready, once (by the first lane that finds no step of
    /// this batch left).
    fn ready_upcoming(&self, preparer: Option<&Arc<dyn Prepare>>) {
        let Some((u, runnable)) = lock(&self.upcoming).take() else {
            return;
        };
        let names = u.cases.iter().map(|c| c.1.name.clone()).collect();
        let ahead = self.evaluate(u.cases, u.executed, runnable, preparer);
        *lock(&self.made) = Some(Readied {
            profile: self.profile,
            names,
            ahead,
        });
    }

    /// One lane's pipeline: take a step, and while `backend` observes it, evaluate and prepare
    /// the step taken after it. Steps go through three stages at once: while the backend runs
    /// one, the reference and the preparer make the next one ready, and the one before it is
    /// decoded and judged (the backend's run of a step waits for neither).
    fn lane(&self, backend: &mut dyn Backend) -> Result<(), String> {
        /// Stops the other lanes unless this one ended well, a panic included.
        struct Ending<'a>(&'a AtomicBool, bool);
        impl Drop for Ending<'_> {
            fn drop(&mut self) {
                if !self.1 {
                    self.0.store(true, Ordering::Relaxed);
                }
            }
        }
        let preparer = backend.preparer();
        let preparer = preparer.as_ref();
        std::thread::scope(|s| {
            // Inside the scope, so that a failure stops the other lanes at once, not once this
            // lane's threads (the step being made ready) have ended.
            let mut ending = Ending(&self.stopped, false);
            let Some(mut i) = self.take() else {
                ending.1 = true;
                return Ok(());
            };
            let mut this = self.ahead(i, preparer);
            let mut judging: Option<(usize, Judging<'_>)> = None;
            let ran = loop {
                if self.stopped.load(Ordering::Relaxed) {
                    break Ok(());
                }
                let next = self.take();
                let later = next.map(|j| s.spawn(move || self.ahead(j, preparer)));
                // The last step of this lane: the next batch's first is made ready beside it.
                let upcoming = next
                    .is_none()
                    .then(|| s.spawn(move || self.ready_upcoming(preparer)));
                let ran = run_step(backend, self.steps[i], this, self.runnable);
                if let Some((k, before)) = judging.take() {
                    if let Err(e) = self.judged_step(backend, k, before) {
                        break Err(e);
                    }
                }
                let ran = match ran {
                    Ok(r) => r,
                    Err(e) => break Err(e),
                };
                let (cases, runnable) = (self.steps[i], self.runnable);
                judging = Some((i, s.spawn(move || judge_step(cases, ran, runnable))));
                if upcoming.is_some_and(|h| h.join().is_err()) {
                    break Err("the reference panicked".into());
                }
                match (next, later.map(|h| h.join())) {
                    (Some(j), Some(Ok(a))) => (i, this) = (j, a),
                    (None, _) => break Ok(()),
                    _ => break Err("the reference panicked".into()),
                }
            };
            if ran.is_err() {
                self.stopped.store(true, Ordering::Relaxed);
            }
            let last = match judging.take() {
                Some((k, before)) => self.judged_step(backend, k, before),
                None => Ok(()),
            };
            let ended = ran.and(last);
            ending.1 = ended.is_ok();
            ended
        })
    }

    /// Step `k`'s judgement, once its thread ends: its results kept, its host times told to
    /// `backend`.
    fn judged_step(
        &self,
        backend: &mut dyn Backend,
        k: usize,
        judging: Judging<'_>,
    ) -> Result<(), String> {
        let (judged, reference, judge) = judging
            .join()
            .map_err(|_| "the judge panicked".to_string())??;
        backend.host_time(reference, judge);
        lock(&self.judged)[k] = Some(judged);
        Ok(())
    }
}

/// `m` locked, whether or not a thread panicked holding it.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A step's decoding and judgement on a thread of its own: its results, and the host time of
/// its reference side and of its judgement.
type Judging<'s> =
    std::thread::ScopedJoinHandle<'s, Result<(Vec<Judged>, Duration, Duration), String>>;

/// The cases of a step the backend observes (by index, with their executions): those the
/// reference ran without failure, built for a target the backend runs.
fn ready<'e>(
    cases: &[(&str, &Case)],
    executions: impl IntoIterator<Item = Option<&'e Execution>>,
    runnable: &BTreeSet<Target>,
) -> Vec<(usize, &'e Execution)> {
    executions
        .into_iter()
        .enumerate()
        .filter_map(|(k, ex)| {
            ex.filter(|_| runnable.contains(&cases[k].1.target))
                .map(|x| (k, x))
        })
        .collect()
}

/// A step the backend ran: the reference's side of each case, and the decoding of what the
/// backend gave back, still to do.
struct RanStep {
    results: Vec<CaseResult>,
    executions: Vec<Option<Execution>>,
    reference: Duration,
    decode: Decode,
}

/// The backend's run of one step of [`run_batch_under`]: `cases` with the reference's side of
/// each.
fn run_step(
    backend: &mut dyn Backend,
    cases: &[(&str, &Case)],
    step: Ahead,
    runnable: &BTreeSet<Target>,
) -> Result<RanStep, String> {
    let _span = crate::trace::span("step: run", cases.len());
    let Ahead {
        evaluated,
        reference,
        prepared,
    } = step;
    let (results, executions): (Vec<CaseResult>, Vec<Option<Execution>>) =
        evaluated.into_iter().unzip();
    let ready = ready(cases, executions.iter().map(Option::as_ref), runnable);
    let pairs: Vec<(&Case, &Execution)> = ready.iter().map(|&(k, x)| (cases[k].1, x)).collect();
    let decode = match prepared {
        Some(p) => backend.run_prepared(&pairs, p)?,
        None => super::decoded(backend.observe(&pairs)?),
    };
    drop(pairs);
    drop(ready);
    Ok(RanStep {
        results,
        executions,
        reference,
        decode,
    })
}

/// A step's runs decoded and judged: its results, and the host time of its reference side and
/// of its judgement.
fn judge_step(
    cases: &[(&str, &Case)],
    step: RanStep,
    runnable: &BTreeSet<Target>,
) -> Result<(Vec<Judged>, Duration, Duration), String> {
    use rayon::prelude::*;
    let RanStep {
        results,
        executions,
        reference,
        decode,
    } = step;
    let ready = ready(cases, executions.iter().map(Option::as_ref), runnable);
    let pairs: Vec<(&Case, &Execution)> = ready.iter().map(|&(k, x)| (cases[k].1, x)).collect();
    let span = crate::trace::span("step: decode", pairs.len());
    let runs = decode(&pairs)?;
    drop(span);
    let _span = crate::trace::span("step: judge", cases.len());
    if runs.len() != ready.len() {
        return Err(format!(
            "backend returned {} results for {} cases",
            runs.len(),
            ready.len()
        ));
    }
    let t = Instant::now();
    let mut runs_at: Vec<Option<Run>> = Vec::new();
    runs_at.resize_with(cases.len(), || None);
    for (&(k, _), run) in ready.iter().zip(runs) {
        runs_at[k] = Some(run);
    }
    let out: Vec<Judged> = results
        .into_par_iter()
        .zip(runs_at)
        .enumerate()
        .map(|(k, (mut r, run))| {
            let (case, ex) = (cases[k].1, executions[k].as_ref());
            let Some((run, ex)) = run.zip(ex) else {
                if ex.is_some() {
                    r.verdict = Verdict::NotRun;
                    r.detail = format!("needs {}", case.target);
                }
                return Judged {
                    result: r,
                    observation: None,
                    ptx: None,
                };
            };
            judge_run(r, case, ex, run)
        })
        .collect();
    drop(pairs);
    drop(ready);
    crate::pools::drop_apart(executions);
    Ok((out, reference, t.elapsed()))
}

/// Run copies `first..first + n` of `case` ([`Backend::observe_copies`]): the reference once
/// under `profile`, every copy's run judged against that execution, one result per copy named
/// `NAME#i`. A case that fails on the reference gives that result for every copy.
pub fn run_copies(
    profile: Profile,
    backend: &mut dyn Backend,
    known: &KnownDivergences,
    case: (&str, &Case),
    first: u64,
    n: usize,
) -> Result<Vec<Judged>, String> {
    run_copies_then(profile, backend, known, case, first, n, |j| j)
}

/// [`run_copies`], each judged copy passed to `then` on the thread that judged it (a litmus
/// reduces thousands of them to outcomes without a second pass).
pub fn run_copies_then<T: Send>(
    profile: Profile,
    backend: &mut dyn Backend,
    known: &KnownDivergences,
    (file, case): (&str, &Case),
    first: u64,
    n: usize,
    then: impl Fn(Judged) -> T + Sync,
) -> Result<Vec<T>, String> {
    use rayon::prelude::*;
    let t = Instant::now();
    let (r, ex) = reference_side(file, case, known, profile);
    let reference = t.elapsed();
    let named = |i: usize, r: &CaseResult| CaseResult {
        case: format!("{}#{}", case.name, first + i as u64),
        ..r.clone()
    };
    let unjudged = |r: CaseResult| Judged {
        result: r,
        observation: None,
        ptx: None,
    };
    let Some(ex) = ex else {
        return Ok((0..n).map(|i| then(unjudged(named(i, &r)))).collect());
    };
    if !backend.runs(case.target) {
        let mut r = r;
        r.verdict = Verdict::NotRun;
        r.detail = format!("needs {}", case.target);
        return Ok((0..n).map(|i| then(unjudged(named(i, &r)))).collect());
    }
    let runs = backend.observe_copies(case, &ex, first, n)?;
    if runs.len() != n {
        return Err(format!(
            "backend returned {} results for {n} copies",
            runs.len()
        ));
    }
    let t = Instant::now();
    let out = runs
        .into_par_iter()
        .enumerate()
        .map(|(i, run)| then(judge_run(named(i, &r), case, &ex, run)))
        .collect();
    backend.host_time(reference, t.elapsed());
    Ok(out)
}

/// A case's result `r` (the reference's side) with `run` judged against `ex`.
fn judge_run(mut r: CaseResult, case: &Case, ex: &Execution, run: Run) -> Judged {
    r.wall_us = run.wall_us;
    r.device = run.device;
    r.build = run.build;
    let observation = match run.ran {
        Ran::Observed(o) => {
            judge(case, ex, &o, &mut r);
            Some(o)
        }
        Ran::NotRun(why) => {
            r.verdict = Verdict::NotRun;
            r.detail = why;
            None
        }
        Ran::Failed(why) => {
            r.verdict = Verdict::HarnessError;
            r.detail = why;
            None
        }
        Ran::Disagree(groups) => {
            r.verdict = Verdict::BuildsDisagree;
            r.detail = groups;
            None
        }
    };
    Judged {
        result: r,
        observation,
        ptx: run.ptx,
    }
}
