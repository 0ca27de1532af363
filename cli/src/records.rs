//! What a sweep keeps of each hardware observation (its `records.jsonl`), so a later model can be
//! scored against the same silicon without a GPU (`sweep --replay`) and the runs count as the
//! silicon evidence of the rules they reach ([`crate::evidence`]). A configuration is rebuilt from (seed, index);
//! of its observation the record keeps the outcome, the mbarrier states, canaries and CTAs not
//! reached, and per region its length and FNV-1a hash. A region whose bytes disagreed with the
//! model's prediction when recorded also keeps the bytes that differ from its initial contents,
//! so its observation is rebuilt exactly later. An agreeing region is rebuilt from a later
//! prediction whose bytes hash the same; where a later prediction differs, the record cannot say
//! what the bytes were, only that they differ (see [`Rebuilt::Differs`]).

use ptxconform_core::hash::fnv1a64;
use ptxconform_reference::case::{split_region_key, Case, Ending, Observation, Parity};
use ptxconform_reference::gen::sweep::{draw_as, ClassKey, Config, Draw};
use ptxconform_reference::hex;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One configuration's observation, kept compactly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub seed: u64,
    pub index: u64,
    /// The draw of the configuration ([`Draw::number`]); absent in v1 records.
    #[serde(default = "draw_v1", skip_serializing_if = "is_draw_v1")]
    pub draw: u8,
    pub device: String,
    pub driver: String,
    pub date: String,
    pub outcome: Ending,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub regions: BTreeMap<String, RegionDigest>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mbarriers: BTreeMap<String, Parity>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub canaries_broken: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_reached: Vec<u32>,
    /// The complete-tx bytes the load's expect-tx named (the model's count when it ran), so a
    /// replay rebuilds the program that ran after the model's count has changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complete_tx: Option<u64>,
    /// FNV-1a 64 of the case that ran (its YAML): a replay that rebuilds another case says so
    /// instead of judging it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_fnv: Option<String>,
}

/// A region's bytes as a record keeps them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionDigest {
    pub len: usize,
    /// FNV-1a 64 of the bytes, hex.
    pub fnv: String,
    /// Where the bytes differ from the region's initial contents: (offset, hex bytes). Kept
    /// only for regions that disagreed with the prediction when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<Vec<(usize, String)>>,
}

fn draw_v1() -> u8 {
    Draw::V1.number()
}

fn is_draw_v1(d: &u8) -> bool {
    *d == Draw::V1.number()
}

fn digest(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a64(bytes))
}

/// The fingerprint a record keeps of its case.
pub fn case_digest(case: &Case) -> String {
    digest(ptxconform_reference::case::load::to_yaml(std::slice::from_ref(case)).as_bytes())
}

/// The initial bytes of the region an observation names `key` (`name` or `name@ctaN`).
fn initial(case: &Case, key: &str) -> Result<Vec<u8>, String> {
    let (name, cta) = split_region_key(key);
    let regions = match cta {
        Some(_) => &case.memory.shared,
        None => &case.memory.global,
    };
    let r = regions
        .iter()
        .find(|r| r.name == name)
        .ok_or_else(|| format!("{}: no region `{key}`", case.name))?;
    r.init
        .materialize(r.size)
        .map_err(|e| format!("{}: region `{key}`: {e}", case.name))
}

