//! `ptxconform bench`: throughput of every path, measured in one run (a benchmark, never a
//! timed test).
//!
//! - **reference**: cases/s of the reference model alone, on every core and per core, and on one
//!   thread alone, with how many such threads all of them gave (where threads share cores, as
//!   a VM's vCPUs may, fewer than there are);
//! - **end to end** at fixed shapes: one corpus case per family (cp.async, bulk copy, tensor
//!   tile, bulk reduce, mbarrier) instantiated N times with different data (each region's
//!   `pattern` seed), through the same path as `run`: reference, emission, compilation, batched
//!   launches, judgement; with where the time went;
//! - **naive**: the same cases the old way — one module compiled (driver JIT) and one launch
//!   and synchronisation per case — and the ratio of each end-to-end rate to it;
//! - **fuzz**: random programs/s of a campaign per family mix (generation, CPU and ptxas
//!   oracles, hardware), on fresh seeds, in a scratch directory with an empty cubin cache of
//!   its own (so that a second bench compiles its shapes too); with distinct programs/s and
//!   shapes/s (programs are shapes × values, `--fuzz-values-per-shape`), the rate after the
//!   campaign's first block with the time that block took (the warm-up a short row counts and
//!   a long campaign spreads thin), and the CPU a program of the process and of its children
//!   that ended (ptxas).
//! - **fuzz-host** (only when named in `--only`; needs no GPU): the same campaigns on the
//!   engine's host side alone ([`ptxconform_gpu::engine::host::HostOnly`]: generation, CPU
//!   oracles, the reference, emission and composed launches, judgement of the model's
//!   prediction), programs/s overall and per thread, with where the host time went; where
//!   ptxas is found, each block's new shapes compiled ahead as a device's engine compiles them
//!   (no disk cache), with ptxas's CPU a program. What the host costs per program, apart from
//!   the device's path (transfers, launches, decoding).
//! - **devices** (only when named in `--only`): the all-families fuzz mix on the first device
//!   of `--devices` alone, then on all of them at once (a fleet, one lane per device), the same
//!   seed on an empty cubin cache each, and the ratio of the two rates.
//! - **corpus**: the whole case corpus (`--corpus`) through the same path as `run` (known
//!   findings, build routing), cold (a fresh engine and an empty cubin cache) and warm (a fresh
//!   engine on the cache the cold run filled): wall time and where it went — compile, launches,
//!   trap reports, waiting for workers, launches run apart, judge — with the verdict counts.
//!
//! Each reference and end-to-end rate is the median of three runs.
//!
//! The table goes to stdout, everything (with device, driver, date, commit) to `--out` as JSON.

mod host;
mod threads;

use crate::fuzz::campaign::{Campaign, Options, Planted, Stop};
use crate::fuzz::parse_families;
use ptxconform_core::corpus::{corpus_case, instances};
use ptxconform_core::differential::Backend;
use ptxconform_core::evaluate::evaluate;
use ptxconform_core::known::{KnownDivergences, Site};
use ptxconform_core::result::Verdict;

use ptxconform_core::result::RunInfo;
use ptxconform_gpu::compile::Compiler;
use ptxconform_gpu::engine::batch::BatchStats;
use ptxconform_gpu::engine::fleet::Fleet;
use ptxconform_gpu::engine::{open, Engine, Spec, Times};
use ptxconform_gpu::ptxas::Ptxas;
use ptxconform_reference::case::Case;
use ptxconform_reference::gen::GenConfig;
use rayon::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Case instances per family for the end-to-end and reference rates.
    #[arg(long, default_value_t = 32768)]
    pub cases: usize,
    /// Cases per family on the naive path (each compiles its own module).
    #[arg(long, default_value_t = 100)]
    pub naive: usize,
    /// Seconds of fuzzing per family mix (0: skip the fuzz rates).
    #[arg(long, default_value_t = 10)]
    pub fuzz_seconds: u64,
    /// Stop each fuzz mix after this many programs instead of `--fuzz-seconds` (the same
    /// programs in every run: what a before/after comparison of the host's cost per program
    /// wants).
    #[arg(long, value_name = "N")]
    pub fuzz_programs: Option<u64>,
    /// Rounds of each fuzz mix (the `fuzz`, `fuzz-host` and `devices` rows), each on programs
    /// of its own (round 1 draws the programs a bench of one round draws): a row of 10-20 s
    /// moves by a few percent from run to run, and a target is judged on the median of the
    /// rounds, printed under them with their least and most (the devices row: the median of the
    /// rounds' ratios).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub fuzz_rounds: u32,
    /// Programs per shape of the fuzz rates (`fuzz --values-per-shape`; 1: every program its own
    /// kernel, the generator before shapes).
    #[arg(long, value_name = "K", default_value_t = crate::fuzz::campaign::DEFAULT_VALUES_PER_SHAPE)]
    pub fuzz_values_per_shape: u64,
    /// Only these family mixes in the fuzz rows (`all` or a `--families` list per mix, e.g.
    /// `--fuzz-mixes all --fuzz-mixes tensor`; `trap`: the all-families mix with a known trapping
    /// case every 100 programs, on a GPU; default: every mix of the row, and `trap`).
    #[arg(long, value_name = "FAMILIES")]
    pub fuzz_mixes: Vec<String>,
    /// The case corpus the fixed shapes come from.
    #[arg(long, default_value = "cases")]
    pub corpus: PathBuf,
    /// Where the JSON results go.
    #[arg(long, default_value = "reports/bench/latest.json")]
    pub out: PathBuf,
    /// Commit measured (default: the commit the binary was built from).
    #[arg(long)]
    pub commit: Option<String>,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    pub device: i32,
    /// Known divergences (their `avoid` features steer the fuzz rates' generator).
    #[arg(long, default_value = "reports/known-divergences.yaml")]
    pub known: PathBuf,
    /// Only the reference rates, even if a GPU is present.
    #[arg(long)]
    pub reference_only: bool,
    /// Measure only these rows (default: all but `fuzz-host` and `devices`): `shapes` (reference,
    /// end to end, naive), `fuzz`, `fuzz-host` (the fuzz mixes on the host alone, no GPU needed),
    /// `devices` (the all-families mix on one device and on every device of `--devices`),
    /// `corpus`.
    #[arg(long, value_enum, value_delimiter = ',')]
    pub only: Vec<Row>,
    /// Devices row: the devices to scale over (`0,1`, `all`; at least two).
    #[arg(long, value_name = "LIST")]
    pub devices: Option<ptxconform_gpu::device::Devices>,
    /// Corpus row: as `run --trap-workers`.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub trap_workers: usize,
    /// Corpus row: as `run --no-build-routing`.
    #[arg(long)]
    pub no_build_routing: bool,
    /// Corpus row: as `run --wait-floor-ms`.
    #[arg(long, value_name = "MS")]
    pub wait_floor_ms: Option<u64>,
}

/// A row group of the benchmark (`--only`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    Shapes,
    Fuzz,
    FuzzHost,
    Devices,
    Corpus,
}

impl BenchArgs {
    fn measures(&self, row: Row) -> bool {
        // The host-only row prices the host, not the device, and the devices row needs several:
        // each is asked for by name.
        let by_name = matches!(row, Row::FuzzHost | Row::Devices);
        (self.only.is_empty() && !by_name) || self.only.contains(&row)
    }

