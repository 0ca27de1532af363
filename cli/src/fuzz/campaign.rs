//! The campaign loop: seed sequence → generated programs → CPU oracles → (batched) hardware →
//! signatures → minimization → regression cases; figures every few seconds and a journal that
//! `--resume` continues from.
//!
//! Journal (`OUT/journal.jsonl`, one JSON object a line, appended and flushed): `progress` lines
//! after every batch (the next program index and the cumulative figures) and `finding` lines (a
//! saved signature). Programs come in shapes ([`Options::values_per_shape`] K): program k is
//! value set k mod K of shape k / K ([`generate_program`]: the shape from [`program_bytes`], the
//! values from [`value_bytes`]), so the K programs of a shape share one compiled kernel and run as
//! instances of one launch, and a resumed campaign generates exactly the programs an
//! uninterrupted one would. A journal of another generator version or K is not resumed.
//!
//! The campaign keeps a coverage map ([`coverage`]) in `OUT/campaign.json` (written at every
//! checkpoint, so `--resume` continues from the map of its last block) and
//! `OUT/campaign-coverage.md`; it steers the swarm of each block's shapes toward the least hit
//! cells (given the map at the block's start, program k is a function of (seed, k)), and spends
//! at most a share of the hardware time on programs predicted to trap ([`trap_budget`]).

use super::{ConfigKind, FuzzArgs};
use crate::shard::Shard;
use coverage::{analyze_executed, Aim, Analysis, CoverageMap};
use ptxconform_core::differential::{Backend, Executed, Prepare, Readied};
use ptxconform_core::evaluate::evaluate;
use ptxconform_core::known::KnownDivergences;
use ptxconform_core::pools::{self, Stage};
use ptxconform_core::result::Verdict;
use ptxconform_gpu::attribution::Attributor;
use ptxconform_reference::case::validate::{case_errors, parse_steps};
use ptxconform_reference::case::{Case, StepOp};
use ptxconform_reference::gen::bytes::ValueClasses;
use ptxconform_reference::gen::oracle::{
    check_cpu, Oracle, Reference, StaticLegality, Validates, Violation, YamlRoundTrip,
};
use ptxconform_reference::gen::swarm::{deviation_byte, SwarmBits, DEVIATION_BYTE};
use ptxconform_reference::gen::{
    self, generate_bytes, GenConfig, Generated, Intent, BLOCK, HEADER,
};
use ptxconform_reference::ptx::mbarrier::MbarrierOp;
use ptxconform_reference::ptx::{Instruction, Statement};
use ptxconform_reference::sem::exec::{
    execute_with, ExecOptions, Execution, Outcome, OutcomeClass, TraceDetail,
};
use ptxconform_reference::sem::profile::Profile;
use ptxconform_reference::sem::ub::WAIT_NEVER_COMPLETES;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use trap_budget::{Ledger, TrapBudget};

pub mod coverage;
mod drawer;
mod findings;
mod mutants;
#[cfg(test)]
mod tests;
pub mod trap_budget;

/// Aims of a block's steering ([`CoverageMap::targets`]; a 60 s reference-only campaign of the
/// mixed config on 2 cores leaves some 800 of 2,100 reachable cells unhit).
const STEER_TARGETS: usize = 512;

/// Seconds a minimization may run past the campaign's `--seconds` deadline.
const MINIMIZE_GRACE_S: u64 = 30;

/// Where and how a campaign writes.
#[derive(Clone, Debug)]
pub struct Options {
    pub seed: u64,
    pub out: PathBuf,
    pub regressions: PathBuf,
    pub known: KnownDivergences,
    pub resume: bool,
    /// Candidates per minimization round.
    pub batch: usize,
    /// Programs in each block the campaign draws and runs.
    pub blocks: Blocks,
    pub minimize_rounds: usize,
    /// The part of the campaign's programs this process runs.
    pub shard: Shard,
    /// A case planted among the generated ones (what traps cost a campaign: `bench`).
    pub planted: Option<Planted>,
    /// The reading hardware is judged against.
    pub profile: Profile,
    /// Programs (value sets) per shape (1: every program its own shape, the single-stream
    /// generator).
    pub values_per_shape: u64,
    /// Judge every hardware observation under every mutant of the reference (`--mutants`; a
    /// build with the `mutants` feature).
    pub mutants: bool,
    /// Coverage map, steering and the trap budget.
    pub explore: Explore,
}

/// What a campaign explores toward and what it spares the hardware.
#[derive(Clone, Debug)]
pub struct Explore {
    /// Keep the coverage map (one more reference run per program, for its cells).
    pub coverage: bool,
    /// Steer each shape's swarm toward the least hit cells (needs `coverage`).
    pub steer: bool,
    /// The largest share of hardware time for launches predicted to trap (`None`: run all).
    pub trap_budget: Option<TrapBudget>,
    /// The corpus whose recorded runs count as each rule's silicon evidence (trap budget), and
    /// the folder of sweep records counted too.
    pub evidence: PathBuf,
    pub evidence_sweeps: PathBuf,
    /// Shapes of the probe that marks reachable cells ([`CoverageMap::probe`]).
    pub probe_shapes: u64,
}

impl Default for Explore {
    fn default() -> Self {
        Explore {
            coverage: true,
            steer: true,
            trap_budget: None,
            evidence: PathBuf::from("cases"),
            evidence_sweeps: PathBuf::from("reports/sweep"),
            probe_shapes: coverage::PROBE_SHAPES,
        }
    }
}

/// Value sets per shape when `--values-per-shape` is not given. Each shape is a kernel that
/// ptxas compiles (about 28 ms of CPU on the 16-core H200 host, more than half of a campaign's
/// CPU at 64), so fewer shapes a program leave more of the host to programs: 30 s campaigns at 80
/// against 64 took 9-17% less CPU a program on one H200 machine start, and ran 8-17% more
/// programs/s (`reports/bench/README.md`, h200-2026-11-30m). At 80, 20,000 programs/s is 250
/// shapes/s, the floor that keeps a campaign's structure exploring.
pub const DEFAULT_VALUES_PER_SHAPE: u64 = 80;

/// Every `every`-th program's hardware run is replaced by a copy of `case` (named for the
/// program), e.g. a known trapping case, so a campaign meets it at a fixed rate.
#[derive(Clone, Debug)]
pub struct Planted {
    pub every: u64,
    pub case: Case,
}

impl Planted {
    /// The case program `k` runs instead of its own, if any.
    fn at(&self, k: u64) -> Option<Case> {
        (self.every > 0 && (k + 1).is_multiple_of(self.every)).then(|| {
            let mut c = self.case.clone();
            c.name = format!("{}.planted{k}", c.name);
            c
        })
    }
}

impl Options {
    pub fn from_args(a: &FuzzArgs) -> Options {
        Options {
            seed: a.seed,
            out: a.out.clone(),
            regressions: a.regressions.clone(),
            known: KnownDivergences::load(&a.known).unwrap_or_else(|e| {
                eprintln!("warning: {e}; no known divergences");
                KnownDivergences::default()
            }),
            resume: a.resume,
            batch: a.batch.unwrap_or_else(|| default_block(a.config)).max(1),
            blocks: a
                .batch
                .map_or_else(|| default_blocks(a.config), Blocks::fixed),
            minimize_rounds: a.minimize_rounds,
            shard: a.shard.unwrap_or(Shard::ALL),
            planted: None,
            profile: a.profile,
            values_per_shape: a.values_per_shape.max(1),
            mutants: a.mutants,
            explore: Explore {
                coverage: !a.no_coverage,
                steer: !a.no_coverage && !a.no_coverage_steer,
                trap_budget: a.trap_budget.filter(|b| b.0 < 1.0),
                evidence: a.evidence_cases.clone(),
                evidence_sweeps: a.evidence_sweeps.clone(),
                ..Explore::default()
            },
        }
    }
}

