//! `ptxconform sweep`: the random truth sweep. `N` configurations of
//! [`ptxconform_reference::gen::sweep`] (one tensor map + one tensor copy each, over the whole
//! parameter space) go through the differential core ([`ptxconform_core::differential::run_batch_under`]) on the
//! GPU when one is present (the model's own prediction otherwise), and the model's prediction (a
//! set of allowed outcomes, [`Prediction`]) is scored per class: exact bytes for the
//! well-defined configurations, the outcome class (trap / hang / driver refusal / completion)
//! for the undefined ones, and the exact trap kind (the CUDA error) for every observed trap. A
//! set of several classes (for kinds: several outcomes) is undecided: counted apart, and against
//! the targets of issue 34 ([`score::TARGETS`]).
//!
//! Output (`--out`): `sweep.json` (run info, per-class agreement, every row), `sweep.md` (the
//! tables), and `disagreements/<name>.yaml`, each a case with its `expect:` and the observation
//! that disagreed, replayable with `run --replay`.

mod replay;
mod score;

use crate::records;
pub use crate::records::Record;

use ptxconform_core::differential::{Backend, Judged, Run};
use ptxconform_core::known::KnownDivergences;
use ptxconform_core::result::{RunInfo, Verdict};
use ptxconform_reference::case::{to_yaml, Case, Observation};
use ptxconform_reference::gen::sweep::{
    self as gen, predict_from, ClassKey, Config, Draw, Predicted,
};
use ptxconform_reference::sem::exec::{Execution, HwOutcome, Prediction};
use ptxconform_reference::sem::profile::Profile;
use ptxconform_reference::target::Target;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use score::{KindScore, Tally};

#[derive(clap::Args, Debug, Clone)]
pub struct SweepArgs {
    /// Configurations to draw and run.
    #[arg(long, default_value_t = 1000)]
    pub count: u64,
    /// Index of the first configuration (a sweep split over runs: `--start 5000 --count 5000`).
    #[arg(long, default_value_t = 0)]
    pub start: u64,
    /// Score the current model against recorded sweeps (their `records.jsonl`) instead of
    /// running anything: every configuration is rebuilt from its seed and index.
    #[arg(long, value_name = "RECORDS", num_args = 1.., conflicts_with_all = ["reference_only", "start", "count", "seed"])]
    pub replay: Vec<PathBuf>,
    /// Sweep seed: configuration k is drawn from (seed, k).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The draw: 1 (regions sized as the model sizes them) or 2 (regions, allocations, bases
    /// and expect-tx drawn without the model; issue 34).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=2), conflicts_with = "replay")]
    pub draw: u8,
    /// Output directory (sweep.json, sweep.md, disagreements/).
    #[arg(long, default_value = "reports/sweep/latest")]
    pub out: PathBuf,
    /// The reading the prediction is made under (`sm_90` or `spec`).
    #[arg(long, value_name = "PROFILE", default_value = "sm_90")]
    pub profile: Profile,
    /// The model's own prediction as the device, even if a GPU is present.
    #[arg(long)]
    pub reference_only: bool,
    /// GPUs to spread the batches over: `all`, or ordinals such as `0,2`.
    #[arg(long, alias = "device", default_value = "all")]
    pub devices: ptxconform_gpu::device::Devices,
    /// Configurations run on the GPU as one batch.
    #[arg(long, default_value_t = 1024)]
    pub batch: usize,
    /// Per-job watchdog (seconds) on the GPU.
    #[arg(long, default_value_t = 10)]
    pub job_timeout: u64,
    /// Disagreements minimized (the first ones; the others are saved as drawn).
    #[arg(long, default_value_t = 32)]
    pub minimize: usize,
    /// Most rounds (GPU batches of all neighbours) a minimization takes.
    #[arg(long, default_value_t = 12)]
    pub minimize_rounds: usize,
    /// ptxas optimization level (0–3) of the offline build the GPU runs.
    #[arg(long, default_value_t = ptxconform_gpu::compile::DEFAULT_OPT_LEVEL)]
    pub opt_level: u8,
}