    /// The fuzz mixes to measure: `--fuzz-mixes` but [`TRAP_MIX`], else a row's own.
    fn mixes<'a>(&'a self, row: &[&'a str]) -> Vec<&'a str> {
        if self.fuzz_mixes.is_empty() {
            row.to_vec()
        } else {
            self.fuzz_mixes
                .iter()
                .map(String::as_str)
                .filter(|&m| m != TRAP_MIX)
                .collect()
        }
    }

    /// Whether the GPU's fuzz rows end with the cost of traps: by default, or when
    /// `--fuzz-mixes` names [`TRAP_MIX`] (it runs about 25 s whatever the row's seconds).
    fn measures_traps(&self) -> bool {
        self.fuzz_mixes.is_empty() || self.fuzz_mixes.iter().any(|m| m == TRAP_MIX)
    }
}

/// The `--fuzz-mixes` name of the all-families mix with a planted trap (`all + 1 trap/100`).
const TRAP_MIX: &str = "trap";

/// A fixed shape: a corpus case by name.
struct Shape {
    family: &'static str,
    file: &'static str,
    case: &'static str,
}

const SHAPES: [Shape; 5] = [
    Shape {
        family: "cp.async",
        file: "cp_async/copy.yaml",
        case: "cp_async.ca.4.shared.full",
    },
    Shape {
        family: "cp.async.bulk",
        file: "bulk/g2s.yaml",
        case: "bulk.g2s.cta.256",
    },
    Shape {
        family: "cp.async.bulk.tensor tile",
        file: "tensor/rows/load_tile.yaml",
        case: "tensor.row.load.2d.cluster.default_tile",
    },
    Shape {
        family: "cp.reduce.async.bulk",
        file: "reduce/global.yaml",
        case: "reduce.global.add.u32",
    },
    Shape {
        family: "mbarrier",
        file: "mbarrier/tx.yaml",
        case: "mbarrier.tx.arrive_expect_then_complete",
    },
];

/// Family mixes of the fuzz rates (`--families` lists).
const MIXES: [&str; 6] = [
    "all",
    "cp_async",
    "bulk_copy",
    "bulk_reduce",
    "tensor",
    "mbarrier",
];

/// Family mixes of the host-only fuzz rates: [`MIXES`] and the families the GPU rows leave in
/// the mix only (tcgen05 needs an sm_100 device, which the host-only row stands for none of).
const HOST_MIXES: [&str; 8] = [
    "all",
    "cp_async",
    "bulk_copy",
    "bulk_reduce",
    "bulk_prefetch",
    "tensor",
    "mbarrier",
    "store",
];

/// Where an end-to-end run's time went (seconds): the stages of `run_batch`, and inside
/// `execute` the host's share (composing launch buffers, splitting results), the worker's
/// phases, and the rest (transport between the processes).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Breakdown {
    pub reference_s: f64,
    pub emit_s: f64,
    pub compile_s: f64,
    pub execute_s: f64,
    pub observe_s: f64,
    pub judge_s: f64,
    pub launches: u64,
    pub host_s: f64,
    pub worker_setup_s: f64,
    pub worker_upload_s: f64,
    pub worker_module_s: f64,
    pub worker_kernel_s: f64,
    pub worker_read_back_s: f64,
    pub transport_s: f64,
}

