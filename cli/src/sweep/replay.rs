//! `sweep --replay`: the current model scored against recorded sweeps. The records are a
//! backend of the differential core like any device: each configuration is rebuilt from its
//! seed and index, the reference runs it, and the record gives back the observation (see
//! [`Record::rebuild`]), so a replay judges exactly what a live sweep judges.

use super::{run_configs, save, Plan, Report};
use crate::records::{Rebuilt, Record};
use ptxconform_core::differential::{Backend, Ran, Run};
use ptxconform_core::result::RunInfo;
use ptxconform_reference::case::{split_region_key, Case};
use ptxconform_reference::gen::sweep::{self as gen, predict_from};
use ptxconform_reference::sem::exec::Execution;
use ptxconform_reference::sem::memory::Byte;
use ptxconform_reference::target::Target;
use std::collections::BTreeMap;
use std::path::Path;

/// Why a replay did not judge a recorded completion: its bytes differ from this prediction in
/// `region`, and the record did not keep them. Kept typed beside the run's text, which the core
/// passes on as the row's detail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unkept {
    pub region: String,
    /// Whether the prediction is certain there (then the record disagrees with it).
    pub certain: bool,
}

impl std::fmt::Display for Unkept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "recorded bytes differ from this prediction in `{}` (not kept), {}",
            self.region,
            if self.certain {
                "where it is certain"
            } else {
                "where it allows several values"
            }
        )
    }
}

/// Does the execution leave every byte of region `key` (`name` or `name@ctaN`) known?
fn certain(ex: &Execution, key: &str) -> bool {
    let fs = &ex.final_state;
    let bytes = match split_region_key(key) {
        (name, None) => fs.global.get(name),
        (name, Some(cta)) => cta
            .parse::<usize>()
            .ok()
            .and_then(|c| fs.shared.get(c))
            .and_then(|m| m.get(name)),
    };
    bytes.is_some_and(|b| b.iter().all(|x| matches!(x, Byte::Known(_))))
}

/// Recorded observations by case name.
pub struct Replaying {
    pub info: RunInfo,
    records: BTreeMap<String, Record>,
    /// The cases observed but not judged because their bytes were not kept, by name.
    unkept: BTreeMap<String, Unkept>,
}

impl Replaying {
    /// The records' (draw, seed, index) → the configurations they stand for.
    pub fn new(info: RunInfo, records: Vec<Record>) -> Result<Replaying, String> {
        let records = records
            .into_iter()
            .map(|r| Ok((gen::draw_as(r.draw()?, r.seed, r.index).case.name, r)))
            .collect::<Result<_, String>>()?;
        Ok(Replaying {
            info,
            records,
            unkept: BTreeMap::new(),
        })
    }

    /// Why `case` was not judged, if its recorded bytes differ from the prediction (taken: each
    /// observation is read once).
    fn take_unkept(&mut self, case: &str) -> Option<Unkept> {
        self.unkept.remove(case)
    }
}

impl Backend for Replaying {
    fn info(&self) -> RunInfo {
        self.info.clone()
    }
    fn runs(&self, _: Target) -> bool {
        true
    }
    fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
        use rayon::prelude::*;
        // On the host's threads: rebuilding needs the model's bytes, a second execution for
        // completions through maps as encoded.
        let runs: Vec<(Run, Option<Unkept>)> = cases
            .par_iter()
            .map(|(c, ex)| {
                let not_run = |why: String| Run {
                    ran: Ran::NotRun(why),
                    ptx: None,
                    wall_us: 0,
                    device: String::new(),
                    build: None,
                };
                let Some(rec) = self.records.get(&c.name) else {
                    return Ok((not_run(format!("no record of `{}`", c.name)), None));
                };
                if !rec.ran(c) {
                    let why = format!(
                        "`{}` rebuilds another case than the one recorded (the generator \
                         changed since): not judged",
                        c.name
                    );
                    return Ok((not_run(why), None));
                }
                // Bytes are predicted by a well-defined execution, or by the maps as encoded;
                // otherwise only the outcome class is judged.
                let encoded;
                let bytes_from = if predict_from(ex).well_defined() {
                    ex
                } else if let Some(e) = gen::as_encoded(c, ex) {
                    encoded = e;
                    &encoded
                } else {
                    return Ok((Run::observed(rec.without_bytes()), None));
                };
                let own = ptxconform_core::differential::predicted(&self.info, bytes_from);
                Ok(match rec.rebuild(c, &own)? {
                    Rebuilt::Exact(o) => (Run::observed(*o), None),
                    Rebuilt::Differs { region } => {
                        let certain = certain(bytes_from, &region);
                        let why = Unkept { region, certain };
                        (not_run(why.to_string()), Some(why))
                    }
                })
            })
            .collect::<Result<_, String>>()?;
        let mut out = Vec::with_capacity(runs.len());
        for ((c, _), (run, why)) in cases.iter().zip(runs) {
            if let Some(why) = why {
                self.unkept.insert(c.name.clone(), why);
            }
            out.push(run);
        }
        Ok(out)
    }
}

/// Score the current model under `plan.profile` against `records` (`plan`'s seed, start and
/// count are ignored: the records say which configurations they are). The disagreeing cases
/// go to `out/disagreements.yaml`, each with the observation rebuilt from its record.
pub fn replay(records: Vec<Record>, plan: Plan, out: Option<&Path>) -> Result<Report, String> {
    let Some(first) = records.first() else {
        return Err("--replay: no records".into());
    };
    let info = RunInfo {
        device: first.device.clone(),
        driver: first.driver.clone(),
        date: first.date.clone(),
        ptxconform: env!("CARGO_PKG_VERSION").into(),
        profile: plan.profile.name().into(),
        mode: "sweep replay (recorded observations)".into(),
        ..RunInfo::default()
    };
    let seed = first.seed;
    let items: Vec<(u64, (gen::ClassKey, gen::Config))> = records
        .iter()
        .map(|r| Ok((r.index, r.config()?)))
        .collect::<Result<_, String>>()?;
    let mut backend = Replaying::new(info.clone(), records)?;
    let mut rows = Vec::new();
    let mut found = Vec::new();
    for chunk in items.chunks(plan.batch.max(1)) {
        let items = chunk
            .iter()
            .map(|(i, (key, config))| (*i, key.clone(), config.clone()))
            .collect();
        let ran = run_configs(&mut backend, plan.profile, items)?;
        for j in ran.rows(|case| backend.take_unkept(case)) {
            rows.push(j.row.clone());
            if super::disagrees(&j.row) {
                found.push(j);
            }
        }
    }
    if let Some(dir) = out {
        save(dir, found, plan.profile)?;
    }
    Ok(Report::new(info, seed, rows))
}
