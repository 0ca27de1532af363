//! `ptxconform run`: the main job. Loads the corpus, runs every case on the reference model and —
//! where a GPU is present — on hardware, classifies each case, journals every result as it
//! arrives (so `--resume` after a kill loses nothing), and writes the reports.

mod case_set;
pub mod console;
pub mod select;

use ptxconform_core::corpus::{load_corpus, LoadError, Loaded};
use ptxconform_core::result::today;
use ptxconform_gpu::engine as gpu;

use crate::journal::{key, Claim, Header, Journal};
use crate::report::write_all;
use console::Console;
use indicatif::{ProgressBar, ProgressStyle};
use ptxconform_core::differential::Backend;
use ptxconform_core::known::{KnownDivergences, Site};
use ptxconform_core::result::{CaseResult, RunInfo, Scope, Summary, Verdict};
use ptxconform_gpu::device::DeviceInfo;
use ptxconform_reference::case::{load_file, to_yaml, Case, Observation};
use ptxconform_reference::sem::profile::Profile;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    /// Case files or directories (default: `cases/`; `planted/` and `probes/` folders are skipped unless named).
    pub paths: Vec<PathBuf>,
    /// Run the reference model only, even if a GPU is present.
    #[arg(long)]
    pub reference_only: bool,
    /// Continue the run whose results are in --out (a killed run, or a finished one: nothing is
    /// counted twice).
    #[arg(long)]
    pub resume: bool,
    /// Discard the results of an earlier run in --out (a folder holding them is refused
    /// otherwise).
    #[arg(long, conflicts_with = "resume")]
    pub force: bool,
    /// Report directory (journal, summary.json, junit.xml, report.html, divergences/); the
    /// default, reports/runs/latest, is replaced by each run that does not --resume.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print the selected cases (`FILE:NAME`, one per line) and exit without running them.
    #[arg(long)]
    pub list: bool,
    #[command(flatten)]
    pub select: select::SelectArgs,
    #[command(flatten)]
    pub output: console::OutputArgs,
    /// Record hardware observations into the case files (GPU runs).
    #[arg(long, conflicts_with = "replay")]
    pub record: bool,
    /// Judge the corpus against the observations recorded in the case files on a device whose
    /// name contains this text (e.g. `H100`), as a live run on it would, without a GPU.
    #[arg(long, value_name = "DEVICE")]
    pub replay: Option<String>,
    /// GPUs to spread the batches over: `all`, or ordinals such as `0,2` (`0,0`: two workers on
    /// device 0).
    #[arg(long, alias = "device", default_value = "all")]
    pub devices: ptxconform_gpu::device::Devices,
    /// Cases prepared, launched and judged together (the progress bar moves per batch).
    #[arg(long, default_value_t = 1024)]
    pub batch: usize,
    /// Known divergences (named, explained), reported but not failing the run.
    #[arg(long, default_value = "reports/known-divergences.yaml")]
    pub known: PathBuf,
    /// The reading hardware (live or recorded) is judged against: `sm_90` (what the silicon was
    /// recorded doing; a result that departs from the text there passes with a "spec departure"
    /// note) or `spec` (what the PTX ISA text guarantees; such results fail). `ptxconform rules`
    /// lists the positions where the two differ.
    #[arg(long, value_name = "PROFILE", default_value = "sm_90")]
    pub profile: Profile,
    /// Per-job watchdog (seconds) on the GPU.
    #[arg(long, default_value_t = 20)]
    pub job_timeout: u64,
    /// Run only shard I of N (0-based) of the cases, by a stable hash of file and case name;
    /// `auto` reads a Slurm array job's or a Kubernetes Indexed Job's variables. Merge the shards'
    /// `--out` folders with `ptxconform merge`.
    #[arg(long, value_name = "I/N|auto")]
    pub shard: Option<crate::shard::Shard>,
    /// Which hardware departures are run again under other builds to name the culprit
    /// (silicon, compiler, flaky): `auto` those no known finding explains, `all` every
    /// divergence, trap and timeout, `none`.
    #[arg(long, default_value = "auto", value_name = "auto|all|none")]
    pub attribute: ptxconform_gpu::attribution::Scope,
    /// The builds a departure is run again under (default: every build that can be made here:
    /// `jit`, the pinned ptxas at -O0, other installed ptxas releases), e.g.
    /// `jit-O4,ptxas-13.0-O0,ptxas-13.5-O3`.
    #[arg(long, value_name = "LIST")]
    pub builds: Option<ptxconform_gpu::builds::BuildList>,
    /// The build the run's kernels are made with (default: the pinned ptxas at -O3, or the
    /// driver JIT when no ptxas is found), e.g. `jit-O4` or `ptxas-13.5-O0`.
    #[arg(long, value_name = "BUILD")]
    pub build: Option<ptxconform_gpu::builds::Codegen>,
    /// Run every case under the run's build: no routing of a known compiler defect's cases to a
    /// build without it, nor of its reproducers to one with it (`builds:` of the finding in
    /// `reports/known-divergences.yaml`).
    #[arg(long)]
    pub no_build_routing: bool,
    /// The least time, in milliseconds, a `wait_parity` step waits before the wait is a timeout;
    /// each launch adds what its bytes may take at 10 GB/s (default 20; the waits were 200 ms
    /// before).
    #[arg(long, value_name = "MS")]
    pub wait_floor_ms: Option<u64>,
    /// Launches expected to trap (predicted by the model, known findings, recorded traps) run
    /// at the end of each batch, each in a worker process of its own, N at a time; 1: they run
    /// first on the device's worker, a fresh worker after each trap.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub trap_workers: usize,
}