/// One configuration's result.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub index: u64,
    pub case: String,
    #[serde(flatten)]
    pub key: ClassKey,
    /// The outcomes the model allows.
    pub predicted: Vec<HwOutcome>,
    /// The model's UB rule (absent: well defined, judged on exact bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// What the device did (absent: it did not run: not run, harness error, reference failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed: Option<HwOutcome>,
    pub verdict: String,
    /// Prediction met: exact bytes (well defined), the observed class allowed (undefined);
    /// absent when nothing was observed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agree: Option<bool>,
    /// An observed trap's kind against the prediction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<KindScore>,
    /// Undefined through a map the driver accepts, completed: did its bytes match those of the
    /// maps as encoded (absent: no such prediction, or the record cannot decide)?
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<bool>,
    /// A load's expect-tx bytes in total (draw v2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect_tx: Option<i64>,
    /// The CTA's dynamic shared-memory allocation (draw v2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_allocation: Option<u64>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

impl Row {
    pub fn well_defined(&self) -> bool {
        self.rule.is_none()
    }
    /// The model's outcome set.
    pub fn prediction(&self) -> Prediction {
        match self.predicted.split_first() {
            Some((first, rest)) => Prediction::of_set(*first, rest),
            None => Prediction::one(HwOutcome::Completes),
        }
    }
}

/// The whole sweep's record.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub info: RunInfo,
    pub commit: String,
    pub seed: u64,
    pub count: u64,
    /// The draws the configurations come from.
    pub draws: Vec<u8>,
    pub global_cap_bytes: u64,
    pub smem_cap_bytes: u64,
    pub total: Tally,
    /// dimension -> value -> tally.
    pub classes: BTreeMap<String, BTreeMap<String, Tally>>,
    /// Observed traps: the predicted outcomes -> the observed kind -> count.
    pub trap_kinds: BTreeMap<String, BTreeMap<String, u64>>,
    /// What draw v2 reached (absent: no v2 configuration).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<score::Coverage>,
    pub disagreements: Vec<Row>,
    pub rows: Vec<Row>,
    /// What was observed of each configuration (`records.jsonl`, for `--replay`).
    #[serde(skip)]
    pub records: Vec<Record>,
}

impl Report {
    fn new(info: RunInfo, seed: u64, rows: Vec<Row>) -> Report {
        let mut total = Tally::default();
        let mut classes: BTreeMap<String, BTreeMap<String, Tally>> = BTreeMap::new();
        let mut trap_kinds: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
        let mut draws = std::collections::BTreeSet::new();
        for r in &rows {
            total.add(r);
            draws.insert(if r.key.placement.is_some() { 2 } else { 1 });
            for d in score::DIMENSIONS {
                if let Some(v) = score::dimension_value(r, d) {
                    classes
                        .entry(d.to_string())
                        .or_default()
                        .entry(v)
                        .or_default()
                        .add(r);
                }
            }
            if let Some(HwOutcome::Traps(k)) = r.observed {
                *trap_kinds
                    .entry(score::prediction_name(&r.predicted))
                    .or_default()
                    .entry(k.to_string())
                    .or_default() += 1;
            }
        }
        let coverage = score::Coverage::of(&rows);
        Report {
            info,
            commit: crate::bench::git_commit(None),
            seed,
            count: rows.len() as u64,
            draws: draws.into_iter().collect(),
            global_cap_bytes: gen::GLOBAL_CAP,
            smem_cap_bytes: if coverage.configurations > 0 {
                gen::SMEM_MAX
            } else {
                gen::SMEM_CAP
            },
            total,
            classes,
            trap_kinds,
            coverage: (coverage.configurations > 0).then_some(coverage),
            disagreements: rows.iter().filter(|r| disagrees(r)).cloned().collect(),
            rows,
            records: Vec::new(),
        }
    }