impl Breakdown {
    fn between(eng: &Engine, t0: &Times, s0: &BatchStats) -> Breakdown {
        let (t, s) = (&eng.times, &eng.stats);
        let us = |a: u64, b: u64| (a - b) as f64 / 1e6;
        let (p, p0) = (&s.phases, &s0.phases);
        let worker = (s.worker - s0.worker).as_secs_f64();
        Breakdown {
            reference_s: (t.reference - t0.reference).as_secs_f64(),
            emit_s: (t.emit - t0.emit).as_secs_f64(),
            compile_s: (t.compile - t0.compile).as_secs_f64(),
            execute_s: (t.execute - t0.execute).as_secs_f64(),
            observe_s: (t.observe - t0.observe).as_secs_f64(),
            judge_s: (t.judge - t0.judge).as_secs_f64(),
            launches: s.launches - s0.launches,
            host_s: (s.host - s0.host).as_secs_f64(),
            worker_setup_s: us(p.setup_us, p0.setup_us),
            worker_upload_s: us(p.upload_us, p0.upload_us),
            worker_module_s: us(p.module_us, p0.module_us),
            worker_kernel_s: us(p.kernel_us, p0.kernel_us),
            worker_read_back_s: us(p.read_back_us, p0.read_back_us),
            transport_s: (s.device - s0.device).as_secs_f64() - worker,
        }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FamilyRates {
    pub family: String,
    pub case: String,
    /// Reference model alone, all threads (the median of [`RUNS`]).
    pub reference_per_s: f64,
    pub reference_per_core_per_s: f64,
    /// The reference on one thread of its own (the median of [`RUNS`], over at most
    /// [`ONE_THREAD_CASES`]), and how many such threads all of them gave
    /// (`reference_per_s` over it): about the thread count where each thread has a core, less
    /// where threads share cores (hyperthreads, a VM's vCPUs), or the clock drops under load.
    pub reference_one_thread_per_s: f64,
    pub reference_threads_worth: f64,
    pub cases: usize,
    /// End to end, the median of [`RUNS`] (None: no GPU).
    pub end_to_end_per_s: Option<f64>,
    /// Every end-to-end run's rate, in order (`end_to_end_per_s` is their median).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub end_to_end_runs: Vec<f64>,
    pub end_to_end: Option<Breakdown>,
    /// Cases whose verdict was not `pass` end to end (a rate of failures is no rate).
    pub end_to_end_not_pass: usize,
    pub naive_cases: usize,
    pub naive_per_s: Option<f64>,
    pub speedup_over_naive: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FuzzRate {
    pub families: String,
    /// Which round of the mix this is (0 for the first; `--fuzz-rounds`), and its campaign's
    /// seed.
    pub round: u32,
    pub seed: u64,
    /// Every N-th program's hardware run was a known trapping case (0: none).
    #[serde(skip_serializing_if = "is_zero")]
    pub trap_every: u64,
    pub programs: u64,
    pub seconds: f64,
    pub programs_per_s: f64,
    /// Programs per shape, distinct programs (case fingerprints) and distinct shapes (kernel
    /// texts) judged per second.
    pub values_per_shape: u64,
    pub distinct_programs_per_s: f64,
    pub shapes_per_s: f64,
    pub gpu_cases: u64,
    pub verdicts: std::collections::BTreeMap<String, u64>,
    /// Programs predicted to trap that the trap budget skipped (never counted as passed).
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped_trap_budget: u64,
    /// Where the campaign's time went (s): compiling kernels, and executing batches (worker
    /// starts after traps included); the rest is generation, CPU oracles and judgement.
    pub compile_s: f64,
    pub execute_s: f64,
    /// ptxas runs for the campaign's kernels.
    pub ptxas_runs: u64,
    /// The rate after the campaign's first block, and when that block was through (s): a
    /// campaign's warm-up, which a short row counts in `programs_per_s` and a long campaign
    /// spreads thin. `None` where the row held one block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sustained_programs_per_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warmup_s: Option<f64>,
    /// CPU a program (ms, user and system): the process's every thread, and its children that
    /// ended during the row (ptxas; a worker started again after a trap too). A worker still
    /// running is in neither. `None` where `/proc/self/stat` is not readable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_ms_per_program: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub children_ms_per_program: Option<f64>,
    /// The share of the host's CPU the row took: the CPU above over the row's wall time and the
    /// host's CPUs. Near 1 the host's CPU bounded the row, whatever its device; a device worker
    /// still running is not in it (about a fifth of a CPU on a 16-core H200 host).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_cpu_share: Option<f64>,
    /// CPU a program (ms) by group of the process's threads, named by their pool (`generate`:
    /// the campaign's drawing; `reference`: the next step's reference side and preparation;
    /// `global`: observing and judging; `compile`: compiling ahead), with the threads that ended
    /// during the row and the ended children ([`threads::between`]). A GPU worker still running
    /// is not in it. `None` off Linux.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_ms_per_program_by_thread: Option<std::collections::BTreeMap<String, f64>>,
}

/// The share of `cpus` CPUs that `cpu_s` CPU-seconds take over `secs` of wall time (none over
/// no time).
fn cpu_share(cpu_s: f64, secs: f64, cpus: usize) -> f64 {
    let available = secs * cpus.max(1) as f64;
    if available > 0.0 {
        cpu_s / available
    } else {
        0.0
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The median, least and most of a measure over the rounds of a row.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Spread {
    /// Of an even number of rounds, the mean of the middle two.
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    /// `None` for no values.
    pub fn of(values: &[f64]) -> Option<Spread> {
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = match n {
            0 => return None,
            _ if n % 2 == 1 => v[n / 2],
            _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        };
        Some(Spread {
            median,
            min: v[0],
            max: v[n - 1],
        })
    }
}

/// A fuzz mix of the `fuzz` or `fuzz-host` row over its rounds (`--fuzz-rounds`).
#[derive(Clone, Debug, Serialize)]
pub struct Rounds {
    /// `fuzz` or `fuzz-host`.
    pub row: &'static str,
    pub families: String,
    #[serde(skip_serializing_if = "is_zero")]
    pub trap_every: u64,
    pub rounds: usize,
    pub programs_per_s: Spread,
    pub shapes_per_s: Spread,
}

/// A fuzz mix as its rounds are grouped: the row, the families, the planted traps' rate.
type Mix<'a> = (&'static str, &'a str, u64);

/// Each mix of the report's fuzz rows over its rounds, in the order the rows ran.
fn rounds_of(r: &BenchReport) -> Vec<Rounds> {
    let gpu = r.fuzz.iter().map(|z| {
        let mix = ("fuzz", z.families.as_str(), z.trap_every);
        (mix, (z.programs_per_s, z.shapes_per_s))
    });
    let host = r.fuzz_host.iter().map(|z| {
        let mix = ("fuzz-host", z.families.as_str(), 0);
        (mix, (z.programs_per_s, z.shapes_per_s))
    });
    let mut mixes: Vec<(Mix, Vec<(f64, f64)>)> = Vec::new();
    for (mix, rates) in gpu.chain(host) {
        match mixes.iter_mut().find(|(m, _)| *m == mix) {
            Some((_, v)) => v.push(rates),
            None => mixes.push((mix, vec![rates])),
        }
    }
    mixes
        .into_iter()
        .filter_map(|((row, families, trap_every), v)| {
            let (programs, shapes): (Vec<f64>, Vec<f64>) = v.into_iter().unzip();
            Some(Rounds {
                row,
                families: families.into(),
                trap_every,
                rounds: programs.len(),
                programs_per_s: Spread::of(&programs)?,
                shapes_per_s: Spread::of(&shapes)?,
            })
        })
        .collect()
}

/// A fuzz mix on the host alone ([`ptxconform_gpu::engine::host::HostOnly`]).
#[derive(Clone, Debug, Serialize)]
pub struct FuzzHostRate {
    pub families: String,
    /// As [`FuzzRate::round`] and [`FuzzRate::seed`].
    pub round: u32,
    pub seed: u64,
    pub threads: usize,
    pub programs: u64,
    pub seconds: f64,
    pub programs_per_s: f64,
    /// `programs_per_s` over the threads: what one core gives.
    pub programs_per_thread_per_s: f64,
    /// CPU time of the process over the row's campaign from its first block (user and system,
    /// every thread; `None`: not readable here) and per program: on a shared host the figure
    /// that the other load disturbs least. Opening the campaign (the coverage map's probe) is
    /// not in it; before 2026-11-28's host cuts it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_ms_per_program: Option<f64>,
    pub distinct_programs_per_s: f64,
    pub shapes_per_s: f64,
    pub gpu_cases: u64,
    pub verdicts: std::collections::BTreeMap<String, u64>,
    /// Host time by stage (s, summed over threads' wall spans; a stage prepared ahead runs beside
    /// others): the core's reference side, emission with composing, the predicted observations,
    /// the judge. The rest of the wall time is generation and the CPU oracles.
    pub reference_s: f64,
    pub prepare_s: f64,
    pub observe_s: f64,
    pub judge_s: f64,
    /// Modules compiled ahead, as a device's engine compiles each block's new shapes (0 when no
    /// ptxas was found: then nothing is compiled), and the wall time of those compiles.
    pub modules: u64,
    pub compile_s: f64,
    /// CPU of the ptxas runs (user and system) over the row, and per program: with
    /// `cpu_ms_per_program`, what the host spends on a program but for the device's path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ptxas_cpu_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ptxas_ms_per_program: Option<f64>,
    /// As [`FuzzRate::cpu_ms_per_program_by_thread`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_ms_per_program_by_thread: Option<std::collections::BTreeMap<String, f64>>,
}

/// The trapping case planted for the trap-cost rate: cp.async with `.L2::cache_hint` and
/// CUTLASS's EVICT_LAST policy, a known finding (H1) that traps on sm_90.
const TRAP_CASE: (&str, &str) = ("cp_async/copy.yaml", "cp_async.ca.4.shared.full.hint");
/// One planted trap per this many programs (the trap-cost target's rate).
const TRAP_EVERY: u64 = 100;

/// One run of the whole corpus (seconds): its wall time and where it went.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CorpusRun {
    pub wall_s: f64,
    pub reference_s: f64,
    pub emit_s: f64,
    pub compile_s: f64,
    /// Time the workers report for their launches (module load, upload, run, read-back).
    pub launches_s: f64,
    pub launches: u64,
    /// Jobs that trapped on the device's worker, and the time from their request to the trap's
    /// report.
    pub traps: usize,
    pub trap_reports_s: f64,
    /// Workers started on the device's worker's side, and the time waited for them to be ready.
    pub workers: usize,
    pub waiting_for_workers_s: f64,
    /// Launches run apart (`--trap-workers`), their wall time, and their workers' start summed.
    pub apart: usize,
    pub apart_s: f64,
    pub apart_workers_s: f64,
    pub observe_s: f64,
    pub judge_s: f64,
    /// verdict -> cases.
    pub verdicts: std::collections::BTreeMap<String, usize>,
}

/// The corpus row: cold and warm, with what it ran with.
#[derive(Clone, Debug, Serialize)]
pub struct CorpusRate {
    pub cases: usize,
    pub trap_workers: usize,
    pub build_routing: bool,
    pub wait_floor_ms: u64,
    pub cold: CorpusRun,
    pub warm: CorpusRun,
}

#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub device: String,
    pub driver: String,
    pub date: String,
    pub commit: String,
    pub threads: usize,
    /// The host's speed on fixed work, measured before any fuzz row (whose rates it bounds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<host::HostSpeed>,
    pub families: Vec<FamilyRates>,
    pub fuzz: Vec<FuzzRate>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fuzz_host: Vec<FuzzHostRate>,
    /// Each fuzz mix over its rounds, with `--fuzz-rounds` above 1.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fuzz_rounds: Vec<Rounds>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub devices: Option<DevicesRate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corpus: Option<CorpusRate>,
}

/// The devices row: the all-families mix on one device, then on several at once.
#[derive(Clone, Debug, Serialize)]
pub struct DevicesRate {
    /// The devices, the first of which ran alone.
    pub devices: Vec<String>,
    /// The first round's runs.
    pub one: FuzzRate,
    pub all: FuzzRate,
    /// `all`'s programs/s over `one`'s; with several rounds, the median of the rounds' ratios
    /// (each round runs the same programs alone and at once, one after the other).
    pub ratio: f64,
    /// Every round's rates and ratio, where `--fuzz-rounds` asked for several.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<DevicesRound>,
}

/// One round of the devices row.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DevicesRound {
    pub one_programs_per_s: f64,
    pub all_programs_per_s: f64,
    pub ratio: f64,
}

impl DevicesRound {
    /// A round that ran `one` programs/s on one device and `all` on every device (no ratio,
    /// 0, where one device ran nothing).
    fn new(one: f64, all: f64) -> DevicesRound {
        DevicesRound {
            one_programs_per_s: one,
            all_programs_per_s: all,
            ratio: if one > 0.0 { all / one } else { 0.0 },
        }
    }

    /// The median of the rounds' ratios (0 for no round).
    fn median_ratio(rounds: &[DevicesRound]) -> f64 {
        let ratios: Vec<f64> = rounds.iter().map(|r| r.ratio).collect();
        Spread::of(&ratios).map_or(0.0, |s| s.median)
    }
}

fn commit(args: &BenchArgs) -> String {
    git_commit(args.commit.as_deref())
}

/// `explicit`, else the commit the binary was built from (`git rev-parse --short HEAD` at build
/// time, `+changes` when the tree had uncommitted changes), else "unknown".
pub fn git_commit(explicit: Option<&str>) -> String {
    explicit
        .unwrap_or(env!("PTXCONFORM_BUILD_COMMIT"))
        .to_string()
}

/// Cases/s of the reference alone over `cases`, on every rayon thread.
fn reference_rate(cases: &[Case]) -> f64 {
    let t = Instant::now();
    let done: usize = cases
        .par_iter()
        .map(|c| usize::from(!evaluate("bench", c).0.verdict.is_failure()))
        .sum();
    std::hint::black_box(done);
    cases.len() as f64 / t.elapsed().as_secs_f64()
}

/// Most cases of the one-thread reference rate (a family's rate is 10^5-10^6 cases/s on all
/// threads: this keeps its runs short).
const ONE_THREAD_CASES: usize = 8192;

/// [`reference_rate`] on a pool of one thread, over at most [`ONE_THREAD_CASES`] of `cases`.
fn reference_rate_one_thread(cases: &[Case]) -> Result<f64, String> {
    on_one_thread(|| reference_rate(&cases[..cases.len().min(ONE_THREAD_CASES)]))
}

/// `f` on a rayon pool of one thread (its parallel iterators included).
fn on_one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> Result<T, String> {
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| format!("a one-thread pool: {e}"))?;
    Ok(one.install(f))
}

/// Runs of each reference and end-to-end rate: the median is reported, so that one run slowed
/// by something else on the host does not stand for the rate.
const RUNS: usize = 3;

/// The run of `n` whose rate (the first field) is the median, and every run's rate.
fn median_of<T: Rate>(
    n: usize,
    mut run: impl FnMut() -> Result<T, String>,
) -> Result<(T, Vec<f64>), String> {
    let mut runs = (0..n.max(1))
        .map(|_| run())
        .collect::<Result<Vec<T>, String>>()?;
    let rates: Vec<f64> = runs.iter().map(Rate::rate).collect();
    runs.sort_by(|a, b| a.rate().total_cmp(&b.rate()));
    let mid = runs.swap_remove(runs.len() / 2);
    Ok((mid, rates))
}

/// What [`median_of`] orders runs by.
trait Rate {
    fn rate(&self) -> f64;
}

impl Rate for f64 {
    fn rate(&self) -> f64 {
        *self
    }
}

impl<B, N> Rate for (f64, B, N) {
    fn rate(&self) -> f64 {
        self.0
    }
}

/// Run `cases` end to end on `eng`; the rate, the breakdown and how many did not pass.
fn end_to_end(eng: &mut Engine, cases: &[Case]) -> Result<(f64, Breakdown, usize), String> {
    let (t0, s0) = (eng.times, eng.stats);
    let batch: Vec<(&str, &Case)> = cases.iter().map(|c| ("bench", c)).collect();
    let t = Instant::now();
    let rs = ptxconform_core::differential::run_batch(eng, &KnownDivergences::default(), &batch)?;
    let rate = cases.len() as f64 / t.elapsed().as_secs_f64();
    let not_pass = rs
        .iter()
        .filter(|r| r.result.verdict != Verdict::Pass)
        .count();
    Ok((rate, Breakdown::between(eng, &t0, &s0), not_pass))
}

/// What a measured campaign did and took: its figures, wall seconds and the process's CPU
/// seconds (`None` where not readable), both from the campaign's first block on (opening it,
/// with the coverage map's probe, is a cost per campaign, not per program).
struct Measured {
    seed: u64,
    stats: crate::fuzz::campaign::Stats,
    secs: f64,
    sustained: Option<crate::fuzz::campaign::Sustained>,
    /// The process's CPU seconds and its ended children's (ptxas) over the campaign.
    cpu_s: Option<(f64, f64)>,
    /// The same by group of threads ([`threads::between`]).
    by_thread: Option<std::collections::BTreeMap<String, f64>>,
}

/// The seed of round `round` of a row over `mix` (with a trap planted every `trap_every`
/// programs): fixed, so that a row draws the same programs in every bench, and another in each
/// round (the engine keeps compiled kernels across rows and rounds). Round 0's is the seed a
/// bench of one round has always used.
fn row_seed(mix: &str, trap_every: u64, round: u32) -> u64 {
    let base = 0xbe9c_0000 ^ ptxconform_gpu::emit::fnv1a(mix) ^ trap_every;
    base ^ u64::from(round).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// A campaign of `args.fuzz_seconds` over `mix` on `hw` in a scratch folder: round `round` of
/// the row ([`row_seed`]).
fn campaign_on(
    hw: &mut dyn Backend,
    mix: &str,
    args: &BenchArgs,
    scratch: &Path,
    planted: Option<Planted>,
    round: u32,
) -> Result<Measured, String> {
    let seconds = args.fuzz_seconds;
    let mut cfg = GenConfig::legal();
    if mix != "all" {
        cfg.families = parse_families(mix)?;
    }
    let known = KnownDivergences::load(&args.known)?;
    cfg.avoid = known.avoided()?.0;
    let trap_every = planted.as_ref().map_or(0, |p| p.every);
    let dir = scratch.join(format!("{mix}-{trap_every}-{round}"));
    let seed = row_seed(mix, trap_every, round);
    let opts = Options {
        seed,
        out: dir.join("campaign"),
        regressions: dir.join("regressions"),
        known,
        resume: false,
        // The trap row's blocks as before the legal config's grew: a block runs to its end, and
        // its planted traps past the row's seconds (20 in 2,048 programs took about 10 s).
        batch: crate::fuzz::campaign::default_block(crate::fuzz::ConfigKind::Legal),
        blocks: match planted {
            Some(_) => crate::fuzz::campaign::Blocks::fixed(2048),
            None => crate::fuzz::campaign::default_blocks(crate::fuzz::ConfigKind::Legal),
        },
        minimize_rounds: 0,
        shard: crate::shard::Shard::ALL,
        planted,
        profile: ptxconform_core::judge::DEFAULT_PROFILE,
        values_per_shape: args.fuzz_values_per_shape.max(1),
        mutants: false,
        explore: crate::fuzz::campaign::Explore::default(),
    };
    let mut c = Campaign::open(cfg, opts, Some(hw))?;
    let (t, cpu0, threads0) = (
        Instant::now(),
        threads::process_cpu_s(),
        threads::snapshot(),
    );
    let stop = match args.fuzz_programs {
        Some(n) => Stop::programs(n),
        None => Stop {
            seconds: Some(seconds),
            programs: None,
            coverage: false,
        },
    };
    let stats = c.run(&stop, false)?;
    Ok(Measured {
        seed,
        stats,
        secs: t.elapsed().as_secs_f64(),
        sustained: c.sustained,
        cpu_s: threads::process_cpu_s()
            .zip(cpu0)
            .map(|(b, a)| (b.0 - a.0, b.1 - a.1)),
        by_thread: threads0
            .zip(threads::snapshot())
            .map(|(a, b)| threads::between(&a, &b)),
    })
}

fn fuzz_rate(
    gpu: &mut Fleet,
    mix: &str,
    args: &BenchArgs,
    scratch: &Path,
    planted: Option<Planted>,
    round: u32,
) -> Result<FuzzRate, String> {
    let trap_every = planted.as_ref().map_or(0, |p| p.every);
    // Summed over the fleet's engines: device time, and ptxas runs.
    let times = |g: &Fleet| {
        g.engines.iter().fold((0.0, 0.0), |(c, e), eng| {
            let t = eng.times;
            (c + t.compile.as_secs_f64(), e + t.execute.as_secs_f64())
        })
    };
    let ptxas_runs = |g: &Fleet| -> u64 {
        g.engines
            .iter()
            .filter_map(|e| e.compiler.as_ref().map(|c| c.stats()))
            .map(|s| s.compiled + s.failed)
            .sum()
    };
    let (t0, c0) = (times(gpu), ptxas_runs(gpu));
    let Measured {
        seed,
        stats,
        secs,
        sustained,
        cpu_s,
        by_thread,
    } = campaign_on(gpu, mix, args, scratch, planted, round)?;
    let t1 = times(gpu);
    let per_program = |c: f64| 1e3 * c / stats.programs.max(1) as f64;
    Ok(FuzzRate {
        families: mix.into(),
        round,
        seed,
        trap_every,
        programs: stats.programs,
        seconds: secs,
        programs_per_s: stats.programs as f64 / secs,
        values_per_shape: stats.values_per_shape,
        distinct_programs_per_s: stats.distinct_programs as f64 / secs,
        shapes_per_s: stats.distinct_shapes as f64 / secs,
        gpu_cases: stats.gpu_cases,
        skipped_trap_budget: stats.trap_budget.skipped,
        verdicts: stats.verdicts,
        compile_s: t1.0 - t0.0,
        execute_s: t1.1 - t0.1,
        ptxas_runs: ptxas_runs(gpu) - c0,
        sustained_programs_per_s: sustained.map(|s| s.programs_per_s),
        warmup_s: sustained.map(|s| s.warmup_s),
        cpu_ms_per_program: cpu_s.map(|c| per_program(c.0)),
        children_ms_per_program: cpu_s.map(|c| per_program(c.1)),
        host_cpu_share: cpu_s
            .map(|c| cpu_share(c.0 + c.1, secs, ptxconform_core::pools::host_cpus())),
        cpu_ms_per_program_by_thread: by_thread.map(|b| ms_a_program(&b, stats.programs)),
    })
}

/// CPU seconds by group of threads as ms a program of `programs`.
fn ms_a_program(
    by_thread: &std::collections::BTreeMap<String, f64>,
    programs: u64,
) -> std::collections::BTreeMap<String, f64> {
    by_thread
        .iter()
        .map(|(g, s)| (g.clone(), 1e3 * s / programs.max(1) as f64))
        .collect()
}

/// The devices of the devices row (`--devices`, else every device), two or more.
fn devices_of_row(args: &BenchArgs) -> Result<Vec<ptxconform_gpu::device::DeviceInfo>, String> {
    let devs = ptxconform_gpu::device::devices_unless(
        args.reference_only,
        args.devices
            .as_ref()
            .unwrap_or(&ptxconform_gpu::device::Devices::All),
        "no devices row",
    );
    if devs.len() < 2 {
        return Err(format!(
            "bench --only devices: {} device(s) found; it compares one device with several \
             (`--devices 0,1`)",
            devs.len()
        ));
    }
    Ok(devs)
}

/// The devices row: the all-families mix on the first of `devs` (two or more,
/// [`devices_of_row`]) alone, then on all of them at once, each campaign on fresh engines and
/// an empty cubin cache of its own, with the same seed (the same programs, each compiled by its
/// own run). The first campaign's last compile ahead (of a block drawn past its end) may still
/// run when the second starts, on the compile pool at its lower priority.
fn devices_rate(
    devs: &[ptxconform_gpu::device::DeviceInfo],
    args: &BenchArgs,
    scratch: &Path,
) -> Result<DevicesRate, String> {
    let fleet = |devs: &[ptxconform_gpu::device::DeviceInfo], cache: &str| {
        let many = devs.len() > 1;
        let engines = devs
            .iter()
            .map(|d| {
                let mut e = crate::fuzz::gpu_cached(
                    d,
                    10,
                    ptxconform_gpu::compile::DEFAULT_OPT_LEVEL,
                    Some(scratch.join(cache)),
                )?;
                if many {
                    e.label = format!("GPU {} ({})", d.ordinal, d.name);
                }
                Ok(e)
            })
            .collect::<Result<Vec<Engine>, String>>()?;
        Ok::<Fleet, String>(Fleet { engines })
    };
    // Each round on fresh engines and empty caches, its programs alone and then at once.
    let mut runs = Vec::new();
    for round in 0..args.fuzz_rounds {
        let (one_cache, all_cache) = (format!("cubins-one-{round}"), format!("cubins-all-{round}"));
        let one = fuzz_rate(
            &mut fleet(&devs[..1], &one_cache)?,
            "all",
            args,
            &scratch.join("one"),
            None,
            round,
        )?;
        let all = fuzz_rate(
            &mut fleet(devs, &all_cache)?,
            "all",
            args,
            &scratch.join("all"),
            None,
            round,
        )?;
        runs.push((one, all));
    }
    let rounds: Vec<DevicesRound> = runs
        .iter()
        .map(|(o, a)| DevicesRound::new(o.programs_per_s, a.programs_per_s))
        .collect();
    let ratio = DevicesRound::median_ratio(&rounds);
    let (one, all) = runs.swap_remove(0);
    Ok(DevicesRate {
        devices: devs
            .iter()
            .map(|d| format!("GPU {} ({})", d.ordinal, d.name))
            .collect(),
        ratio,
        one,
        all,
        rounds: if rounds.len() > 1 { rounds } else { vec![] },
    })
}

pub fn main(args: &BenchArgs) -> Result<i32, String> {
    let threads = rayon::current_num_threads();
    let dev =
        crate::stdout::device_unless(args.reference_only, args.device, "reference rates only");
    let mut report = BenchReport {
        device: dev.as_ref().map_or("none".into(), |d| d.name.clone()),
        driver: dev.as_ref().map_or(String::new(), |d| d.cuda()),
        date: ptxconform_core::result::today(),
        commit: commit(args),
        threads,
        host: None,
        families: vec![],
        fuzz: vec![],
        fuzz_host: vec![],
        fuzz_rounds: vec![],
        devices: None,
        corpus: None,
    };
    // The devices row's devices, found before any row runs: with fewer than two it fails at
    // once instead of after the other rows.
    let fleet_devices = match args.measures(Row::Devices) && args.fuzz_seconds > 0 {
        true => Some(devices_of_row(args)?),
        false => None,
    };
    // Timed alone, before any row (after the devices row's check, which fails at once): the
    // fuzz rows' rates are the host's to bound.
    let fuzz_rows = [Row::Fuzz, Row::FuzzHost, Row::Devices];
    if args.fuzz_seconds > 0 && fuzz_rows.iter().any(|r| args.measures(*r)) {
        let ptxas = ptxconform_gpu::ptxas::Ptxas::find().ok();
        // A reading that fails costs the reading, not the rows.
        report.host = host::HostSpeed::measure(ptxas)
            .map_err(|e| eprintln!("ptxconform: warning: the host's speed not measured: {e}"))
            .ok();
    }
    let mut engines = match &dev {
        Some(d) if args.measures(Row::Shapes) => {
            let fast = open(Spec::on(d, RunInfo::default(), 20))?;
            // The naive path (figures in reports/bench/README.md, 70bf7f5).
            let naive = open(Spec {
                naive: true,
                ..Spec::on(d, RunInfo::default(), 20)
            })?;
            Some((fast, naive))
        }
        _ => None,
    };
    let shapes: &[Shape] = if args.measures(Row::Shapes) {
        &SHAPES
    } else {
        &[]
    };
    for s in shapes {
        let t = corpus_case(&args.corpus, s.file, s.case)?;
        let cases = instances(&t, args.cases.max(1));
        let reference = median_of(RUNS, || Ok(reference_rate(&cases)))?.0;
        let one_thread = median_of(RUNS, || reference_rate_one_thread(&cases))?.0;
        let mut f = FamilyRates {
            family: s.family.into(),
            case: s.case.into(),
            reference_per_s: reference,
            reference_per_core_per_s: reference / threads as f64,
            reference_one_thread_per_s: one_thread,
            reference_threads_worth: reference / one_thread,
            cases: cases.len(),
            ..Default::default()
        };
        if let Some((fast, naive)) = &mut engines {
            // Warm-up: the worker's start-up and the module's first compile are not a rate.
            end_to_end(fast, &cases[..1])?;
            let ((rate, b, bad), rates) = median_of(RUNS, || end_to_end(fast, &cases))?;
            f.end_to_end_per_s = Some(rate);
            f.end_to_end_runs = rates;
            f.end_to_end = Some(b);
            f.end_to_end_not_pass = bad;
            let few = &cases[..args.naive.clamp(1, cases.len())];
            end_to_end(naive, &few[..1])?;
            let (nrate, _, _) = end_to_end(naive, few)?;
            f.naive_cases = few.len();
            f.naive_per_s = Some(nrate);
            f.speedup_over_naive = Some(rate / nrate);
        }
        report.families.push(f);
    }
    if let (Some(d), true) = (&dev, args.fuzz_seconds > 0 && args.measures(Row::Fuzz)) {
        let scratch = std::env::temp_dir().join(format!("ptxconform-bench-{}", std::process::id()));
        // An empty cubin cache of the rows' own: each row's seed is fixed, so the user's cache
        // would serve a second bench the first one's kernels uncompiled (h200-2026-12-01u call 7:
        // 633 ptxas runs where a cold run took 1,536, and 43 % more programs/s).
        let mut gpu = Fleet {
            engines: vec![crate::fuzz::gpu_cached(
                d,
                10,
                ptxconform_gpu::compile::DEFAULT_OPT_LEVEL,
                Some(scratch.join("cubin")),
            )?],
        };
        for mix in args.mixes(&MIXES) {
            for round in 0..args.fuzz_rounds {
                let r = fuzz_rate(&mut gpu, mix, args, &scratch, None, round)?;
                report.fuzz.push(r);
            }
        }
        // What traps cost: the all-family campaign again, one program in TRAP_EVERY replaced by
        // a known trapping case.
        if args.measures_traps() {
            let trap = Planted {
                every: TRAP_EVERY,
                case: corpus_case(&args.corpus, TRAP_CASE.0, TRAP_CASE.1)?,
            };
            for round in 0..args.fuzz_rounds {
                let planted = Some(trap.clone());
                let r = fuzz_rate(&mut gpu, "all", args, &scratch, planted, round)?;
                report.fuzz.push(r);
            }
        }
        let _ = std::fs::remove_dir_all(&scratch);
    }
    if args.fuzz_seconds > 0 && args.measures(Row::FuzzHost) {
        let scratch =
            std::env::temp_dir().join(format!("ptxconform-bench-host-{}", std::process::id()));
        for mix in args.mixes(&HOST_MIXES) {
            for round in 0..args.fuzz_rounds {
                let r = fuzz_host_rate(mix, args, &scratch, round)?;
                report.fuzz_host.push(r);
            }
        }
        let _ = std::fs::remove_dir_all(&scratch);
    }
    if let Some(devs) = &fleet_devices {
        let scratch =
            std::env::temp_dir().join(format!("ptxconform-bench-devices-{}", std::process::id()));
        let rate = devices_rate(devs, args, &scratch);
        let _ = std::fs::remove_dir_all(&scratch);
        report.devices = Some(rate?);
    }
    if let (Some(d), true) = (&dev, args.measures(Row::Corpus)) {
        report.corpus = Some(corpus_rate(d, args)?);
    }
    if args.fuzz_rounds > 1 {
        report.fuzz_rounds = rounds_of(&report);
    }
    print_table(&report);
    if let Some(p) = args.out.parent() {
        std::fs::create_dir_all(p).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    std::fs::write(&args.out, json + "\n").map_err(|e| format!("{}: {e}", args.out.display()))?;
    println!("results: {}", args.out.display());
    Ok(0)
}

/// A fuzz mix on the host alone: an H100's (sm_90) targets, the model's prediction observed.
fn fuzz_host_rate(
    mix: &str,
    args: &BenchArgs,
    scratch: &Path,
    round: u32,
) -> Result<FuzzHostRate, String> {
    use ptxconform_gpu::engine::host::HostOnly;
    let known = KnownDivergences::load(&args.known)?;
    // No disk cache: every shape is new to ptxas, as on a device's fresh campaign.
    let mut hw = match Ptxas::find().and_then(|p| Compiler::new(p, None)) {
        Ok(c) => HostOnly::compiling((9, 0), known, c),
        Err(_) => HostOnly::new((9, 0), known),
    };
    let Measured {
        seed,
        stats,
        secs,
        cpu_s,
        by_thread,
        ..
    } = campaign_on(&mut hw, mix, args, scratch, None, round)?;
    let (cpu_s, ptxas_cpu_s) = (cpu_s.map(|c| c.0), cpu_s.map(|c| c.1));
    let threads = rayon::current_num_threads();
    let per_s = stats.programs as f64 / secs;
    let t = hw.times;
    Ok(FuzzHostRate {
        families: mix.into(),
        round,
        seed,
        threads,
        programs: stats.programs,
        seconds: secs,
        programs_per_s: per_s,
        programs_per_thread_per_s: per_s / threads as f64,
        cpu_s,
        cpu_ms_per_program: cpu_s.map(|c| 1e3 * c / stats.programs.max(1) as f64),
        distinct_programs_per_s: stats.distinct_programs as f64 / secs,
        shapes_per_s: stats.distinct_shapes as f64 / secs,
        gpu_cases: stats.gpu_cases,
        verdicts: stats.verdicts,
        reference_s: t.reference.as_secs_f64(),
        prepare_s: t.prepare.as_secs_f64(),
        observe_s: t.observe.as_secs_f64(),
        judge_s: t.judge.as_secs_f64(),
        modules: t.modules,
        compile_s: t.compile.as_secs_f64(),
        ptxas_cpu_s: ptxas_cpu_s.filter(|_| t.modules > 0),
        ptxas_ms_per_program: ptxas_cpu_s
            .filter(|_| t.modules > 0)
            .map(|c| 1e3 * c / stats.programs.max(1) as f64),
        cpu_ms_per_program_by_thread: by_thread.map(|b| ms_a_program(&b, stats.programs)),
    })
}

/// The corpus row: the corpus run twice by fresh engines as `run` opens them, the first on an
/// empty cubin cache, the second on the cache the first filled.
fn corpus_rate(
    d: &ptxconform_gpu::device::DeviceInfo,
    args: &BenchArgs,
) -> Result<CorpusRate, String> {
    let (loaded, errors) = ptxconform_core::corpus::load_corpus(std::slice::from_ref(&args.corpus));
    if let Some(e) = errors.first() {
        return Err(format!("{} {}: {}", e.file, e.at, e.message));
    }
    let known = KnownDivergences::load(&args.known)?;
    let cache = std::env::temp_dir().join(format!("ptxconform-bench-cubin-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    std::fs::create_dir_all(&cache).map_err(|e| format!("{}: {e}", cache.display()))?;
    let batch: Vec<(&str, &Case)> = loaded.iter().map(|l| (l.file.as_str(), &l.case)).collect();
    let floor = args
        .wait_floor_ms
        .map_or(ptxconform_gpu::engine::batch::WAIT_FLOOR_NS, |ms| {
            ms.saturating_mul(1_000_000)
        });
    let once = || -> Result<CorpusRun, String> {
        let mut eng = open(Spec {
            known: known.clone(),
            route_builds: !args.no_build_routing,
            cache: Some(cache.clone()),
            ..Spec::on(d, RunInfo::default(), 10)
        })?;
        eng.limits.trap_workers = args.trap_workers.max(1);
        eng.limits.wait_floor_ns = floor;
        let t = Instant::now();
        let rs = ptxconform_core::differential::run_batch(&mut eng, &known, &batch)?;
        let wall_s = t.elapsed().as_secs_f64();
        let mut verdicts = std::collections::BTreeMap::new();
        for r in &rs {
            let site = r.observation.as_ref().map(Site::of);
            let mut r = r.result.clone();
            known.apply(&mut r, site);
            *verdicts.entry(r.verdict.name().to_string()).or_default() += 1;
        }
        let (t, s, sup) = (&eng.times, &eng.stats, &eng.sup);
        Ok(CorpusRun {
            wall_s,
            reference_s: t.reference.as_secs_f64(),
            emit_s: t.emit.as_secs_f64(),
            compile_s: t.compile.as_secs_f64(),
            launches_s: s.worker.as_secs_f64(),
            launches: s.launches,
            traps: sup.traps,
            trap_reports_s: sup.trap_wall.as_secs_f64(),
            workers: sup.spawned,
            waiting_for_workers_s: sup.spawn_wall.as_secs_f64(),
            apart: sup.apart,
            apart_s: s.apart.as_secs_f64(),
            apart_workers_s: sup.apart_spawn.as_secs_f64(),
            observe_s: t.observe.as_secs_f64(),
            judge_s: t.judge.as_secs_f64(),
            verdicts,
        })
    };
    let cold = once()?;
    let warm = once()?;
    let _ = std::fs::remove_dir_all(&cache);
    Ok(CorpusRate {
        cases: batch.len(),
        trap_workers: args.trap_workers.max(1),
        build_routing: !args.no_build_routing,
        wait_floor_ms: floor / 1_000_000,
        cold,
        warm,
    })
}

fn rate(x: Option<f64>) -> String {
    x.map_or("—".into(), |v| format!("{v:.0}"))
}

/// Verdict counts in words: `pass: 3, trap (expected): 1`.
fn verdicts<N: std::fmt::Display>(v: &std::collections::BTreeMap<String, N>) -> String {
    v.iter()
        .map(|(k, n)| format!("{k}: {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The columns of [`print_fuzz_line`].
fn print_fuzz_header() {
    println!(
        "{:<26} {:>12} {:>18} {:>12} {:>9} {:>12} {:>9} {:>9} {:>6} {:>16} {:>8}  verdicts",
        "fuzz mix",
        "programs/s",
        "sustained (warm-up)",
        "distinct/s",
        "shapes/s",
        "programs",
        "compile",
        "execute",
        "ptxas",
        "CPU ms/prog (+ch)",
        "host CPU"
    );
}

/// One line of the fuzz table: `label`'s rates and where its time went.
fn print_fuzz_line(label: &str, z: &FuzzRate) {
    let v = verdicts(&z.verdicts);
    let cpu = match (z.cpu_ms_per_program, z.children_ms_per_program) {
        (Some(own), Some(children)) => format!("{own:.3} + {children:.3}"),
        _ => "—".into(),
    };
    let sustained = match (z.sustained_programs_per_s, z.warmup_s) {
        (Some(r), Some(w)) => format!("{r:.0} after {w:.1}s"),
        _ => "—".into(),
    };
    let host = z
        .host_cpu_share
        .map_or("—".into(), |h| format!("{:.0} %", 100.0 * h));
    println!(
        "{:<26} {:>12.0} {:>18} {:>12.0} {:>9.0} {:>12} {:>8.1}s {:>8.1}s {:>6} {:>16} {:>8}  {}",
        label,
        z.programs_per_s,
        sustained,
        z.distinct_programs_per_s,
        z.shapes_per_s,
        z.programs,
        z.compile_s,
        z.execute_s,
        z.ptxas_runs,
        cpu,
        host,
        v
    );
    print_by_thread(z.cpu_ms_per_program_by_thread.as_ref());
}

/// A fuzz mix as the table names it: its families, and the planted traps' rate if any.
fn mix_label(families: &str, trap_every: u64) -> String {
    match trap_every {
        0 => families.to_string(),
        n => format!("{families} + 1 trap/{n}"),
    }
}

/// A fuzz line's label: its mix, and which round it is where the rows had several.
fn round_label(r: &BenchReport, mix: String, round: u32) -> String {
    match r.fuzz_rounds.is_empty() {
        true => mix,
        false => format!("{mix} #{}", round + 1),
    }
}

/// Under a fuzz row's lines: each mix's median over its rounds, with the least and the most.
fn print_rounds(r: &BenchReport, row: &str) {
    for x in r.fuzz_rounds.iter().filter(|x| x.row == row) {
        let mix = mix_label(&x.families, x.trap_every);
        let (p, s) = (&x.programs_per_s, &x.shapes_per_s);
        println!(
            "{mix}, median of {} rounds: {:.0} programs/s ({:.0}-{:.0}), {:.0} shapes/s ({:.0}-{:.0})",
            x.rounds, p.median, p.min, p.max, s.median, s.min, s.max
        );
    }
}

/// Under a fuzz line: where its CPU went, by group of threads.
fn print_by_thread(by_thread: Option<&std::collections::BTreeMap<String, f64>>) {
    if let Some(m) = by_thread {
        println!("  CPU ms a program by thread: {}", threads::line(m));
    }
}

fn print_table(r: &BenchReport) {
    println!(
        "ptxconform bench — {} ({}), {} threads, {} at {}",
        r.device, r.driver, r.threads, r.date, r.commit
    );
    if let Some(h) = &r.host {
        println!("{}", h.describe());
    }
    println!(
        "{:<26} {:>12} {:>12} {:>12} {:>8} {:>12} {:>10} {:>9}  breakdown (s): reference / emit / compile / execute / observe / judge, launches",
        "fixed shape (cases/s)", "reference", "ref/core", "ref 1 thread", "threads", "end-to-end", "naive", "speedup"
    );
    for f in &r.families {
        let b = f.end_to_end.as_ref().map_or(String::new(), |b| {
            format!(
                "{:.2} / {:.2} / {:.2} / {:.2} / {:.2} / {:.2}, {} (execute: host {:.2}, worker \
                 setup {:.2} upload {:.2} module {:.2} kernel {:.2} read-back {:.2}, transport {:.2})",
                b.reference_s,
                b.emit_s,
                b.compile_s,
                b.execute_s,
                b.observe_s,
                b.judge_s,
                b.launches,
                b.host_s,
                b.worker_setup_s,
                b.worker_upload_s,
                b.worker_module_s,
                b.worker_kernel_s,
                b.worker_read_back_s,
                b.transport_s
            )
        });
        println!(
            "{:<26} {:>12.0} {:>12.0} {:>12.0} {:>8.1} {:>12} {:>10} {:>9}  {b}{}",
            f.family,
            f.reference_per_s,
            f.reference_per_core_per_s,
            f.reference_one_thread_per_s,
            f.reference_threads_worth,
            rate(f.end_to_end_per_s),
            rate(f.naive_per_s),
            f.speedup_over_naive
                .map_or("—".into(), |x| format!("{x:.0}×")),
            if f.end_to_end_not_pass > 0 {
                format!("  ({} not pass!)", f.end_to_end_not_pass)
            } else {
                String::new()
            }
        );
    }
    if !r.fuzz.is_empty() {
        print_fuzz_header();
        for z in &r.fuzz {
            let mix = mix_label(&z.families, z.trap_every);
            print_fuzz_line(&round_label(r, mix, z.round), z);
        }
        print_rounds(r, "fuzz");
    }
    if let Some(d) = &r.devices {
        if r.fuzz.is_empty() {
            print_fuzz_header();
        }
        println!(
            "devices: the all-families mix on {} alone, then on {} at once: {:.2}×",
            d.devices[0],
            d.devices.join(" + "),
            d.ratio
        );
        print_fuzz_line(&format!("{}, 1 device", d.one.families), &d.one);
        print_fuzz_line(
            &format!("{}, {} devices", d.all.families, d.devices.len()),
            &d.all,
        );
        if !d.rounds.is_empty() {
            let each: Vec<String> = d
                .rounds
                .iter()
                .map(|r| {
                    let (o, a) = (r.one_programs_per_s, r.all_programs_per_s);
                    format!("{a:.0} / {o:.0} = {:.2}×", r.ratio)
                })
                .collect();
            println!(
                "devices, {} rounds: {}; median {:.2}×",
                d.rounds.len(),
                each.join(", "),
                d.ratio
            );
        }
    }
    if !r.fuzz_host.is_empty() {
        println!(
            "{:<26} {:>12} {:>12} {:>12} {:>12} {:>12} {:>9} {:>12} {:>8}  host stages (s): reference / prepare / observe / judge; verdicts",
            "fuzz mix, host only", "programs/s", "per thread", "CPU ms/prog", "ptxas ms/prog", "distinct/s", "shapes/s", "programs", "modules"
        );
        for z in &r.fuzz_host {
            let v = verdicts(&z.verdicts);
            println!(
                "{:<26} {:>12.0} {:>12.0} {:>12} {:>12} {:>12.0} {:>9.0} {:>12} {:>8}  {:.2} / {:.2} / {:.2} / {:.2}; {}",
                round_label(r, z.families.clone(), z.round),
                z.programs_per_s,
                z.programs_per_thread_per_s,
                z.cpu_ms_per_program.map_or("—".into(), |c| format!("{c:.3}")),
                z.ptxas_ms_per_program.map_or("—".into(), |c| format!("{c:.3}")),
                z.distinct_programs_per_s,
                z.shapes_per_s,
                z.programs,
                z.modules,
                z.reference_s,
                z.prepare_s,
                z.observe_s,
                z.judge_s,
                v
            );
            print_by_thread(z.cpu_ms_per_program_by_thread.as_ref());
        }
        print_rounds(r, "fuzz-host");
    }
    if let Some(c) = &r.corpus {
        println!(
            "corpus: {} cases, --trap-workers {}, build routing {}, wait floor {} ms",
            c.cases,
            c.trap_workers,
            if c.build_routing { "on" } else { "off" },
            c.wait_floor_ms
        );
        for (name, x) in [("cold", &c.cold), ("warm", &c.warm)] {
            let v = verdicts(&x.verdicts);
            println!(
                "  {name:<5} {:>7.2}s wall: reference {:.2}, emit {:.2}, compile {:.2}, launches {:.2} \
                 ({}), trap reports {:.2} ({} traps), waiting for workers {:.2} ({} workers), apart \
                 {:.2} ({} launches, workers {:.2}), observe {:.2}, judge {:.2}; {}",
                x.wall_s,
                x.reference_s,
                x.emit_s,
                x.compile_s,
                x.launches_s,
                x.launches,
                x.trap_reports_s,
                x.traps,
                x.waiting_for_workers_s,
                x.workers,
                x.apart_s,
                x.apart,
                x.apart_workers_s,
                x.observe_s,
                x.judge_s,
                v
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row's share of the host: call 5 of h200-2026-11-30l spent 0.370 + 0.502 ms a program
    /// at 15,586 programs/s on 16 CPUs, 85 % of the host; no wall time, no share.
    #[test]
    fn cpu_share_is_of_every_cpu_over_the_wall_time() {
        let programs = 15_586.0 * 60.0;
        let cpu_s = (0.370 + 0.502) * programs / 1e3;
        let share = cpu_share(cpu_s, 60.0, 16);
        assert!((share - 0.849).abs() < 0.001, "{share}");
        assert_eq!(cpu_share(3.0, 1.0, 0), 3.0);
        assert_eq!(cpu_share(1.0, 0.0, 16), 0.0);
    }

    /// `--only` picks rows; none named measures every row.
    #[test]
    fn only_selects_rows() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            bench: BenchArgs,
        }
        let all = Cli::parse_from(["bench"]).bench;
        assert!(all.measures(Row::Shapes) && all.measures(Row::Corpus));
        // The host-only row only when named.
        assert!(!all.measures(Row::FuzzHost));
        let host = Cli::parse_from(["bench", "--only", "fuzz-host"]).bench;
        assert!(host.measures(Row::FuzzHost) && !host.measures(Row::Fuzz));
        let one = Cli::parse_from(["bench", "--only", "corpus", "--trap-workers", "4"]).bench;
        assert!(one.measures(Row::Corpus));
        assert!(!one.measures(Row::Shapes) && !one.measures(Row::Fuzz));
        assert_eq!(one.trap_workers, 4);
        // `trap` names the planted-trap row, not a mix of families; by default it runs.
        assert!(all.measures_traps() && all.mixes(&MIXES) == MIXES.to_vec());
        let mixes =
            Cli::parse_from(["bench", "--fuzz-mixes", "all", "--fuzz-mixes", "tensor"]).bench;
        assert!(!mixes.measures_traps());
        assert_eq!(mixes.mixes(&MIXES), vec!["all", "tensor"]);
        let traps = Cli::parse_from(["bench", "--fuzz-mixes", "all", "--fuzz-mixes", "trap"]).bench;
        assert!(traps.measures_traps());
        assert_eq!(traps.mixes(&MIXES), vec!["all"]);
        let two = Cli::parse_from(["bench", "--only", "fuzz,corpus"]).bench;
        assert!(two.measures(Row::Fuzz) && !two.measures(Row::Shapes));
    }

    /// A row's rounds: the median (of an even count the middle two's mean), the least and the
    /// most, whatever the order; no rounds, no spread. Rounds draw programs of their own, the
    /// first those of a bench of one round.
    #[test]
    fn rounds_are_summed_up_by_their_median() {
        let s = Spread::of(&[300.0, 100.0, 200.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (200.0, 100.0, 300.0));
        let s = Spread::of(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (2.5, 1.0, 4.0));
        assert_eq!(Spread::of(&[]), None);
        assert_eq!(
            row_seed("all", 0, 0),
            0xbe9c_0000 ^ ptxconform_gpu::emit::fnv1a("all")
        );
        let seeds: std::collections::BTreeSet<u64> =
            (0..8).map(|r| row_seed("all", 0, r)).collect();
        assert_eq!(seeds.len(), 8);
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            bench: BenchArgs,
        }
        assert_eq!(Cli::parse_from(["bench"]).bench.fuzz_rounds, 1);
        assert!(Cli::try_parse_from(["bench", "--fuzz-rounds", "0"]).is_err());
    }

    /// The devices row's ratio over rounds is the median of each round's own (its programs alone
    /// and at once, run one after the other), not a ratio of medians.
    #[test]
    fn the_devices_ratio_is_the_rounds_median() {
        let rounds = [(100.0, 170.0), (200.0, 380.0), (100.0, 150.0)]
            .map(|(one, all)| DevicesRound::new(one, all));
        assert_eq!(rounds.map(|r| r.ratio), [1.7, 1.9, 1.5]);
        assert_eq!(DevicesRound::median_ratio(&rounds), 1.7);
        assert_eq!(DevicesRound::median_ratio(&[]), 0.0);
        assert_eq!(DevicesRound::new(0.0, 10.0).ratio, 0.0);
    }

    /// The median run is reported, with it its other fields; every run's rate is kept in order.
    #[test]
    fn the_median_run_is_reported() {
        let mut runs = vec![(300.0, "c", 0), (100.0, "a", 0), (200.0, "b", 1)].into_iter();
        let ((rate, name, bad), rates) = median_of(3, || Ok(runs.next().unwrap())).unwrap();
        assert_eq!((rate, name, bad), (200.0, "b", 1));
        assert_eq!(rates, vec![300.0, 100.0, 200.0]);
        let mut fails = [Ok(1.0), Err("no device".to_string())].into_iter();
        assert!(median_of(2, || fails.next().unwrap()).is_err());
    }

    /// Every fixed shape exists in the corpus, and its instances differ in data only: the
    /// reference finds each well defined and they all emit one kernel.
    #[test]
    fn fixed_shapes_instantiate_to_one_kernel() {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        for s in &SHAPES {
            let t = corpus_case(&corpus, s.file, s.case).unwrap();
            let cases = instances(&t, 3);
            let mut keys = std::collections::BTreeSet::new();
            let mut data = std::collections::BTreeSet::new();
            for c in &cases {
                let (r, _) = evaluate("bench", c);
                assert!(!r.verdict.is_failure(), "{}: {}", c.name, r.detail);
                let em = ptxconform_gpu::emit::emit(c).unwrap();
                keys.insert(em.shape_key);
                data.insert(format!("{:?}", c.memory));
            }
            assert_eq!(keys.len(), 1, "{}: one kernel", s.case);
            let regions = t.memory.global.len() + t.memory.shared.len();
            let expect = if regions == 0 { 1 } else { 3 };
            assert_eq!(data.len(), expect, "{}: instances differ in data", s.case);
        }
    }
}
