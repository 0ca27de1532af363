//! `sweep --replay`: the current model scored against recorded sweeps. The records are a
//! backend of the differential core like any device: each configuration is rebuilt from its
//! seed and index, the reference runs it, and the record gives back the observation (see
//! [`Record::rebuild`]), so a replay judges exactly what a live sweep judges.

use super::record::{case_digest, Rebuilt, Record};
use super::{judge_configs, save, Plan, Report};
use ptxconform_core::differential::{Backend, Ran, Run};
use ptxconform_core::result::RunInfo;
use ptxconform_reference::case::{split_region_key, Case};
use ptxconform_reference::gen::sweep::{self as gen, predict_from};
use ptxconform_reference::sem::exec::Execution;
use ptxconform_reference::sem::memory::Byte;
use ptxconform_reference::target::Target;
use std::collections::BTreeMap;
use std::path::Path;

const DIFFERS: &str = "recorded bytes differ from this prediction in";
const CERTAIN: &str = "where it is certain";

/// For a row's detail: did the replay find recorded bytes that differ from the prediction and
/// were not kept, and is the prediction certain there (then it is a disagreement)?
pub fn digest_differs(detail: &str) -> Option<bool> {
    detail
        .starts_with(DIFFERS)
        .then(|| detail.ends_with(CERTAIN))
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
}

impl Replaying {
    /// The records' (seed, index) → the configurations they stand for.
    pub fn new(info: RunInfo, records: Vec<Record>) -> Replaying {
        let records = records
            .into_iter()
            .map(|r| (gen::draw(r.seed, r.index).case.name, r))
            .collect();
        Replaying { info, records }
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
        cases
            .par_iter()
            .map(|(c, ex)| {
                let not_run = |why: String| Run {
                    ran: Ran::NotRun(why),
                    ptx: None,
                    wall_us: 0,
                    device: String::new(),
                };
                let Some(rec) = self.records.get(&c.name) else {
                    return Ok(not_run(format!("no record of `{}`", c.name)));
                };
                if rec.case_fnv.as_ref().is_some_and(|f| *f != case_digest(c)) {
                    return Ok(not_run(format!(
                        "`{}` rebuilds another case than the one recorded (the generator \
                         changed since): not judged",
                        c.name
                    )));
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
                    return Ok(Run::observed(rec.without_bytes()));
                };
                let own = ptxconform_core::differential::predicted(&self.info, bytes_from);
                Ok(match rec.rebuild(c, &own)? {
                    Rebuilt::Exact(o) => Run::observed(*o),
                    Rebuilt::Differs { region } => not_run(format!(
                        "{DIFFERS} `{region}` (not kept), {}",
                        if certain(bytes_from, &region) {
                            CERTAIN
                        } else {
                            "where it allows several values"
                        }
                    )),
                })
            })
            .collect()
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
    };
    let seed = first.seed;
    let items: Vec<(u64, u64, Option<u64>)> = records
        .iter()
        .map(|r| (r.seed, r.index, r.complete_tx))
        .collect();
    let mut backend = Replaying::new(info.clone(), records);
    let mut rows = Vec::new();
    let mut found = Vec::new();
    for chunk in items.chunks(plan.batch.max(1)) {
        let items = chunk
            .iter()
            .map(|&(s, i, tx)| {
                // The program that ran: the load's expect-tx as recorded.
                let mut d = gen::draw(s, i);
                d.config.complete_tx = tx.or(d.config.complete_tx);
                (i, d.key, d.config)
            })
            .collect();
        for j in judge_configs(&mut backend, plan.profile, items)? {
            rows.push(j.row.clone());
            if j.row.agree == Some(false) {
                found.push(j);
            }
        }
    }
    if let Some(dir) = out {
        save(dir, found, plan.profile)?;
    }
    Ok(Report::new(info, seed, rows))
}
