//! The engine's host side without a device: every case emitted and its launches composed exactly
//! as [`super::Engine`] prepares them, then observed as the model predicts
//! ([`ptxconform_core::differential::predicted`]). It prices what a campaign costs the host per
//! program — generation, CPU oracles, the reference, emission, packing, judgement — on a machine
//! with no GPU (`bench --only fuzz-host`). Made [`HostOnly::compiling`], it also compiles every
//! shape handed to its preparer's `warm` as the engine compiles ahead (the modules then
//! dropped), so that ptxas's share is priced too; transfers, the launch and decoding read-back
//! are never in it.

use super::{prepare, runs_on, Settings, Spent, Step, MAX_KERNELS};
use crate::compile::Compiler;
use ptxconform_core::differential::{decoded, predicted, Backend, Decode, Prepare, Prepared, Run};
use ptxconform_core::known::KnownDivergences;
use ptxconform_core::result::RunInfo;
use ptxconform_reference::case::Case;
use ptxconform_reference::sem::exec::Execution;
use ptxconform_reference::target::Target;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A backend that does the engine's host work on every case and reports the model's prediction.
pub struct HostOnly {
    settings: Arc<Settings>,
    /// The compute capability whose targets it accepts (what the engine on that GPU runs).
    cc: (i32, i32),
    info: RunInfo,
    /// Host time by stage, summed over calls: the core's reference and judge, emission with
    /// composing, and making the predicted observations.
    pub times: HostTimes,
    /// Kernels compiled ahead since the shapes were last forgotten.
    kept: usize,
    /// Decoding time of steps decoded on the pipeline's threads, not yet in `times`.
    decoding: Spent,
}

/// Where a [`HostOnly`] backend's host time went (summed over calls; stages prepared ahead run
/// beside others, so the parts need not add up to the wall time).
#[derive(Clone, Copy, Debug, Default)]
pub struct HostTimes {
    pub reference: Duration,
    pub prepare: Duration,
    pub observe: Duration,
    pub judge: Duration,
    /// Compiling ahead ([`HostOnly::compiling`]): wall time, on threads of its own.
    pub compile: Duration,
    /// Modules compiled ahead (ptxas runs that made one).
    pub modules: u64,
}

impl HostOnly {
    /// The host side of an engine on a device of compute capability `cc`, with the engine's
    /// default limits and no build routing.
    pub fn new(cc: (i32, i32), known: KnownDivergences) -> HostOnly {
        HostOnly::with(cc, known, None)
    }

    /// [`HostOnly::new`] whose preparer also compiles, with `compiler`, every shape handed to its
    /// `warm` (a campaign hands over each block's new shapes), as the engine's does.
    pub fn compiling(cc: (i32, i32), known: KnownDivergences, compiler: Compiler) -> HostOnly {
        HostOnly::with(cc, known, Some(Arc::new(compiler)))
    }

    fn with(cc: (i32, i32), known: KnownDivergences, compiler: Option<Arc<Compiler>>) -> HostOnly {
        HostOnly {
            settings: Arc::new(Settings {
                known,
                compiler,
                ..Settings::host(cc)
            }),
            cc,
            info: RunInfo {
                device: "host only (no device)".into(),
                ..RunInfo::default()
            },
            times: HostTimes::default(),
            kept: 0,
            decoding: Spent::default(),
        }
    }

    /// Drop what was compiled ahead since the last call, counting it; past the engine's bound
    /// on kept kernels the shapes are forgotten, as the engine forgets them.
    fn drop_compiled(&mut self) {
        let ahead = &self.settings.ahead;
        let (modules, wall) = ahead.take();
        self.times.compile += wall;
        self.times.modules += modules.len() as u64;
        self.kept += modules.iter().map(|m| m.kernel_count()).sum::<usize>();
        if self.kept > MAX_KERNELS {
            ahead.forget();
            self.kept = 0;
        }
    }

    fn finish(&mut self, cases: &[(&Case, &Execution)], step: Step) -> Result<Vec<Run>, String> {
        let decode = self.run_step(step);
        let runs = decode(cases);
        self.times.observe += self.decoding.take();
        runs
    }