    /// The Markdown tables.
    pub fn markdown(&self) -> String {
        use score::pct;
        let i = &self.info;
        let draws: Vec<String> = self.draws.iter().map(u8::to_string).collect();
        let mut s = format!(
            "# Random truth sweep\n\ndevice: {} · driver: {} · date: {} · commit: {} · profile: {} · \
             seed: {} · draw: {} · configurations: {} · caps: global {} KiB, shared {} B\n\n",
            i.device,
            i.driver,
            i.date,
            self.commit,
            i.profile,
            self.seed,
            draws.join(", "),
            self.count,
            self.global_cap_bytes / 1024,
            self.smem_cap_bytes
        );
        let t = &self.total;
        s += "## Targets (issue 34)\n\n| figure | met | of | % | target | |\n|---|---:|---:|---:|---:|---|\n";
        for (target, (a, n)) in score::TARGETS.iter().zip(t.figures()) {
            let ok = n > 0 && 100.0 * a as f64 / n as f64 >= target.at_least;
            s += &format!(
                "| **{}** | {a} | {n} | **{}** | ≥ {}% | {} |\n",
                target.what,
                pct(a, n),
                target.at_least,
                if n == 0 {
                    "–"
                } else if ok {
                    "met"
                } else {
                    "**short**"
                }
            );
        }
        s += &format!(
            "\nWell defined (exact bytes): {}/{} ({}). Undefined (outcome class allowed): {}/{} ({}), \
             of them {} by a set of several classes (undecided). Observed traps: {}, kind exact {}, \
             allowed among others (undecided) {}. Not observed: {}.\n",
            t.defined_agree,
            t.defined,
            pct(t.defined_agree, t.defined),
            t.undefined_agree,
            t.undefined,
            pct(t.undefined_agree, t.undefined),
            t.undefined_undecided,
            t.traps,
            t.traps_exact,
            t.traps_undecided,
            t.not_observed
        );
        s += &format!(
            "\nUndefined completions through maps the driver accepts, bytes predicted from the maps \
             as encoded: {}/{} exact ({}).\n",
            t.undefined_bytes_agree,
            t.undefined_bytes,
            pct(t.undefined_bytes_agree, t.undefined_bytes)
        );
        s += &self.trap_kind_table();
        if let Some(c) = &self.coverage {
            s += &format!(
                "\n## Draw v2 coverage\n\n| what draw v2 reached | configurations |\n|---|---:|\n\
                 | draw v2 configurations | {} |\n\
                 | type × swizzle × interleave combinations | {} of {} |\n\
                 | buffer starts mod 1024 on the 16-byte grid | {} of 64 |\n\
                 | buffer starts off the 16-byte grid | {} |\n\
                 | CTA allocations above 48 KiB (opt-in) | {} |\n\
                 | CTA allocations at the device maximum ({} B) | {} |\n\
                 | loads with the count split over several expect-tx | {} |\n\
                 | loads expecting ≥ 65,536 B in total | {} |\n\
                 \nThe `v2: …` tables below give each class of the new dimensions (draws = defined + \
                 undefined + not observed).\n",
                c.configurations,
                c.combos,
                c.combos_of,
                c.residues_1024,
                c.off_grid,
                c.above_48k,
                gen::SMEM_MAX,
                c.at_max,
                c.tx_split,
                c.tx_65536
            );
        }
        for (dim, values) in &self.classes {
            s += &format!(
                "\n## {dim}\n\n| {dim} | defined | agree | % | undefined | class | % | undecided | \
                 traps | kind exact | % | not observed |\n\
                 |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
            );
            for (v, t) in values {
                s += &format!(
                    "| {v} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                    t.defined,
                    t.defined_agree,
                    pct(t.defined_agree, t.defined),
                    t.undefined,
                    t.undefined_decided(),
                    pct(t.undefined_decided(), t.undefined),
                    t.undefined_undecided,
                    t.traps,
                    t.traps_exact,
                    pct(t.traps_exact, t.traps),
                    t.not_observed
                );
            }
        }
        s += &format!("\n## Disagreements ({})\n\n", self.disagreements.len());
        if !self.disagreements.is_empty() {
            s += "| case | mode | rank | type | swizzle | interleave | oob | predicted | rule | observed | detail |\n\
                  |---|---|---:|---|---|---|---|---|---|---|---|\n";
        }
        for r in &self.disagreements {
            let v = |d: &str| score::dimension_value(r, d).unwrap_or_default();
            s += &format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.case,
                v("mode"),
                r.key.rank,
                v("type"),
                v("swizzle"),
                v("interleave"),
                v("oob"),
                score::prediction_name(&r.predicted),
                r.rule.as_deref().unwrap_or("well defined"),
                r.observed.map_or("–".into(), score::outcome_name),
                r.detail.replace('|', "\\|")
            );
        }
        s
    }

    /// Predicted outcomes (rows) against the observed trap kind (columns).
    fn trap_kind_table(&self) -> String {
        let kinds: std::collections::BTreeSet<&String> =
            self.trap_kinds.values().flat_map(|m| m.keys()).collect();
        let mut s = "\n## Trap kinds: predicted (rows) against observed (columns)\n\n".to_string();
        if kinds.is_empty() {
            return s + "No trap observed.\n";
        }
        let names: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
        s += &format!("| predicted | {} |\n|---|", names.join(" | "));
        s += &"---:|".repeat(names.len());
        s += "\n";
        for (pred, m) in &self.trap_kinds {
            let cells: Vec<String> = kinds
                .iter()
                .map(|k| m.get(*k).map_or("".into(), u64::to_string))
                .collect();
            s += &format!("| {pred} | {} |\n", cells.join(" | "));
        }
        s
    }
}