/// The mode a run without hardware records (`RunInfo::mode`).
pub const REFERENCE_ONLY: &str = "reference-only";

/// The scratch report folder: a run that names no --out replaces what is there.
const DEFAULT_OUT: &str = "reports/runs/latest";

/// What a run leaves in its --out folder (the journal, [`write_all`]'s reports, divergence
/// reports): cleared by --force, and found there it means an earlier run's results.
const RUN_FILES: [&str; 6] = [
    "journal.jsonl",
    "summary.json",
    "summary.md",
    "junit.xml",
    "report.html",
    "divergences",
];

impl RunArgs {
    pub fn out(&self) -> PathBuf {
        self.out.clone().unwrap_or_else(|| DEFAULT_OUT.into())
    }
}

/// What a run does with its --out folder, decided before the corpus loads, so a refused --out
/// (another run's results, a folder that cannot be written) is said at once.
enum OutPlan {
    /// Continue the journal there.
    Resume(Claim),
    /// Start a journal, first clearing an earlier run's results when `replace`.
    Start { claim: Claim, replace: bool },
}

/// Take the --out folder for this run: refused while another run writes there, and refused if it
/// holds an earlier run's results unless the run resumes them or discards them (--force, or the
/// default folder).
fn claim_out(args: &RunArgs) -> Result<OutPlan, String> {
    let out = args.out();
    let claim = Claim::take(&out.join("journal.jsonl"))?;
    if args.resume {
        return Ok(OutPlan::Resume(claim));
    }
    let earlier = claim.has_results() || out.join("summary.json").exists();
    if earlier && !args.force && args.out.is_some() {
        return Err(format!(
            "{} holds the results of an earlier run: --resume continues it, --force discards \
             them, or choose another --out",
            out.display()
        ));
    }
    Ok(OutPlan::Start {
        claim,
        replace: earlier,
    })
}

impl OutPlan {
    /// Open the journal. Resuming keeps the journaled results `keep` accepts.
    fn open(
        self,
        out: &Path,
        header: &Header,
        keep: impl Fn(&CaseResult) -> bool,
        console: &Console,
    ) -> Result<(Journal, Vec<CaseResult>), String> {
        let claim = match self {
            OutPlan::Resume(claim) => return claim.resume(header, keep),
            OutPlan::Start {
                claim,
                replace: false,
            } => claim,
            OutPlan::Start {
                claim,
                replace: true,
            } => {
                console.say(&format!("replacing the earlier run in {}", out.display()));
                for name in RUN_FILES {
                    let p = out.join(name);
                    let gone = if p.is_dir() {
                        std::fs::remove_dir_all(&p)
                    } else {
                        std::fs::remove_file(&p)
                    };
                    match gone {
                        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                            return Err(format!("{}: {e}", p.display()))
                        }
                        _ => {}
                    }
                }
                claim
            }
        };
        Ok((claim.start(header)?, Vec::new()))
    }
}