    /// As the engine runs a step, with nothing to run: what it decodes is the model's
    /// prediction of each case.
    fn run_step(&mut self, step: Step) -> Decode {
        // As the engine's batch does, wait for the step's shapes still compiling ahead.
        let shapes = step.emitted.iter().flatten().map(|em| em.shape_key);
        self.settings.ahead.wait_for(shapes.collect::<Vec<_>>());
        self.drop_compiled();
        // The composed launches are what a device would be sent; here they are only made.
        drop(step.plan);
        let (info, emitted) = (self.info.clone(), step.emitted);
        self.decoding.decode(emitted.len(), move |cases| {
            use rayon::prelude::*;
            emitted
                .into_par_iter()
                .zip(cases)
                .map(|(em, (_, ex))| match em {
                    Ok(em) => Run {
                        ptx: Some(em.ptx),
                        ..Run::observed(predicted(&info, ex))
                    },
                    Err(ran) => Run::of(*ran),
                })
                .collect()
        })
    }
}

/// Prepares as the engine's preparer does, timing it.
struct Timed(Arc<Settings>);

impl Prepare for Timed {
    fn prepare(&self, cases: &[(&Case, &Execution)]) -> Prepared {
        let t = Instant::now();
        let step = prepare(cases, &self.0, None);
        Prepared::new((step, t.elapsed()))
    }
    fn warm(&self, cases: &[&Case]) {
        self.0.warm(cases);
    }
}