/// When to stop (whichever comes first; neither: after 60 s).
#[derive(Clone, Debug, Default)]
pub struct Stop {
    pub seconds: Option<u64>,
    pub programs: Option<u64>,
    /// Once every reachable coverage cell is hit.
    pub coverage: bool,
}

impl Stop {
    /// After `n` programs, and only then.
    pub fn programs(n: u64) -> Stop {
        Stop {
            seconds: None,
            programs: Some(n),
            coverage: false,
        }
    }
    pub fn from_args(a: &FuzzArgs) -> Stop {
        let seconds = if a.seconds.is_none() && a.cases.is_none() {
            Some(60)
        } else {
            a.seconds
        };
        Stop {
            seconds,
            programs: a.cases,
            coverage: a.until_coverage,
        }
    }
}

/// Cumulative figures (also `OUT/campaign.json`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub seed: u64,
    /// The generator's version ([`gen::GENERATOR_VERSION`]; 0: a journal from before versions).
    #[serde(default)]
    pub generator: u32,
    /// Programs (value sets) per shape (0: a journal from before shapes).
    #[serde(default)]
    pub values_per_shape: u64,
    /// Distinct programs (case fingerprints) and distinct shapes (kernel texts) generated that
    /// reach the hardware stage (legal, CPU oracles passed); counted per invocation (a resumed
    /// campaign adds what it saw anew, so a program seen before and after a resume counts twice).
    #[serde(default)]
    pub distinct_programs: u64,
    #[serde(default)]
    pub distinct_shapes: u64,
    /// `I/N` when this campaign runs shard I of N of the programs (empty: all).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub shard: String,
    /// Programs generated (the next program index within the shard).
    pub programs: u64,
    /// Generated cases run on hardware.
    pub gpu_cases: u64,
    /// Seconds spent, over all resumed runs.
    pub seconds: f64,
    /// Hardware verdicts by name.
    pub verdicts: BTreeMap<String, u64>,
    /// Programs by intent (well defined / illegal / undefined / racy).
    pub intents: BTreeMap<String, u64>,
    /// CPU oracle violations (each counted; new ones minimized and saved).
    pub violations: u64,
    /// Hardware failures not covered by a known divergence (each counted).
    pub divergences: u64,
    /// Failures suppressed as known divergences.
    pub known: u64,
    /// Failures whose signature was already found.
    pub duplicates: u64,
    /// Minimized regression cases written.
    pub minimized_written: u64,
    /// Minimization test rounds and candidate cases (hardware or CPU).
    pub minimize_rounds: u64,
    pub minimize_cases: u64,
    /// Signature -> regression file, of every finding saved.
    pub findings: BTreeMap<String, String>,
    /// The profile hardware was judged under (`spec`, `sm_90`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub profile: String,
    /// Profile position -> hardware passes that departed from its spec reading.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub departures: BTreeMap<String, u64>,
    /// Signature -> culprit of every hardware finding saved (silicon, compiler: builds, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub culprits: BTreeMap<String, String>,
    /// Mutants of the reference every hardware observation was judged under (`--mutants`; 0:
    /// not judged), and the first kill of each mutant killed, by mutant id.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub mutants: u64,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mutant_kills: BTreeMap<String, MutantKill>,
    /// Programs predicted to trap or hang: run, skipped by the trap budget, hardware seconds.
    #[serde(default)]
    pub trap_budget: Ledger,
    /// Shapes were steered toward the least covered cells (their programs depend on the map).
    #[serde(default)]
    pub coverage_steer: bool,
}

/// `OUT/campaign.json`: the figures and the coverage map.
#[derive(Serialize, Deserialize)]
struct Figures<S> {
    #[serde(flatten)]
    stats: S,
    #[serde(default)]
    coverage: CoverageMap,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The first observation of a campaign that killed a mutant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MutantKill {
    /// Seconds of campaign (over resumed runs) and programs generated when it was judged.
    pub seconds: f64,
    pub programs: u64,
    /// The program (campaign-wide index), its case name and fingerprint.
    pub program: u64,
    pub case: String,
    pub fingerprint: String,
    /// The judge failed the observation under the mutant (else: the mutant called undefined a
    /// program the model passes, which silicon completed as predicted).
    pub judge_fails: bool,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    Progress(Box<Stats>),
    Finding {
        signature: String,
        file: String,
        program: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        culprit: Option<String>,
    },
}

/// Input bytes of shape `k` of campaign `seed` (splitmix64 stream; enough for the header and
/// every episode the config allows). With one value set per shape, program `k`'s only input.
pub fn program_bytes(seed: u64, k: u64, cfg: &GenConfig) -> Vec<u8> {
    let n = HEADER + BLOCK * cfg.max_episodes.max(1);
    let start =
        seed ^ k.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17) ^ 0x243f_6a88_85a3_08d3;
    ptxconform_reference::case::init::pattern(start, n)
}

/// Value bytes of value set `j` of shape `shape` of campaign `seed`.
pub fn value_bytes(seed: u64, shape: u64, j: u64, cfg: &GenConfig) -> Vec<u8> {
    let start = seed.rotate_left(29)
        ^ shape.wrapping_mul(0xbf58_476d_1ce4_e5b9)
        ^ j.wrapping_mul(0x94d0_49bb_1331_11eb).rotate_left(31)
        ^ 0x1319_8a2e_0370_7344;
    ptxconform_reference::case::init::pattern(start, gen::value_len(cfg))
}

/// Where program `k` of `shard` (its index within the shard) sits: `(program, shape, value
/// set)`, all campaign-wide. A shard takes whole shapes, so it compiles only its own kernels.
pub fn locate(shard: Shard, k: u64, values_per_shape: u64) -> (u64, u64, u64) {
    let per = values_per_shape.max(1);
    let shape = shard.program(k / per);
    let j = k % per;
    (shape * per + j, shape, j)
}

/// Value set `j` of shape `shape` of campaign `seed`: with one value set per shape, the
/// single-stream generator over [`program_bytes`]; else [`gen::generate_shaped`].
pub fn generate_program(
    seed: u64,
    shape: u64,
    j: u64,
    values_per_shape: u64,
    cfg: &GenConfig,
) -> Generated {
    generate_analyzable(seed, shape, j, values_per_shape, cfg).0
}

/// [`generate_program`] with its value set's classes (none for the single-stream generator) and
/// its swarm bits.
pub fn generate_analyzable(
    seed: u64,
    shape: u64,
    j: u64,
    values_per_shape: u64,
    cfg: &GenConfig,
) -> (Generated, Option<ValueClasses>, SwarmBits) {
    generate_steered(seed, shape, j, values_per_shape, cfg, &[])
}

