//! `ptxconform tensormaps [--count N] [--seed S] [--json FILE] [--device D]`: compare the
//! tensor-map model's prediction of the driver ([`predict_driver`]) with what `cuTensorMapEncode*`
//! actually returns. N parameter sets come from [`param_sweep`] (deterministic in the seed); they
//! are sent as encode-only jobs (`launch: None`) through the GPU [`Supervisor`], in chunks so that
//! a worker crash costs one chunk. Without a GPU the model's verdict counts are printed and the
//! report says the driver was not consulted.
//!
//! `globalAddress` of a sweep map is an offset into a 1024-byte-aligned job buffer (the sweep
//! perturbs it to 8, 16, 24, ... to probe the alignment rules). Maps whose arrays the worker
//! refuses to hand to the driver (`EncodeError::BadShape`: shorter than the rank; a longer one goes
//! through as its first entries, as the driver reads it) are counted as
//! not consulted, not as agreements.

use ptxconform_gpu::device::map_request::request;
use ptxconform_gpu::device::{
    self as gpu, BufferSpec, EncodeError, EncodeOutcome, Job, Outcome, Supervisor,
    SupervisorConfig, WorkerCommand,
};
use ptxconform_reference::sem::tensor::tensormap::{
    param_sweep, predict_driver, rule, validate, Observed, TensorMapParams,
};
use ptxconform_reference::target::Target;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(clap::Args, Debug, Clone)]
pub struct TensormapsArgs {
    /// Number of parameter sets.
    #[arg(long, default_value_t = 500)]
    pub count: usize,
    /// Seed of `param_sweep`.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the comparison as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    pub device: i32,
    /// Maps per encode-only job.
    #[arg(long, default_value_t = 250)]
    pub chunk: usize,
}

/// What the driver did with one map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DriverVerdict {
    Accepted,
    Rejected {
        code: i32,
        name: String,
    },
    /// The driver was not asked (no GPU, the worker refused the shape, the job failed).
    NotConsulted {
        why: String,
    },
}

/// One map's comparison.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub index: usize,
    pub params: TensorMapParams,
    /// `predict_driver`: None = accept, else the rule predicted to reject.
    pub predicted_reject: Option<String>,
    /// `validate` (the documented contract): None = valid, else the first broken rule.
    pub documented_reject: Option<String>,
    pub driver: DriverVerdict,
}

