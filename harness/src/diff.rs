//! The differential core: the reference executes each case, a [`Backend`] observes it, the
//! [`judge`](crate::judge) compares the two. Every path goes through [`run_batch`]: `run` and
//! `fuzz` with the GPU, `run --replay` with recorded observations, tests with the model's own
//! prediction or a fake.

use crate::judge::{judge, replay};
use crate::report::{CaseResult, KnownDivergences, RunInfo, Verdict};
use crate::run::reference::evaluate;
use ptxconform_reference::case::{Case, Ending, Observation, Parity};
use ptxconform_reference::sem::exec::{Execution, ExpectedHw, Outcome};
use ptxconform_reference::sem::memory::Byte;
use ptxconform_reference::target::Target;
use std::time::{Duration, Instant};

/// What a backend made of one case.
#[derive(Clone, Debug)]
pub enum Ran {
    /// It ran; this is what the device showed.
    Observed(Observation),
    /// It could not run here (the reason, e.g. "needs PTX ISA 9.1").
    NotRun(String),
    /// The harness failed on it (JIT error, launch error, worker crash): no observation.
    Failed(String),
}

/// One case's run on a backend, with the program that ran (for divergence reports).
#[derive(Clone, Debug)]
pub struct Run {
    pub ran: Ran,
    pub ptx: Option<String>,
    pub wall_us: u64,
}

impl Run {
    pub fn observed(obs: Observation) -> Run {
        Run {
            ran: Ran::Observed(obs),
            ptx: None,
            wall_us: 0,
        }
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
}

/// A case's judged result, with its observation and program.
#[derive(Clone, Debug)]
pub struct Judged {
    pub result: CaseResult,
    pub observation: Option<Observation>,
    pub ptx: Option<String>,
}

/// Run `cases` (file, case): the reference on host threads (with every recorded observation
/// replayed), then the backend, then the judge. One result per case, in order; known divergences
/// are applied only to the replays (the caller decides for live results).
pub fn run_batch(
    backend: &mut dyn Backend,
    known: &KnownDivergences,
    cases: &[(&str, &Case)],
) -> Result<Vec<Judged>, String> {
    use rayon::prelude::*;
    let t = Instant::now();
    let evaluated: Vec<(CaseResult, Option<Execution>)> = cases
        .par_iter()
        .map(|(file, case)| {
            let (mut r, ex) = evaluate(file, case);
            let ex = ex.ok().filter(|_| !r.verdict.is_failure());
            if let Some(x) = &ex {
                replay(case, x, known, &mut r);
            }
            let ex = ex.filter(|_| !r.verdict.is_failure());
            (r, ex)
        })
        .collect();
    let mut out: Vec<Judged> = Vec::with_capacity(cases.len());
    let mut ready: Vec<(usize, &Case, &Execution)> = Vec::new();
    for (k, (r, ex)) in evaluated.iter().enumerate() {
        let mut r = r.clone();
        match ex {
            Some(x) if backend.runs(cases[k].1.target) => ready.push((k, cases[k].1, x)),
            Some(_) => {
                r.verdict = Verdict::NotRun;
                r.detail = format!("needs {}", cases[k].1.target);
            }
            None => {}
        }
        out.push(Judged {
            result: r,
            observation: None,
            ptx: None,
        });
    }
    let reference = t.elapsed();
    let pairs: Vec<(&Case, &Execution)> = ready.iter().map(|&(_, c, x)| (c, x)).collect();
    let runs = backend.observe(&pairs)?;
    if runs.len() != ready.len() {
        return Err(format!(
            "backend returned {} results for {} cases",
            runs.len(),
            ready.len()
        ));
    }
    let t = Instant::now();
    let judged: Vec<(usize, Judged)> = ready
        .par_iter()
        .zip(runs)
        .map(|(&(k, case, ex), run)| {
            let mut r = out[k].result.clone();
            r.wall_us = run.wall_us;
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
            };
            let j = Judged {
                result: r,
                observation,
                ptx: run.ptx,
            };
            (k, j)
        })
        .collect();
    for (k, j) in judged {
        out[k] = j;
    }
    backend.host_time(reference, t.elapsed());
    Ok(out)
}

/// The model's own prediction as an observation: completion (or the trap or timeout it expects)
/// with every uncertain byte resolved to its least allowed value. Judged against the same
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
        outcome: match ex.expected_hw {
            ExpectedHw::Completes => Ending::Completed,
            ExpectedHw::Timeout => Ending::Timeout(vec![]),
            ExpectedHw::MayTrap => Ending::Trap {
                kind: "predicted".into(),
                code: 0,
            },
        },
        regions: Default::default(),
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
                obs.mbarriers
                    .insert(crate::judge::shared_key(name, cta), p);
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

/// Recorded observations as a backend: each case's newest observation from a device whose name
/// contains `device` (case-insensitive). `run --replay DEVICE` judges a corpus as the recorded
/// runs saw it, without a GPU.
pub struct Replay {
    pub device: String,
}

impl Backend for Replay {
    fn info(&self) -> RunInfo {
        RunInfo {
            device: format!("recorded observations of `{}`", self.device),
            driver: String::new(),
            date: crate::run::today(),
            mode: "reference + replayed hardware".into(),
            ptxconform: env!("CARGO_PKG_VERSION").into(),
        }
    }
    fn runs(&self, _: Target) -> bool {
        true
    }
    fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
        let want = self.device.to_ascii_lowercase();
        Ok(cases
            .iter()
            .map(|(case, _)| {
                let newest = case
                    .observed
                    .iter()
                    .filter(|o| o.device.to_ascii_lowercase().contains(&want))
                    .max_by(|a, b| a.date.cmp(&b.date));
                match newest {
                    Some(o) => Run::observed(o.clone()),
                    None => Run {
                        ran: Ran::NotRun(format!("no observation recorded on `{}`", self.device)),
                        ptx: None,
                        wall_us: 0,
                    },
                }
            })
            .collect())
    }
}
