//! Who departed from the model: the silicon, a code generator, or nobody reliably.
//!
//! A hardware result that departs from the reference (a divergence, a trap, a timeout) was
//! produced by one build of its kernel. [`Attributor`] runs the case again under other builds
//! ([`Codegen`]: the driver JIT, other ptxas releases and levels) and under its own build once
//! more, judges every run with the one judge, and names the culprit:
//!
//! - **silicon**: every build departs in the same way (same verdict and detail) — the code
//!   generator is not the cause; the silicon departs from the model (or, where the text is
//!   silent, the model's position is wrong — a finding says which);
//! - **compiler: BUILDS**: the departure follows the code generation — the named builds depart,
//!   the others agree with the model;
//! - **mixed**: the builds depart in different ways (each build's outcome is listed);
//! - **flaky**: the same build, run again, did not depart in the same way.

use crate::builds::Codegen;
use crate::device::DeviceInfo;
use ptxconform_core::differential::{run_batch_under, Backend, Judged};
use ptxconform_core::known::{KnownDivergences, Site};
use ptxconform_core::result::{
    culprit, departs, Attribution, BuildOutcome, Culprit, RunInfo, Verdict,
};

use ptxconform_reference::case::Case;

/// One build's judged run as an outcome.
fn outcome_of(build: &str, j: &Judged) -> BuildOutcome {
    BuildOutcome {
        build: build.to_string(),
        verdict: j.result.verdict.clone(),
        detail: j.result.detail.clone(),
        differences: j.result.differences.clone(),
        departs: departs(&j.result.verdict) || stopped(j),
    }
}

/// Makes the backend of a build (an [`crate::engine::Engine`] on the GPU; a fake in tests).
pub type MakeBackend = Box<dyn FnMut(&Codegen) -> Result<Box<dyn Backend>, String>>;

/// Backends for the builds a departure is re-run under, made on first use.
pub struct Attributor {
    known: KnownDivergences,
    /// The profile the run judges under (re-runs are judged alike).
    pub profile: ptxconform_reference::sem::profile::Profile,
    /// The build the run itself used.
    pub primary: Codegen,
    pub others: Vec<Codegen>,
    /// Compute capability of the device (the SASS is built for it).
    cc: (i32, i32),
    /// The GPU's ordinal, for the JIT's SASS (`None`: no JIT SASS).
    device: Option<i32>,
    make: MakeBackend,
    backends: Vec<(Codegen, Option<Box<dyn Backend>>)>,
}

impl Attributor {
    /// Re-runs on device `dev`, one engine per build.
    pub fn new(
        dev: &DeviceInfo,
        info: &RunInfo,
        job_timeout: u64,
        known: &KnownDivergences,
        primary: Codegen,
        others: Vec<Codegen>,
    ) -> Attributor {
        let (dev, info, k) = (dev.clone(), info.clone(), known.clone());
        let (cc, ordinal) = (dev.compute_capability, dev.ordinal);
        let make: MakeBackend = Box::new(move |cg: &Codegen| {
            crate::engine::open_build(&dev, &info, job_timeout, &k, cg)
                .map(|e| Box::new(e) as Box<dyn Backend>)
        });
        let mut a = Attributor::with(known, primary, others, cc, make);
        a.device = Some(ordinal);
        a
    }

    /// Re-runs on the backends `make` returns.
    pub fn with(
        known: &KnownDivergences,
        primary: Codegen,
        others: Vec<Codegen>,
        cc: (i32, i32),
        make: MakeBackend,
    ) -> Attributor {
        let others: Vec<Codegen> = others.into_iter().filter(|c| *c != primary).collect();
        let backends = std::iter::once(&primary)
            .chain(&others)
            .map(|c| (c.clone(), None))
            .collect();
        Attributor {
            known: known.clone(),
            profile: ptxconform_core::judge::DEFAULT_PROFILE,
            primary,
            others,
            cc,
            device: None,
            make,
            backends,
        }
    }

    /// The `i`-th build's judged runs of `batch` (its backend made on first use).
    fn run_build(&mut self, i: usize, batch: &[(&str, &Case)]) -> Result<Vec<Judged>, String> {
        let (cg, slot) = &mut self.backends[i];
        if slot.is_none() {
            *slot = Some((self.make)(cg)?);
        }
        let eng = slot.as_deref_mut().expect("made above");
        run_batch_under(self.profile, eng, &self.known, batch)
    }