/// [`generate_analyzable`] with shape `shape`'s swarm steered toward one of `targets` (the
/// swarm bits and deviation of the least hit cells, [`CoverageMap::targets`]): half the shapes,
/// chosen by (seed, shape), enable one target's bits and each other bit with chance 1/4, and ask
/// for its deviation if it has one; the rest keep their own draw. No targets: the unsteered
/// program.
pub fn generate_steered(
    seed: u64,
    shape: u64,
    j: u64,
    values_per_shape: u64,
    cfg: &GenConfig,
    targets: &[Aim],
) -> (Generated, Option<ValueClasses>, SwarmBits) {
    let mut bytes = program_bytes(seed, shape, cfg);
    if !targets.is_empty() {
        let h =
            ptxconform_reference::case::init::pattern(seed ^ shape.rotate_left(7) ^ 0x5ee4_57ee, 8);
        let h = u64::from_le_bytes(h.try_into().unwrap_or([0; 8]));
        if h & 1 == 1 {
            let aim = targets[((h >> 1) % targets.len() as u64) as usize];
            let (a, b) = ((h >> 16) as u16, (h >> 32) as u16);
            SwarmBits(aim.swarm.0 | (a & b)).write(&mut bytes);
            let asked = aim
                .deviation
                .and_then(|d| deviation_byte(cfg, d.deviation()));
            if let (Some(d), Some(at)) = (asked, bytes.get_mut(DEVIATION_BYTE)) {
                *at = d;
            }
        }
    }
    let swarm = SwarmBits::of_header(&bytes, cfg);
    if values_per_shape <= 1 {
        (generate_bytes(&bytes, cfg), None, swarm)
    } else {
        let values = value_bytes(seed, shape, j, cfg);
        let classes = ValueClasses::from_byte(values.first().copied().unwrap_or(0));
        (
            gen::generate_shaped(&bytes, &values, cfg),
            Some(classes),
            swarm,
        )
    }
}

/// A program's identity: the fingerprint of its case (every field, names included, which
/// generated cases derive from their steps), the identity of its JSON text
/// ([`ptxconform_core::hash::json_identity`]; rendering the YAML instead cost a twentieth of a
/// campaign's host CPU).
pub fn fingerprint(c: &Case) -> u64 {
    ptxconform_core::hash::json_identity(c).expect("a case serialises to JSON")
}

fn intent_name(i: &Intent) -> &'static str {
    match i {
        Intent::WellDefined => "well defined",
        Intent::Illegal { .. } => "illegal",
        Intent::Undefined { .. } => "undefined",
        Intent::Racy { .. } => "racy",
    }
}

/// Every CPU oracle over a generated program (the static ones, the reference, and ptxas when it
/// is installed); the first violation.
pub fn cpu_oracles(g: &Generated) -> Result<(), Violation> {
    check_cpu(g)?;
    match ptxas_oracle(std::slice::from_ref(g), &[true])
        .pop()
        .flatten()
    {
        Some(v) => Err(v),
        None => Ok(()),
    }
}

/// One generated program of a block: its campaign-wide index, fingerprint, the kernel
/// text's key of its shape (computed once per shape run, for programs that reach the hardware
/// stage), and its CPU oracles' verdict.
struct Program {
    k: u64,
    shape: u64,
    /// Its coverage cells and the reference's prediction (kept map, or an undefined program).
    analysis: Option<Analysis>,
    fingerprint: u64,
    kernel: Option<u64>,
    generated: Generated,
    checked: Result<(), Violation>,
    /// The reference's run of it under the campaign's profile, which the hardware stage judges
    /// against (kept only for a campaign with hardware).
    executed: Option<Executed>,
}

impl Program {
    /// Whether the program goes on to a campaign's hardware (before the trap budget): it passed
    /// the CPU oracles and is legal.
    fn runs_on_hardware(&self) -> bool {
        self.checked.is_ok() && !matches!(self.generated.intent, Intent::Illegal { .. })
    }
}

/// Generated programs with their CPU oracles' verdicts, in program order.
type Block = Vec<Program>;

/// The first step of a block's first hardware run: its cases, and their executions.
type FirstStep<'b> = (Vec<(&'b str, &'b Case)>, Vec<Option<Executed>>);

/// The first step of `block`'s first hardware run ([`findings::Part::Rest`]) on a backend of
/// `lanes` lanes, its executions taken out of the block to go with it. Meant for a block drawn
/// and not yet taken, without planted programs.
fn upcoming_of(block: &mut Block, lanes: usize) -> FirstStep<'_> {
    let rest = |p: &Program| {
        p.runs_on_hardware() && findings::Part::of(p.analysis.as_ref()) == findings::Part::Rest
    };
    let n = block.iter().filter(|p| rest(p)).count();
    let first = ptxconform_core::differential::first_step(n, lanes, findings::Part::Rest.steps());
    block
        .iter_mut()
        .filter(|p| rest(p))
        .take(first)
        .map(|p| {
            let Program {
                generated,
                executed,
                ..
            } = p;
            ((crate::fuzz::GENERATED, &generated.case), executed.take())
        })
        .unzip()
}

/// Wall time of a campaign's two stages, summed over blocks: the hardware stage (observing and
/// judging a block), and generating and checking a block (the next one beside the hardware
/// stage), with how long the campaign waited for generation alone.
#[derive(Clone, Copy, Debug, Default)]
struct Walls {
    hardware: Duration,
    generate: Duration,
    waited: Duration,
    /// When this invocation's first block was through (generated, checked and, with hardware,
    /// judged) and how many programs it held: the warm-up a campaign pays once (nothing runs
    /// beside the first block's generation, nor beside its shapes' compilation).
    first_block: Option<(Duration, u64)>,
}

/// A campaign's rate apart from its warm-up: the programs after the first block over the time
/// after it. `None` until a block after the first is through.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sustained {
    /// Seconds from the invocation's start to the end of its first block.
    pub warmup_s: f64,
    /// Programs in the first block.
    pub warmup_programs: u64,
    pub programs_per_s: f64,
}

impl Sustained {
    /// The rate of `programs` over `elapsed` without the first block (`first`).
    fn of(first: (Duration, u64), elapsed: Duration, programs: u64) -> Option<Sustained> {
        let (t, n) = first;
        let after = elapsed.checked_sub(t)?.as_secs_f64();
        (programs > n && after > 0.0).then(|| Sustained {
            warmup_s: t.as_secs_f64(),
            warmup_programs: n,
            programs_per_s: (programs - n) as f64 / after,
        })
    }
}

impl Walls {
    fn describe(&self) -> String {
        format!(
            "wall: hardware stage {:.2}s; generating and checking {:.2}s, of which {:.2}s waited \
             for alone",
            self.hardware.as_secs_f64(),
            self.generate.as_secs_f64(),
            self.waited.as_secs_f64()
        )
    }
}

/// Programs in a full block when `--batch` is not given (also the candidates per minimization
/// round): for `--config legal` 1,024 per thread, at least 2,048; past 16,384 only as far as
/// [`BLOCK_MEMORY_SHARE`] of the memory available allows, and at most [`MAX_LEGAL_BLOCK`].
///
/// A block's new shapes compile while the device runs the block before, and a larger block
/// links more of them into each module, one ptxas start for several shapes. Each block also
/// costs the device a start and an end: every lane prepares its first step before the device
/// has anything to run, and lanes that run out of steps wait for the last. `fuzz --config
/// legal`, K = 64, 20 s, on a 64-core host with four H200s and 64 threads a pool: on one
/// machine start, one GPU 18,780 programs/s with blocks of 16,384 and 23,432 with 32,768, two
/// GPUs 22,930 and 28,400; on another, one GPU 25,543 with 16,384 and 25,488 with 65,536
/// (`reports/bench/README.md`, h200x4-2026-11-29i). On a 16-core H200 blocks of 4,096 ran
/// 10,363, 9,508 and 12,225 programs/s (1.8 shapes a module), of 16,384 11,328, 10,881 and
/// 12,230 (5.2) (h200-2026-11-29c); blocks growing to 65,536 (4,096 a thread) ran 18,113 and
/// 20,473 against 20,829 and 20,275 with 16,384 (h200-2026-12-01w). Other configs keep 256 per
/// thread: their hardware time goes to traps and hangs more than to compiling, and a block runs
/// to its end past `--seconds`, its unexpected traps included.
pub fn default_block(config: ConfigKind) -> usize {
    let threads = rayon::current_num_threads();
    match config {
        ConfigKind::Legal => legal_block(threads, available_memory()),
        ConfigKind::Mixed => (256 * threads).max(2048),
    }
}