fn progress(n: usize, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(n as u64);
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} cases  {per_sec}  ETA {eta}  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}

/// Journal a case's result, advance the progress bar, and show it (see [`Console::arrived`]).
/// After Ctrl-C the run ends here instead, its journal whole: a result that arrives then may be
/// the interruption's (a GPU worker killed by the same Ctrl-C), so it is not journaled.
pub(crate) fn settle(
    r: &CaseResult,
    journal: &mut Journal,
    pb: &ProgressBar,
    console: &Console,
) -> Result<(), String> {
    if crate::interrupt::requested() {
        pb.finish_and_clear();
        crate::interrupt::stop();
    }
    journal.append(r)?;
    pb.inc(1);
    console.arrived(r, pb);
    Ok(())
}

/// The engine `run` drives on `dev`: traps confirmed, the build `--build` names (else the
/// offline compiler when one is found), the known findings for isolation.
fn engine(args: &RunArgs, dev: &DeviceInfo, info: &RunInfo) -> Result<gpu::Engine, String> {
    let mut e = gpu::open(gpu::Spec {
        build: args.build.clone(),
        known: KnownDivergences::load(&args.known)?,
        route_builds: !args.no_build_routing,
        ..gpu::Spec::on(dev, info.clone(), args.job_timeout)
    })?;
    if let Some(cg) = &args.build {
        e.info.mode = format!("{} (build {cg})", e.info.mode);
    }
    if args.no_build_routing {
        e.info.mode = format!("{} (no build routing)", e.info.mode);
    }
    if let Some(ms) = args.wait_floor_ms {
        e.limits.wait_floor_ns = ms.saturating_mul(1_000_000);
    }
    e.limits.trap_workers = args.trap_workers.max(1);
    Ok(e)
}

/// Record observations into the case files (one per device: a newer one replaces the older).
fn record(recorded: &BTreeMap<String, Vec<(String, Observation)>>) -> Result<usize, String> {
    let mut n = 0;
    for (file, obs) in recorded {
        let mut cases = load_file(Path::new(file)).map_err(|e| e.to_string())?;
        for c in cases.iter_mut() {
            if let Some((_, o)) = obs.iter().find(|(name, _)| *name == c.name) {
                c.observed.retain(|x| x.device != o.device);
                c.observed.push(o.clone());
                n += 1;
            }
        }
        let before = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        let text = format!("{}{}", leading_comments(&before), to_yaml(&cases));
        std::fs::write(file, text).map_err(|e| format!("{file}: {e}"))?;
    }
    Ok(n)
}

/// The comment lines (and blank lines between them) that open a case file: they say what the
/// file is for, and re-serializing the cases would drop them.
fn leading_comments(text: &str) -> String {
    let mut head = String::new();
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if !(t.is_empty() || t.starts_with('#')) {
            break;
        }
        head.push_str(line);
    }
    if head.trim().is_empty() {
        return String::new();
    }
    let mut head = head.trim_end().to_string();
    head.push_str("\n\n");
    head
}

/// Is the case likely to trap or hang (the costly cases shards share out evenly)? It says so, or
/// the model predicts it under the default profile: every shard must make the same deal whatever
/// its own flags.
fn costly(case: &Case) -> bool {
    use ptxconform_reference::case::Expect;
    use ptxconform_reference::sem::exec::{execute_with, ExecOptions, ExpectedHw};
    matches!(case.expect, Some(Expect::Trap | Expect::Timeout))
        || matches!(
            execute_with(
                case,
                ExecOptions::of(ptxconform_core::judge::DEFAULT_PROFILE)
            )
            .map(|e| e.expected_hw),
            Ok(ExpectedHw::Timeout | ExpectedHw::MayTrap)
        )
}

