//! The compiler differential: every program runs under several builds of its kernel (the driver
//! JIT, ptxas releases and levels, [`Codegen`]) and the builds are compared with each other —
//! each build's observation judged by the one judge, builds compared on the judgements — as
//! well as with the reference. A program whose builds disagree is a finding of its own
//! ([`Verdict::BuildsDisagree`]) — whichever of them the model agrees with — and is minimized
//! like any divergence, on the same builds.

use ptxconform_core::differential::{Backend, Ran, Run};
use ptxconform_core::judge::judge;
use ptxconform_core::result::{render, CaseResult, Difference, RunInfo, Verdict};
use ptxconform_gpu::builds::Codegen;
use ptxconform_reference::case::Case;
use ptxconform_reference::sem::exec::Execution;
use ptxconform_reference::target::Target;
use std::collections::BTreeMap;

/// Per build: programs run, and programs on which it sided with a minority of the builds.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BuildFigures {
    pub runs: u64,
    pub odd_one_out: u64,
}

/// `builds.json`: the builds of a differential campaign and its figures so far.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Record {
    pub builds: Vec<String>,
    pub disagreements: u64,
    pub per_build: BTreeMap<String, BuildFigures>,
}

/// Several builds as one backend: the first build's run is the program's run when every build
/// saw the same; otherwise the run is a disagreement naming the groups.
pub struct Builds {
    pub builds: Vec<(Codegen, Box<dyn Backend + Send>)>,
    /// Programs on which the builds disagreed.
    pub disagreements: u64,
    pub figures: BTreeMap<String, BuildFigures>,
}

impl Builds {
    pub fn new(builds: Vec<(Codegen, Box<dyn Backend + Send>)>) -> Builds {
        Builds {
            builds,
            disagreements: 0,
            figures: BTreeMap::new(),
        }
    }

    /// The figures as `builds.json` keeps them.
    pub fn record(&self) -> Record {
        Record {
            builds: self.builds.iter().map(|(c, _)| c.to_string()).collect(),
            disagreements: self.disagreements,
            per_build: self.figures.clone(),
        }
    }

    /// Continue the figures of a resumed campaign from its `builds.json`; the builds must be the
    /// same, in the same order, or the figures would mix differentials.
    pub fn resume(&mut self, path: &std::path::Path) -> Result<(), String> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let r: Record =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let now = self.record().builds;
        if r.builds != now {
            return Err(format!(
                "{}: the campaign ran builds {} and --builds is {}: resume with the same builds",
                path.display(),
                r.builds.join(","),
                now.join(",")
            ));
        }
        self.disagreements = r.disagreements;
        self.figures = r.per_build;
        Ok(())
    }

    /// One line per build for the campaign's summary.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "builds: {} programs on which the builds disagreed",
            self.disagreements
        );
        for (b, f) in &self.figures {
            s.push_str(&format!(
                "\n  {b:<16} {} runs, odd one out {}",
                f.runs, f.odd_one_out
            ));
        }
        s
    }
}

/// What a build's run showed, for comparing builds: the judge's verdict and differences for
/// an observation — so two builds that differ only where the model allows several values agree
/// — or why it did not run.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Judged(Verdict, Vec<Difference>),
    NotObserved(String),
}

fn seen(case: &Case, ex: &Execution, run: &Run) -> Seen {
    match &run.ran {
        Ran::Observed(o) => {
            let mut r = CaseResult::new(&case.name, "", "", Verdict::Pass);
            judge(case, ex, o, &mut r);
            Seen::Judged(r.verdict, r.differences)
        }
        Ran::NotRun(w) => Seen::NotObserved(format!("not run: {w}")),
        Ran::Failed(w) => Seen::NotObserved(format!("failed: {w}")),
        Ran::Disagree(w) => Seen::NotObserved(format!("disagree: {w}")),
    }
}

/// A group's judgement in words.
fn brief(s: &Seen) -> String {
    let words = match s {
        Seen::Judged(v, ds) if ds.is_empty() => v.name().to_string(),
        Seen::Judged(v, ds) => format!("{}: {}", v.name(), render(ds)),
        Seen::NotObserved(w) => w.clone(),
    };
    words.chars().take(120).collect()
}

