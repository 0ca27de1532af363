//! The static-legality differential: the model's verdict for every (variant, target) against what
//! ptxas accepts, plus the PTX-version boundary of every variant whose minimum PTX version is
//! above its target's own minimum.
//!
//! Speed: instructions are assembled in batches (one kernel, one instruction per line); ptxas
//! errors are mapped back to lines, the flagged lines removed and the rest re-assembled until a
//! batch passes cleanly, so one error cannot mask another. Errors that name no instruction line
//! split the batch in halves. Batches run in parallel (rayon).

use ptxconform_core::glob::glob;
use ptxconform_gpu::ptxas::Ptxas;
use ptxconform_gpu::test_kernel::KernelBuilder;
use ptxconform_reference::ptx::Instruction;
use ptxconform_reference::target::{PtxVersion, Target, Verdict};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `ptxconform legality` options.
#[derive(clap::Args, Debug, Clone)]
pub struct LegalityArgs {
    /// Comma-separated targets.
    #[arg(long, value_delimiter = ',', default_value = DEFAULT_TARGETS, value_parser = known_target)]
    pub targets: Vec<Target>,
    /// Write figures and every disagreement as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Parallel ptxas processes (default: number of CPUs; sets the process's thread count).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Known-disagreements file (default: reports/legality/exceptions.yaml of this repository).
    #[arg(long)]
    pub exceptions: Option<PathBuf>,
    /// Instructions per assembled kernel.
    #[arg(long, default_value_t = 96)]
    pub batch: usize,
    /// Fail on any disagreement (listed or not) and on stale exceptions, not only unexplained ones.
    #[arg(long)]
    pub strict: bool,
    /// Print listed disagreements in full too (not only counted per exception).
    #[arg(long)]
    pub verbose: bool,
    /// Only the families whose name contains one of these (comma-separated), e.g. `tensormap`.
    #[arg(long, value_delimiter = ',')]
    pub family: Vec<String>,
}

/// Every variant, or those of the families `parts` name a part of (an error if one names none).
pub fn variants_of(parts: &[String]) -> Result<Vec<Instruction>, String> {
    let all = Instruction::all_variants();
    for p in parts {
        if !all.iter().any(|v| v.family().contains(p.as_str())) {
            let fams: BTreeSet<&str> = all.iter().map(|v| v.family()).collect();
            let fams: Vec<&str> = fams.into_iter().collect();
            return Err(format!(
                "--family {p}: no family's name contains it (families: {})",
                fams.join(", ")
            ));
        }
    }
    Ok(all
        .into_iter()
        .filter(|v| parts.is_empty() || parts.iter().any(|p| v.family().contains(p.as_str())))
        .collect())
}

/// Which question an assembly answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    /// At the newest PTX version ptxas knows: legal on this target or not.
    Target,
    /// At the variant's minimum PTX version for this target: must assemble.
    AtMin,
    /// One PTX version below that minimum: must be rejected.
    BelowMin,
}

impl CheckKind {
    /// The name used in the exceptions file and reports.
    pub fn name(self) -> &'static str {
        match self {
            CheckKind::Target => "target",
            CheckKind::AtMin => "at_min",
            CheckKind::BelowMin => "below_min",
        }
    }
}

/// One (variant, target, PTX version) question and the model's answer.
#[derive(Clone, Debug)]
pub struct Check {
    pub variant: usize,
    pub target: Target,
    pub ptx: PtxVersion,
    pub kind: CheckKind,
    pub model: Verdict,
}

impl Check {
    pub fn expect_ok(&self) -> bool {
        self.model == Verdict::Legal
    }
}

/// A `--targets` entry: a target the pinned ptxas knows. `Target`'s own parser takes any
/// `sm_NN`, and a verdict on an invented target (`sm_99`) would read as a fact.
pub fn known_target(s: &str) -> Result<Target, String> {
    let t: Target = s.parse()?;
    if Target::all_known().contains(&t) {
        return Ok(t);
    }
    let known: Vec<String> = Target::all_known().iter().map(|t| t.to_string()).collect();
    Err(format!(
        "`{t}` is not a target the pinned ptxas knows ({})",
        known.join(" ")
    ))
}

/// The targets of a full run: the exceptions file is written against them.
pub const DEFAULT_TARGETS: &str = "sm_80,sm_90a,sm_100a";