/// Run the corpus. Returns the exit code: 1 if any case failed (divergence, unexpected trap or
/// timeout, reference failure, harness error), else 0.
pub fn main(args: &RunArgs) -> Result<i32, String> {
    let console = Console::new(&args.output);
    let selection = select::Selection::new(&args.select)?;
    select::check_paths(&args.paths)?;
    let plan = if args.list {
        None
    } else {
        Some(claim_out(args)?)
    };
    let (mut cases, load_errors) = load_corpus(&args.paths);
    for w in selection.apply(&mut cases) {
        eprintln!("warning: {w}");
    }
    if cases.is_empty() && load_errors.is_empty() {
        let paths: Vec<String> = if args.paths.is_empty() {
            vec!["cases".into()]
        } else {
            args.paths.iter().map(|p| p.display().to_string()).collect()
        };
        return Err(format!(
            "no cases{} in {}",
            selection.describe(),
            paths.join(", ")
        ));
    }
    let case_set = case_set::case_set(&args.paths, &args.select, &cases, &load_errors);
    let shard = args.shard.unwrap_or(crate::shard::Shard::ALL);
    let owned = if shard.is_all() {
        vec![true; cases.len()]
    } else {
        use rayon::prelude::*;
        let costly: Vec<bool> = cases.par_iter().map(|c| costly(&c.case)).collect();
        shard.owns_cases(
            cases
                .iter()
                .zip(costly)
                .map(|(c, costly)| (c.file.as_str(), c.case.name.as_str(), costly)),
        )
    };
    let mut owned = owned.into_iter();
    cases.retain(|_| owned.next().unwrap_or(false));
    let load_errors: Vec<LoadError> = load_errors
        .into_iter()
        .filter(|e| shard.owns_case(&e.file, &e.at))
        .collect();
    if cases.is_empty() && load_errors.is_empty() {
        return Err(format!(
            "shard {shard} holds none of the {} selected cases: run fewer shards",
            case_set.cases
        ));
    }
    let scope = Scope::Shards {
        case_set,
        shards: shard.into(),
    };
    let Some(plan) = plan else {
        // --list: no --out was claimed, nothing runs.
        for e in &load_errors {
            eprintln!("{}", e.message);
        }
        console.list(&cases)?;
        // A case that did not load cannot be listed: say so in the exit code too.
        return Ok(i32::from(!load_errors.is_empty()));
    };
    let gpus = ptxconform_gpu::device::devices_unless(
        args.reference_only || args.replay.is_some(),
        &args.devices,
        "running the reference-only checks",
    );
    if args.record && gpus.is_empty() {
        return Err("--record writes hardware observations: it needs a GPU".into());
    }
    // (Without a loaded case, the load errors are the report.)
    if let Some(device) = args.replay.as_ref().filter(|_| !cases.is_empty()) {
        let r = ptxconform_core::differential::Replay {
            device: device.clone(),
        };
        r.check_any(cases.iter().map(|c| &c.case))?;
    }
    // A resumed run keeps the journaled results of the cases it runs now; cases that did not
    // load are reported afresh (a file fixed since loads and runs, a file broken since is
    // reported), so no case has two results.
    let selected: BTreeSet<String> = cases.iter().map(|c| key(&c.file, &c.case.name)).collect();
    let (mut journal, done) = plan.open(
        &args.out(),
        &Header::new(scope.clone()),
        |r| selected.contains(&key(&r.file, &r.case)),
        &console,
    )?;
    crate::interrupt::catch()?;
    let skip: BTreeSet<String> = crate::journal::done_keys(&done);
    let mut results = done;
    if args.resume && !results.is_empty() {
        console.say(&format!(
            "resuming: {} results already in {}",
            results.len(),
            journal.path().display()
        ));
    }
    for e in &load_errors {
        let r = CaseResult {
            detail: e.message.clone(),
            ..CaseResult::new(&e.at, &e.file, "corpus", Verdict::ReferenceFail)
        };
        eprintln!("{}", e.message);
        journal.append(&r)?;
        results.push(r);
    }
    let todo: Vec<&Loaded> = cases
        .iter()
        .filter(|c| !skip.contains(&key(&c.file, &c.case.name)))
        .collect();
    let pb = progress(
        todo.len(),
        console.quiet() || std::env::var_os("CI").is_some(),
    );
    let replay = args
        .replay
        .as_ref()
        .map(|device| ptxconform_core::differential::Replay {
            device: device.clone(),
        });
    let mut fleet = match gpus.first() {
        None => None,
        Some(first) => {
            let base = RunInfo {
                device: first.name.clone(),
                driver: first.cuda(),
                date: today(),
                mode: "reference + hardware".into(),
                ptxconform: env!("CARGO_PKG_VERSION").into(),
                ..RunInfo::default()
            };
            let engines = gpus
                .iter()
                .map(|d| {
                    let mut e = engine(args, d, &base)?;
                    if gpus.len() > 1 {
                        e.label = format!("GPU {} ({})", d.ordinal, d.name);
                    }
                    Ok(e)
                })
                .collect::<Result<Vec<_>, String>>()?;
            Some(gpu::fleet::Fleet { engines })
        }
    };
    let mut info = match (&replay, &fleet) {
        (Some(r), _) => r.info(),
        (None, None) => RunInfo {
            device: "none (reference model only)".into(),
            driver: String::new(),
            date: today(),
            mode: REFERENCE_ONLY.into(),
            ptxconform: env!("CARGO_PKG_VERSION").into(),
            ..RunInfo::default()
        },
        (None, Some(f)) => f.info(),
    };
    info.profile = args.profile.name().into();
    if fleet.is_some() && args.profile == Profile::Sm90 {
        let scope = ptxconform_core::result::sm90_readings_seen_on();
        let here = Site {
            device: &info.device,
            driver: &info.driver,
        };
        if !scope.covers(here) {
            eprintln!(
                "note: the sm_90 profile's silicon predictions were recorded on {}; {} ({}) is \
                 outside that scope: an outcome they mispredict here is new evidence",
                scope.describe(),
                info.device,
                info.driver
            );
            info.outside_evidence = Some(scope);
        }
    }
    let known = KnownDivergences::load(&args.known)?;
    let mut attributor = match (gpus.first(), &fleet) {
        (Some(d), Some(f)) if args.attribute != ptxconform_gpu::attribution::Scope::None => {
            let primary = f.engines[0].codegen();
            let others = match &args.builds {
                Some(b) => b.0.clone(),
                None => ptxconform_gpu::builds::available(),
            };
            let mut a = ptxconform_gpu::attribution::Attributor::new(
                d,
                &info,
                args.job_timeout,
                &known,
                primary,
                others,
            );
            a.profile = args.profile;
            Some(a)
        }
        _ => None,
    };
    let ran = std::time::Instant::now();
    // Where the time went without a GPU (a GPU run's engines say it in more detail).
    let host_timing = |what: &str| {
        if !console.quiet() {
            eprintln!(
                "timing: {what} {:.2}s for {} cases",
                ran.elapsed().as_secs_f64(),
                todo.len()
            );
        }
    };
    match (&mut fleet, replay) {
        (_, Some(mut replay)) => {
            let got = run_on(
                args,
                &mut replay,
                &known,
                &todo,
                &mut journal,
                &pb,
                &console,
                None,
            )?;
            results.extend(got);
            host_timing("reference and judge of the recorded observations");
        }
        (None, None) => {
            for l in &todo {
                let (r, _) = ptxconform_core::differential::reference_side(
                    &l.file,
                    &l.case,
                    &known,
                    args.profile,
                );
                settle(&r, &mut journal, &pb, &console)?;
                results.push(r);
            }
            host_timing("reference");
        }
        (Some(fleet), None) => {
            let got = run_on(
                args,
                fleet,
                &known,
                &todo,
                &mut journal,
                &pb,
                &console,
                attributor.as_mut(),
            )?;
            results.extend(got);
            if !console.quiet() {
                eprintln!("{}", fleet.breakdown());
            }
        }
    }
    pb.finish_and_clear();
    let summary = Summary::new(info, scope, results);
    write_all(&args.out(), &summary)?;
    console.summary(&summary, &args.out())?;
    Ok(if summary.failures() > 0 { 1 } else { 0 })
}

