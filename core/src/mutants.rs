//! The judge side of the mutation schema ([`ptxconform_reference::sem::mutant`]): an observation
//! *kills* a mutant when the judge passes it against the model and fails it against the model
//! with the mutant ([`kills`]). The corpus replay ([`replay`], `ptxconform mutants`) asks this of
//! every recorded hardware observation under every mutant. A campaign (`fuzz --mutants`) judges
//! each live observation the same way ([`kills_among`]): one GPU run serves every mutant, the
//! kill rate costs CPU only.

use crate::corpus::Loaded;
use crate::evaluate::{evaluate_with, family_of};
use crate::judge::{judge, DEFAULT_PROFILE};
use crate::known::KnownDivergences;
use crate::result::{CaseResult, Verdict};
use ptxconform_reference::case::{Case, Observation};
use ptxconform_reference::sem::exec::{ExecError, ExecOptions, Execution, TraceDetail};
use ptxconform_reference::sem::mutant::{reached, Mutant};
use rayon::prelude::*;
use serde::Serialize;

/// The model under `mutant`: the judge reads an execution's outcome and bytes, not its
/// trace's text and mbarrier states.
fn options(mutant: Option<Mutant>) -> ExecOptions {
    ExecOptions {
        mutant,
        ..ExecOptions::of(DEFAULT_PROFILE)
    }
    .keeping(TraceDetail::Touches)
}

/// The verdict the judge gives `obs` against `ex` (known findings applied), as the replay of a
/// recording in `run` would. A model that cannot execute the case fails every observation of it.
fn verdict(
    file: &str,
    case: &Case,
    ex: &Result<Execution, ExecError>,
    obs: &Observation,
    known: &KnownDivergences,
) -> Verdict {
    let Ok(ex) = ex else {
        return Verdict::ReferenceFail;
    };
    let mut r = CaseResult::new(&case.name, file, &family_of(case), Verdict::Pass);
    judge(case, ex, obs, &mut r);
    known.apply(&mut r, Some(crate::known::Site::of(obs)));
    r.verdict
}

/// How a recording tells a mutant from the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kill {
    /// The judge fails the recording against the mutant (it passed against the model).
    Fails,
    /// The recording passed the model's prediction; the mutant calls the program undefined, and
    /// the judge accepts anything of a program the model calls undefined. The recording still
    /// contradicts the mutant: silicon completed it with the bytes the model predicted.
    LosesPass,
}

/// Does a recording whose verdict was `before` against the model, `after` against a mutant,
/// kill the mutant?
fn kill(before: Verdict, after: Verdict) -> Option<Kill> {
    if before.is_failure() {
        None
    } else if after.is_failure() {
        Some(Kill::Fails)
    } else if before == Verdict::Pass && after == Verdict::ReferenceUndefined {
        Some(Kill::LosesPass)
    } else {
        None
    }
}

/// Does `obs` (a recorded or live run of `case`, from `file`) kill mutant `m` under the
/// harness's profile ([`Kill`] says how)?
pub fn kills(
    file: &str,
    case: &Case,
    obs: &Observation,
    m: Mutant,
    known: &KnownDivergences,
) -> Option<Kill> {
    let run = |mutant| evaluate_with(file, case, options(mutant)).1;
    kill(
        verdict(file, case, &run(None), obs, known),
        verdict(file, case, &run(Some(m)), obs, known),
    )
}

/// The mutants among `alive` that `obs` (a live run of `case`, e.g. a campaign's) kills, with
/// how, in `alive`'s order: the model runs once, noting the mutants its execution consults; only
/// those are run again (a mutant whose rule is never asked gives the same run). What a campaign
/// pays per observation for its mutation score: CPU, no GPU.
pub fn kills_among(
    file: &str,
    case: &Case,
    obs: &Observation,
    alive: &[Mutant],
    known: &KnownDivergences,
) -> Vec<(Mutant, Kill)> {
    let ((_, ex), consulted) = reached(|| evaluate_with(file, case, options(None)));
    let before = verdict(file, case, &ex, obs, known);
    if before.is_failure() {
        return Vec::new();
    }
    alive
        .iter()
        .copied()
        .filter(|m| consulted.contains(m))
        .filter_map(|m| {
            let under = evaluate_with(file, case, options(Some(m))).1;
            kill(before.clone(), verdict(file, case, &under, obs, known)).map(|k| (m, k))
        })
        .collect()
}