/// The blocks of a campaign: the first holds `first` programs and each next one twice as many
/// as the one before, up to `most`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocks {
    pub first: usize,
    pub most: usize,
}

impl Blocks {
    /// Every block `n` programs (`--batch`).
    pub fn fixed(n: usize) -> Blocks {
        Blocks {
            first: n.max(1),
            most: n.max(1),
        }
    }

    /// Programs in block `i` (from 0).
    pub fn nth(&self, i: u32) -> usize {
        let first = self.first.max(1);
        let grown = first.saturating_mul(1usize.checked_shl(i).unwrap_or(usize::MAX));
        grown.min(self.most).max(first)
    }
}

/// The blocks of a campaign when `--batch` is not given: for `--config legal` a quarter of
/// [`default_block`] at first (at least 2,048), doubling up to it. The first block runs with
/// nothing beside it: it is drawn and checked, and its kernels compiled, before the device has
/// anything to run. On one start of a 16-core H200, 20 s rows, the first block of 16,384 took
/// 1.5 s and one of 4,096 0.5 s (`reports/bench/README.md`, h200-2026-12-01w). Other configs
/// keep [`default_block`] throughout.
pub fn default_blocks(config: ConfigKind) -> Blocks {
    let full = default_block(config);
    match config {
        ConfigKind::Legal => Blocks {
            first: (full / 4).max(2048).min(full),
            most: full,
        },
        ConfigKind::Mixed => Blocks::fixed(full),
    }
}

/// Blocks a campaign with hardware has asked to be drawn beyond the one it takes
/// ([`drawer`]): a block is drawn while the one before it compiles.
const DRAWN_AHEAD: usize = 2;

/// Most programs in a default `--config legal` block (the largest measured).
const MAX_LEGAL_BLOCK: usize = 65_536;

/// What a block of `--config legal` holds a program, on a device: the case, its execution and
/// its observation (3.3 GB resident at 16,384, on an H100).
const BLOCK_BYTES_PER_PROGRAM: u64 = 200 << 10;

/// The share of the available memory one default block may take past 16,384 programs: a
/// campaign holds four at most (the one on the device, [`DRAWN_AHEAD`] drawn ahead of it, and
/// the one it frees).
const BLOCK_MEMORY_SHARE: u64 = 8;

/// [`default_block`] for `--config legal` on `threads` threads with `available` bytes of memory
/// free (unknown: no growth past 16,384).
fn legal_block(threads: usize, available: Option<u64>) -> usize {
    let fits = available.map_or(0, |b| b / BLOCK_MEMORY_SHARE / BLOCK_BYTES_PER_PROGRAM);
    let most = (fits as usize).clamp(16_384, MAX_LEGAL_BLOCK);
    (1024 * threads).clamp(2048, most)
}

/// The memory the kernel says is available for new work (`MemAvailable`, Linux), in bytes.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    meminfo_available(&info)
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn meminfo_available(info: &str) -> Option<u64> {
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line
        .trim_start_matches("MemAvailable:")
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

/// How a block is generated and analysed.
#[derive(Clone)]
struct BlockSpec {
    seed: u64,
    cfg: GenConfig,
    shard: Shard,
    per: u64,
    profile: Profile,
    /// Analyse every program (the coverage map), else only the undefined ones (their prediction).
    coverage: bool,
    /// The programs go on to hardware: keep each one's execution for its judge.
    hardware: bool,
    /// Steering targets ([`generate_steered`]).
    targets: Vec<Aim>,
    /// The hardware's host side, which compiles a block's new shapes once they are drawn, on a
    /// thread of its own ([`drawer`]), while the device still runs the blocks before and the
    /// campaign draws the block after.
    warm: Option<Arc<dyn Prepare>>,
}

/// Programs `ks` of `shard` of campaign `seed`, generated and checked on every core (the
/// generation stage's pool, apart from the hardware stage's), and with hardware (`spec.warm`)
/// one program of each shape that runs there, for its kernel to be compiled ahead.
fn check_block(spec: &BlockSpec, ks: std::ops::Range<u64>) -> (Block, Vec<Case>) {
    let _span = ptxconform_core::trace::span("block: draw and check", (ks.end - ks.start) as usize);
    pools::install(Stage::Generate, || check_block_here(spec, ks))
}

fn check_block_here(spec: &BlockSpec, ks: std::ops::Range<u64>) -> (Block, Vec<Case>) {
    let (seed, cfg, shard, per) = (spec.seed, &spec.cfg, spec.shard, spec.per);
    let placed: Vec<(u64, u64, u64)> = ks.map(|k| locate(shard, k, per)).collect();
    let made: Vec<(Generated, Option<ValueClasses>, SwarmBits)> = placed
        .par_iter()
        .map(|&(_, shape, j)| generate_steered(seed, shape, j, per, cfg, &spec.targets))
        .collect();
    let (gens, marks): (Vec<Generated>, Vec<(Option<ValueClasses>, SwarmBits)>) =
        made.into_iter().map(|(g, c, s)| (g, (c, s))).unzip();
    // Per-shape checks (the YAML round trip, the ptxas oracle) judge a shape once: its first
    // value set in the block.
    let firsts: Vec<bool> = placed
        .iter()
        .enumerate()
        .map(|(i, p)| i == 0 || placed[i - 1].1 != p.1)
        .collect();
    let mut checked: Vec<Checked> = (0..gens.len())
        .into_par_iter()
        .map(|i| check_program(spec, &gens[i], firsts[i], marks[i]))
        .collect();
    let asked: Vec<bool> = (0..gens.len())
        .map(|i| checked[i].verdict.is_ok() && firsts[i])
        .collect();
    for (c, v) in checked.iter_mut().zip(ptxas_oracle(&gens, &asked)) {
        if let Some(v) = v {
            *c = Checked::violated(v);
        }
    }
    let fingerprints: Vec<u64> = gens.par_iter().map(|g| fingerprint(&g.case)).collect();
    // A shape's kernel key, from its first program that would reach the hardware (value sets of
    // a shape emit one kernel text: `gpu/tests/suite/emit_generated.rs`).
    let mut keyed: Vec<Option<usize>> = vec![None; gens.len()];
    let mut last: Option<(u64, usize)> = None;
    for (i, p) in placed.iter().enumerate() {
        let runs = checked[i].verdict.is_ok() && !matches!(gens[i].intent, Intent::Illegal { .. });
        if !runs {
            continue;
        }
        match last {
            Some((s, at)) if s == p.1 => keyed[i] = Some(at),
            _ => {
                keyed[i] = Some(i);
                last = Some((p.1, i));
            }
        }
    }
    let keys: Vec<Option<u64>> = (0..gens.len())
        .into_par_iter()
        .map(|i| {
            (keyed[i] == Some(i))
                .then(|| ptxconform_gpu::emit::emit(&gens[i].case).ok())
                .flatten()
                .map(|e| e.shape_key)
        })
        .collect();
    let firsts: Vec<Case> = match spec.warm {
        Some(_) => (0..gens.len())
            .filter(|&i| keyed[i] == Some(i))
            .map(|i| gens[i].case.clone())
            .collect(),
        None => Vec::new(),
    };
    let block = gens
        .into_iter()
        .zip(checked)
        .enumerate()
        .map(|(i, (generated, c))| Program {
            k: placed[i].0,
            shape: placed[i].1,
            analysis: c.analysis,
            fingerprint: fingerprints[i],
            kernel: keyed[i].and_then(|at| keys[at]),
            generated,
            checked: c.verdict,
            executed: c.executed,
        })
        .collect();
    (block, firsts)
}

/// A program's CPU oracles but ptxas, and what the reference's run of it gave the campaign.
struct Checked {
    verdict: Result<(), Violation>,
    analysis: Option<Analysis>,
    executed: Option<Executed>,
}

impl Checked {
    fn violated(v: Violation) -> Checked {
        Checked {
            verdict: Err(v),
            analysis: None,
            executed: None,
        }
    }
}

/// [`check_cpu`]'s oracles over one program of a block, in its order, with the reference run
/// once: the YAML round trip only on a shape's `first` program (the YAML of its value sets
/// differs in values only), and one execution under the campaign's profile that serves the
/// reference oracle where it decides it ([`reference_oracle_passes`]), the coverage analysis
/// and the hardware's judge ([`Executed`]), where the oracle alone would run the text's reading
/// and both others the profile's again.
fn check_program(
    spec: &BlockSpec,
    g: &Generated,
    first: bool,
    (classes, swarm): (Option<ValueClasses>, SwarmBits),
) -> Checked {
    let statics = Validates
        .check(g)
        .and_then(|()| StaticLegality.check(g))
        .and_then(|()| {
            if first {
                YamlRoundTrip.check(g)
            } else {
                Ok(())
            }
        });
    if let Err(v) = statics {
        return Checked::violated(v);
    }
    let passed = |analysis, executed| Checked {
        verdict: Ok(()),
        analysis,
        executed,
    };
    if matches!(g.intent, Intent::Illegal { .. }) {
        // The reference oracle passes illegal programs unrun; they reach neither map nor device.
        return passed(None, None);
    }
    let analysed = spec.coverage || !matches!(g.intent, Intent::WellDefined);
    if !(analysed || spec.hardware) {
        // Nothing but the oracle reads the run: its own keeps only the outcome.
        return match Reference.check(g) {
            Ok(()) => passed(None, None),
            Err(v) => Checked::violated(v),
        };
    }
    let t = Instant::now();
    // A panic is the oracle's to report (it runs again below and catches it).
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        execute_with(
            &g.case,
            ExecOptions::of(spec.profile).keeping(TraceDetail::Touches),
        )
    }));
    let took = t.elapsed();
    let ex = run.ok().and_then(Result::ok);
    let oracle = match &ex {
        Some(x) if reference_oracle_passes(g, x, spec.profile) => Ok(()),
        _ => Reference.check(g),
    };
    if let Err(v) = oracle {
        return Checked::violated(v);
    }
    // A run of the profile that failed where the text's passed is the hardware stage's to report
    // (its reference side runs the case again).
    let Some(ex) = ex else {
        return passed(None, None);
    };
    let analysis = analysed.then(|| analyze_executed(g, &ex, classes, swarm));
    let executed = spec.hardware.then_some(Executed {
        execution: ex,
        took,
    });
    passed(analysis, executed)
}