impl Row {
    pub fn agrees(&self) -> Option<bool> {
        match &self.driver {
            DriverVerdict::Accepted => Some(self.predicted_reject.is_none()),
            DriverVerdict::Rejected { .. } => Some(self.predicted_reject.is_some()),
            DriverVerdict::NotConsulted { .. } => None,
        }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub count: usize,
    pub consulted: usize,
    pub agree: usize,
    /// Predicted accept, driver rejected.
    pub driver_stricter: usize,
    /// Predicted reject, driver accepted (by the rule predicted).
    pub model_stricter: usize,
    /// Model verdicts: "accept" or the rule predicted to reject → count.
    pub predicted: BTreeMap<String, usize>,
    /// Documented-contract verdicts, same keys.
    pub documented: BTreeMap<String, usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub seed: u64,
    pub target: String,
    pub device: Option<String>,
    pub driver_version: Option<i32>,
    pub driver_consulted: bool,
    pub summary: Summary,
    pub disagreements: Vec<Row>,
}

/// Compare a set of rows (the testable core).
pub fn summarize(rows: &[Row]) -> Summary {
    let mut s = Summary {
        count: rows.len(),
        ..Summary::default()
    };
    for r in rows {
        *s.predicted
            .entry(
                r.predicted_reject
                    .clone()
                    .unwrap_or_else(|| "accept".into()),
            )
            .or_default() += 1;
        *s.documented
            .entry(
                r.documented_reject
                    .clone()
                    .unwrap_or_else(|| "accept".into()),
            )
            .or_default() += 1;
        match r.agrees() {
            None => {}
            Some(true) => {
                s.consulted += 1;
                s.agree += 1;
            }
            Some(false) => {
                s.consulted += 1;
                if r.predicted_reject.is_none() {
                    s.driver_stricter += 1;
                } else {
                    s.model_stricter += 1;
                }
            }
        }
    }
    s
}

/// The model's side of each map.
fn model_rows(maps: &[TensorMapParams], target: Target) -> Vec<Row> {
    maps.iter()
        .enumerate()
        .map(|(index, p)| Row {
            index,
            params: p.clone(),
            predicted_reject: predict_driver(p, target).err().map(|e| e.rule.to_string()),
            documented_reject: validate(p, target).err().map(|e| e.rule.to_string()),
            driver: DriverVerdict::NotConsulted {
                why: "no GPU".into(),
            },
        })
        .collect()
}

/// Encode-only jobs of `chunk` maps each.
pub fn jobs(maps: &[TensorMapParams], chunk: usize) -> Vec<Job> {
    maps.chunks(chunk.max(1))
        .enumerate()
        .map(|(i, c)| Job {
            id: i as u64,
            buffers: vec![BufferSpec {
                size: 4096,
                align: 1024,
                fill: 0,
                init: vec![],
                patches: vec![],
                pieces: vec![],
            }],
            tensor_maps: c.iter().map(request).collect(),
            launch: None,
            read_back: vec![],
        })
        .collect()
}

/// The driver's verdict on one encode outcome.
fn driver_verdict(o: &EncodeOutcome) -> DriverVerdict {
    match o {
        EncodeOutcome::Ok(_) => DriverVerdict::Accepted,
        EncodeOutcome::Err(EncodeError::Driver { code, name }) => DriverVerdict::Rejected {
            code: *code,
            name: name.clone(),
        },
        EncodeOutcome::Err(e) => DriverVerdict::NotConsulted {
            why: format!("{e:?}"),
        },
    }
}

/// The target the model validates for on a device of compute capability `cc`.
pub fn target_of(cc: (i32, i32)) -> Target {
    format!("sm_{}{}a", cc.0, cc.1)
        .parse()
        .unwrap_or_else(|_| "sm_90a".parse().expect("sm_90a parses"))
}

pub fn render(r: &Report) -> String {
    use std::fmt::Write;
    let s = &r.summary;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "tensormaps: {} parameter sets (param_sweep seed {}), model target {}",
        s.count, r.seed, r.target
    );
    let list = |m: &BTreeMap<String, usize>| {
        m.iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(o, "  predict_driver: {}", list(&s.predicted));
    let _ = writeln!(o, "  validate (documented): {}", list(&s.documented));
    if !r.driver_consulted {
        let _ = writeln!(
            o,
            "  driver NOT consulted (no GPU): only the model's verdicts are shown"
        );
        return o;
    }
    let _ = writeln!(
        o,
        "  device {} (driver {})",
        r.device.clone().unwrap_or_default(),
        r.driver_version.unwrap_or(0)
    );
    let _ = writeln!(
        o,
        "  consulted {} / {}: agree {}, driver stricter {}, model stricter {}",
        s.consulted, s.count, s.agree, s.driver_stricter, s.model_stricter
    );
    for d in &r.disagreements {
        let rule = d
            .predicted_reject
            .clone()
            .unwrap_or_else(|| "accept".into());
        let observed = d
            .predicted_reject
            .as_deref()
            .and_then(|id| rule::ALL.iter().find(|x| x.id == id))
            .map(|x| x.observed);
        let note = if observed == Some(Observed::Untested) {
            " (rule untested on this driver)"
        } else {
            ""
        };
        let _ = writeln!(
            o,
            "  #{}: model {rule}{note}, driver {:?}, documented {}",
            d.index,
            d.driver,
            d.documented_reject
                .clone()
                .unwrap_or_else(|| "accept".into())
        );
    }
    o
}

pub fn main(args: &TensormapsArgs) -> Result<i32, String> {
    let maps = param_sweep(args.seed, args.count);
    let gpu = gpu::device_info(args.device).ok();
    let target = gpu
        .as_ref()
        .map_or_else(|| target_of((9, 0)), |i| target_of(i.compute_capability));
    let mut rows = model_rows(&maps, target);
    let mut consulted = false;
    if gpu.is_some() {
        let mut sup = Supervisor::new(SupervisorConfig::new(WorkerCommand::current_exe(
            args.device,
        )?));
        let results = sup
            .run(&jobs(&maps, args.chunk))
            .map_err(|e| format!("{e:?}"))?;
        consulted = true;
        for (j, res) in results.iter().enumerate() {
            let base = j * args.chunk.max(1);
            for (k, row) in rows
                .iter_mut()
                .skip(base)
                .take(args.chunk.max(1))
                .enumerate()
            {
                row.driver = match (&res.outcome, res.tensor_maps.get(k)) {
                    (_, Some(o)) => driver_verdict(o),
                    (Outcome::Ok, None) => DriverVerdict::NotConsulted {
                        why: "no encode result".into(),
                    },
                    (o, None) => DriverVerdict::NotConsulted {
                        why: format!("job failed: {o:?}"),
                    },
                };
            }
        }
    }
    let summary = summarize(&rows);
    let report = Report {
        seed: args.seed,
        target: target.to_string(),
        device: gpu.as_ref().map(|i| i.name.clone()),
        driver_version: gpu.as_ref().map(|i| i.driver_version),
        driver_consulted: consulted,
        summary,
        disagreements: rows
            .iter()
            .filter(|r| r.agrees() == Some(false))
            .cloned()
            .collect(),
    };
    print!("{}", render(&report));
    if let Some(path) = &args.json {
        let all = serde_json::json!({ "report": report, "rows": rows });
        std::fs::write(
            path,
            serde_json::to_string_pretty(&all).map_err(|e| e.to_string())?,
        )
        .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        "sm_90a".parse().unwrap()
    }

    #[test]
    fn summary_counts_agreements_and_both_kinds_of_disagreement() {
        let maps = param_sweep(3, 60);
        let mut rows = model_rows(&maps, target());
        assert!(
            rows.iter().any(|r| r.predicted_reject.is_some())
                && rows.iter().any(|r| r.predicted_reject.is_none())
        );
        // A fake driver: agrees everywhere except row 0 (flipped) and row 1 (not consulted).
        for r in rows.iter_mut() {
            r.driver = if r.predicted_reject.is_some() {
                DriverVerdict::Rejected {
                    code: 1,
                    name: "CUDA_ERROR_INVALID_VALUE".into(),
                }
            } else {
                DriverVerdict::Accepted
            };
        }
        let flipped_was_reject = rows[0].predicted_reject.is_some();
        rows[0].driver = if flipped_was_reject {
            DriverVerdict::Accepted
        } else {
            DriverVerdict::Rejected {
                code: 1,
                name: "CUDA_ERROR_INVALID_VALUE".into(),
            }
        };
        rows[1].driver = DriverVerdict::NotConsulted {
            why: "BadShape".into(),
        };
        let s = summarize(&rows);
        assert_eq!(s.count, 60);
        assert_eq!(s.consulted, 59);
        assert_eq!(s.agree, 58);
        assert_eq!(
            (s.model_stricter, s.driver_stricter),
            if flipped_was_reject { (1, 0) } else { (0, 1) }
        );
        assert_eq!(s.predicted.values().sum::<usize>(), 60);
        let report = Report {
            seed: 3,
            target: "sm_90a".into(),
            device: Some("fake".into()),
            driver_version: Some(13000),
            driver_consulted: true,
            summary: s,
            disagreements: rows
                .iter()
                .filter(|r| r.agrees() == Some(false))
                .cloned()
                .collect(),
        };
        let text = render(&report);
        assert!(text.contains("consulted 59 / 60: agree 58"), "{text}");
        assert!(text.contains("  #0: model "), "{text}");
    }

    #[test]
    fn without_a_gpu_the_report_says_so() {
        let rows = model_rows(&param_sweep(5, 20), target());
        let report = Report {
            seed: 5,
            target: "sm_90a".into(),
            device: None,
            driver_version: None,
            driver_consulted: false,
            summary: summarize(&rows),
            disagreements: vec![],
        };
        let text = render(&report);
        assert!(text.contains("driver NOT consulted"), "{text}");
        assert_eq!(report.summary.consulted, 0);
    }

    #[test]
    fn encode_outcomes_map_to_verdicts_and_jobs_are_encode_only() {
        assert_eq!(
            driver_verdict(&EncodeOutcome::Ok(vec![0; 128])),
            DriverVerdict::Accepted
        );
        let rej = EncodeOutcome::Err(EncodeError::Driver {
            code: 1,
            name: "CUDA_ERROR_INVALID_VALUE".into(),
        });
        assert!(matches!(
            driver_verdict(&rej),
            DriverVerdict::Rejected { code: 1, .. }
        ));
        assert!(matches!(
            driver_verdict(&EncodeOutcome::Err(EncodeError::BadShape {
                what: "x".into()
            })),
            DriverVerdict::NotConsulted { .. }
        ));
        let maps = param_sweep(9, 10);
        let js = jobs(&maps, 4);
        assert_eq!(js.len(), 3);
        assert!(js.iter().all(|j| j.launch.is_none()));
        assert_eq!(js.iter().map(|j| j.tensor_maps.len()).sum::<usize>(), 10);
        let off = match js[0].tensor_maps[0].global {
            ptxconform_gpu::device::Address::Buffer { offset, .. } => offset,
            _ => u64::MAX,
        };
        assert_eq!(off, maps[0].global_address);
        assert_eq!(target_of((10, 0)).to_string(), "sm_100a");
    }
}