/// The model's view of one configuration: its prediction, and where it predicts bytes (well
/// defined, or through maps as encoded) the execution that does and its own observation (what a
/// record compares bytes with).
struct Seen {
    prediction: Predicted,
    own: Option<Observation>,
    as_encoded: Option<Execution>,
}

/// A backend that records what the model predicts for every execution the core hands it (so the
/// model runs once per configuration) and passes the cases on.
struct Predicting<'a> {
    inner: &'a mut dyn Backend,
    seen: BTreeMap<String, Seen>,
}

impl Backend for Predicting<'_> {
    fn info(&self) -> RunInfo {
        self.inner.info()
    }
    fn runs(&self, t: Target) -> bool {
        self.inner.runs(t)
    }
    fn observe(&mut self, cases: &[(&Case, &Execution)]) -> Result<Vec<Run>, String> {
        use rayon::prelude::*;
        let info = self.inner.info();
        // On the host's threads: a completion through maps as encoded is a second execution.
        let seen: Vec<(String, Seen)> = cases
            .par_iter()
            .map(|(c, ex)| {
                let prediction = predict_from(ex);
                let as_encoded = gen::as_encoded(c, ex);
                let own = match (&as_encoded, prediction.well_defined()) {
                    (_, true) => Some(ptxconform_core::differential::predicted(&info, ex)),
                    (Some(e), false) => Some(ptxconform_core::differential::predicted(&info, e)),
                    (None, false) => None,
                };
                let seen = Seen {
                    prediction,
                    own,
                    as_encoded,
                };
                (c.name.clone(), seen)
            })
            .collect();
        self.seen.extend(seen);
        self.inner.observe(cases)
    }
    fn host_time(&mut self, r: std::time::Duration, j: std::time::Duration) {
        self.inner.host_time(r, j)
    }
}

/// One configuration judged: its row, the case that ran, what the device showed.
struct Judgement {
    row: Row,
    config: Config,
    case: Case,
    observation: Option<Observation>,
    /// The model's own observation, where it predicts bytes.
    predicted: Option<Observation>,
}

/// Configurations (index, class key, config) judged on `backend`, in order.
fn judge_configs(
    backend: &mut dyn Backend,
    profile: Profile,
    items: Vec<(u64, ClassKey, Config)>,
) -> Result<Vec<Judgement>, String> {
    Ok(run_configs(backend, profile, items)?.rows(|_| None))
}

/// Configurations run through the core, before their rows are made.
struct RawRuns {
    profile: Profile,
    items: Vec<(u64, ClassKey, Config)>,
    cases: Vec<Case>,
    judged: Vec<Judged>,
    seen: BTreeMap<String, Seen>,
}

/// Run configurations (index, class key, config) on `backend`, in order.
fn run_configs(
    backend: &mut dyn Backend,
    profile: Profile,
    items: Vec<(u64, ClassKey, Config)>,
) -> Result<RawRuns, String> {
    use rayon::prelude::*;
    let cases: Vec<Case> = items.par_iter().map(|(_, _, c)| c.build()).collect();
    let mut p = Predicting {
        inner: backend,
        seen: BTreeMap::new(),
    };
    let judged: Vec<Judged> =
        crate::fuzz::run_cases(&mut p, &KnownDivergences::default(), profile, &cases)?;
    Ok(RawRuns {
        profile,
        items,
        cases,
        judged,
        seen: p.seen,
    })
}