/// Whether the reference oracle ([`Reference`]: the text's reading, outcome only) passes `g`,
/// read off `ex`, its run under `profile`, where that is certain: the two runs are one (the
/// profile is the text's, or no position's readings differed — reductions are the only place
/// the profiles part, and a run records a departure wherever they would) and the outcome is the
/// intended one. Otherwise the oracle decides by its own run.
fn reference_oracle_passes(g: &Generated, ex: &Execution, profile: Profile) -> bool {
    let one_run = profile == Profile::Spec || ex.departures.is_empty();
    one_run
        && match (&g.intent, &ex.outcome) {
            (Intent::WellDefined, Outcome::Defined) => true,
            (Intent::Undefined { rule } | Intent::Racy { rule }, Outcome::Undefined { ub, .. }) => {
                ub.rule == *rule && ub.rule != WAIT_NEVER_COMPLETES.id
            }
            _ => false,
        }
}

/// Programs in block `i`: as `blocks` says, or what `stop` leaves after `done`.
fn block_len(blocks: Blocks, i: u32, stop: &Stop, done: u64) -> u64 {
    let left = stop.programs.map_or(u64::MAX, |n| n.saturating_sub(done));
    (blocks.nth(i) as u64).min(left)
}

/// The ptxas oracle, when ptxas is installed, once for all instructions it has not judged yet, of
/// the programs `asked[i]` names (that passed the other oracles, one per shape: the oracle judges
/// the program's text, which its value sets share but for the immediates the emitter reads from
/// the parameter block): the violation of each program it failed.
fn ptxas_oracle(gs: &[Generated], asked: &[bool]) -> Vec<Option<Violation>> {
    let mut out = vec![None; gs.len()];
    if let Some(p) = super::ptxas_oracle::ptxas() {
        let (idx, ok): (Vec<usize>, Vec<&Generated>) =
            gs.iter().enumerate().filter(|(i, _)| asked[*i]).unzip();
        for (i, r) in idx
            .into_iter()
            .zip(super::ptxas_oracle::check_ptxas_many(p, &ok))
        {
            out[i] = r.err();
        }
    }
    out
}

fn validates(c: &Case) -> bool {
    case_errors(c).is_empty()
}

/// A hardware minimization candidate: validates, the reference finds it well defined, and every
/// asynchronous operation it starts has completed by the end (no group left un-waited, every
/// issued asynchronous write landed, every copy writes something, mbarriers are valid where used
/// and end with tx-count 0). The reference tolerates some of these (an operation in flight at
/// exit, a complete_tx without its expect_tx, a multicast ctaMask of 0), but such a variant would
/// test something else on silicon.
pub fn settled(c: &Case) -> bool {
    let (r, ex) = evaluate("", c);
    let Ok(ex) = ex else { return false };
    if r.verdict != Verdict::ReferencePass {
        return false;
    }
    use ptxconform_reference::sem::exec::TouchKind;
    let count = |k: TouchKind| {
        ex.trace
            .iter()
            .flat_map(|t| &t.touched)
            .filter(|t| t.kind == k && !t.range.is_empty())
            .count()
    };
    let groups_done = ex.final_state.groups.iter().all(|g| {
        g.cp_async_groups + g.cp_async_uncommitted + g.bulk_groups + g.bulk_uncommitted == 0
    });
    // A copy that moves no byte (size 0), or an mbarrier used while not a valid object, is
    // something else on silicon even where the model lets it pass. Steps are read by their
    // parsed instructions (the trace's text is for people).
    let mut parsed: Vec<Option<Statement>> = vec![None; c.program.len()];
    for (i, st) in parse_steps(c) {
        parsed[i] = st.ok();
    }
    let real = ex.trace.iter().all(|t| {
        let instr = parsed[t.step].as_ref().map(|s| &s.instr);
        let copy_moves = !instr.is_some_and(Instruction::is_async_copy)
            || t.touched
                .iter()
                .any(|x| x.kind == TouchKind::Issue && !x.range.is_empty());
        let invalidates = matches!(instr, Some(Instruction::Mbarrier(MbarrierOp::Inval { .. })));
        let addressed = match (instr, &c.program[t.step].op) {
            (Some(i), _) => i.address_names(),
            (None, StepOp::WaitParity { mbar, .. }) => vec![mbar.clone()],
            (None, _) => vec![],
        };
        let bars_valid = invalidates
            || c.memory
                .mbarriers
                .iter()
                .filter(|m| addressed.contains(&m.name))
                .all(|m| {
                    t.mbarriers
                        .iter()
                        .any(|(k, n, st)| *k == t.cta && **n == *m.name && st.valid)
                });
        copy_moves && bars_valid
    });
    // tx bookkeeping balanced: every valid mbarrier ends with a known tx-count of 0.
    let balanced = ex
        .final_state
        .mbarriers
        .iter()
        .flat_map(|m| m.values())
        .all(|m| !m.valid || m.tx_count == Some(0));
    real && balanced && groups_done && count(TouchKind::Issue) == count(TouchKind::Land)
}

