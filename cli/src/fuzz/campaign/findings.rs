//! What the campaign does with a failing program: a CPU oracle violation or a hardware
//! divergence is counted against known and already-found signatures, else minimized (on the CPU
//! or on hardware) and saved as a regression case, with its divergence report and journal line.

use super::coverage::Analysis;
use super::{cpu_oracles, settled, validates, Campaign, FirstStep, Line, Pending};
use crate::fuzz::minimize::{minimize, Budget, Minimized};
use crate::fuzz::{Signature, GENERATED};
use ptxconform_core::differential::{run_batch_carrying, Carry, Judged, Steps, Upcoming};
use ptxconform_core::evaluate::{families_of, family_of};
use ptxconform_core::known::{KnownDivergence, Site};
use ptxconform_core::pools;
use ptxconform_core::result::Verdict;
use ptxconform_gpu::engine::write_divergence;
use ptxconform_reference::case::{to_yaml, Case};
use ptxconform_reference::gen::oracle::{OracleId, Violation};
use ptxconform_reference::gen::swarm::Features;
use ptxconform_reference::gen::{Generated, Intent};
use ptxconform_reference::sem::exec::{HwOutcome, OutcomeClass};

/// The runs of a block's hardware stage, in order, by its programs' predictions: a run that
/// may trap or hang costs the device more and disturbs its neighbours, and the trap budget times
/// each apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    /// Neither a trap nor a hang predicted (a planted program's too: it has no analysis).
    Rest,
    /// A hang predicted, no trap.
    Hangs,
    /// A trap predicted.
    Traps,
}

impl Part {
    const ALL: [Part; 3] = [Part::Rest, Part::Hangs, Part::Traps];

    pub(super) fn of(analysis: Option<&Analysis>) -> Part {
        match analysis {
            Some(a) if a.prediction.has_class(OutcomeClass::Traps) => Part::Traps,
            Some(a) if a.prediction.has_class(OutcomeClass::Hangs) => Part::Hangs,
            _ => Part::Rest,
        }
    }

    /// How the part's run is cut into steps. The first part, which takes its first step made
    /// ready by the block before, runs whole; predicted hangs and traps keep the pipeline's
    /// steps, each of which waits for its slowest.
    pub(super) fn steps(self) -> Steps {
        match self {
            Part::Rest => Steps::Whole,
            Part::Hangs | Part::Traps => Steps::Pipelined,
        }
    }
}