    /// Run `cases` (each with its original judged result) under the primary build again and
    /// under every other build; one attribution per case. A build whose engine cannot be made
    /// (its toolchain is missing) is reported as a harness error of that build.
    pub fn attribute(&mut self, cases: &[(&str, &Case, &Judged)]) -> Vec<Attribution> {
        if cases.is_empty() {
            return vec![];
        }
        let batch: Vec<(&str, &Case)> = cases.iter().map(|(f, c, _)| (*f, *c)).collect();
        let mut per_build: Vec<Vec<BuildOutcome>> = Vec::new();
        for i in 0..self.backends.len() {
            let build = self.backends[i].0.to_string();
            let outs = match self.run_build(i, &batch) {
                Ok(js) => js.iter().map(|j| outcome_of(&build, j)).collect(),
                Err(e) => failed(&build, &e, cases.len()),
            };
            per_build.push(outs);
        }
        let name = self.primary.to_string();
        (0..cases.len())
            .map(|k| {
                let first = outcome_of(&name, cases[k].2);
                let again = BuildOutcome {
                    build: format!("{name} (again)"),
                    ..per_build[0][k].clone()
                };
                let others: Vec<BuildOutcome> =
                    per_build[1..].iter().map(|b| b[k].clone()).collect();
                let culprit = culprit(&first, &again, &others);
                let mut builds = vec![first, again];
                builds.extend(others);
                Attribution { culprit, builds }
            })
            .collect()
    }
}

impl Attributor {
    /// Attribute cases whose own result is not one build's run (a builds differential's
    /// disagreement): the primary build runs them first, then as [`Attributor::attribute`].
    pub fn attribute_afresh(&mut self, cases: &[(&str, &Case)]) -> Vec<Attribution> {
        let firsts = match self.run_build(0, cases) {
            Ok(js) => js,
            Err(e) => {
                let build = self.primary.to_string();
                let f = failed(&build, &e, 1).remove(0);
                return vec![
                    Attribution {
                        culprit: Culprit::Untested,
                        builds: vec![f],
                    };
                    cases.len()
                ];
            }
        };
        let with: Vec<(&str, &Case, &Judged)> = cases
            .iter()
            .zip(&firsts)
            .map(|((f, c), j)| (*f, *c, j))
            .collect();
        self.attribute(&with)
    }

    /// Attribute the cases of a judged batch that `scope` wants (raw verdicts, before known
    /// findings); `None` for the others.
    pub fn attribute_some(
        &mut self,
        scope: Scope,
        known: &KnownDivergences,
        batch: &[(&str, &Case)],
        judged: &[Judged],
    ) -> Vec<Option<Attribution>> {
        let picked: Vec<usize> = (0..judged.len())
            .filter(|&k| {
                let mut r = judged[k].result.clone();
                let site = judged[k].observation.as_ref().map(Site::of);
                known.apply(&mut r, site);
                scope.wants(&judged[k], &r.verdict)
            })
            .collect();
        let cases: Vec<(&str, &Case, &Judged)> = picked
            .iter()
            .map(|&k| (batch[k].0, batch[k].1, &judged[k]))
            .collect();
        let mut out = vec![None; judged.len()];
        for (k, a) in picked.into_iter().zip(self.attribute(&cases)) {
            out[k] = Some(a);
        }
        out
    }

    /// [`write_evidence`] for every build of this attributor.
    pub fn write_evidence(
        &self,
        dir: &std::path::Path,
        case: &Case,
        ptx: &str,
        a: &Attribution,
    ) -> Result<(), String> {
        let builds: Vec<Codegen> = std::iter::once(&self.primary)
            .chain(&self.others)
            .cloned()
            .collect();
        write_evidence(dir, case, ptx, a, &builds, self.cc, self.device).map(|_| ())
    }
}

fn failed(build: &str, why: &str, n: usize) -> Vec<BuildOutcome> {
    vec![
        BuildOutcome {
            build: build.to_string(),
            verdict: Verdict::HarnessError,
            detail: why.to_string(),
            differences: vec![],
            departs: false,
        };
        n
    ]
}