/// Mutants of the reference (0 without the mutation schema).
fn mutant_count() -> u64 {
    #[cfg(feature = "mutants")]
    {
        ptxconform_reference::sem::mutant::Mutant::ALL.len() as u64
    }
    #[cfg(not(feature = "mutants"))]
    {
        0
    }
}

pub struct Campaign<'h> {
    cfg: GenConfig,
    opts: Options,
    hw: Option<&'h mut dyn Backend>,
    pub stats: Stats,
    journal: File,
    /// Raw signature of an unminimized failure -> signature its minimization ended at.
    raw_seen: BTreeMap<String, String>,
    resumed_findings: usize,
    /// Minimizations stop here (the campaign's deadline plus a grace period).
    minimize_until: Option<Instant>,
    /// Re-runs every hardware finding, once minimized, under the other builds and names its
    /// culprit (`None`: findings go unattributed, e.g. without a GPU).
    pub attributor: Option<Attributor>,
    /// Fingerprints of the programs and kernel keys of the shapes this invocation counted.
    fingerprints: HashSet<u64>,
    kernels: HashSet<u64>,
    /// When this invocation started, and the seconds of the runs it resumed.
    clock: (Instant, f64),
    /// Where this invocation's wall time went: the hardware stage, and generating and checking
    /// blocks (beside the hardware, but waited for when it is slower).
    walls: Walls,
    /// What the campaign exercised.
    pub coverage: CoverageMap,
    /// The corpus's recorded runs per rule (with a trap budget).
    evidence: Option<crate::evidence::Evidence>,
    /// Shapes of which a predicted trap ran (the budget's one per shape).
    trap_shapes: BTreeSet<u64>,
    /// The last [`Campaign::run`]'s rate after its first block.
    pub sustained: Option<Sustained>,
    /// The next block's first hardware step, made ready beside the last step of the block
    /// before it.
    readied: Option<Readied>,
}

/// A program bound for the hardware.
pub(super) struct Pending {
    pub k: u64,
    pub shape: u64,
    pub case: Case,
    /// Its cells and prediction (none for a planted case).
    pub analysis: Option<Analysis>,
    /// Its execution under the campaign's profile, if the CPU oracles kept it (none for a
    /// planted case).
    pub executed: Option<Executed>,
}

impl<'h> Campaign<'h> {
    /// Open the campaign in `opts.out` (resuming its journal with `opts.resume`).
    pub fn open(
        mut cfg: GenConfig,
        opts: Options,
        hw: Option<&'h mut dyn Backend>,
    ) -> Result<Campaign<'h>, String> {
        std::fs::create_dir_all(&opts.out).map_err(|e| format!("{}: {e}", opts.out.display()))?;
        let path = opts.out.join("journal.jsonl");
        let shard = if opts.shard.is_all() {
            String::new()
        } else {
            opts.shard.to_string()
        };
        let mut stats = Stats {
            seed: opts.seed,
            shard: shard.clone(),
            profile: opts.profile.name().into(),
            generator: gen::GENERATOR_VERSION,
            values_per_shape: opts.values_per_shape,
            ..Stats::default()
        };
        if opts.resume && path.exists() {
            let f = File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let (mut findings, mut culprits) = (BTreeMap::new(), BTreeMap::new());
            for line in BufReader::new(f).lines().map_while(Result::ok) {
                match serde_json::from_str::<Line>(&line) {
                    Ok(Line::Progress(s)) => stats = *s,
                    Ok(Line::Finding {
                        signature,
                        file,
                        culprit,
                        ..
                    }) => {
                        if let Some(c) = culprit {
                            culprits.insert(signature.clone(), c);
                        }
                        findings.insert(signature, file);
                    }
                    Err(_) => {} // a torn last line of a killed run
                }
            }
            // Findings saved after the last progress line still count as found.
            stats.findings.extend(findings);
            stats.culprits.extend(culprits);
            if stats.shard != shard {
                return Err(format!(
                    "{}: the journal is of shard `{}`, not `{shard}`: resume a shard in its own --out",
                    path.display(),
                    stats.shard
                ));
            }
            if stats.generator != gen::GENERATOR_VERSION {
                return Err(format!(
                    "{}: the journal's programs are of generator version {} with {} value sets per \
                     shape, not version {} with {}: its program indices name other programs; start \
                     a new campaign (another --out, or without --resume)",
                    path.display(),
                    stats.generator,
                    stats.values_per_shape,
                    gen::GENERATOR_VERSION,
                    opts.values_per_shape
                ));
            }
            if stats.values_per_shape != opts.values_per_shape {
                return Err(format!(
                    "{}: the journal's programs are of {} value sets per shape, not {}: its \
                     program indices name other programs; resume it with --values-per-shape {}",
                    path.display(),
                    stats.values_per_shape,
                    opts.values_per_shape,
                    stats.values_per_shape
                ));
            }
            if stats.coverage_steer != opts.explore.steer {
                return Err(format!(
                    "{}: the journal's shapes were {}steered toward the least covered cells: \
                     resume it {} --no-coverage-steer",
                    path.display(),
                    if stats.coverage_steer { "" } else { "not " },
                    if stats.coverage_steer {
                        "without"
                    } else {
                        "with"
                    },
                ));
            }
            if stats.seed != opts.seed {
                println!(
                    "resuming the journal's seed {} (not --seed {})",
                    stats.seed, opts.seed
                );
            }
            println!(
                "resuming at program {} ({} findings so far)",
                stats.programs,
                stats.findings.len()
            );
        }
        let journal = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if !opts.resume {
            journal
                .set_len(0)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        if let Some(h) = hw.as_deref() {
            // Generate only what this device runs.
            let before = cfg.targets.clone();
            cfg.targets.retain(|t| h.runs(*t));
            if cfg.targets.is_empty() {
                return Err(format!(
                    "none of the generator's targets {before:?} runs on {}",
                    h.info().device
                ));
            }
        }
        if opts.mutants {
            if !cfg!(feature = "mutants") {
                return Err("--mutants: built without the mutation schema (build with `--features mutants`)".into());
            }
            stats.mutants = mutant_count();
        }
        stats.coverage_steer = opts.explore.steer;
        stats.trap_budget.share = opts.explore.trap_budget.map(|b| b.0);
        let mut coverage = CoverageMap::default();
        if opts.explore.coverage {
            let figures = opts.out.join("campaign.json");
            let saved = (opts.resume && figures.exists())
                .then(|| std::fs::read_to_string(&figures).ok())
                .flatten()
                .and_then(|t| serde_json::from_str::<Figures<Stats>>(&t).ok());
            match saved {
                Some(f) if !f.coverage.cells.is_empty() => {
                    if f.stats.programs != stats.programs {
                        println!(
                            "warning: {} is of program {}, the journal of {}: steering resumes from an older map",
                            figures.display(),
                            f.stats.programs,
                            stats.programs
                        );
                    }
                    coverage = f.coverage;
                }
                _ => {
                    let t = Instant::now();
                    coverage.probe(&cfg, opts.profile, opts.explore.probe_shapes);
                    if opts.explore.probe_shapes > 0 {
                        println!(
                            "coverage: a probe of {} shapes marked {} reachable cells ({:.1} s)",
                            opts.explore.probe_shapes,
                            coverage.counts().0,
                            t.elapsed().as_secs_f64()
                        );
                    }
                }
            }
        }
        let evidence = opts
            .explore
            .trap_budget
            .map(|_| {
                let (cases, sweeps) = (&opts.explore.evidence, &opts.explore.evidence_sweeps);
                crate::evidence::Evidence::gather(cases, sweeps).map_err(|e| {
                    format!("{e} (the sweep records counted as evidence; --evidence-sweeps DIR)")
                })
            })
            .transpose()?;
        let resumed_findings = stats.findings.len();
        Ok(Campaign {
            cfg,
            opts,
            hw,
            stats,
            journal,
            raw_seen: BTreeMap::new(),
            resumed_findings,
            minimize_until: None,
            attributor: None,
            fingerprints: HashSet::new(),
            kernels: HashSet::new(),
            clock: (Instant::now(), 0.0),
            walls: Walls::default(),
            coverage,
            evidence,
            trap_shapes: BTreeSet::new(),
            sustained: None,
            readied: None,
        })
    }