impl Campaign<'_> {
    /// A CPU oracle violation: minimize (on the CPU) unless its signature is known or found.
    pub(super) fn violation(&mut self, k: u64, g: &Generated, v: &Violation) -> Result<(), String> {
        self.stats.violations += 1;
        let family = family_of(&g.case);
        let sig = Signature::of_violation(&family, v.oracle.name(), &v.message);
        if self.opts.known.matching_signature(&sig.key()).is_some() {
            self.stats.known += 1;
            return Ok(());
        }
        if self.stats.findings.contains_key(&sig.key()) || self.raw_seen.contains_key(&sig.key()) {
            self.stats.duplicates += 1;
            return Ok(());
        }
        // Illegal intents name a step index, which dropping steps would shift: saved as generated.
        let m = if matches!(g.intent, Intent::Illegal { .. }) {
            Minimized {
                case: g.case.clone(),
                evidence: Some(v.clone()),
                rounds: 0,
                tested: 0,
            }
        } else {
            let still = |c: &Case| -> Option<Violation> {
                let g = Generated {
                    case: c.clone(),
                    intent: ptxconform_reference::gen::intent_of(c.expect.as_ref()),
                    episodes: 0,
                };
                match cpu_oracles(&g) {
                    Err(w)
                        if Signature::of_violation(&family_of(c), w.oracle.name(), &w.message)
                            .same_failure(&sig) =>
                    {
                        Some(w)
                    }
                    _ => None,
                }
            };
            let admissible = |c: &Case| v.oracle == OracleId::Validates || validates(c);
            let mut test = |cs: &[Case]| Ok(cs.iter().map(still).collect());
            minimize(
                &g.case,
                &admissible,
                &mut test,
                Budget {
                    batch: 64,
                    rounds: 10_000,
                    until: self.minimize_until,
                },
            )?
        };
        self.stats.minimize_rounds += m.rounds as u64;
        self.stats.minimize_cases += m.tested as u64;
        let v = m.evidence.clone().unwrap_or_else(|| v.clone());
        let min_sig = Signature::of_violation(&family_of(&m.case), v.oracle.name(), &v.message);
        self.raw_seen.insert(sig.key(), min_sig.key());
        if self.stats.findings.contains_key(&min_sig.key()) {
            self.stats.duplicates += 1;
            return Ok(());
        }
        let what = format!("CPU oracle violation {v}");
        self.save(k, &m.case, &min_sig, &what, None)
    }

    /// Run a batch on hardware, its programs predicted to trap and to hang apart from the rest
    /// (each part timed for the trap budget); handle its failures. `next`: the first step of
    /// the next block's first part ([`super::upcoming_of`]), made ready beside the last step of
    /// this batch's first part and kept for the next call.
    pub(super) fn hardware(
        &mut self,
        mut pending: Vec<Pending>,
        next: Option<FirstStep<'_>>,
    ) -> Result<(), String> {
        let mut readied = self.readied.take();
        let Some(hw) = self.hw.as_deref_mut() else {
            return Ok(());
        };
        let parts: Vec<Vec<usize>> = Part::ALL
            .iter()
            .map(|&part| {
                (0..pending.len())
                    .filter(|&i| Part::of(pending[i].analysis.as_ref()) == part)
                    .collect()
            })
            .collect();
        // The next block's first step is made ready beside the first run (that of programs
        // predicted neither to trap nor to hang, the next block's own first run), so that the
        // trap budget's timing of traps and hangs does not include it.
        let first = parts.iter().position(|idx| !idx.is_empty());
        let (next_cases, mut next_executed) = match next {
            Some((c, e)) => (c, Some(e)),
            None => (Vec::new(), None),
        };
        let mut outs: Vec<Option<Judged>> = (0..pending.len()).map(|_| None).collect();
        for (at, (part, idx)) in Part::ALL.iter().zip(parts).enumerate() {
            if idx.is_empty() {
                continue;
            }
            let executed = idx.iter().map(|&i| pending[i].executed.take()).collect();
            let cases: Vec<(&str, &Case)> =
                idx.iter().map(|&i| (GENERATED, &pending[i].case)).collect();
            let carry = Carry {
                readied: if *part == Part::Rest {
                    readied.take()
                } else {
                    None
                },
                upcoming: if Some(at) == first {
                    next_executed.take().map(|executed| Upcoming {
                        cases: &next_cases,
                        executed,
                    })
                } else {
                    None
                },
                steps: part.steps(),
            };
            let t = std::time::Instant::now();
            let (got, made) = run_batch_carrying(
                self.opts.profile,
                hw,
                &self.opts.known,
                &cases,
                executed,
                carry,
            )?;
            if made.is_some() {
                self.readied = made;
            }
            let secs = t.elapsed().as_secs_f64();
            let ledger = &mut self.stats.trap_budget;
            match part {
                Part::Traps => {
                    ledger.trap_seconds += secs;
                    ledger.trap_runs += idx.len() as u64;
                    for &i in &idx {
                        if let Some(r) = pending[i].analysis.as_ref().and_then(|a| a.rule.clone()) {
                            *ledger.runs_by_rule.entry(r).or_default() += 1;
                        }
                    }
                }
                Part::Hangs => {
                    ledger.hang_seconds += secs;
                    ledger.predicted_hangs += idx.len() as u64;
                }
                Part::Rest => ledger.other_seconds += secs,
            }
            for (i, j) in idx.into_iter().zip(got) {
                outs[i] = Some(j);
            }
        }
        let outs: Vec<Judged> = outs.into_iter().flatten().collect();
        if outs.len() != pending.len() {
            return Err("the hardware returned fewer results than programs".into());
        }
        for (p, j) in pending.iter().zip(&outs) {
            if let (Some(a), Some(o)) = (&p.analysis, &j.observation) {
                self.coverage.outcome(a, HwOutcome::of(&o.outcome));
            }
        }
        self.stats.gpu_cases += pending.len() as u64;
        if self.opts.mutants {
            let judged: Vec<(u64, &Case, &Judged)> = pending
                .iter()
                .zip(&outs)
                .map(|(p, j)| (p.k, &p.case, j))
                .collect();
            self.mutant_kills(&judged);
        }
        let mut passed = Vec::with_capacity(outs.len());
        for (p, out) in pending.iter().zip(outs) {
            *self
                .stats
                .verdicts
                .entry(out.result.verdict.name().into())
                .or_default() += 1;
            for d in &out.result.departures {
                *self.stats.departures.entry(d.clone()).or_default() += 1;
            }
            if out.result.verdict.is_failure() {
                self.divergence(p.k, &p.case, out)?;
            } else {
                passed.push(out);
            }
        }
        // The block's cases and results (their observations' bytes) are freed beside the next.
        pools::drop_apart((pending, passed));
        Ok(())
    }

    /// Whether a hardware failure observed at `site` is a known finding: one that matches and
    /// was seen on that device and driver (elsewhere it is new evidence, reported).
    fn is_known(&self, case: &Case, sig: &Signature, site: Option<Site>) -> bool {
        let k = &self.opts.known;
        let here = |f: Option<&KnownDivergence>| f.is_some_and(|f| f.seen_at(site));
        here(k.matching_signature(&sig.key()))
            || here(k.matching(&case.name))
            || (sig.verdict == Verdict::TrapUnexpected
                && here(k.explaining_trap(
                    Features::used_by(case),
                    &families_of(case),
                    &sig.verdict_at(),
                )))
    }

    /// A hardware failure: suppress known / found signatures, else minimize on hardware and save.
    fn divergence(&mut self, k: u64, case: &Case, out: Judged) -> Result<(), String> {
        let sig = Signature::of(&out.result);
        if self.is_known(case, &sig, out.observation.as_ref().map(Site::of)) {
            self.stats.known += 1;
            return Ok(());
        }
        self.stats.divergences += 1;
        if self.stats.findings.contains_key(&sig.key())
            || self
                .raw_seen
                .get(&sig.key())
                .is_some_and(|m| self.stats.findings.contains_key(m) || m == "known")
        {
            self.stats.duplicates += 1;
            return Ok(());
        }
        let Some(hw) = self.hw.as_deref_mut() else {
            return Ok(());
        };
        // Candidates must validate and be well defined on the reference: that keeps mbarrier
        // inits and tx counts consistent (an unbalanced phase never completes, which the
        // reference reports as undefined).
        let admissible = |c: &Case| validates(c) && settled(c);
        let (known, profile) = (&self.opts.known, self.opts.profile);
        let mut test = |cs: &[Case]| -> Result<Vec<Option<Judged>>, String> {
            let outs = crate::fuzz::run_cases(hw, known, profile, cs)?;
            Ok(outs
                .into_iter()
                .map(|o| {
                    (o.result.verdict.is_failure() && Signature::of(&o.result).same_failure(&sig))
                        .then_some(o)
                })
                .collect())
        };
        let m = minimize(
            case,
            &admissible,
            &mut test,
            Budget {
                batch: self.opts.batch,
                rounds: self.opts.minimize_rounds,
                until: self.minimize_until,
            },
        )?;
        self.stats.minimize_rounds += m.rounds as u64;
        self.stats.minimize_cases += m.tested as u64;
        let out = m.evidence.unwrap_or(out);
        let min_sig = Signature::of(&out.result);
        if self.is_known(&m.case, &min_sig, out.observation.as_ref().map(Site::of)) {
            self.raw_seen.insert(sig.key(), "known".into());
            self.stats.divergences -= 1;
            self.stats.known += 1;
            return Ok(());
        }
        self.raw_seen.insert(sig.key(), min_sig.key());
        if self.stats.findings.contains_key(&min_sig.key()) {
            self.stats.duplicates += 1;
            return Ok(());
        }
        let what = format!("{}: {}", out.result.verdict.name(), out.result.detail);
        self.save(k, &m.case, &min_sig, &what, Some(&out))
    }

    /// Write `regress.<hash>.yaml` into the regressions folder, the divergence report (case with
    /// the observation, and its PTX) into `OUT/divergences/`, and journal the finding.
    fn save(
        &mut self,
        k: u64,
        case: &Case,
        sig: &Signature,
        what: &str,
        out: Option<&Judged>,
    ) -> Result<(), String> {
        let name = format!("regress.{}", sig.hash());
        let mut c = case.clone();
        c.name = name.clone();
        c.description = format!(
            "Minimized by `ptxconform fuzz` (seed {}, program {k}, config targets {}): {} — {}",
            self.stats.seed,
            self.cfg
                .targets
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(","),
            sig.key(),
            what.chars().take(400).collect::<String>()
        );
        if let Some(o) = out.and_then(|o| o.observation.clone()) {
            c.observed = vec![o];
        }
        std::fs::create_dir_all(&self.opts.regressions)
            .map_err(|e| format!("{}: {e}", self.opts.regressions.display()))?;
        let file = self.opts.regressions.join(format!("{name}.yaml"));
        std::fs::write(&file, to_yaml(std::slice::from_ref(&c)))
            .map_err(|e| format!("{}: {e}", file.display()))?;
        let mut culprit = None;
        if let Some(o) = out {
            let mut report = c.clone();
            report.observed.clear();
            let ptx = o.ptx.as_deref().unwrap_or("");
            write_divergence(&self.opts.out, &report, ptx, o.observation.as_ref())?;
            let mut result = o.result.clone();
            if let Some(a) = self.attributor.as_mut() {
                // A builds differential's disagreement is no one build's run: run it afresh.
                let at = if o.result.verdict == Verdict::BuildsDisagree {
                    a.attribute_afresh(&[(GENERATED, &report)])
                } else {
                    a.attribute(&[(GENERATED, &report, o)])
                }
                .remove(0);
                a.write_evidence(&self.opts.out, &report, ptx, &at)?;
                culprit = Some(at.culprit.to_string());
                result.attribution = Some(at);
            }
            let p = self
                .opts
                .out
                .join("divergences")
                .join(format!("{name}.result.json"));
            std::fs::write(
                &p,
                serde_json::to_string_pretty(&result).map_err(|e| e.to_string())?,
            )
            .map_err(|e| e.to_string())?;
        }
        let file_s = file.display().to_string();
        let by = culprit
            .as_deref()
            .map(|c| format!(", culprit {c}"))
            .unwrap_or_default();
        println!(
            "NEW {} -> {file_s} ({} steps{by})",
            sig.key(),
            c.program.len()
        );
        if let Some(c) = &culprit {
            self.stats.culprits.insert(sig.key(), c.clone());
        }
        self.stats.minimized_written += 1;
        self.stats.findings.insert(sig.key(), file_s.clone());
        self.log(&Line::Finding {
            signature: sig.key(),
            file: file_s,
            program: k,
            culprit,
        })
    }
}