/// Where a mutant was found out: a case and, for a kill, the recording that did it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Witness {
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kill: Option<Kill>,
    pub case: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
}

/// One mutant under the corpus replay.
#[derive(Clone, Debug, Serialize)]
pub struct MutantResult {
    pub id: &'static str,
    pub family: &'static str,
    pub rule: &'static str,
    pub subtle: bool,
    pub description: &'static str,
    /// The first case (corpus order) with a recorded observation that kills it.
    pub killed_by: Option<Witness>,
    /// Survivors: the first case with recordings whose execution it changes (the recordings
    /// still pass: the difference is in what they do not show or allow either way).
    pub changes_recorded_case: Option<Witness>,
    /// The first case whose own assertion (`expect:`) it breaks, recordings aside.
    pub breaks_expect: Option<Witness>,
    /// Why it cannot be told apart on sm_90a silicon with ptxas 13.0 (counted apart), if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unobservable: Option<ptxconform_reference::sem::mutant::Unobservable>,
    /// Cases whose execution consults the mutant's rule, and those with recordings.
    pub reached: usize,
    pub reached_recorded: usize,
}

impl MutantResult {
    /// tcgen05 mutants: no sm_100 silicon recorded here, counted apart.
    pub fn needs_sm100(&self) -> bool {
        self.family == ptxconform_reference::sem::mutant::Family::Tcgen05.name()
    }
}

/// A case's unmutated run: its reference result, each recording's verdict, which mutants it
/// reaches.
struct Baseline {
    failed_reference: bool,
    shown: String,
    verdicts: Vec<Verdict>,
    reached: Vec<Mutant>,
}

/// What an execution shows (outcome, final state, predicted ending, driver verdicts).
fn shown(ex: &Result<Execution, ExecError>) -> String {
    match ex {
        Ok(x) => format!(
            "{:?} {:?} {:?} {:?}",
            x.outcome, x.final_state, x.expected_hw, x.driver_rejects
        ),
        Err(e) => e.to_string(),
    }
}

/// Replays the corpus under every mutant of `mutants` (in parallel over mutants): each case that
/// reaches a mutant's rule is executed with it, and every recording that passes unmutated is
/// judged again.
pub fn replay(
    loaded: &[Loaded],
    mutants: &[Mutant],
    known: &KnownDivergences,
) -> Vec<MutantResult> {
    let base: Vec<Baseline> = loaded
        .par_iter()
        .map(|l| {
            let ((r, ex), reached) = reached(|| evaluate_with(&l.file, &l.case, options(None)));
            let verdicts = l
                .case
                .observed
                .iter()
                .map(|o| verdict(&l.file, &l.case, &ex, o, known))
                .collect();
            Baseline {
                failed_reference: r.verdict.is_failure(),
                shown: shown(&ex),
                verdicts,
                reached,
            }
        })
        .collect();
    mutants
        .par_iter()
        .map(|&m| one(loaded, &base, m, known))
        .collect()
}