impl Backend for HostOnly {
    fn info(&self) -> RunInfo {
        self.info.clone()
    }
    fn runs(&self, t: Target) -> bool {
        runs_on(t, self.cc)
    }
    fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
        let t = Instant::now();
        let step = prepare(cases, &self.settings, None);
        self.times.prepare += t.elapsed();
        self.finish(cases, step)
    }
    fn preparer(&self) -> Option<Arc<dyn Prepare>> {
        Some(Arc::new(Timed(self.settings.clone())))
    }
    fn observe_prepared(
        &mut self,
        cases: &[(&Case, &Execution)],
        prepared: Prepared,
    ) -> Result<Vec<Run>, String> {
        match prepared.take::<(Step, Duration)>() {
            Some((step, took)) => {
                self.times.prepare += took;
                self.finish(cases, step)
            }
            None => self.observe(cases),
        }
    }
    fn run_prepared(
        &mut self,
        cases: &[(&Case, &Execution)],
        prepared: Prepared,
    ) -> Result<Decode, String> {
        match prepared.take::<(Step, Duration)>() {
            Some((step, took)) => {
                self.times.prepare += took;
                Ok(self.run_step(step))
            }
            None => Ok(decoded(self.observe(cases)?)),
        }
    }
    fn host_time(&mut self, reference: Duration, judge: Duration) {
        self.times.reference += reference;
        self.times.judge += judge;
        // Steps decoded by now, on the pipeline's threads.
        self.times.observe += self.decoding.take();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxconform_core::hash::fnv1a64;
    use ptxconform_core::result::Verdict;
    use ptxconform_reference::case::init::pattern;
    use ptxconform_reference::case::to_yaml;
    use ptxconform_reference::gen::oracle::check_cpu;
    use ptxconform_reference::gen::{generate_shaped, shape_len, value_len, GenConfig, Generated};

    /// `shapes` shapes of `per` value sets each, from fixed bytes (as a campaign derives them).
    fn programs(cfg: &GenConfig, shapes: u64, per: u64) -> Vec<Generated> {
        (0..shapes)
            .flat_map(|s| {
                let shape = pattern(0x5eed ^ s.wrapping_mul(0x9e37_79b9), shape_len(cfg));
                (0..per).map(move |j| (shape.clone(), s, j))
            })
            .map(|(shape, s, j)| {
                let values = pattern(0xa11 ^ (s << 20) ^ j, value_len(cfg));
                generate_shaped(&shape, &values, cfg)
            })
            .collect()
    }

    /// Generated programs on the host-only backend pass (the model judged against its own
    /// prediction), and each one was emitted: a run carries its kernel text.
    #[test]
    fn generated_programs_pass_against_their_prediction() {
        let gens = programs(&GenConfig::legal(), 3, 8);
        let batch: Vec<(&str, &Case)> = gens.iter().map(|g| ("host", &g.case)).collect();
        let mut b = HostOnly::new((9, 0), KnownDivergences::default());
        let judged =
            ptxconform_core::differential::run_batch(&mut b, &KnownDivergences::default(), &batch)
                .expect("runs");
        assert_eq!(judged.len(), gens.len());
        let mut ran = 0;
        for j in &judged {
            if j.result.verdict == Verdict::NotRun {
                continue;
            }
            ran += 1;
            assert_eq!(j.result.verdict, Verdict::Pass, "{}", j.result.detail);
            assert!(j.ptx.as_deref().is_some_and(|p| p.contains(".entry")));
        }
        assert!(ran > 0, "no program ran on sm_90");
        assert!(b.times.prepare > Duration::ZERO);
    }

    /// Made `compiling`, the backend compiles the shapes handed to its preparer's `warm` (one
    /// kernel per shape, however many value sets) and drops the modules when it next observes;
    /// made plainly, it compiles nothing.
    #[test]
    fn a_compiling_host_compiles_the_shapes_warmed() {
        let Some(p) = crate::ptxas::for_tests() else {
            return;
        };
        let gens = programs(&GenConfig::legal(), 3, 4);
        let cases: Vec<&Case> = gens.iter().map(|g| &g.case).collect();
        let batch: Vec<(&str, &Case)> = cases.iter().map(|c| ("host", *c)).collect();
        let known = KnownDivergences::default();
        let compiler = Compiler::new(p, None).unwrap();
        let mut b = HostOnly::compiling((9, 0), known.clone(), compiler);
        let warmer = b.preparer().expect("a preparer");
        warmer.warm(&cases);
        let shapes: std::collections::HashSet<u64> = cases
            .iter()
            .filter_map(|c| crate::emit::emit(c).ok())
            .map(|e| e.shape_key)
            .collect();
        assert!(b.times.modules == 0, "nothing dropped before a batch");
        ptxconform_core::differential::run_batch(&mut b, &known, &batch).expect("runs");
        assert!(b.times.modules > 0, "the warmed shapes were compiled");
        assert!(b.times.modules as usize <= shapes.len());
        assert!(b.times.compile > Duration::ZERO);
        assert!(
            b.settings.ahead.take().0.is_empty(),
            "the modules were dropped"
        );

        let mut plain = HostOnly::new((9, 0), known.clone());
        plain.preparer().expect("a preparer").warm(&cases);
        ptxconform_core::differential::run_batch(&mut plain, &known, &batch).expect("runs");
        assert_eq!(plain.times.modules, 0);
    }

    /// What the host does per program, pinned: for fixed bytes, every program's fingerprint (the
    /// hash of its YAML, as a campaign takes it), the CPU oracles' verdict, the judge's verdict
    /// and the kernel text it ran. Work that makes the host cheaper must leave this digest as it
    /// is; a change that means to alter programs or verdicts records the new one and says so.
    #[test]
    fn the_host_path_of_fixed_programs_is_unchanged() {
        let mut lines = String::new();
        for cfg in [GenConfig::legal(), GenConfig::mixed()] {
            let gens = programs(&cfg, 6, 16);
            let batch: Vec<(&str, &Case)> = gens.iter().map(|g| ("host", &g.case)).collect();
            let mut b = HostOnly::new((9, 0), KnownDivergences::default());
            let judged = ptxconform_core::differential::run_batch(
                &mut b,
                &KnownDivergences::default(),
                &batch,
            )
            .expect("runs");
            for (g, j) in gens.iter().zip(&judged) {
                let fingerprint = fnv1a64(to_yaml(std::slice::from_ref(&g.case)).as_bytes());
                let oracles = match check_cpu(g) {
                    Ok(()) => "ok".to_string(),
                    Err(v) => v.oracle.to_string(),
                };
                let kernel = j.ptx.as_deref().map_or(0, |p| fnv1a64(p.as_bytes()));
                lines += &format!(
                    "{fingerprint:016x} {oracles} {} {kernel:016x}\n",
                    j.result.verdict.name()
                );
            }
        }
        assert_eq!(
            fnv1a64(lines.as_bytes()),
            0xdb41_7284_19dc_87c8,
            "the host path changed programs or verdicts:\n{lines}"
        );
    }
}
