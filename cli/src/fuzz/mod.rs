//! `ptxconform fuzz`: the differential fuzzing campaign. Generated programs
//! (`ptxconform_reference::gen`) go through the static and reference oracles on the CPU and — where
//! a GPU is present — through the same differential core as `run` ([`ptxconform_core::differential::run_batch`]).
//! Every new failure is minimized ([`minimize`]) and saved as a regression case.
//!
//! A failure is identified by its [`Signature`] (family / verdict / where), not by the case name
//! (generated names are hashes): duplicates of a signature already found are counted, not saved
//! again, and `reports/known-divergences.yaml` entries with a `signature` glob suppress them.

pub mod builds;
pub mod campaign;
pub mod minimize;
pub mod ptxas_oracle;

use ptxconform_core::differential::{Backend, Judged};
use ptxconform_core::known::KnownDivergences;
use ptxconform_core::result::{CaseResult, Difference, RunInfo, Verdict};
use ptxconform_gpu::engine::fleet::Fleet;
use ptxconform_gpu::engine::Engine;
use ptxconform_reference::case::Case;
use ptxconform_reference::gen::swarm::{Families, Family};
use ptxconform_reference::gen::GenConfig;
use ptxconform_reference::sem::profile::Profile;
use std::path::PathBuf;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigKind {
    /// Legal, well-defined programs only.
    Legal,
    /// About 1/8 each illegal, undefined and racy programs.
    Mixed,
}

#[derive(clap::Args, Debug, Clone)]
pub struct FuzzArgs {
    /// Stop after this many seconds (default 60 when --cases is not given either).
    #[arg(long)]
    pub seconds: Option<u64>,
    /// Stop after this many generated programs.
    #[arg(long)]
    pub cases: Option<u64>,
    /// Campaign seed: program k is generated from bytes derived from (seed, k).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Families the swarm may enable, comma separated: cp_async, bulk_copy, bulk_reduce,
    /// bulk_prefetch, mbarrier, store, tcgen05, tensor (default: all).
    #[arg(long)]
    pub families: Option<String>,
    /// Generator configuration.
    #[arg(long, value_enum, default_value = "legal")]
    pub config: ConfigKind,
    /// Chance (in 256ths, per program) of a concurrent episode: producers, issuers or arrivals
    /// of several threads or CTAs with no barrier between them (`concurrent:` step groups).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub concurrent: u8,
    /// CPU oracles only, even if a GPU is present.
    #[arg(long)]
    pub reference_only: bool,
    /// Campaign directory (journal.jsonl, campaign.json, divergences/).
    #[arg(long, default_value = "reports/fuzz/latest")]
    pub out: PathBuf,
    /// Continue the seed sequence (and the figures) from the campaign journal in --out.
    #[arg(long)]
    pub resume: bool,
    /// Programs generated and checked together, and run on the GPU as one batch (also the
    /// candidates per minimization round). Default: 1,024 per thread for `--config legal` (at
    /// most 16,384), its first blocks a quarter and a half of that; 256 for `mixed`; at least
    /// 2,048.
    #[arg(long)]
    pub batch: Option<usize>,
    /// Where minimized regression cases are written.
    #[arg(long, default_value = "cases/regressions")]
    pub regressions: PathBuf,
    /// Known divergences (suppressed by `signature` or `case` glob).
    #[arg(long, default_value = "reports/known-divergences.yaml")]
    pub known: PathBuf,
    /// The reading hardware is judged against: `sm_90` (a departure from the text that the
    /// silicon was recorded making passes, counted as a spec departure) or `spec`.
    #[arg(long, value_name = "PROFILE", default_value = "sm_90")]
    pub profile: Profile,
    /// GPUs to spread the batches over: `all`, or ordinals such as `0,2` (`0,0`: two workers on
    /// device 0).
    #[arg(long, alias = "device", default_value = "all")]
    pub devices: ptxconform_gpu::device::Devices,
    /// Per-job watchdog (seconds) on the GPU.
    #[arg(long, default_value_t = 10)]
    pub job_timeout: u64,
    /// Keep generating the features that known findings ask to avoid (`avoid:` in the known
    /// divergences), e.g. to check that they still reproduce.
    #[arg(long)]
    pub no_steer: bool,
    /// Leave hardware findings unattributed (by default each, once minimized, is re-run under the
    /// other builds — `--builds`, else every installed toolchain — and its culprit named).
    #[arg(long)]
    pub no_attribute: bool,
    /// Most test rounds (GPU batches) one minimization may use.
    #[arg(long, default_value_t = 40)]
    pub minimize_rounds: usize,
    /// ptxas optimization level (0–3) of the offline build the GPU runs.
    #[arg(long, default_value_t = ptxconform_gpu::compile::DEFAULT_OPT_LEVEL)]
    pub opt_level: u8,
    /// Run only shard I of N (0-based) of the campaign's programs (shape s, with all its value
    /// sets, is shard s mod N's);
    /// `auto` reads a Slurm array job's or a Kubernetes Indexed Job's variables.
    #[arg(long, value_name = "I/N|auto")]
    pub shard: Option<crate::shard::Shard>,
    /// Compiler differential: run every program under each of these builds (first GPU) and
    /// compare them with each other and with the reference, e.g.
    /// `ptxas-13.0-O3,jit-O4,ptxas-13.5-O0` (see tools/install-toolchains.sh).
    #[arg(long, value_name = "LIST")]
    pub builds: Option<ptxconform_gpu::builds::BuildList>,
    /// Programs per shape: each shape (instructions, qualifiers, who runs what, the memory layout
    /// the kernel is compiled for) is drawn with K value sets (sizes, offsets, src-size,
    /// predicates, masks, tx counts, region contents), which share one compiled kernel. 1: every
    /// program its own shape and kernel (the generator before shapes).
    #[arg(long, value_name = "K", default_value_t = campaign::DEFAULT_VALUES_PER_SHAPE)]
    pub values_per_shape: u64,
    /// Mutation score: judge every hardware observation under every mutant of the reference
    /// (CPU only; a build with `--features mutants`); each mutant's first kill goes to
    /// `OUT/campaign.json`, which `ptxconform mutants --campaign OUT` reports.
    #[arg(long)]
    pub mutants: bool,
    /// The largest share (0 to 1) of hardware wall time spent on launches the reference
    /// predicts may trap (each costs a fresh worker and CUDA context). Which predicted traps run:
    /// those of a rule with thin silicon evidence first, then those hitting an unhit coverage
    /// cell, then one per shape; the rest are counted as skipped (trap budget). Default: all run.
    #[arg(long, value_name = "F")]
    pub trap_budget: Option<campaign::trap_budget::TrapBudget>,
    /// The corpus whose recorded runs are each rule's silicon evidence (for --trap-budget).
    #[arg(long, value_name = "DIR", default_value = "cases")]
    pub evidence_cases: PathBuf,
    /// The folder of sweep record folders (`*/records.jsonl`) counted as evidence too.
    #[arg(long, value_name = "DIR", default_value = "reports/sweep")]
    pub evidence_sweeps: PathBuf,
    /// Keep no coverage map (spares one reference run per program; no steering either).
    #[arg(long)]
    pub no_coverage: bool,
    /// Keep the coverage map but generate every shape's own swarm draw (to compare).
    #[arg(long)]
    pub no_coverage_steer: bool,
    /// Stop once every reachable coverage cell is hit (or at --seconds, 60 unless --cases is
    /// given, or --cases).
    #[arg(long)]
    pub until_coverage: bool,
}