/// Whether `targets` include every default target: only then does an exception that no
/// disagreement met "no longer occur" (it may concern a target left out).
pub fn judges_staleness(targets: &[Target]) -> bool {
    DEFAULT_TARGETS
        .split(',')
        .all(|d| targets.iter().any(|t| t.to_string() == d))
}

impl Stale {
    /// Stale for sure: judged on the full target set, or matching no variant at all.
    pub fn certain(&self, targets: &[Target]) -> bool {
        judges_staleness(targets) || !self.names_a_variant
    }
}

/// Every check for `variants` on `targets`.
pub fn plan(variants: &[Instruction], targets: &[Target]) -> Vec<Check> {
    let max = PtxVersion::MAX_SUPPORTED;
    let mut out = Vec::new();
    for (i, v) in variants.iter().enumerate() {
        let req = v.requirement();
        for &t in targets {
            let model = req.verdict(t, max);
            let legal = model == Verdict::Legal;
            out.push(Check {
                variant: i,
                target: t,
                ptx: max,
                kind: CheckKind::Target,
                model,
            });
            if !legal {
                continue;
            }
            let Ok(min) = req.min_ptx_for(t) else {
                continue;
            };
            if min <= t.min_ptx() {
                continue;
            }
            if min < max {
                out.push(Check {
                    variant: i,
                    target: t,
                    ptx: min,
                    kind: CheckKind::AtMin,
                    model: Verdict::Legal,
                });
            }
            if let Some(below) = min.previous() {
                let model = req.verdict(t, below);
                out.push(Check {
                    variant: i,
                    target: t,
                    ptx: below,
                    kind: CheckKind::BelowMin,
                    model,
                });
            }
        }
    }
    out
}

/// Assemble the body lines of `kb` as one batch and say, per line, whether ptxas rejected it and
/// with which messages (`None`: accepted). Flagged lines are removed and the rest re-assembled
/// until clean; an error on no body line splits the batch (a single line takes the blame).
pub fn judge_lines(ptxas: &Ptxas, kb: &KernelBuilder) -> Vec<Option<String>> {
    let n = kb.body().len();
    let mut verdict: Vec<Option<String>> = vec![None; n];
    let mut stack: Vec<Vec<usize>> = vec![(0..n).collect()];
    while let Some(set) = stack.pop() {
        if set.is_empty() {
            continue;
        }
        let k = kb.build_only(&set);
        let Err(errs) = ptxas.assemble(&k.text, kb.target) else {
            continue;
        };
        let mut flagged: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for e in &errs {
            if let Some(j) = e.line.and_then(|l| k.body_index_at(l)) {
                flagged.entry(set[j]).or_default().push(e.message.clone());
            }
        }
        if flagged.is_empty() {
            if set.len() == 1 {
                verdict[set[0]] = Some(
                    errs.iter()
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                        .join("; "),
                );
            } else {
                let (a, b) = set.split_at(set.len() / 2);
                stack.push(a.to_vec());
                stack.push(b.to_vec());
            }
            continue;
        }
        let rest: Vec<usize> = set
            .iter()
            .copied()
            .filter(|i| !flagged.contains_key(i))
            .collect();
        for (i, msgs) in flagged {
            verdict[i] = Some(msgs.join("; "));
        }
        stack.push(rest);
    }
    verdict
}

