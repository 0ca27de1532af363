//! The isolation policy: after a group of jobs failed, which jobs are settled and which are run
//! again, alone or in smaller groups, so that a failure is pinned on the job that caused it.

use std::time::Duration;

use crate::device::protocol::{JobResult, Outcome};

/// How a group run ended early.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Failure {
    /// The worker reported a poisoning result for this job.
    Trapped(usize, Box<JobResult>),
    /// The watchdog fired; `Some(i)` if job `i` had started and not finished.
    Timeout(Option<usize>, Duration),
    /// The worker died or broke protocol; `Some(i)` if job `i` had started and not finished.
    Died(Option<usize>, String),
}

/// What to do with a group after a failure: jobs to settle now, groups to run next.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Plan {
    pub(super) settled: Vec<(usize, Outcome)>,
    /// The trapping job's own result (kept whole: it may carry encoded tensor maps).
    pub(super) settled_result: Option<(usize, Box<JobResult>)>,
    pub(super) next: Vec<Vec<usize>>,
}

/// The isolation policy. `group` is the jobs sent; `done` those that finished before the failure
/// (their results stand: they completed in a healthy context).
///
/// - A failure attributable to one job (`Started` without `Done`, or a trap result) is final if
///   that job ran alone or first in a fresh worker (the caller then passes `confirm` off);
///   otherwise it is re-run alone (confirmation, so a job is never blamed for state left by an
///   earlier one) and the jobs after it form a new group.
///   With `confirm` off, an attributed failure is final at once (cheaper when many jobs are
///   expected to trap, at the risk of blaming a job for an earlier job's leftover state).
/// - An unattributable failure (worker died between jobs, corrupt output) bisects the unfinished
///   jobs; a single unfinished job that fails this way is final.
pub(super) fn plan(group: &[usize], done: &[usize], failure: Failure, confirm: bool) -> Plan {
    let unfinished: Vec<usize> = group
        .iter()
        .copied()
        .filter(|i| !done.contains(i))
        .collect();
    let mut p = Plan {
        settled: vec![],
        settled_result: None,
        next: vec![],
    };
    let culprit = match &failure {
        Failure::Trapped(i, _) => Some(*i),
        Failure::Timeout(c, _) | Failure::Died(c, _) => *c,
    };
    let rest =
        |c: usize| -> Vec<usize> { unfinished.iter().copied().filter(|&i| i != c).collect() };
    match culprit {
        Some(c) if group.len() == 1 || !confirm => {
            let rest = rest(c);
            if !rest.is_empty() {
                p.next.push(rest);
            }
            match failure {
                Failure::Trapped(_, r) => p.settled_result = Some((c, r)),
                Failure::Timeout(_, t) => p.settled.push((
                    c,
                    Outcome::Timeout {
                        after_ms: t.as_millis() as u64,
                    },
                )),
                Failure::Died(_, d) => p.settled.push((c, Outcome::WorkerCrashed { detail: d })),
            }
        }
        Some(c) => {
            p.next.push(vec![c]);
            let rest = rest(c);
            if !rest.is_empty() {
                p.next.push(rest);
            }
        }
        None => match unfinished.len() {
            0 => {}
            1 => {
                let detail = match failure {
                    Failure::Timeout(_, t) => format!("worker silent for {t:?} between jobs"),
                    Failure::Died(_, d) => d,
                    // Cannot happen (a trap names its job); described rather than panicking.
                    Failure::Trapped(_, r) => format!("{:?}", r.outcome),
                };
                p.settled
                    .push((unfinished[0], Outcome::WorkerCrashed { detail }));
            }
            n => {
                p.next.push(unfinished[..n / 2].to_vec());
                p.next.push(unfinished[n / 2..].to_vec());
            }
        },
    }
    p
}