/// Parse a `--families` list (names as in [`Family`], any case, `_`/`-` ignored).
pub fn parse_families(list: &str) -> Result<Families, String> {
    let norm = |s: &str| {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase()
    };
    let mut fs = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let f = Family::ALL
            .iter()
            .find(|f| norm(&format!("{f:?}")) == norm(name))
            .ok_or_else(|| {
                // Spelt as `--help` lists them: `CpAsync` as cp_async.
                let snake = |f: &Family| {
                    let mut o = String::new();
                    for (i, c) in format!("{f:?}").chars().enumerate() {
                        if c.is_ascii_uppercase() && i > 0 {
                            o.push('_');
                        }
                        o.push(c.to_ascii_lowercase());
                    }
                    o
                };
                let all: Vec<String> = Family::ALL.iter().map(snake).collect();
                format!("unknown family `{name}` (one of {})", all.join(", "))
            })?;
        fs.push(*f);
    }
    if fs.is_empty() {
        return Err("--families names no family".into());
    }
    Ok(Families::of(&fs))
}

/// The generator config of a campaign (before the features known findings ask it to avoid).
pub fn gen_config(args: &FuzzArgs) -> Result<GenConfig, String> {
    let mut cfg = match args.config {
        ConfigKind::Legal => GenConfig::legal(),
        ConfigKind::Mixed => GenConfig::mixed(),
    };
    if let Some(l) = &args.families {
        cfg.families = parse_families(l)?;
    }
    Ok(cfg.with_concurrency(args.concurrent))
}