impl Backend for Builds {
    fn info(&self) -> RunInfo {
        let mut i = self.builds[0].1.info();
        let names: Vec<String> = self.builds.iter().map(|(c, _)| c.to_string()).collect();
        i.mode = format!("{} (builds: {})", i.mode, names.join(", "));
        i
    }
    fn runs(&self, t: Target) -> bool {
        self.builds.iter().all(|(_, b)| b.runs(t))
    }
    fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
        // One build after another. Run at once on one GPU (4 workers), the builds disagreed on
        // 27% of the programs of a campaign, against none run one after another: a harness
        // artefact of concurrent contexts (not yet explained), not the code generation.
        let mut per: Vec<Vec<Run>> = Vec::with_capacity(self.builds.len());
        for (_, b) in self.builds.iter_mut() {
            per.push(b.observe(cases)?);
        }
        let names: Vec<String> = self.builds.iter().map(|(c, _)| c.to_string()).collect();
        let mut out = Vec::with_capacity(cases.len());
        for k in 0..cases.len() {
            let (case, ex) = cases[k];
            let views: Vec<Seen> = per.iter().map(|r| seen(case, ex, &r[k])).collect();
            // Groups of builds that saw the same, in build order.
            let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
            for (i, v) in views.iter().enumerate() {
                match groups.iter_mut().find(|(rep, _)| views[*rep] == *v) {
                    Some((_, g)) => g.push(i),
                    None => groups.push((i, vec![i])),
                }
            }
            let largest = groups.iter().map(|(_, g)| g.len()).max().unwrap_or(0);
            for (i, n) in names.iter().enumerate() {
                let f = self.figures.entry(n.clone()).or_default();
                f.runs += 1;
                if groups.len() > 1
                    && groups
                        .iter()
                        .any(|(_, g)| g.contains(&i) && g.len() < largest)
                {
                    f.odd_one_out += 1;
                }
            }
            let first = per[0][k].clone();
            if groups.len() == 1 {
                out.push(first);
                continue;
            }
            self.disagreements += 1;
            let text: Vec<String> = groups
                .iter()
                .map(|(rep, g)| {
                    let who: Vec<&str> = g.iter().map(|&i| names[i].as_str()).collect();
                    format!("{}: {}", who.join(", "), brief(&views[*rep]))
                })
                .collect();
            out.push(Run {
                ran: Ran::Disagree(text.join(" | ")),
                ..first
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxconform_core::differential::{run_batch, Altered};
    use ptxconform_core::known::KnownDivergences;

    /// One byte of `buf@cta0` changed: what a miscompiled copy would show.
    fn flip(o: &mut ptxconform_reference::case::Observation) {
        if let Some(b) = o.regions.get_mut("buf@cta0") {
            b[0] ^= 0xff;
        }
    }

    /// A small well-defined copy from the corpus.
    fn copy_case() -> Case {
        ptxconform_core::corpus::corpus_case(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases"),
            "cp_async/copy.yaml",
            "cp_async.ca.4.shared.full",
        )
        .unwrap()
    }

    fn builds(flips: &[bool]) -> Builds {
        let names = ["ptxas-13.0-O3", "jit-O4", "ptxas-13.5-O3"];
        Builds::new(
            flips
                .iter()
                .zip(names)
                .map(|(&flip, n)| {
                    (
                        n.parse().unwrap(),
                        Box::new(Altered {
                            change: flip.then_some(self::flip as fn(&mut _)),
                        }) as Box<dyn Backend + Send>,
                    )
                })
                .collect(),
        )
    }

    #[test]
    fn builds_that_disagree_are_a_finding_naming_the_groups() {
        let case = &copy_case();
        let known = KnownDivergences::default();
        // All agree (with the model): a pass.
        let mut same = builds(&[false, false, false]);
        let j = run_batch(&mut same, &known, &[("f", case)]).unwrap();
        assert_eq!(j[0].result.verdict, Verdict::Pass);
        assert_eq!(same.disagreements, 0);
        // The JIT alone flips a byte: builds disagree, the JIT is the odd one out.
        let mut odd = builds(&[false, true, false]);
        let j = run_batch(&mut odd, &known, &[("f", case)]).unwrap();
        assert_eq!(
            j[0].result.verdict,
            Verdict::BuildsDisagree,
            "{:?}",
            j[0].result
        );
        let d = &j[0].result.detail;
        assert_eq!(
            d,
            "ptxas-13.0-O3, ptxas-13.5-O3: pass | jit-O4: diverge: buf@cta0 byte 0: observed 0x55"
        );
        assert_eq!(odd.disagreements, 1);
        assert_eq!(odd.figures["jit-O4"].odd_one_out, 1);
        assert_eq!(odd.figures["ptxas-13.0-O3"].odd_one_out, 0);
        assert!(odd
            .summary()
            .contains("1 programs on which the builds disagreed"));
        // Every build departs the same way: not a build disagreement, the judge's divergence.
        let mut all = builds(&[true, true, true]);
        let j = run_batch(&mut all, &known, &[("f", case)]).unwrap();
        assert_eq!(j[0].result.verdict, Verdict::Diverge);
    }

    /// Builds that differ only in a byte the model leaves uncertain agree: both are judged a
    /// pass. Made certain, the same byte makes them disagree.
    #[test]
    fn builds_are_compared_on_their_judgements() {
        use ptxconform_reference::sem::memory::{Byte, ByteSet};
        let case = &copy_case();
        let mut ex = ptxconform_core::evaluate::evaluate("f", case).1.unwrap();
        let observe = |ex: &Execution| {
            let mut odd = builds(&[false, true]);
            let runs = odd.observe(&[(case, ex)]).unwrap();
            (odd.disagreements, matches!(runs[0].ran, Ran::Disagree(_)))
        };
        assert_eq!(observe(&ex), (1, true));
        let buf = ex.final_state.shared[0].get_mut("buf").unwrap();
        let Byte::Known(v) = buf[0] else {
            panic!("{:?}", buf[0])
        };
        buf.set(
            0,
            Byte::from_set(ByteSet::single(v).union(ByteSet::single(v ^ 0xff))),
        );
        assert_eq!(observe(&ex), (0, false));
    }

    #[test]
    fn a_resumed_campaign_continues_its_figures_and_refuses_other_builds() {
        let dir = std::env::temp_dir().join(format!("ptxconform-builds-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("builds.json");
        let mut first = builds(&[false, true, false]);
        first.disagreements = 3;
        first
            .figures
            .entry("jit-O4".into())
            .or_default()
            .odd_one_out = 3;
        std::fs::write(&path, serde_json::to_string(&first.record()).unwrap()).unwrap();
        let mut next = builds(&[false, false, false]);
        next.resume(&path).unwrap();
        assert_eq!(next.record(), first.record());
        // A missing file starts from zero; other builds are refused.
        let mut fresh = builds(&[false, false, false]);
        fresh.resume(&dir.join("none.json")).unwrap();
        assert_eq!(fresh.disagreements, 0);
        let mut other = builds(&[false, false]);
        let e = other.resume(&path).unwrap_err();
        assert!(e.contains("resume with the same builds"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