impl RawRuns {
    /// The judgements, in order. `unkept` names the cases a replay did not judge because their
    /// recorded bytes, not kept, differ from the prediction (the backend says so, typed).
    fn rows(mut self, mut unkept: impl FnMut(&str) -> Option<replay::Unkept>) -> Vec<Judgement> {
        let mut out = Vec::with_capacity(self.items.len());
        let all = self.items.into_iter().zip(self.cases).zip(self.judged);
        for (((index, key, config), case), j) in all {
            // A case the core kept from the backend (a reference failure) still gets its
            // prediction.
            let seen = self.seen.remove(&case.name).unwrap_or_else(|| Seen {
                prediction: gen::predict(&case, self.profile).unwrap_or(Predicted {
                    outcomes: Prediction::one(HwOutcome::Completes),
                    rule: None,
                }),
                own: None,
                as_encoded: None,
            });
            let pred = seen.prediction;
            let mut observed = j.observation.as_ref().map(|o| HwOutcome::of(&o.outcome));
            let mut agree = observed.map(|o| {
                if pred.well_defined() {
                    j.result.verdict == Verdict::Pass
                } else {
                    pred.outcomes.has_class(o.class())
                }
            });
            // An undefined completion through maps as encoded: its bytes judged as a defined run's.
            let mut bytes = match (&seen.as_encoded, &j.observation) {
                (Some(e), Some(o)) if observed == Some(HwOutcome::Completes) => {
                    let mut r = j.result.clone();
                    ptxconform_core::judge::judge(&case, e, o, &mut r);
                    Some(r.verdict == Verdict::Pass)
                }
                _ => None,
            };
            if let Some(replay::Unkept { certain, .. }) = unkept(&case.name) {
                // A replayed completion whose bytes differ from this prediction (not kept).
                observed = Some(HwOutcome::Completes);
                if pred.well_defined() {
                    agree = certain.then_some(false);
                } else {
                    agree = Some(pred.outcomes.allows(HwOutcome::Completes));
                    bytes = certain.then_some(false);
                }
            }
            if bytes == Some(false) {
                agree = Some(false);
            }
            let kind = match observed {
                Some(HwOutcome::Traps(k)) => Some(KindScore::of(&pred.outcomes, k)),
                _ => None,
            };
            let expect_tx = config
                .placement
                .as_ref()
                .zip(config.load_tx())
                .map(|(pl, c)| pl.expect_tx(c).iter().sum());
            let row = Row {
                index,
                case: case.name.clone(),
                key,
                predicted: pred.outcomes.outcomes().collect(),
                rule: pred.rule.map(str::to_string),
                observed,
                verdict: j.result.verdict.name().to_string(),
                agree,
                kind,
                bytes,
                expect_tx,
                shared_allocation: config.placement.as_ref().and(case.memory.shared_allocation),
                detail: j.result.detail.clone(),
            };
            out.push(Judgement {
                row,
                config,
                case,
                observation: j.observation,
                predicted: seen.own,
            });
        }
        out
    }
}

/// A disagreement: the class or bytes, or the trap kind, not predicted.
fn disagrees(r: &Row) -> bool {
    r.agree == Some(false) || r.kind == Some(KindScore::Wrong)
}

/// The same disagreement: the same prediction and kind of prediction, the same outcome observed.
fn same_disagreement(a: &Row, b: &Row) -> bool {
    disagrees(b)
        && a.predicted == b.predicted
        && a.well_defined() == b.well_defined()
        && a.observed == b.observed
}

/// Shrink each disagreement's configuration greedily: every round runs all neighbours of every
/// unfinished one as one batch and keeps, per disagreement, the first that disagrees the same way.
fn minimize(
    backend: &mut dyn Backend,
    profile: Profile,
    found: Vec<Judgement>,
    rounds: usize,
) -> Result<Vec<Judgement>, String> {
    let mut cur: Vec<(Judgement, bool)> = found.into_iter().map(|j| (j, false)).collect();
    for _ in 0..rounds {
        let mut owners = Vec::new();
        let mut items = Vec::new();
        for (k, (j, done)) in cur.iter().enumerate() {
            if *done {
                continue;
            }
            for c in j.config.shrink() {
                owners.push(k);
                items.push((j.row.index, j.row.key.clone(), c));
            }
        }
        if items.is_empty() {
            break;
        }
        let tried = judge_configs(backend, profile, items)?;
        let mut moved = vec![false; cur.len()];
        for (k, t) in owners.into_iter().zip(tried) {
            if !moved[k] && same_disagreement(&cur[k].0.row, &t.row) {
                moved[k] = true;
                cur[k].0.config = t.config;
                cur[k].0.case = t.case;
                cur[k].0.observation = t.observation;
                cur[k].0.row.detail = t.row.detail;
            }
        }
        for (k, m) in moved.into_iter().enumerate() {
            if !m {
                cur[k].1 = true;
            }
        }
    }
    Ok(cur.into_iter().map(|(j, _)| j).collect())
}

