//! The core's pipeline: a batch in steps, each step evaluated by the reference and prepared by
//! the backend on host threads while the backend observes the step before, then judged.

use super::{reference_side, reference_side_given, Backend, Executed, Judged, Prepared, Ran, Run};
use crate::judge::judge;
use crate::known::KnownDivergences;
use crate::result::{CaseResult, Verdict};
use ptxconform_reference::case::Case;
use ptxconform_reference::sem::exec::Execution;
use ptxconform_reference::sem::profile::Profile;
use ptxconform_reference::target::Target;
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

/// The steps a batch of `n` cases goes in: one step up to [`PIPELINE_CASES`], else steps of
/// that many (the last the rest). Only the first step's reference and preparation overlap
/// nothing, and with the device's side and the host's about equal a step waits for the longer
/// of the two: equal steps waste the least (on one H200 machine start a fuzz block of 16,384
/// in steps of 2,048 ran 11,328 programs/s, in steps growing from 1,024 to 4,096 10,770;
/// `reports/bench/README.md`, h200-2026-11-29c).
pub(super) fn step_lengths(n: usize) -> Vec<usize> {
    if n <= PIPELINE_CASES {
        return vec![n];
    }
    let mut out = vec![PIPELINE_CASES; n / PIPELINE_CASES];
    if !n.is_multiple_of(PIPELINE_CASES) {
        out.push(n % PIPELINE_CASES);
    }
    out
}

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
pub fn run_batch_executed(
    profile: Profile,
    backend: &mut dyn Backend,
    known: &KnownDivergences,
    cases: &[(&str, &Case)],
    executed: Vec<Option<Executed>>,
) -> Result<Vec<Judged>, String> {
    use rayon::prelude::*;
    if executed.len() != cases.len() {
        return Err(format!(
            "{} executions given for {} cases",
            executed.len(),
            cases.len()
        ));
    }
    let targets: std::collections::BTreeSet<Target> = cases.iter().map(|c| c.1.target).collect();
    let runnable: std::collections::BTreeSet<Target> =
        targets.into_iter().filter(|t| backend.runs(*t)).collect();
    let preparer = backend.preparer();
    let replays = backend.replays();
    let ahead = |cs: &[(&str, &Case)], given: Vec<Option<Executed>>| -> Ahead {
        let run = || {
            let t = Instant::now();
            let evaluated: Vec<_> = cs
                .par_iter()
                .zip(given)
                .map(|((file, case), given)| {
                    let judged = replays.as_ref().and_then(|r| r.newest_index(case));
                    reference_side_given(file, case, known, profile, judged, given)
                })
                .collect();
            let reference = t.elapsed();
            let prepared = preparer.as_ref().map(|p| {
                let ready = ready(cs, evaluated.iter().map(|(_, x)| x.as_ref()), &runnable);
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
    };
    let mut rest = cases;
    let lengths = step_lengths(cases.len());
    let steps: Vec<&[(&str, &Case)]> = lengths
        .iter()
        .map(|&n| {
            let (step, after) = rest.split_at(n);
            rest = after;
            step
        })
        .collect();
    let mut executed = executed.into_iter();
    let mut given: Vec<Vec<Option<Executed>>> = lengths
        .iter()
        .map(|&n| executed.by_ref().take(n).collect())
        .collect();
    let mut out = Vec::with_capacity(cases.len());
    let mut next = Some(ahead(steps[0], std::mem::take(&mut given[0])));
    for (i, step) in steps.iter().enumerate() {
        let Some(this) = next.take() else { break };
        let later_given = given.get_mut(i + 1).map(std::mem::take);
        let (judged, after) = std::thread::scope(|s| {
            let later = steps
                .get(i + 1)
                .zip(later_given)
                .map(|(c, g)| s.spawn(|| ahead(c, g)));
            let judged = observe_and_judge(backend, step, this, &runnable);
            (judged, later.map(|h| h.join()))
        });
        out.extend(judged?);
        next = match after {
            Some(Ok(a)) => Some(a),
            Some(Err(_)) => return Err("the reference panicked".into()),
            None => None,
        };
    }
    Ok(out)
}

/// The cases of a step the backend observes (by index, with their executions): those the
/// reference ran without failure, built for a target the backend runs.
fn ready<'e>(
    cases: &[(&str, &Case)],
    executions: impl IntoIterator<Item = Option<&'e Execution>>,
    runnable: &std::collections::BTreeSet<Target>,
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

/// One step of [`run_batch_under`]: `cases` with the reference's side of each.
fn observe_and_judge(
    backend: &mut dyn Backend,
    cases: &[(&str, &Case)],
    step: Ahead,
    runnable: &std::collections::BTreeSet<Target>,
) -> Result<Vec<Judged>, String> {
    use rayon::prelude::*;
    let Ahead {
        evaluated,
        reference,
        prepared,
    } = step;
    let (results, executions): (Vec<CaseResult>, Vec<Option<Execution>>) =
        evaluated.into_iter().unzip();
    let ready = ready(cases, executions.iter().map(Option::as_ref), runnable);
    let pairs: Vec<(&Case, &Execution)> = ready.iter().map(|&(k, x)| (cases[k].1, x)).collect();
    let runs = match prepared {
        Some(p) => backend.observe_prepared(&pairs, p)?,
        None => backend.observe(&pairs)?,
    };
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
    backend.host_time(reference, t.elapsed());
    Ok(out)
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