    /// Findings saved by this invocation.
    pub fn new_findings(&self) -> usize {
        self.stats.findings.len() - self.resumed_findings
    }

    fn log(&mut self, l: &Line) -> Result<(), String> {
        let s = serde_json::to_string(l).map_err(|e| e.to_string())?;
        writeln!(self.journal, "{s}")
            .and_then(|_| self.journal.flush())
            .map_err(|e| e.to_string())
    }

    /// `campaign.json` (the figures and the map), with `table` also `campaign-coverage.md`.
    fn write_figures(&self, table: bool) -> Result<(), String> {
        let p = self.opts.out.join("campaign.json");
        let f = Figures {
            stats: &self.stats,
            coverage: self.coverage.clone(),
        };
        std::fs::write(
            &p,
            serde_json::to_string_pretty(&f).map_err(|e| e.to_string())?,
        )
        .map_err(|e| format!("{}: {e}", p.display()))?;
        if table && self.opts.explore.coverage {
            let p = self.opts.out.join("campaign-coverage.md");
            std::fs::write(&p, self.coverage.markdown())
                .map_err(|e| format!("{}: {e}", p.display()))?;
        }
        Ok(())
    }

    fn figures_line(&self, elapsed: f64, programs: u64, gpu: u64) -> String {
        let v: Vec<String> = self
            .stats
            .verdicts
            .iter()
            .map(|(k, n)| format!("{k}: {n}"))
            .collect();
        format!(
            "[{elapsed:6.1}s] programs {} ({:.0}/s; distinct {}, shapes {}), GPU cases {} ({:.0}/s), violations {}, divergences {} (known {}, duplicates {}), minimized written {}{}",
            self.stats.programs,
            programs as f64 / elapsed.max(1e-9),
            self.stats.distinct_programs,
            self.stats.distinct_shapes,
            self.stats.gpu_cases,
            gpu as f64 / elapsed.max(1e-9),
            self.stats.violations,
            self.stats.divergences,
            self.stats.known,
            self.stats.duplicates,
            self.stats.minimized_written,
            if v.is_empty() { String::new() } else { format!("; verdicts {}", v.join(", ")) }
        ) + &self.explore_line()
    }