/// How a sweep runs.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    pub profile: Profile,
    pub seed: u64,
    pub draw: Draw,
    /// Configurations `start .. start + count` of the seed.
    pub start: u64,
    pub count: u64,
    pub batch: usize,
    /// Disagreements minimized (the first ones), and rounds each may take.
    pub minimize: usize,
    pub minimize_rounds: usize,
}

/// Run `plan.count` configurations on `backend` in batches. The report keeps a [`Record`] of
/// every observation; disagreeing cases (the first `plan.minimize` minimized, with their
/// observation; the rest as drawn, with their outcome) go to `out/disagreements.yaml` when `out`
/// is given.
pub fn sweep(backend: &mut dyn Backend, plan: Plan, out: Option<&Path>) -> Result<Report, String> {
    let mut info = backend.info();
    info.profile = plan.profile.name().into();
    info.mode = "sweep".into();
    let mut rows = Vec::new();
    let mut records = Vec::new();
    let mut done = 0;
    let mut found = Vec::new();
    let step = plan.batch.max(1) as u64;
    let end_all = plan.start.saturating_add(plan.count);
    let mut start = plan.start;
    // Records go out batch by batch, so a sweep stopped by a time limit keeps what it observed.
    let records_file = out.map(|d| d.join("records.jsonl"));
    if let Some(f) = &records_file {
        std::fs::create_dir_all(f.parent().unwrap_or(Path::new(".")))
            .and_then(|_| std::fs::write(f, ""))
            .map_err(|e| format!("{}: {e}", f.display()))?;
    }
    while start < end_all {
        let end = (start + step).min(end_all);
        let items = (start..end)
            .map(|i| {
                let d = gen::draw_as(plan.draw, plan.seed, i);
                (i, d.key, d.config)
            })
            .collect();
        for j in judge_configs(backend, plan.profile, items)? {
            if let Some(o) = &j.observation {
                records.push(Record::of(
                    (plan.seed, j.row.index, j.config.draw()),
                    &j.case,
                    j.config.load_tx(),
                    o,
                    j.predicted.as_ref(),
                )?);
            }
            rows.push(j.row.clone());
            if disagrees(&j.row) {
                found.push(j);
            }
        }
        if let Some(f) = &records_file {
            use std::io::Write;
            let lines = records::to_lines(&records[done..]);
            std::fs::OpenOptions::new()
                .append(true)
                .open(f)
                .and_then(|mut w| w.write_all(lines.as_bytes()))
                .map_err(|e| format!("{}: {e}", f.display()))?;
        }
        done = records.len();
        eprintln!("sweep: {}/{}", end - plan.start, plan.count);
        start = end;
    }
    let mut rest = found.split_off(found.len().min(plan.minimize));
    for j in &mut rest {
        // Their bytes are in the records; the outcome is kept.
        if let Some(o) = &mut j.observation {
            o.regions.clear();
        }
    }
    let mut found = minimize(backend, plan.profile, found, plan.minimize_rounds)?;
    found.extend(rest);
    if let Some(dir) = out {
        save(dir, found, plan.profile)?;
    }
    let mut report = Report::new(info, plan.seed, rows);
    report.records = records;
    Ok(report)
}