/// The cubin the driver's JIT makes of `ptx` at `level` on GPU `device`, from a process of its
/// own (`ptxconform __jit-cubin`).
fn jit_cubin(ptx: &str, level: u8, device: i32) -> Result<Vec<u8>, String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let mut child = Command::new(exe)
        .args([
            crate::device::JIT_CUBIN_SUBCOMMAND,
            &device.to_string(),
            &level.to_string(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the JIT: {e}"))?;
    if let Some(mut i) = child.stdin.take() {
        i.write_all(ptx.as_bytes()).map_err(|e| e.to_string())?;
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() || !out.stdout.starts_with(b"\x7fELF") {
        return Err(format!(
            "the driver JIT gave no cubin: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

/// The SASS of a case's kernel under `cg`, the instructions of the case's asynchronous steps
/// marked. A JIT build needs GPU `device` (the driver compiles for it).
fn sass_of(
    cg: &Codegen,
    ptx: &str,
    arch: &str,
    steps: &[(usize, String)],
    device: Option<i32>,
) -> Result<String, String> {
    let (cubin, version) = match cg {
        Codegen::Jit { level } => {
            let dev = device.ok_or_else(|| format!("{cg}: the driver JIT needs a GPU"))?;
            (jit_cubin(ptx, *level, dev)?, "the driver's JIT".to_string())
        }
        Codegen::Ptxas { release, level } => {
            let c = crate::compile::Compiler::new(crate::builds::ptxas_of(release)?, None)?
                .with_opt_level(*level)?;
            let cubin = c.compile_arch_many(&[(ptx, arch.to_string())]).remove(0)?;
            (cubin.to_vec(), c.ptxas().version.clone())
        }
    };
    let entry = ptx
        .lines()
        .find_map(|l| l.split(".entry ").nth(1))
        .and_then(|r| r.split('(').next())
        .unwrap_or("")
        .trim()
        .to_string();
    let sass = crate::builds::sass(&cubin, &entry)?;
    Ok(format!(
        "// {cg} ({version}), -arch={arch}, kernel {entry}\n{}",
        crate::builds::mark(&sass, steps)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxconform_core::differential::{run_batch, Altered};
    use ptxconform_core::result::Difference;
    use ptxconform_reference::case::Ending;

    fn trap(o: &mut ptxconform_reference::case::Observation) {
        o.outcome = Ending::trap(715);
        o.regions.clear();
    }

    /// A build as a fake device: the model's prediction, or a trap where `traps`.
    fn fake(traps: bool) -> Altered {
        Altered {
            change: traps.then_some(trap as fn(&mut _)),
        }
    }

    /// Departures are run again under every build, and the culprit follows what the builds did:
    /// only the builds named `*-O3` trap → the compiler; every build traps → the silicon; a
    /// case that passed is not re-run.
    #[test]
    fn attributes_through_the_builds() {
        let case = &ptxconform_core::corpus::corpus_case(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases"),
            "cp_async/copy.yaml",
            "cp_async.ca.4.shared.full",
        )
        .unwrap();
        let known = KnownDivergences::default();
        let batch = [("copy.yaml", case), ("copy.yaml", case)];
        let mut trapping = fake(true);
        let mut judged = run_batch(&mut trapping, &known, &batch).unwrap();
        assert_eq!(judged[0].result.verdict, Verdict::TrapUnexpected);
        judged[1] = run_batch(&mut fake(false), &known, &batch[..1])
            .unwrap()
            .remove(0);
        let builds =
            crate::builds::parse_list("ptxas-13.0-O3,jit-O4,ptxas-13.0-O0,ptxas-13.5-O3").unwrap();
        let made = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let log = made.clone();
        let trap_all = std::rc::Rc::new(std::cell::Cell::new(false));
        let all = trap_all.clone();
        let make: MakeBackend = Box::new(move |cg: &Codegen| {
            log.borrow_mut().push(cg.to_string());
            let traps = all.get() || cg.to_string().ends_with("-O3");
            Ok(Box::new(fake(traps)) as Box<dyn Backend>)
        });
        let mut a = Attributor::with(&known, builds[0].clone(), builds.clone(), (9, 0), make);
        let got = a.attribute_some(Scope::Auto, &known, &batch, &judged);
        assert!(got[1].is_none(), "a pass is not attributed");
        let at = got[0].as_ref().unwrap();
        assert_eq!(
            at.culprit,
            Culprit::Compiler(vec!["ptxas-13.0-O3".into(), "ptxas-13.5-O3".into()]),
            "{at}"
        );
        assert_eq!(at.builds.len(), 5, "original, again, three others: {at}");
        assert_eq!(made.borrow().len(), 4, "one backend per build, made once");
        // A scope of none attributes nothing.
        let none = a.attribute_some(Scope::None, &known, &batch, &judged);
        assert!(none.iter().all(Option::is_none));
        // Every build traps: silicon. The backends made above are reused.
        let mut b = Attributor::with(
            &known,
            builds[0].clone(),
            builds.clone(),
            (9, 0),
            Box::new(|_: &Codegen| Ok(Box::new(fake(true)) as Box<dyn Backend>)),
        );
        trap_all.set(true);
        let got = b.attribute_some(Scope::All, &known, &batch[..1], &judged[..1]);
        assert_eq!(got[0].as_ref().unwrap().culprit, Culprit::Silicon);
    }

    fn o(build: &str, v: Verdict, differences: Vec<Difference>) -> BuildOutcome {
        BuildOutcome {
            build: build.into(),
            departs: departs(&v),
            verdict: v,
            detail: ptxconform_core::result::render(&differences),
            differences,
        }
    }

    fn byte(offset: usize, observed: u8) -> Difference {
        Difference::Byte {
            region: "dst@cta0".into(),
            offset,
            expected: ptxconform_core::result::ExpectedByte::Known(1),
            observed,
        }
    }

    #[test]
    fn culprits() {
        let trap = |b: &str| {
            let ended = ptxconform_reference::case::Ending::trap(715);
            o(
                b,
                Verdict::TrapUnexpected,
                vec![Difference::Ending { ended }],
            )
        };
        let pass = |b: &str| o(b, Verdict::Pass, vec![]);
        // Every build traps the same way: not the compiler.
        assert_eq!(
            culprit(&trap("a"), &trap("a"), &[trap("b"), trap("c")]),
            Culprit::Silicon
        );
        // Only the -O3 builds trap: the compiler.
        assert_eq!(
            culprit(&trap("p-O3"), &trap("p-O3"), &[pass("p-O0"), trap("q-O3")]),
            Culprit::Compiler(vec!["p-O3".into(), "q-O3".into()])
        );
        // The same build once traps, once passes.
        assert_eq!(
            culprit(&trap("a"), &pass("a"), &[trap("b")]),
            Culprit::Flaky
        );
        // Two builds depart differently.
        let div = o("b", Verdict::Diverge, vec![byte(3, 0)]);
        assert_eq!(
            culprit(&trap("a"), &trap("a"), std::slice::from_ref(&div)),
            Culprit::Mixed
        );
        assert_eq!(
            culprit(&trap("a"), &trap("a"), &[div, pass("c")]),
            Culprit::Mixed
        );
        let mut missing = o("z", Verdict::HarnessError, vec![]);
        missing.detail = "ptxas of CUDA 13.5 not found".into();
        assert_eq!(
            culprit(&trap("a"), &trap("a"), std::slice::from_ref(&missing)),
            Culprit::Untested
        );
        assert_eq!(
            culprit(&trap("a"), &trap("a"), &[missing, trap("b")]),
            Culprit::Silicon
        );
        assert_eq!(
            Culprit::Compiler(vec!["x".into(), "y".into()]).to_string(),
            "compiler: x, y"
        );
        // Builds are compared on what the judge found, not on its words: the same byte under
        // other words is the same departure, another byte is not.
        let mut reworded = o("c", Verdict::Diverge, vec![byte(3, 0)]);
        reworded.detail = "other words".into();
        let div = o("b", Verdict::Diverge, vec![byte(3, 0)]);
        assert_eq!(culprit(&div, &div, &[reworded]), Culprit::Silicon);
        let elsewhere = o("c", Verdict::Diverge, vec![byte(4, 0)]);
        assert_eq!(culprit(&div, &div, &[elsewhere, pass("d")]), Culprit::Mixed);
    }
}

/// Undefined behaviour the hardware trapped or hung on: a departure all the same.
pub fn stopped(j: &Judged) -> bool {
    j.result.verdict == Verdict::ReferenceUndefined
        && j.observation
            .as_ref()
            .is_some_and(|o| o.outcome != ptxconform_reference::case::Ending::Completed)
}

/// How much of a run is attributed (`auto`, `all` or `none` on the command line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Departures no known finding explains (divergences, unexpected traps and timeouts).
    Auto,
    /// Every departure: known findings and expected traps and timeouts too.
    All,
    None,
}

impl std::str::FromStr for Scope {
    type Err = String;
    fn from_str(s: &str) -> Result<Scope, String> {
        match s {
            "auto" => Ok(Scope::Auto),
            "all" => Ok(Scope::All),
            "none" => Ok(Scope::None),
            _ => Err(format!("`{s}`: one of auto, all, none")),
        }
    }
}

impl Scope {
    /// Is a judged case attributed? `explained` is its verdict after known findings.
    fn wants(self, j: &Judged, explained: &Verdict) -> bool {
        let raw = &j.result.verdict;
        match self {
            Scope::None => false,
            Scope::All => departs(raw) || stopped(j),
            Scope::Auto => departs(raw) && explained.is_failure(),
        }
    }
}

/// The arch a case's kernel is built for on a device of compute capability `cc`: its own
/// target on that architecture, else the device's (as the engine compiles older targets).
fn arch_for(case: &Case, cc: (i32, i32)) -> String {
    let dev = (cc.0 * 10 + cc.1) as u32;
    if case.target.sm == dev {
        case.target.to_string()
    } else {
        format!("sm_{dev}")
    }
}

/// Next to a divergence report (`DIR/divergences/<stem>.*`): the attribution as JSON and the
/// SASS of the case's kernel under every offline build (its asynchronous steps marked).
/// Returns the files written; a build without SASS gets a note saying why.
pub fn write_evidence(
    dir: &std::path::Path,
    case: &Case,
    ptx: &str,
    attribution: &Attribution,
    builds: &[Codegen],
    cc: (i32, i32),
    device: Option<i32>,
) -> Result<Vec<std::path::PathBuf>, String> {
    let d = dir.join("divergences");
    std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
    let stem = crate::engine::file_stem(&case.name);
    let mut files = Vec::new();
    let json = serde_json::to_string_pretty(attribution).map_err(|e| e.to_string())?;
    let f = d.join(format!("{stem}.attribution.json"));
    std::fs::write(&f, json + "\n").map_err(|e| format!("{}: {e}", f.display()))?;
    files.push(f);
    let steps: Vec<(usize, String)> = ptxconform_reference::gen::oracle::ptx_steps(case)
        .map(|(i, t)| (i, t.to_string()))
        .collect();
    let arch = arch_for(case, cc);
    for cg in builds {
        let text = sass_of(cg, ptx, &arch, &steps, device)
            .unwrap_or_else(|e| format!("// no SASS: {e}\n"));
        let f = d.join(format!("{stem}.{cg}.sass"));
        std::fs::write(&f, text).map_err(|e| format!("{}: {e}", f.display()))?;
        files.push(f);
    }
    Ok(files)
}

/// With the toolchains installed (`tools/install-toolchains.sh`; CI installs them): the SASS of a
/// cp.async kernel under two ptxas releases, its LDGSTS marked as the cp.async step's.
#[cfg(test)]
mod sass_tests {
    use super::*;

    #[test]
    fn sass_of_offline_builds_marks_the_step() {
        let required = std::env::var_os(crate::ptxas::REQUIRE_ENV).is_some();
        let have = crate::builds::nvdisasm().is_some()
            && crate::builds::ptxas_of("13.5").is_ok()
            && crate::builds::ptxas_of("13.0").is_ok();
        if !have {
            assert!(
                !required,
                "toolchains missing: run tools/install-toolchains.sh"
            );
            crate::test_support::note(
                "toolchains not installed (tools/install-toolchains.sh)",
                crate::ptxas::REQUIRE_ENV,
            );
            return;
        }
        let ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n\
            .visible .entry ptxconform_case(.param .u64 p)\n{\n.reg .b64 %rd<3>;\n.reg .b32 %r<3>;\n\
            .shared .align 16 .b8 buf[64];\nld.param.u64 %rd1, [p];\nmov.u32 %r1, buf;\n\
            cp.async.cg.shared.global [%r1], [%rd1], 16;\ncp.async.wait_all;\n\
            ld.shared.u32 %r2, [%r1];\nst.global.u32 [%rd1+64], %r2;\nret;\n}\n";
        let steps = vec![(1, "cp.async.cg.shared.global [buf], [src], 16".to_string())];
        for b in ["ptxas-13.0-O3", "ptxas-13.5-O0"] {
            let cg: Codegen = b.parse().unwrap();
            let s = sass_of(&cg, ptx, "sm_90a", &steps, None).unwrap();
            assert!(s.starts_with(&format!("// {b} (")), "{s}");
            let marked: Vec<&str> = s.lines().filter(|l| l.starts_with(">>")).collect();
            assert!(
                marked
                    .iter()
                    .any(|l| l.contains("LDGSTS") && l.ends_with("// step 1")),
                "{b}: {s}"
            );
        }
        let jit: Codegen = "jit".parse().unwrap();
        let e = sass_of(&jit, ptx, "sm_90a", &steps, None).unwrap_err();
        assert!(e.contains("needs a GPU"), "{e}");
    }
}