/// Assemble every check; returns ptxas' answer per check (`None`: accepted).
pub fn assemble_checks(
    ptxas: &Ptxas,
    variants: &[Instruction],
    checks: &[Check],
    batch: usize,
) -> Vec<Option<String>> {
    let mut groups: BTreeMap<(Target, PtxVersion), Vec<usize>> = BTreeMap::new();
    for (i, c) in checks.iter().enumerate() {
        groups.entry((c.target, c.ptx)).or_default().push(i);
    }
    let jobs: Vec<(Target, PtxVersion, Vec<usize>)> = groups
        .into_iter()
        .flat_map(|((t, v), idx)| {
            idx.chunks(batch.max(1))
                .map(|c| (t, v, c.to_vec()))
                .collect::<Vec<_>>()
        })
        .collect();
    let results: Vec<Vec<(usize, Option<String>)>> = jobs
        .par_iter()
        .map(|(t, v, idx)| {
            let mut kb = KernelBuilder::new(*v, *t);
            for &i in idx {
                kb.push_instruction(&variants[checks[i].variant]);
            }
            idx.iter().copied().zip(judge_lines(ptxas, &kb)).collect()
        })
        .collect();
    let mut out = vec![None; checks.len()];
    for (i, r) in results.into_iter().flatten() {
        out[i] = r;
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Exceptions: known disagreements, each with a reason.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExceptionReason {
    /// The PTX ISA text is wrong or incomplete; ptxas is taken as the truth for the test.
    DocumentationError,
    /// ptxas deviates from the PTX ISA text; the model keeps the documented rule.
    AssemblerQuirk,
}

/// One known disagreement. `row` and `text` are `*`-globs over the coverage row and the
/// instruction text; at least one must be given. Empty `targets`/`checks` match all.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exception {
    #[serde(default)]
    pub row: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub targets: Vec<Target>,
    #[serde(default)]
    pub checks: Vec<CheckKind>,
    pub reason: ExceptionReason,
    pub note: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExceptionFile {
    #[serde(default)]
    pub exceptions: Vec<Exception>,
}

impl Exception {
    /// The patterns that identify it in reports: `row=… text=… targets=… checks=…`.
    pub fn label(&self) -> String {
        let mut parts = Vec::new();
        if let Some(r) = &self.row {
            parts.push(format!("row={r}"));
        }
        if let Some(t) = &self.text {
            parts.push(format!("text={t}"));
        }
        if !self.targets.is_empty() {
            parts.push(format!(
                "targets={}",
                self.targets
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ));
        }
        if !self.checks.is_empty() {
            parts.push(format!(
                "checks={}",
                self.checks
                    .iter()
                    .map(|c| c.name())
                    .collect::<Vec<_>>()
                    .join(",")
            ));
        }
        parts.join(" ")
    }
    pub fn matches(&self, d: &Disagreement) -> bool {
        (self.row.is_some() || self.text.is_some())
            && self.row.as_deref().is_none_or(|p| glob(p, &d.row))
            && self.text.as_deref().is_none_or(|p| glob(p, &d.instruction))
            && (self.targets.is_empty() || self.targets.contains(&d.target))
            && (self.checks.is_empty() || self.checks.contains(&d.check))
    }
}

pub fn load_exceptions(path: &Path) -> Result<ExceptionFile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_exceptions(&text).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn parse_exceptions(text: &str) -> Result<ExceptionFile, String> {
    if text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Ok(ExceptionFile::default());
    }
    let f: ExceptionFile = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
    for (i, e) in f.exceptions.iter().enumerate() {
        if e.row.is_none() && e.text.is_none() {
            return Err(format!(
                "exception {} names neither `row` nor `text`",
                i + 1
            ));
        }
        for p in e.row.iter().chain(&e.text) {
            ptxconform_core::glob::check(p).map_err(|m| format!("exception {}: {m}", i + 1))?;
        }
    }
    Ok(f)
}

// ---------------------------------------------------------------------------------------------
// Figures and report.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub assembled: usize,
    pub agreed: usize,
    pub disagreements: usize,
    /// Disagreements listed in the exceptions file.
    pub listed: usize,
    pub unexplained: usize,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.assembled += o.assembled;
        self.agreed += o.agreed;
        self.disagreements += o.disagreements;
        self.listed += o.listed;
        self.unexplained += o.unexplained;
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Figures {
    pub family: String,
    pub variants: usize,
    /// (variant, target) pairs at the newest PTX version.
    pub targets: Tally,
    /// PTX-version boundary checks (at the minimum version and one below).
    pub boundary: Tally,
}

#[derive(Clone, Debug, Serialize)]
pub struct Disagreement {
    pub family: String,
    pub row: String,
    pub instruction: String,
    pub target: Target,
    /// The `.version` assembled, e.g. `9.0`.
    pub ptx: String,
    pub check: CheckKind,
    /// `legal`, `wrong_target` or `ptx_too_old`.
    pub model: String,
    pub model_reason: Option<String>,
    /// `accepted`, or ptxas' messages.
    pub ptxas: String,
    /// The exception that lists it, if any (its note).
    pub listed: Option<String>,
    /// That exception's pattern, e.g. `row=fence.acquire.*`.
    pub exception: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Stale {
    /// The exception's patterns ([`Exception::label`]).
    pub exception: String,
    pub note: String,
    /// Its patterns match some variant: on a subset of the targets it may concern one left out.
    #[serde(skip)]
    pub names_a_variant: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub ptxas: String,
    pub targets: Vec<Target>,
    pub max_ptx: String,
    pub families: Vec<Figures>,
    pub total: Figures,
    pub disagreements: Vec<Disagreement>,
    /// Exceptions that matched no disagreement in this run.
    pub stale_exceptions: Vec<Stale>,
    pub seconds: f64,
}

fn verdict_parts(v: &Verdict) -> (String, Option<String>) {
    match v {
        Verdict::Legal => ("legal".into(), None),
        Verdict::WrongTarget { why } => ("wrong_target".into(), Some(why.clone())),
        Verdict::PtxTooOld { why, needs } => (
            "ptx_too_old".into(),
            Some(format!("{why} (needs PTX {needs})")),
        ),
    }
}

/// Compare model and ptxas answers and tally them per family.
pub fn compare(
    variants: &[Instruction],
    checks: &[Check],
    answers: &[Option<String>],
    exceptions: &ExceptionFile,
) -> (Vec<Figures>, Vec<Disagreement>, Vec<Stale>) {
    let texts: Vec<String> = variants
        .iter()
        .map(|v| {
            KernelBuilder::new(PtxVersion::MAX_SUPPORTED, Target::SM_80)
                .instantiate(v)
                .to_string()
        })
        .collect();
    let mut fams: BTreeMap<&'static str, Figures> = BTreeMap::new();
    for v in variants {
        let f = fams.entry(v.family()).or_insert_with(|| Figures {
            family: v.family().into(),
            ..Default::default()
        });
        f.variants += 1;
    }
    let mut used = vec![false; exceptions.exceptions.len()];
    let mut dis = Vec::new();
    for (c, a) in checks.iter().zip(answers) {
        let v = &variants[c.variant];
        let f = fams.get_mut(v.family()).expect("family tallied above");
        let t = if c.kind == CheckKind::Target {
            &mut f.targets
        } else {
            &mut f.boundary
        };
        t.assembled += 1;
        if c.expect_ok() == a.is_none() {
            t.agreed += 1;
            continue;
        }
        t.disagreements += 1;
        let (model, model_reason) = verdict_parts(&c.model);
        let mut d = Disagreement {
            family: v.family().into(),
            row: v.row(),
            instruction: texts[c.variant].clone(),
            target: c.target,
            ptx: c.ptx.to_string(),
            check: c.kind,
            model,
            model_reason,
            ptxas: a.clone().unwrap_or_else(|| "accepted".into()),
            listed: None,
            exception: None,
        };
        if let Some(i) = exceptions.exceptions.iter().position(|e| e.matches(&d)) {
            used[i] = true;
            d.listed = Some(exceptions.exceptions[i].note.clone());
            d.exception = Some(exceptions.exceptions[i].label());
            t.listed += 1;
        } else {
            t.unexplained += 1;
        }
        dis.push(d);
    }
    let stale = exceptions
        .exceptions
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(e, _)| Stale {
            exception: e.label(),
            note: e.note.clone(),
            names_a_variant: variants.iter().zip(&texts).any(|(v, text)| {
                e.row.as_deref().is_none_or(|p| glob(p, &v.row()))
                    && e.text.as_deref().is_none_or(|p| glob(p, text))
            }),
        })
        .collect();
    (fams.into_values().collect(), dis, stale)
}

fn default_exceptions_path() -> PathBuf {
    let local = PathBuf::from("reports/legality/exceptions.yaml");
    if local.exists() {
        return local;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/legality/exceptions.yaml")
}

/// Run the whole differential.
pub fn run_report(ptxas: &Ptxas, args: &LegalityArgs) -> Result<Report, String> {
    let start = Instant::now();
    let ex_path = args
        .exceptions
        .clone()
        .unwrap_or_else(default_exceptions_path);
    let exceptions = if ex_path.exists() || args.exceptions.is_some() {
        load_exceptions(&ex_path)?
    } else {
        ExceptionFile::default()
    };
    let variants = variants_of(&args.family)?;
    let checks = plan(&variants, &args.targets);
    let answers = assemble_checks(ptxas, &variants, &checks, args.batch);
    let (families, disagreements, mut stale) = compare(&variants, &checks, &answers, &exceptions);
    if !args.family.is_empty() {
        // An exception about a family left out is not judged by this run.
        stale.retain(|s| s.names_a_variant);
    }
    let mut total = Figures {
        family: "total".into(),
        ..Default::default()
    };
    for f in &families {
        total.variants += f.variants;
        total.targets.add(&f.targets);
        total.boundary.add(&f.boundary);
    }
    Ok(Report {
        ptxas: ptxas.version.clone(),
        targets: args.targets.clone(),
        max_ptx: PtxVersion::MAX_SUPPORTED.to_string(),
        families,
        total,
        disagreements,
        stale_exceptions: stale,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Print figures; unexplained disagreements in full, listed ones counted per exception (in full
/// with `verbose`).
fn print_report(r: &Report, verbose: bool) {
    let ts: Vec<String> = r.targets.iter().map(|t| t.to_string()).collect();
    println!(
        "ptxas: {}   targets: {}   PTX {}",
        r.ptxas,
        ts.join(","),
        r.max_ptx
    );
    let mut per_exception: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &r.disagreements {
        if let (Some(ex), false) = (&d.exception, verbose) {
            *per_exception.entry(ex.as_str()).or_default() += 1;
            continue;
        }
        let tag = if d.listed.is_some() {
            "listed     "
        } else {
            "UNEXPLAINED"
        };
        println!(
            "{tag} {} @ {} PTX {} [{}]: model {}{} / ptxas {}",
            d.instruction,
            d.target,
            d.ptx,
            d.check.name(),
            d.model,
            d.model_reason
                .as_deref()
                .map(|w| format!(" ({w})"))
                .unwrap_or_default(),
            d.ptxas
        );
    }
    for (ex, n) in per_exception {
        println!("listed      {n} disagreement(s) under exception {ex}");
    }
    for s in &r.stale_exceptions {
        if s.certain(&r.targets) {
            println!("stale exception (no longer occurs): {}", s.exception);
        } else {
            println!(
                "exception not met on these targets (stale only if a run on {DEFAULT_TARGETS} does not meet it either): {}",
                s.exception
            );
        }
    }
    println!(
        "{:<28} {:>8} | {:>9} {:>7} {:>8} {:>6} {:>11} | {:>8} {:>7} {:>8} {:>6} {:>11}",
        "family",
        "variants",
        "pairs",
        "agreed",
        "disagree",
        "listed",
        "unexplained",
        "boundary",
        "agreed",
        "disagree",
        "listed",
        "unexplained"
    );
    for f in r.families.iter().chain(std::iter::once(&r.total)) {
        let (a, b) = (&f.targets, &f.boundary);
        println!(
            "{:<28} {:>8} | {:>9} {:>7} {:>8} {:>6} {:>11} | {:>8} {:>7} {:>8} {:>6} {:>11}",
            f.family,
            f.variants,
            a.assembled,
            a.agreed,
            a.disagreements,
            a.listed,
            a.unexplained,
            b.assembled,
            b.agreed,
            b.disagreements,
            b.listed,
            b.unexplained
        );
    }
    println!("{:.1}s", r.seconds);
}

/// `ptxconform legality`: exit code 0 unless there are unexplained disagreements (or, with
/// `--strict`, any disagreement or stale exception).
pub fn main(args: &LegalityArgs) -> Result<i32, String> {
    if args.targets.is_empty() {
        return Err("no targets given".into());
    }
    let ptxas = Ptxas::find()?;
    let r = run_report(&ptxas, args)?;
    print_report(&r, args.verbose);
    if let Some(p) = &args.json {
        let j = serde_json::to_string_pretty(&r).map_err(|e| e.to_string())?;
        std::fs::write(p, j).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    let t = {
        let mut t = r.total.targets;
        t.add(&r.total.boundary);
        t
    };
    let fail = t.unexplained > 0
        || (args.strict
            && (t.disagreements > 0 || r.stale_exceptions.iter().any(|s| s.certain(&r.targets))));
    Ok(if fail { 1 } else { 0 })
}

#[cfg(test)]
mod tests;