/// The disagreeing cases as regression cases in one file: each with its prediction as
/// `expect`, the observation kept.
fn save(dir: &Path, found: Vec<Judgement>, profile: Profile) -> Result<(), String> {
    if found.is_empty() {
        return Ok(());
    }
    let cases: Vec<Case> = found
        .into_iter()
        .map(|j| {
            let (row, mut case) = (j.row, j.case);
            if let Ok(p) = gen::predict(&case, profile) {
                case.expect = Some(p.expect());
            }
            case.description = format!(
                "sweep disagreement: predicted {} ({}), observed {}: {}",
                score::prediction_name(&row.predicted),
                row.rule.as_deref().unwrap_or("well defined"),
                row.observed.map_or("nothing".into(), score::outcome_name),
                row.detail
            );
            case.observed.extend(j.observation);
            case
        })
        .collect();
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = dir.join("disagreements.yaml");
    std::fs::write(&file, to_yaml(&cases)).map_err(|e| format!("{}: {e}", file.display()))
}

fn write_report(out: &Path, report: &Report) -> Result<(PathBuf, PathBuf), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let json = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
    let jp = out.join("sweep.json");
    std::fs::write(&jp, format!("{json}\n")).map_err(|e| format!("{}: {e}", jp.display()))?;
    let mp = out.join("sweep.md");
    std::fs::write(&mp, report.markdown()).map_err(|e| format!("{}: {e}", mp.display()))?;
    Ok((jp, mp))
}

pub fn main(args: &SweepArgs) -> Result<i32, String> {
    let plan = Plan {
        profile: args.profile,
        seed: args.seed,
        draw: Draw::of(args.draw).ok_or_else(|| format!("--draw {}: 1 or 2", args.draw))?,
        start: args.start,
        count: args.count,
        batch: args.batch,
        minimize: args.minimize,
        minimize_rounds: args.minimize_rounds,
    };
    let t = std::time::Instant::now();
    if !args.replay.is_empty() {
        let report = replay::replay(records::read_files(&args.replay)?, plan, Some(&args.out))?;
        let (jp, mp) = write_report(&args.out, &report)?;
        summarize(&report, t, &jp, &mp);
        return Ok(0);
    }
    let devs = ptxconform_gpu::device::devices_unless(
        args.reference_only,
        &args.devices,
        "the model's own prediction stands in for the device",
    );
    let mut fleet = None;
    if !devs.is_empty() {
        let engines = devs
            .iter()
            .map(|d| {
                let mut e = crate::fuzz::gpu(d, args.job_timeout, args.opt_level)?;
                e.info.mode = "sweep: reference + hardware".into();
                if devs.len() > 1 {
                    e.label = format!("GPU {} ({})", d.ordinal, d.name);
                }
                Ok(e)
            })
            .collect::<Result<Vec<_>, String>>()?;
        fleet = Some(ptxconform_gpu::engine::fleet::Fleet { engines });
    }
    let mut predicted = ptxconform_core::differential::Predicted {
        info: RunInfo {
            device: "reference (model's own prediction)".into(),
            date: ptxconform_core::result::today(),
            ptxconform: env!("CARGO_PKG_VERSION").into(),
            ..RunInfo::default()
        },
    };
    let backend: &mut dyn Backend = match fleet.as_mut() {
        Some(f) => f,
        None => &mut predicted,
    };
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let report = sweep(backend, plan, Some(&args.out))?;
    let (jp, mp) = write_report(&args.out, &report)?;
    summarize(&report, t, &jp, &mp);
    Ok(0)
}

fn summarize(report: &Report, t: std::time::Instant, jp: &Path, mp: &Path) {
    let t_ = &report.total;
    println!(
        "sweep of {} configurations in {:.1} s on {}: well defined {}/{} exact, undefined {}/{} \
         outcome class allowed ({} undecided), traps {}/{} exact kind ({} undecided), {} not \
         observed, {} disagreements; {} and {}",
        report.count,
        t.elapsed().as_secs_f64(),
        report.info.device,
        t_.defined_agree,
        t_.defined,
        t_.undefined_agree,
        t_.undefined,
        t_.undefined_undecided,
        t_.traps_exact,
        t_.traps,
        t_.traps_undecided,
        t_.not_observed,
        report.disagreements.len(),
        jp.display(),
        mp.display()
    );
    for (target, (a, n)) in score::TARGETS.iter().zip(t_.figures()) {
        println!(
            "  target {}: {a}/{n} = {} (≥ {}%)",
            target.what,
            score::pct(a, n),
            target.at_least
        );
    }
}

#[cfg(test)]
mod tests;
