//! The recorded runs behind each rule's silicon prediction, counted from the corpus's recordings
//! and the sweeps' records (`ptxconform rules`, and `fuzz --trap-budget`, which runs a thin rule's
//! predicted traps first): per UB rule id, how many recorded runs of programs the sm_90 model
//! calls undefined by it, on which devices and drivers, and how many ended inside the prediction.
//! A sweep record counts as its configuration rebuilt today is classified, so a rule the model
//! gains is backed by the runs already recorded; a record whose configuration no longer rebuilds
//! as it ran (the generator changed) is not counted.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use rayon::prelude::*;

use crate::records::{self, Record};
use ptxconform_reference::case::{load_dir, Case, Ending, Observation};
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
    /// Of `runs`, those from sweep records (one run per configuration).
    pub sweep_runs: usize,
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
        self.sweep_runs += o.sweep_runs;
    }

    /// One recorded run of a program the sm_90 model calls undefined by this rule.
    fn run(&mut self, prediction_allows: bool, device: &str, driver: &str, build: Option<String>) {
        self.runs += 1;
        self.inside += usize::from(prediction_allows);
        *self.devices.entry(device.to_string()).or_default() += 1;
        if !driver.is_empty() {
            self.drivers.insert(driver.to_string());
        }
        self.builds.extend(build);
    }

    /// Why a rule rests on fewer than [`THIN_BELOW`] runs.
    fn thin_reason(&self) -> String {
        let sweeps = match self.sweep_runs {
            0 => String::new(),
            n => format!(
                " ({n} sweep configuration{} too)",
                if n == 1 { "" } else { "s" }
            ),
        };
        let corpus = match (self.cases, self.sm100_cases) {
            (0, _) => "no corpus case reaches it".into(),
            (1, 1) => "its one case needs sm_100 silicon".into(),
            (n, m) if m == n => format!("its {n} cases need sm_100 silicon"),
            (1, _) => "one corpus case reaches it".into(),
            (n, _) => format!("{n} corpus cases reach it"),
        };
        corpus + &sweeps
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
        let sweeps = match self.sweep_runs {
            0 => String::new(),
            n if n == self.runs => " (sweep records)".into(),
            n => format!(" ({n} of them sweep records)"),
        };
        format!(
            "{} run{}{sweeps} ({scope}), {} in the prediction{}",
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
    /// The sweep records read (files, records), and those of their configurations that no
    /// longer rebuild as they ran (not counted).
    pub sweeps: Vec<String>,
    pub sweep_records: usize,
    pub stale_records: usize,
}

impl Evidence {
    /// Every recorded observation of the cases under `dir` (files that do not load are
    /// skipped: `run` reports them) whose sm_90 execution is undefined.
    pub fn load(dir: &Path) -> Evidence {
        let mut by_rule: BTreeMap<String, Counts> = BTreeMap::new();
        for (_, cases) in load_dir(dir) {
            let Ok(cases) = cases else { continue };
            for c in cases.iter() {
                let Some((rule, allows)) = undefined_by(c) else {
                    continue;
                };
                let k = by_rule.entry(rule).or_default();
                k.cases += 1;
                k.sm100_cases += usize::from(c.target.sm >= 100);
                for o in &c.observed {
                    k.run(allows(&o.outcome), &o.device, &o.driver, build_of(o));
                }
            }
        }
        Evidence {
            by_rule,
            corpus: dir.display().to_string(),
            ..Evidence::default()
        }
    }

    /// [`Evidence::load`] of the corpus `cases`, with the records of every sweep folder in
    /// `sweeps` ([`records::files_in`]).
    pub fn gather(cases: &Path, sweeps: &Path) -> Result<Evidence, String> {
        let mut ev = Evidence::load(cases);
        let files = records::files_in(sweeps)?;
        ev.add_records(&records::read_files(&files)?);
        ev.sweeps = files.iter().map(|f| f.display().to_string()).collect();
        Ok(ev)
    }

    /// Count sweep `records`: each configuration rebuilt and classified by today's model.
    pub fn add_records(&mut self, records: &[Record]) {
        // Per record: `None` if it no longer rebuilds as it ran, else the rule (if undefined)
        // and whether its ending lies inside the prediction.
        let counted: Vec<Option<Option<(String, bool)>>> = records
            .par_iter()
            .map(|r| {
                let (_, config) = r.config().ok()?;
                let case = config.build();
                r.ran(&case)
                    .then(|| undefined_by(&case).map(|(rule, allows)| (rule, allows(&r.outcome))))
            })
            .collect();
        self.sweep_records += records.len();
        for (r, c) in records.iter().zip(counted) {
            match c {
                None => self.stale_records += 1,
                Some(None) => {}
                Some(Some((rule, allows))) => {
                    let k = self.by_rule.entry(rule).or_default();
                    k.run(allows, &r.device, &r.driver, None);
                    k.sweep_runs += 1;
                }
            }
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

/// The rule an undefined sm_90 execution of `case` is classified by, and whether an ending lies
/// inside its prediction (`None`: defined, or the model fails on it).
fn undefined_by(case: &Case) -> Option<(String, impl Fn(&Ending) -> bool)> {
    let ex = execute_with(case, ExecOptions::of(Profile::Sm90)).ok()?;
    let Outcome::Undefined { ub, .. } = &ex.outcome else {
        return None;
    };
    let prediction = ex.prediction.clone();
    Some((ub.rule.to_string(), move |e: &Ending| {
        prediction.allows(HwOutcome::of(e))
    }))
}

fn build_of(o: &Observation) -> Option<String> {
    o.build.as_ref().map(|b| b.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed11() -> Vec<Record> {
        let f = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../reports/sweep/h200-2026-11-28-v2-seed11/records.jsonl");
        records::read_files(&[f]).unwrap()[..160].to_vec()
    }

    fn totals(ev: &Evidence) -> (usize, usize, usize) {
        ev.by_rule.values().fold((0, 0, 0), |(r, i, s), k| {
            (r + k.runs, i + k.inside, s + k.sweep_runs)
        })
    }

    /// A sweep record counts once, under the rule today's model classifies its configuration by,
    /// inside the prediction or not as its ending says; a record of another case than the one
    /// its configuration now rebuilds is left out.
    #[test]
    fn sweep_records_count_under_todays_rule() {
        let recs = seed11();
        let mut ev = Evidence::default();
        ev.add_records(&recs);
        let (runs, inside, sweep) = totals(&ev);
        assert_eq!(ev.stale_records, 0);
        assert_eq!(runs, sweep);
        assert!(
            runs > 80 && runs < recs.len(),
            "{runs} undefined of {}",
            recs.len()
        );
        assert_eq!(inside, runs, "seed 11 replays without a disagreement");
        assert!(ev
            .by_rule
            .values()
            .all(|k| k.devices.contains_key("NVIDIA H200")));

        // An undefined configuration recorded as ending otherwise than predicted counts outside;
        // one whose fingerprint names another case is stale.
        let undefined = recs
            .iter()
            .position(|r| {
                let case = r.config().unwrap().1.build();
                undefined_by(&case).is_some_and(|(_, allows)| !allows(&Ending::Watchdog(1)))
            })
            .expect("an undefined configuration not predicted to be killed by the watchdog");
        let mut changed = recs.clone();
        changed[undefined].outcome = Ending::Watchdog(1);
        let other = (undefined + 1) % changed.len();
        changed[other].case_fnv = Some("0000000000000000".into());
        let mut ev2 = Evidence::default();
        ev2.add_records(&changed);
        let (runs2, inside2, _) = totals(&ev2);
        assert_eq!(ev2.stale_records, 1);
        let other_counted =
            usize::from(undefined_by(&recs[other].config().unwrap().1.build()).is_some());
        assert_eq!(runs2, runs - other_counted);
        assert_eq!(inside2, inside - other_counted - 1);
    }
}