fn one(loaded: &[Loaded], base: &[Baseline], m: Mutant, known: &KnownDivergences) -> MutantResult {
    let mut out = MutantResult {
        id: m.id(),
        family: m.family().name(),
        rule: m.rule(),
        subtle: m.subtle(),
        description: m.description(),
        killed_by: None,
        changes_recorded_case: None,
        breaks_expect: None,
        unobservable: m.unobservable_on_sm90(),
        reached: 0,
        reached_recorded: 0,
    };
    let witness = |l: &Loaded, obs: Option<(&Observation, Kill)>| Witness {
        file: l.file.clone(),
        kill: obs.map(|o| o.1),
        case: l.case.name.clone(),
        device: obs.map(|o| o.0.device.clone()),
        date: obs.map(|o| o.0.date.clone()),
    };
    for (l, b) in loaded.iter().zip(base) {
        if !b.reached.contains(&m) {
            continue;
        }
        out.reached += 1;
        let recorded = !b.verdicts.is_empty();
        out.reached_recorded += usize::from(recorded);
        if out.killed_by.is_some() && out.breaks_expect.is_some() {
            continue;
        }
        let (r, ex) = evaluate_with(&l.file, &l.case, options(Some(m)));
        if out.breaks_expect.is_none() && !b.failed_reference && r.verdict.is_failure() {
            out.breaks_expect = Some(witness(l, None));
        }
        if out.killed_by.is_some() {
            continue;
        }
        let obs = &l.case.observed;
        let killer = obs.iter().zip(&b.verdicts).find_map(|(o, before)| {
            kill(before.clone(), verdict(&l.file, &l.case, &ex, o, known)).map(|k| (o, k))
        });
        if let Some(k) = killer {
            out.killed_by = Some(witness(l, Some(k)));
        } else if out.changes_recorded_case.is_none() && recorded && shown(&ex) != b.shown {
            out.changes_recorded_case = Some(witness(l, None));
        }
    }
    if out.killed_by.is_some() {
        out.changes_recorded_case = None;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::differential::predicted;
    use crate::result::RunInfo;
    use ptxconform_reference::case::load_str;

    const CASE: &str = r#"
name: copy_then_wait
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
  - wait_parity: { mbar: bar, parity: 0 }
check: [buf, bar]
"#;

    /// The model's own prediction kills the mutants that change what it shows, and only those.
    #[test]
    fn a_prediction_kills_the_mutants_it_contradicts() {
        let case = load_str(CASE, "t.yaml").unwrap().remove(0);
        let ex = evaluate_with("t.yaml", &case, options(None)).1.unwrap();
        let obs = predicted(&RunInfo::default(), &ex);
        let known = KnownDivergences::default();
        let k = |m| kills("t.yaml", &case, &obs, m, &known);
        // The wait never completes under the mutant: it predicts a hang, and the observed
        // completion is outside that prediction (a mispredicted outcome fails).
        assert_eq!(k(Mutant::ParityInverted), Some(Kill::Fails));
        // A rule the case never reaches changes nothing.
        assert_eq!(k(Mutant::Swizzle128BTwoBits), None);
        // The same through the corpus replay, the prediction recorded in the case.
        let mut recorded = case.clone();
        recorded.observed = vec![obs.clone()];
        let killed: Vec<&str> = replay(
            &[Loaded {
                file: "t.yaml".into(),
                case: recorded,
            }],
            Mutant::ALL,
            &known,
        )
        .into_iter()
        .filter(|r| r.killed_by.is_some())
        .map(|r| r.id)
        .collect();
        assert!(killed.contains(&Mutant::ParityInverted.id()), "{killed:?}");
        assert!(!killed.contains(&Mutant::Swizzle128BTwoBits.id()));
        // A live observation judged under every mutant at once: the same kills as one by one.
        let among = kills_among("t.yaml", &case, &obs, Mutant::ALL, &known);
        let one_by_one: Vec<(Mutant, Kill)> = Mutant::ALL
            .iter()
            .filter_map(|&m| k(m).map(|how| (m, how)))
            .collect();
        assert_eq!(among, one_by_one);
        assert!(among.contains(&(Mutant::ParityInverted, Kill::Fails)));
        // Mutants already killed are not asked again.
        let rest: Vec<Mutant> = Mutant::ALL
            .iter()
            .copied()
            .filter(|m| *m != Mutant::ParityInverted)
            .collect();
        assert!(!kills_among("t.yaml", &case, &obs, &rest, &known)
            .iter()
            .any(|(m, _)| *m == Mutant::ParityInverted));
    }
}