/// Maximal runs of `now` that differ from `was` (equal lengths).
fn runs_from(was: &[u8], now: &[u8]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < now.len() {
        if was.get(i) == Some(&now[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < now.len() && was.get(i) != Some(&now[i]) {
            i += 1;
        }
        out.push((start, hex::encode(&now[start..i])));
    }
    out
}

/// What a record gives back for a prediction.
#[derive(Debug)]
pub enum Rebuilt {
    /// The observation, exactly.
    Exact(Box<Observation>),
    /// A region's recorded bytes hash differently from the prediction's, and were not kept.
    Differs { region: String },
}

impl Record {
    /// The record of `obs` on `case` (whose load expected `complete_tx` bytes); the changed
    /// bytes of the regions that differ from `predicted` (the model's own observation of the
    /// same case) are kept.
    pub fn of(
        (seed, index, draw): (u64, u64, Draw),
        case: &Case,
        complete_tx: Option<u64>,
        obs: &Observation,
        predicted: Option<&Observation>,
    ) -> Result<Record, String> {
        let mut regions = BTreeMap::new();
        for (key, bytes) in &obs.regions {
            let differs = predicted.is_some_and(|p| p.regions.get(key) != Some(bytes));
            let runs = if differs {
                Some(runs_from(&initial(case, key)?, bytes))
            } else {
                None
            };
            regions.insert(
                key.clone(),
                RegionDigest {
                    len: bytes.len(),
                    fnv: digest(bytes),
                    runs,
                },
            );
        }
        Ok(Record {
            seed,
            index,
            draw: draw.number(),
            device: obs.device.clone(),
            driver: obs.driver.clone(),
            date: obs.date.clone(),
            outcome: obs.outcome.clone(),
            regions,
            mbarriers: obs.mbarriers.clone(),
            canaries_broken: obs.canaries_broken.clone(),
            not_reached: obs.not_reached.clone(),
            complete_tx,
            case_fnv: Some(case_digest(case)),
        })
    }

    /// The configuration that ran: drawn again from its draw, seed and index, with the load's
    /// expect-tx as recorded (the model's count may have changed since).
    pub fn config(&self) -> Result<(ClassKey, Config), String> {
        let mut d = draw_as(self.draw()?, self.seed, self.index);
        d.config.complete_tx = self.complete_tx.or(d.config.complete_tx);
        Ok((d.key, d.config))
    }

    /// Whether `case` is the case that ran (records without a fingerprint are taken as such).
    pub fn ran(&self, case: &Case) -> bool {
        self.case_fnv
            .as_ref()
            .is_none_or(|f| *f == case_digest(case))
    }

    /// The draw of the configuration.
    pub fn draw(&self) -> Result<Draw, String> {
        Draw::of(self.draw).ok_or_else(|| {
            format!(
                "record of seed {} index {}: no draw {}",
                self.seed, self.index, self.draw
            )
        })
    }

    /// The observation without any region's bytes (enough to judge an outcome class).
    pub fn without_bytes(&self) -> Observation {
        Observation {
            device: self.device.clone(),
            driver: self.driver.clone(),
            date: self.date.clone(),
            build: None,
            outcome: self.outcome.clone(),
            regions: BTreeMap::new(),
            mbarriers: self.mbarriers.clone(),
            tmem: BTreeMap::new(),
            partial: Default::default(),
            canaries_broken: self.canaries_broken.clone(),
            not_reached: self.not_reached.clone(),
        }
    }

    /// The observation this record stands for, its region bytes taken from the kept runs or
    /// from `predicted` where that hashes the same.
    pub fn rebuild(&self, case: &Case, predicted: &Observation) -> Result<Rebuilt, String> {
        let mut obs = self.without_bytes();
        for (key, d) in &self.regions {
            let bytes = match (&d.runs, predicted.regions.get(key)) {
                (Some(runs), _) => {
                    let mut b = initial(case, key)?;
                    if b.len() != d.len {
                        return Err(format!(
                            "{}: region `{key}` has {} bytes, the record {}",
                            case.name,
                            b.len(),
                            d.len
                        ));
                    }
                    for (at, h) in runs {
                        let run = hex::decode(h).map_err(|e| format!("{}: {e}", case.name))?;
                        let end = at.checked_add(run.len()).filter(|&e| e <= b.len());
                        let Some(end) = end else {
                            return Err(format!(
                                "{}: region `{key}`: a run at {at} overruns its {} bytes",
                                case.name, d.len
                            ));
                        };
                        b[*at..end].copy_from_slice(&run);
                    }
                    b
                }
                (None, Some(p)) if p.len() == d.len && digest(p) == d.fnv => p.clone(),
                (None, _) => {
                    return Ok(Rebuilt::Differs {
                        region: key.clone(),
                    })
                }
            };
            if digest(&bytes) != d.fnv {
                return Err(format!(
                    "{}: region `{key}` rebuilt from its runs does not hash as recorded",
                    case.name
                ));
            }
            obs.regions.insert(key.clone(), bytes);
        }
        Ok(Rebuilt::Exact(Box::new(obs)))
    }
}

/// Records as JSON lines.
pub fn to_lines(records: &[Record]) -> String {
    records
        .iter()
        .filter_map(|r| serde_json::to_string(r).ok())
        .map(|l| l + "\n")
        .collect()
}

/// JSON-line records; an error names the file and line.
pub fn parse_lines(file: &str, text: &str) -> Result<Vec<Record>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| format!("{file}:{}:{}: {e}", i + 1, e.column()))
        })
        .collect()
}

/// The records of `records.jsonl` files.
pub fn read_files(files: &[std::path::PathBuf]) -> Result<Vec<Record>, String> {
    let mut all = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        all.extend(parse_lines(&f.display().to_string(), &text)?);
    }
    Ok(all)
}

/// The `records.jsonl` of every sweep folder in `dir` (`reports/sweep`), in name order.
pub fn files_in(dir: &std::path::Path) -> Result<Vec<std::path::PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files: Vec<std::path::PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("records.jsonl"))
        .filter(|f| f.is_file())
        .collect();
    files.sort();
    Ok(files)
}