/// Run `todo` through the differential core on `backend` in batches: known findings applied,
/// divergence reports written, observations recorded into the case files with `--record`.
#[allow(clippy::too_many_arguments)] // the run's parts, each used once per case
fn run_on(
    args: &RunArgs,
    backend: &mut dyn Backend,
    known: &KnownDivergences,
    todo: &[&Loaded],
    journal: &mut Journal,
    pb: &ProgressBar,
    console: &Console,
    mut attributor: Option<&mut ptxconform_gpu::attribution::Attributor>,
) -> Result<Vec<CaseResult>, String> {
    let mut out = Vec::new();
    let mut n_recorded = 0;
    for chunk in todo.chunks(args.batch.max(1)) {
        let batch: Vec<(&str, &Case)> = chunk.iter().map(|l| (l.file.as_str(), &l.case)).collect();
        let judged =
            ptxconform_core::differential::run_batch_under(args.profile, backend, known, &batch)?;
        // Ctrl-C during the batch (its workers may have died of it): nothing of the batch is
        // written, so the resumed run does it whole.
        if crate::interrupt::requested() {
            crate::interrupt::stop();
        }
        let attributions = match attributor.as_deref_mut() {
            Some(a) => a.attribute_some(args.attribute, known, &batch, &judged),
            None => vec![None; judged.len()],
        };
        let mut recorded: BTreeMap<String, Vec<(String, Observation)>> = BTreeMap::new();
        let mut settled = Vec::with_capacity(chunk.len());
        for ((l, j), attribution) in chunk.iter().zip(judged).zip(attributions) {
            let mut r = j.result;
            known.apply(&mut r, j.observation.as_ref().map(Site::of));
            let reported = (r.verdict.is_failure() || attribution.is_some())
                && r.verdict != Verdict::HarnessError;
            // A replayed observation comes without its program: the report carries the PTX a
            // live run would have run.
            let ptx = reported
                .then(|| {
                    j.ptx.clone().or_else(|| {
                        j.observation.as_ref()?;
                        Some(ptxconform_gpu::emit::emit(&l.case).ok()?.ptx)
                    })
                })
                .flatten();
            if let Some(ptx) = &ptx {
                gpu::write_divergence(&args.out(), &l.case, ptx, j.observation.as_ref())?;
                if let (Some(a), Some(at)) = (attributor.as_deref(), &attribution) {
                    a.write_evidence(&args.out(), &l.case, ptx, at)?;
                }
            }
            r.attribution = attribution;
            if let (true, Some(o)) = (args.record, j.observation) {
                recorded
                    .entry(l.file.clone())
                    .or_default()
                    .push((l.case.name.clone(), o));
            }
            settled.push(r);
        }
        // The batch's observations are in the case files before its results are journaled: a
        // run stopped after this point resumes without the cases, so it must not lose them.
        if args.record {
            n_recorded += record(&recorded)?;
        }
        for r in settled {
            settle(&r, journal, pb, console)?;
            out.push(r);
        }
    }
    if args.record {
        console.say(&format!(
            "recorded {n_recorded} hardware observations into the case files"
        ));
    }
    Ok(out)
}

/// The summary as a plain `run` prints it (used by `merge`).
pub fn print_summary(s: &Summary, out: &Path) {
    // Only JSON output can fail to be made; text cannot.
    let _ = Console::new(&console::OutputArgs::default()).summary(s, out);
}

#[cfg(test)]
mod tests {
    use super::leading_comments;

    #[test]
    fn recording_keeps_the_files_opening_comments() {
        let text = "# What these cases are for.\n#\n# More.\n\n- name: a\n  # inner\n";
        assert_eq!(
            leading_comments(text),
            "# What these cases are for.\n#\n# More.\n\n"
        );
        assert_eq!(leading_comments("- name: a\n# late\n"), "");
        assert_eq!(leading_comments("\n\n- name: a\n"), "");
    }
}