/// The GPU engine a campaign drives: traps are not confirmed by a re-run (a fuzzer expects
/// some, and the minimizer re-runs them anyway).
pub fn gpu(
    dev: &ptxconform_gpu::device::DeviceInfo,
    job_timeout: u64,
    opt_level: u8,
) -> Result<Engine, String> {
    gpu_cached(dev, job_timeout, opt_level, None)
}

/// [`gpu`] with its cubins cached in `cache` (`None`: `$PTXCONFORM_CACHE` or its default).
pub fn gpu_cached(
    dev: &ptxconform_gpu::device::DeviceInfo,
    job_timeout: u64,
    opt_level: u8,
    cache: Option<std::path::PathBuf>,
) -> Result<Engine, String> {
    let info = RunInfo {
        driver: dev.cuda(),
        date: ptxconform_core::result::today(),
        mode: "fuzz: reference + hardware".into(),
        ptxconform: env!("CARGO_PKG_VERSION").into(),
        ..RunInfo::default()
    };
    ptxconform_gpu::engine::open(ptxconform_gpu::engine::Spec {
        confirm_failures: false,
        opt_level: Some(opt_level),
        cache,
        ..ptxconform_gpu::engine::Spec::on(dev, info, job_timeout)
    })
}

/// The file name a generated case goes under in the differential core (it has none).
pub(crate) const GENERATED: &str = "fuzz";

/// Run generated cases through the differential core on `hw`, judged under `profile`, one judged
/// result per case (known findings are the campaign's to apply).
pub fn run_cases(
    hw: &mut dyn Backend,
    known: &KnownDivergences,
    profile: Profile,
    cases: &[Case],
) -> Result<Vec<Judged>, String> {
    let batch: Vec<(&str, &Case)> = cases.iter().map(|c| (GENERATED, c)).collect();
    ptxconform_core::differential::run_batch_under(profile, hw, known, &batch)
}

/// What identifies a failure across programs: the case's family, the verdict, and where it
/// showed (the first differing region without its `@ctaN`, the trap kind, the oracle and the
/// start of its message).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub family: String,
    pub verdict: Verdict,
    pub at: String,
}

fn verdict_key(v: &Verdict) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|x| x.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{v:?}"))
}

/// Digits to `#`, cut at the first quoted fragment, at most 60 characters: stable across
/// programs that fail the same way.
fn normalize(s: &str) -> String {
    s.split(['`', '\n'])
        .next()
        .unwrap_or("")
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .take(60)
        .collect::<String>()
        .trim()
        .to_string()
}

impl Signature {
    /// The signature of a failing hardware result: where the judge's differences show (the
    /// first differing byte's region before any other difference). A failure the judge did not
    /// find (the reference's, the harness's, the builds') is known only by its words.
    pub fn of(r: &CaseResult) -> Signature {
        let first_byte = r
            .differences
            .iter()
            .find(|d| matches!(d, Difference::Byte { .. }));
        let at = match first_byte.or(r.differences.first()) {
            Some(d) => normalize(&d.site()),
            None => normalize(r.detail.split([';', ':']).next().unwrap_or("")),
        };
        Signature {
            family: r.family.clone(),
            verdict: r.verdict.clone(),
            at,
        }
    }
    /// The signature of a CPU oracle violation.
    pub fn of_violation(family: &str, oracle: &str, message: &str) -> Signature {
        Signature {
            family: family.to_string(),
            verdict: Verdict::ReferenceFail,
            at: format!("{oracle}: {}", normalize(message)),
        }
    }
    /// `family/verdict/at`, the text `signature` globs match.
    pub fn key(&self) -> String {
        format!("{}/{}", self.family, self.verdict_at())
    }
    /// `verdict/at`: the key under any family.
    pub fn verdict_at(&self) -> String {
        format!("{}/{}", verdict_key(&self.verdict), self.at)
    }
    /// The same failure for minimization: the family may change as steps go (it names the first
    /// copy instruction), the verdict and where it shows may not.
    pub fn same_failure(&self, other: &Signature) -> bool {
        self.verdict == other.verdict && self.at == other.at
    }
    pub fn hash(&self) -> String {
        format!("{:016x}", ptxconform_gpu::emit::fnv1a(&self.key()))
    }
}