    /// Run until `stop`. Prints figures every 5 seconds (with `print`) and at the end.
    pub fn run(&mut self, stop: &Stop, print: bool) -> Result<Stats, String> {
        let t0 = Instant::now();
        self.walls.first_block = None;
        let base_seconds = self.stats.seconds;
        self.clock = (t0, base_seconds);
        let (p0, g0) = (self.stats.programs, self.stats.gpu_cases);
        let deadline = stop.seconds.map(|s| t0 + Duration::from_secs(s));
        // A divergence found near the end still gets a short minimization.
        self.minimize_until = deadline.map(|d| d + Duration::from_secs(MINIMIZE_GRACE_S));
        let mut last_print = Instant::now();
        let mut pending: Vec<Pending> = Vec::new();
        let mut drawer = drawer::Drawer::new()?;
        // Blocks asked for ahead of the one taken (none without hardware: nothing runs beside
        // the drawing then).
        let ahead = if self.hw.is_some() { DRAWN_AHEAD } else { 0 };
        let mut blocks_asked: u32 = 0;
        // The lanes of the hardware, where it carries a block's first step made ready from the
        // block before ([`ptxconform_core::differential::run_batch_carrying`]).
        let lanes = self
            .hw
            .as_deref_mut()
            .map(|h| h.lanes().len())
            .filter(|l| *l < 2);
        let done = |c: &Campaign<'_>| {
            crate::interrupt::requested()
                || deadline.is_some_and(|d| Instant::now() >= d)
                || stop.programs.is_some_and(|n| c.stats.programs - p0 >= n)
                || (stop.coverage && c.coverage.complete())
        };
        while !done(self) {
            // A block of programs is generated and checked on every core, then handled in
            // program order (violations, then one hardware batch), so results do not depend on
            // the number of threads. The blocks after it are drawn while the hardware runs it,
            // each steered by the map as it stood when the block was asked for.
            let k0 = self.stats.programs;
            while drawer.pending() <= ahead {
                let k = drawer.next_start().unwrap_or(k0);
                let n = block_len(self.opts.blocks, blocks_asked, stop, k - p0);
                let late = k > k0 && deadline.is_some_and(|d| Instant::now() >= d);
                if n == 0 || late {
                    break;
                }
                drawer.ask(self.block_spec(), k..k + n)?;
                blocks_asked += 1;
            }
            if drawer.first_start() != Some(k0) {
                return Err(format!(
                    "the next block drawn does not start at program {k0}"
                ));
            }
            let t = Instant::now();
            let span = ptxconform_core::trace::span("block: wait for its drawing", 0);
            let (block, took) = drawer.take()?;
            drop(span);
            self.walls.generate += took;
            self.walls.waited += t.elapsed();
            // Without hardware, the CPU oracles' judgement is what a program exercises.
            let span = ptxconform_core::trace::span("block: bookkeeping", block.len());
            let mut exercised = Vec::new();
            for p in block {
                let runs = p.runs_on_hardware();
                let (k, g, checked, analysis) = (p.k, p.generated, p.checked, p.analysis);
                self.stats.programs += 1;
                if let Some(kernel) = p.kernel {
                    self.stats.distinct_programs +=
                        u64::from(self.fingerprints.insert(p.fingerprint));
                    self.stats.distinct_shapes += u64::from(self.kernels.insert(kernel));
                }
                *self
                    .stats
                    .intents
                    .entry(intent_name(&g.intent).into())
                    .or_default() += 1;
                if let Err(v) = checked {
                    self.violation(k, &g, &v)?;
                } else if self.hw.is_some() && runs {
                    let planted = self.opts.planted.as_ref().and_then(|p| p.at(k));
                    let (analysis, executed) = match planted {
                        Some(_) => (None, None),
                        None => (analysis, p.executed),
                    };
                    pending.push(Pending {
                        k,
                        analysis,
                        executed,
                        case: planted.unwrap_or(g.case),
                        shape: p.shape,
                    });
                } else if let Some(a) = analysis.filter(|_| self.hw.is_none()) {
                    exercised.push(a);
                }
            }
            self.coverage
                .record_all(&exercised.iter().collect::<Vec<_>>());
            self.spend_trap_budget(&mut pending);
            drop(span);
            if !pending.is_empty() {
                let batch = std::mem::take(&mut pending);
                // The next block, when it is drawn already, has its first hardware step made
                // ready beside this block's last: the device does not wait for it.
                let next = match lanes {
                    Some(l) if self.opts.planted.is_none() => {
                        drawer.peek().map(|b| upcoming_of(b, l))
                    }
                    _ => None,
                };
                let t = Instant::now();
                let span = ptxconform_core::trace::span("block: hardware", batch.len());
                let hw = self.hardware(batch, next);
                drop(span);
                self.walls.hardware += t.elapsed();
                hw?;
            }
            if self.walls.first_block.is_none() {
                self.walls.first_block = Some((t0.elapsed(), self.stats.programs - p0));
            }
            let span = ptxconform_core::trace::span("block: checkpoint", 0);
            self.checkpoint(base_seconds + t0.elapsed().as_secs_f64())?;
            drop(span);
            if print && last_print.elapsed() >= Duration::from_secs(5) {
                last_print = Instant::now();
                let e = t0.elapsed().as_secs_f64();
                println!(
                    "{}",
                    self.figures_line(e, self.stats.programs - p0, self.stats.gpu_cases - g0)
                );
                self.write_figures(true)?;
            }
        }
        if !pending.is_empty() {
            self.hardware(pending, None)?;
        }
        let elapsed = t0.elapsed();
        let e = elapsed.as_secs_f64();
        self.sustained = self
            .walls
            .first_block
            .and_then(|first| Sustained::of(first, elapsed, self.stats.programs - p0));
        self.checkpoint(base_seconds + e)?;
        self.write_figures(true)?;
        if print {
            println!(
                "done {}",
                self.figures_line(e, self.stats.programs - p0, self.stats.gpu_cases - g0)
            );
            if let Some(s) = self.sustained {
                println!(
                    "sustained: {:.0} programs/s after the first block ({} programs, through at {:.1}s)",
                    s.programs_per_s, s.warmup_programs, s.warmup_s
                );
            }
            if self.opts.explore.coverage {
                println!(
                    "{} (table: {}/campaign-coverage.md){}",
                    self.coverage.summary(),
                    self.opts.out.display(),
                    if stop.coverage && self.coverage.complete() {
                        "; every reachable cell hit"
                    } else {
                        ""
                    }
                );
            }
            if self.hw.is_some() {
                println!("{}", self.walls.describe());
                println!("{}", self.stats.trap_budget.describe());
            }
            for (sig, file) in &self.stats.findings {
                println!("finding {sig}: {file}");
            }
            println!(
                "campaign: {}/campaign.json; resume with --resume --out {}",
                self.opts.out.display(),
                self.opts.out.display()
            );
        }
        Ok(self.stats.clone())
    }

    /// Journal the figures; `campaign.json` with them, so that a resumed campaign steers from
    /// the map of its last block.
    fn checkpoint(&mut self, seconds: f64) -> Result<(), String> {
        self.stats.seconds = seconds;
        let s = self.stats.clone();
        self.log(&Line::Progress(Box::new(s)))?;
        if self.opts.explore.coverage {
            self.write_figures(false)?;
        }
        Ok(())
    }

    /// How the next block is generated: steered by the map as it stands now.
    fn block_spec(&self) -> BlockSpec {
        BlockSpec {
            seed: self.stats.seed,
            cfg: self.cfg.clone(),
            shard: self.opts.shard,
            per: self.opts.values_per_shape,
            profile: self.opts.profile,
            coverage: self.opts.explore.coverage,
            hardware: self.hw.is_some(),
            targets: if self.opts.explore.steer {
                self.coverage.targets(STEER_TARGETS)
            } else {
                Vec::new()
            },
            warm: self.hw.as_ref().and_then(|h| h.preparer()),
        }
    }

    /// Apply the trap budget to a block's hardware programs (removing those skipped), then count
    /// the cells of those that run as hit.
    fn spend_trap_budget(&mut self, pending: &mut Vec<Pending>) {
        let traps = |p: &Pending| {
            p.analysis
                .as_ref()
                .is_some_and(|a| a.prediction.has_class(OutcomeClass::Traps))
        };
        let ledger = &mut self.stats.trap_budget;
        ledger.predicted_traps += pending.iter().filter(|p| traps(p)).count() as u64;
        if let Some(budget) = self.opts.explore.trap_budget {
            let idx: Vec<usize> = (0..pending.len()).filter(|i| traps(&pending[*i])).collect();
            let cands: Vec<trap_budget::Candidate<'_>> = idx
                .iter()
                .filter_map(|&i| {
                    let a = pending[i].analysis.as_ref()?;
                    Some(trap_budget::Candidate {
                        shape: pending[i].shape,
                        rule: a.rule.as_deref(),
                        cells: &a.cells,
                    })
                })
                .collect();
            let runs = |rule: &str| {
                let recorded = self.evidence.as_ref().map_or(0, |e| e.of(rule).runs) as u64;
                recorded + ledger.runs_by_rule.get(rule).copied().unwrap_or(0)
            };
            let chosen = trap_budget::select(
                &cands,
                ledger.allowance(budget.0),
                &runs,
                &self.coverage,
                &mut self.trap_shapes,
            );
            let skip: BTreeSet<usize> = idx
                .iter()
                .zip(chosen)
                .filter(|(_, run)| !run)
                .map(|(i, _)| *i)
                .collect();
            ledger.skipped += skip.len() as u64;
            let mut i = 0;
            pending.retain(|_| {
                i += 1;
                !skip.contains(&(i - 1))
            });
        }
        let judged: Vec<&Analysis> = pending.iter().filter_map(|p| p.analysis.as_ref()).collect();
        self.coverage.record_all(&judged);
    }

    /// The console's exploration figures: cells hit, traps run and skipped.
    fn explore_line(&self) -> String {
        let mut s = String::new();
        if self.opts.explore.coverage {
            let (reachable, hit) = self.coverage.counts();
            s.push_str(&format!("; cells {hit}/{reachable}"));
        }
        let l = &self.stats.trap_budget;
        if self.hw.is_some() && l.predicted_traps > 0 {
            s.push_str(&format!(
                "; predicted traps run {}, skipped (trap budget) {} ({:.0}% of hardware time)",
                l.trap_runs,
                l.skipped,
                100.0 * l.trap_share()
            ));
        }
        s
    }
}
