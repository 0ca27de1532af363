//! The recorded runs behind each rule's silicon prediction, counted from the corpus's recordings
//! (`ptxconform rules`, and `fuzz --trap-budget`, which runs a thin rule's predicted traps first):
//! per UB rule id, how many recorded runs of cases the sm_90 model
//! calls undefined by it, on which devices and drivers, and how many ended inside the prediction.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ptxconform_reference::case::load_dir;
use ptxconform_reference::sem::exec::{execute_with, ExecOptions, HwOutcome, Outcome};
use ptxconform_reference::sem::profile::Profile;

/// A prediction resting on fewer recorded runs is marked thin.
pub const THIN_BELOW: usize = 20;

/// The recorded runs of one rule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub runs: usize,
    /// Runs that ended in an outcome the prediction allows.
    pub inside: usize,
    /// Runs per device name.
    pub devices: BTreeMap<String, usize>,
    pub drivers: BTreeSet<String>,
    /// The builds that made the programs (observations that name theirs).
    pub builds: BTreeSet<String>,
    /// Corpus cases the model calls undefined by the rule, recorded or not, and those of them
    /// only sm_100 silicon runs (none is lent here): why a rule is thin.
    pub cases: usize,
    pub sm100_cases: usize,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.runs += o.runs;
        self.inside += o.inside;
        for (d, n) in &o.devices {
            *self.devices.entry(d.clone()).or_default() += n;
        }
        self.drivers.extend(o.drivers.iter().cloned());
        self.builds.extend(o.builds.iter().cloned());
        self.cases += o.cases;
        self.sm100_cases += o.sm100_cases;
    }

    /// Why a rule rests on fewer than [`THIN_BELOW`] runs.
    fn thin_reason(&self) -> String {
        match (self.cases, self.sm100_cases) {
            (0, _) => "no corpus case reaches it".into(),
            (1, 1) => "its one case needs sm_100 silicon".into(),
            (n, m) if m == n => format!("its {n} cases need sm_100 silicon"),
            (1, _) => "one corpus case reaches it".into(),
            (n, _) => format!("{n} corpus cases reach it"),
        }
    }

    /// `12 runs (H100 80GB HBM3 ×6, H200 ×6; CUDA 13.0; ptxas-13.0-O3), 12 in the prediction;
    /// thin`.
    pub fn describe(&self) -> String {
        if self.runs == 0 {
            return format!("none recorded; thin: {}", self.thin_reason());
        }
        let devices: Vec<String> = self
            .devices
            .iter()
            .map(|(d, n)| format!("{} ×{n}", d.trim_start_matches("NVIDIA ")))
            .collect();
        let scope = [
            devices,
            self.drivers.iter().cloned().collect(),
            self.builds.iter().cloned().collect(),
        ]
        .iter()
        .filter(|part| !part.is_empty())
        .map(|part| part.join(", "))
        .collect::<Vec<_>>()
        .join("; ");
        format!(
            "{} run{} ({scope}), {} in the prediction{}",
            self.runs,
            if self.runs == 1 { "" } else { "s" },
            self.inside,
            if self.runs < THIN_BELOW {
                format!("; thin: {}", self.thin_reason())
            } else {
                String::new()
            }
        )
    }
}

/// Counts by full UB rule id (`tensor.copy:smem-alignment`), and where they came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Evidence {
    pub by_rule: BTreeMap<String, Counts>,
    /// The corpus folder read.
    pub corpus: String,
}

impl Evidence {
    /// Every recorded observation of the cases under `dir` (files that do not load are
    /// skipped: `run` reports them) whose sm_90 execution is undefined.
    pub fn load(dir: &Path) -> Evidence {
        let mut by_rule: BTreeMap<String, Counts> = BTreeMap::new();
        for (_, cases) in load_dir(dir) {
            let Ok(cases) = cases else { continue };
            for c in cases.iter() {
                let Ok(ex) = execute_with(c, ExecOptions::of(Profile::Sm90)) else {
                    continue;
                };
                let Outcome::Undefined { ub, .. } = &ex.outcome else {
                    continue;
                };
                let k = by_rule.entry(ub.rule.to_string()).or_default();
                k.cases += 1;
                k.sm100_cases += usize::from(c.target.sm >= 100);
                for o in &c.observed {
                    k.runs += 1;
                    k.inside += usize::from(ex.prediction.allows(HwOutcome::of(&o.outcome)));
                    *k.devices.entry(o.device.clone()).or_default() += 1;
                    if !o.driver.is_empty() {
                        k.drivers.insert(o.driver.clone());
                    }
                    if let Some(b) = &o.build {
                        k.builds.insert(b.to_string());
                    }
                }
            }
        }
        Evidence {
            by_rule,
            corpus: dir.display().to_string(),
        }
    }

    /// The runs of rule `id`, with those of its detailed ids (`id:…`).
    pub fn of(&self, id: &str) -> Counts {
        let mut c = Counts::default();
        for (rule, k) in &self.by_rule {
            if rule == id || rule.strip_prefix(id).is_some_and(|r| r.starts_with(':')) {
                c.add(k);
            }
        }
        c
    }
}