pub fn main(args: &FuzzArgs) -> Result<i32, String> {
    let cfg = gen_config(args)?;
    let mut gpu = None;
    if args.reference_only {
        println!("--reference-only: CPU oracles only");
    }
    let devs = ptxconform_gpu::device::devices_unless(
        args.reference_only,
        &args.devices,
        "fuzzing the CPU oracles only",
    );
    let mut differential: Option<builds::Builds> = None;
    if let (Some(list), Some(d)) = (&args.builds, devs.first()) {
        let known = KnownDivergences::load(&args.known)?;
        let info = self::gpu(d, args.job_timeout, args.opt_level)?.info;
        let mut bs = Vec::new();
        for cg in &list.0 {
            let e = ptxconform_gpu::engine::open_build(d, &info, args.job_timeout, &known, cg)?;
            bs.push((cg.clone(), Box::new(e) as Box<dyn Backend + Send>));
        }
        println!(
            "compiler differential on {}: {}",
            d.name,
            list.0
                .iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let mut b = builds::Builds::new(bs);
        if args.resume {
            b.resume(&args.out.join("builds.json"))?;
        }
        differential = Some(b);
    } else if !devs.is_empty() {
        let engines = devs
            .iter()
            .map(|d| {
                let mut e = self::gpu(d, args.job_timeout, args.opt_level)?;
                if devs.len() > 1 {
                    e.label = format!("GPU {} ({})", d.ordinal, d.name);
                }
                Ok(e)
            })
            .collect::<Result<Vec<_>, String>>()?;
        gpu = Some(Fleet { engines });
    }
    match ptxas_oracle::ptxas() {
        Some(p) => println!("ptxas oracle: {}", p.path.display()),
        None => println!("ptxas not found ($PTXAS, PATH, $CUDA_HOME/bin, pip nvidia-cuda-nvcc): ptxas oracle skipped"),
    }
    let opts = campaign::Options::from_args(args);
    println!(
        "programs: shapes × {} value sets each (generator version {})",
        opts.values_per_shape,
        ptxconform_reference::gen::GENERATOR_VERSION
    );
    if gpu.is_some() || differential.is_some() {
        println!("hardware judged under profile {}", opts.profile);
    }
    let mut cfg = cfg;
    // Steering spares the hardware traps it has already explained; the CPU oracles keep every
    // feature.
    if !args.no_steer && (gpu.is_some() || differential.is_some()) {
        let (avoid, why) = opts.known.avoided()?;
        cfg.avoid = avoid;
        for (feature, name) in why {
            println!("steering away from `{feature}` (known finding {name}; --no-steer keeps it)");
        }
    }
    for e in gpu.iter_mut().flat_map(|g| &mut g.engines) {
        e.known = opts.known.clone();
    }
    let attributor = if args.no_attribute {
        None
    } else {
        attributor(
            args,
            devs.first(),
            differential.as_ref(),
            gpu.as_ref(),
            &opts,
        )
    };
    let hw = match (&mut differential, &mut gpu) {
        (Some(b), _) => Some(b as &mut dyn Backend),
        (None, g) => g.as_mut().map(|g| g as &mut dyn Backend),
    };
    let mut c = campaign::Campaign::open(cfg, opts, hw)?;
    c.attributor = attributor;
    let stop = campaign::Stop::from_args(args);
    // Ctrl-C ends the campaign after its current block, journaled, like a deadline would.
    crate::interrupt::catch()?;
    c.run(&stop, true)?;
    let found = c.new_findings();
    drop(c);
    if let Some(g) = &gpu {
        println!("{}", g.breakdown());
    }
    if let Some(b) = &differential {
        println!("{}", b.summary());
        let path = args.out.join("builds.json");
        let json = serde_json::to_string_pretty(&b.record()).map_err(|e| e.to_string())?;
        std::fs::write(&path, format!("{json}\n"))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if crate::interrupt::requested() {
        crate::interrupt::stop();
    }
    Ok(if found > 0 { 1 } else { 0 })
}

/// Who names the culprit of a campaign's hardware findings: the differential's first build
/// against its others, or the campaign's build against every installed one.
fn attributor(
    args: &FuzzArgs,
    dev: Option<&ptxconform_gpu::device::DeviceInfo>,
    differential: Option<&builds::Builds>,
    gpu: Option<&Fleet>,
    opts: &campaign::Options,
) -> Option<ptxconform_gpu::attribution::Attributor> {
    let (primary, others, info) = match (differential, gpu) {
        (Some(b), _) => (
            b.builds[0].0.clone(),
            b.builds[1..].iter().map(|(c, _)| c.clone()).collect(),
            b.builds[0].1.info(),
        ),
        (None, Some(g)) => (
            g.engines[0].codegen(),
            ptxconform_gpu::builds::available(),
            g.engines[0].info.clone(),
        ),
        _ => return None,
    };
    let mut a = ptxconform_gpu::attribution::Attributor::new(
        dev?,
        &info,
        args.job_timeout,
        &opts.known,
        primary,
        others,
    );
    a.profile = opts.profile;
    Some(a)
}

#[cfg(test)]
mod tests;
