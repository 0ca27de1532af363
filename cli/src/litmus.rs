//! `ptxconform litmus`: one racy program run many thousands of times, in the spirit of GPU
//! litmus testing. The reference leaves bytes of the case's final state uncertain (sets of allowed
//! values): that is where the race shows. Each instance is a copy of the case named `NAME#i`;
//! every launch goes through the differential core ([`run_copies_then`]): the reference runs the case
//! once, a [`Backend`] observes the copies (the GPU engine emits and compiles the case once and
//! runs the copies as instances of one launch, each in its own CTA or cluster with its own
//! regions, parameter block and dump slot), and the one judge judges each; each judged instance is
//! reduced to its *outcome*: how the run ended, the observed values of the uncertain bytes and the
//! mbarrier parities. The report is a histogram of outcomes (count, first instance) per case; an
//! instance the judge fails is a divergence, listed apart.
//!
//! Stress (code the engine adds to the emitted kernel, [`stress_ptx`], through its
//! [`ptxconform_gpu::engine::Rewrite`] hook):
//! - `none`: the program as `run` emits it; every launch holds `--per-launch` instances;
//! - `spin`: before the racing step every CTA spins a pseudo-random number of clock cycles
//!   (0..4095, a hash of its CTA id and a coarse `%globaltimer` salt, so it differs between
//!   instances and between launches);
//! - `shuffle`: `spin`, and every launch holds a pseudo-random number of instances between half
//!   of `--per-launch` and all of it, so the packing of instances onto SMs changes per launch.
//!
//! The *racing step* is the step after the program's first asynchronous copy instruction
//! (`cp.async…`, `cp.reduce.async…`): the second of two racing copies, or the steps (a commit)
//! before the kernel's epilogue reads memory back; when the copy is the last step, the epilogue
//! itself.
//!
//! Throughput: the engine emits the kernel once per launch and compiles it once; each launch is
//! one job of the batch executor (one upload, one read-back); `--workers` engines, each with its
//! own worker process on the device, take the launches in turn so that one's transfers overlap
//! another's host work (the reference and the judge of its instances).

use ptxconform_core::differential::{reference_side, run_copies_then, Backend, Judged};
use ptxconform_core::judge::{shared_key, DEFAULT_PROFILE};
use ptxconform_core::known::KnownDivergences;
use ptxconform_core::result::{RunInfo, Verdict};
use ptxconform_gpu::emit::Emitted;
use ptxconform_reference::case::{load_file, Case, Ending, Observation, StepOp};
use ptxconform_reference::ptx::{Instruction, Statement};
use ptxconform_reference::sem::exec::{Execution, Undecided};
use ptxconform_reference::sem::memory::Byte;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct LitmusArgs {
    /// Case files, each optionally with `:NAME` (default: every case of the file).
    #[arg(required = true)]
    pub cases: Vec<String>,
    /// Instances to run per case.
    #[arg(long, default_value_t = 100_000)]
    pub instances: u64,
    /// Most instances per launch (above 4096, the core observes a launch's instances in steps of
    /// at most 4096, each a launch of its own on the GPU).
    #[arg(long, default_value_t = 4096)]
    pub per_launch: usize,
    /// Stop launching a case's instances after this many seconds (its figures say how many ran).
    #[arg(long)]
    pub seconds_per_case: Option<f64>,
    /// Stress: code before the racing step (`spin`), and launch sizes (`shuffle`).
    #[arg(long, value_enum, default_value_t = Stress::Spin)]
    pub stress: Stress,
    /// Worker processes on the device, each running its share of the launches (one's transfers
    /// overlap another's host work).
    #[arg(long, default_value_t = 2)]
    pub workers: usize,
    /// Seed of the `shuffle` launch sizes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where `litmus.json` and `litmus.md` go.
    #[arg(long, default_value = "reports/litmus/latest")]
    pub out: PathBuf,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    pub device: i32,
    /// Commit measured (default: the commit the binary was built from).
    #[arg(long)]
    pub commit: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stress {
    None,
    Spin,
    Shuffle,
}

/// The step before which the stress spin goes (see the module comment); `None`: the epilogue.
pub fn racing_step(case: &Case) -> Option<usize> {
    let issue = case.program.iter().position(|s| match &s.op {
        StepOp::Ptx(t) => Statement::parse(t).is_ok_and(|st| {
            matches!(
                st.instr,
                Instruction::CpAsync(_) | Instruction::Bulk(_) | Instruction::Tensor(_)
            )
        }),
        _ => false,
    })?;
    (issue + 1 < case.program.len()).then_some(issue + 1)
}

/// The stress spin, a PTX block of its own scope: a warp-uniform pseudo-random delay of 0..4095
/// cycles per CTA (its id hashed with a millisecond-scale `%globaltimer` salt), reconverged with
/// `bar.warp.sync` on the mask of threads that entered it.
const SPIN: &str = "{ // litmus stress: spin a pseudo-random number of cycles
.reg .b32 %lts<6>;
.reg .pred %ltp;
activemask.b32 %lts5;
mov.u32 %lts0, %ctaid.x;
mov.u32 %lts1, %globaltimer_lo;
shr.u32 %lts1, %lts1, 20;
mad.lo.u32 %lts0, %lts1, -2048144789, %lts0;
mul.lo.u32 %lts0, %lts0, -1640531535;
shr.u32 %lts0, %lts0, 20;
mov.u32 %lts2, %clock;
$L_litmus_spin:
mov.u32 %lts3, %clock;
sub.u32 %lts3, %lts3, %lts2;
setp.lt.u32 %ltp, %lts3, %lts0;
@%ltp bra $L_litmus_spin;
bar.warp.sync %lts5;
}";

/// `em` with the stress of `stress` inserted before the racing step's lines (the shape key
/// follows the text: a stressed program is a kernel of its own). Every thread of every CTA
/// passes there when each step has a guard of its own, as the engine emits the programs it
/// rewrites ([`ptxconform_gpu::emit::Guards::PerStep`]).
pub fn stress_ptx(case: &Case, mut em: Emitted, stress: Stress) -> Emitted {
    if stress == Stress::None {
        return em;
    }
    // step_map lines are 1-based; `at` is the 0-based index the spin is inserted before.
    let at = match racing_step(case) {
        Some(s) => em
            .step_map
            .iter()
            .find(|m| m.step == s)
            .map(|m| m.lines.start - 1),
        None => em.step_map.iter().map(|m| m.lines.end - 1).max(),
    };
    let Some(at) = at else { return em };
    let mut lines: Vec<&str> = em.ptx.lines().collect();
    lines.insert(at.min(lines.len()), SPIN);
    em.ptx = (lines.join("\n") + "\n").into();
    em.shape_key = ptxconform_gpu::emit::fnv1a(&em.ptx);
    em
}

/// One outcome of a case: how often it was seen and where first.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Seen {
    pub outcome: String,
    pub count: u64,
    pub frequency: f64,
    pub first_instance: u64,
    /// Empty for an allowed outcome; the judge's words for a divergence.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub divergence: String,
}

/// A case's campaign.
#[derive(Clone, Debug, Serialize)]
pub struct CaseLitmus {
    pub file: String,
    pub case: String,
    /// The allowed set: every uncertain byte's allowed values, as `region[offset]: {a|b}` runs.
    pub allowed: Vec<String>,
    pub instances: u64,
    /// Batches of instances handed to the backend, one launch each on the GPU.
    pub launches: u64,
    pub seconds: f64,
    pub instances_per_s: f64,
    /// Allowed outcomes, most frequent first.
    pub outcomes: Vec<Seen>,
    /// Outcomes outside the allowed set (judge verdict not `pass`), most frequent first.
    pub divergences: Vec<Seen>,
    /// Instances the harness could not observe (launch errors), with the first reason.
    pub not_observed: u64,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub not_observed_reason: String,
    /// The first divergent instance: its number and observation (written as a runnable case).
    #[serde(skip)]
    pub first_divergence: Option<(u64, Observation)>,
    /// The kernel it ran, as the backend gave it (empty if none), for the divergence report.
    #[serde(skip)]
    pub ptx: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct LitmusReport {
    pub device: String,
    pub driver: String,
    pub date: String,
    pub commit: String,
    pub stress: Stress,
    pub per_launch: usize,
    pub cases: Vec<CaseLitmus>,
}

/// `FILE[:NAME]` arguments to (file, case) pairs; a name no case has is an error.
pub fn select(specs: &[String]) -> Result<Vec<(String, Case)>, String> {
    let mut out = Vec::new();
    for spec in specs {
        let (file, name) = match spec.rsplit_once(':') {
            Some((f, n)) if Path::new(f).is_file() => (f, Some(n)),
            _ => (spec.as_str(), None),
        };
        let cases = load_file(Path::new(file)).map_err(|e| e.to_string())?;
        let before = out.len();
        for c in cases {
            if name.is_none_or(|n| n == c.name) {
                out.push((file.to_string(), c));
            }
        }
        if out.len() == before {
            return Err(format!("{file}: no case `{}`", name.unwrap_or("")));
        }
    }
    Ok(out)
}

/// The uncertain bytes of one region: (offset, allowed values).
pub type Sites = Vec<(usize, Vec<u8>)>;

/// Where the race shows: every uncertain byte of the reference's final state, by region key, in
/// region order.
#[derive(Clone, Debug)]
pub struct RaceSites {
    pub bytes: Vec<(String, Sites)>,
}

impl RaceSites {
    pub fn of(ex: &Execution) -> RaceSites {
        let fs = &ex.final_state;
        let shared = fs.shared.iter().enumerate().flat_map(|(cta, rs)| {
            rs.iter()
                .map(move |(name, bytes)| (shared_key(name, cta), bytes))
        });
        let all = fs.global.iter().map(|(n, b)| (n.clone(), b)).chain(shared);
        let bytes = all
            .filter_map(|(key, bytes)| {
                let sites: Sites = bytes
                    .iter()
                    .enumerate()
                    .filter_map(|(i, b)| match b {
                        Byte::OneOf(s) if s.len() > 1 => Some((i, s.iter().collect())),
                        _ => None,
                    })
                    .collect();
                (!sites.is_empty()).then_some((key, sites))
            })
            .collect();
        RaceSites { bytes }
    }

    /// The allowed set in words: runs of consecutive bytes with the same allowed values.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (key, sites) in &self.bytes {
            let mut k = 0;
            while k < sites.len() {
                let mut e = k;
                while e + 1 < sites.len()
                    && sites[e + 1].0 == sites[e].0 + 1
                    && sites[e + 1].1 == sites[k].1
                {
                    e += 1;
                }
                let vals = &sites[k].1;
                let set = if vals.len() == 256 {
                    "any".to_string()
                } else {
                    let v: Vec<String> = vals.iter().map(|b| format!("{b:02x}")).collect();
                    format!("{{{}}}", v.join("|"))
                };
                out.push(format!("{key}[{}..{}]: {set}", sites[k].0, sites[e].0 + 1));
                k = e + 1;
            }
        }
        out
    }

    /// An observation's outcome: its ending, the values at every race site, its mbarriers.
    pub fn outcome(&self, obs: &Observation) -> String {
        let ending = match &obs.outcome {
            Ending::Completed => "completed".to_string(),
            Ending::Timeout(steps) => format!("timeout {steps:?}"),
            Ending::Trap { kind, code } => format!("trap {kind} ({code})"),
            Ending::Watchdog(ms) => format!("watchdog {ms} ms"),
            Ending::Rejected(m) => format!("rejected: {m}"),
        };
        let mut parts = vec![ending];
        for (key, sites) in &self.bytes {
            let Some(got) = obs.regions.get(key) else {
                continue;
            };
            let hex: String = sites
                .iter()
                .map(|(i, _)| got.get(*i).map_or("--".into(), |b| format!("{b:02x}")))
                .collect();
            parts.push(format!("{key}={hex}"));
        }
        for (key, p) in &obs.mbarriers {
            let bit = |b: bool| u8::from(b);
            parts.push(format!(
                "{key}=p0:{},p1:{}",
                bit(p.parity0_done),
                bit(p.parity1_done)
            ));
        }
        parts.join(" ")
    }
}

/// Instances per launch: `per_launch`, or under `shuffle` a pseudo-random size in
/// `[per_launch/2, per_launch]` (SplitMix64 of the seed and launch number).
fn launch_size(stress: Stress, per_launch: usize, seed: u64, launch: u64) -> usize {
    if stress != Stress::Shuffle || per_launch < 2 {
        return per_launch.max(1);
    }
    let mut z = seed ^ launch.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    let half = per_launch / 2;
    half + (z % (per_launch - half + 1) as u64) as usize
}

/// Histogram of one case's outcomes while it runs, keyed by (outcome, divergence): an instance
/// the judge fails elsewhere (a certain byte, a canary) is never counted as the allowed outcome
/// with the same racy bytes.
#[derive(Default)]
struct Tally {
    seen: BTreeMap<(String, String), (u64, u64)>,
    not_observed: u64,
    /// The first instance not observed, and why.
    not_observed_first: Option<(u64, String)>,
    /// The first divergent instance as judged (its observation makes a runnable divergence case).
    first_divergence: Option<(u64, Judged)>,
}

impl Tally {
    fn add(&mut self, outcome: String, instance: u64, divergence: String) {
        self.seen
            .entry((outcome, divergence))
            .or_insert((0, instance))
            .0 += 1;
    }

    fn diverged(&mut self, instance: u64, j: Judged) {
        if self
            .first_divergence
            .as_ref()
            .is_none_or(|(i, _)| instance < *i)
        {
            self.first_divergence = Some((instance, j));
        }
    }

    fn not_observed(&mut self, instance: u64, why: String) {
        self.not_observed += 1;
        if self
            .not_observed_first
            .as_ref()
            .is_none_or(|(i, _)| instance < *i)
        {
            self.not_observed_first = Some((instance, why));
        }
    }

    /// Count judged instances numbered from `first`.
    /// Count instances `first..` as [`reduce_keeping`] gave them.
    fn judged(&mut self, first: u64, reduced: Vec<(Reduced, Option<Judged>)>) {
        for (k, (r, j)) in reduced.into_iter().enumerate() {
            let i = first + k as u64;
            match r {
                Ok((outcome, why)) => {
                    if let Some(j) = j {
                        self.diverged(i, j);
                    }
                    self.add(outcome, i, why)
                }
                Err(why) => self.not_observed(i, why),
            }
        }
    }

    /// Join another worker's tally: counts add up, the first instance is the least.
    fn merge(&mut self, other: Tally) {
        for (k, (count, first)) in other.seen {
            let e = self.seen.entry(k).or_insert((0, first));
            e.0 += count;
            e.1 = e.1.min(first);
        }
        if let Some((i, j)) = other.first_divergence {
            self.diverged(i, j);
        }
        if let Some((i, why)) = other.not_observed_first {
            self.not_observed += other.not_observed - 1;
            self.not_observed(i, why);
        }
    }

    fn into_lists(self, total: u64) -> (Vec<Seen>, Vec<Seen>) {
        let mut all: Vec<Seen> = self
            .seen
            .into_iter()
            .map(|((outcome, divergence), (count, first))| Seen {
                outcome,
                count,
                frequency: count as f64 / total.max(1) as f64,
                first_instance: first,
                divergence,
            })
            .collect();
        all.sort_by(|a, b| b.count.cmp(&a.count).then(a.outcome.cmp(&b.outcome)));
        all.into_iter().partition(|s| s.divergence.is_empty())
    }
}

/// An instance as the litmus counts it: (outcome, the judge's words when it fails it), or why it
/// was not observed.
type Reduced = Result<(String, String), String>;

/// A judged instance reduced, kept only if the judge fails it (the first divergence is
/// reported whole); on the thread that judged it, so that thousands of observations are reduced
/// and freed on every thread.
fn reduce_keeping(sites: &RaceSites, j: Judged) -> (Reduced, Option<Judged>) {
    let r = reduce(sites, &j);
    let diverged = matches!(&r, Ok((_, why)) if !why.is_empty());
    (r, diverged.then_some(j))
}

/// A judged instance as the litmus counts it: its outcome and, when the judge fails it, the
/// verdict and its words (empty: allowed); or, with no observation, why it was not observed.
fn reduce(sites: &RaceSites, j: &Judged) -> Reduced {
    let r = &j.result;
    let obs = j.observation.as_ref().ok_or_else(|| r.detail.clone())?;
    // Inside the prediction: a pass, or an undefined case's (or expected trap's or timeout's)
    // outcome among those predicted. A known finding is still counted, as a divergence.
    let inside = matches!(
        r.verdict,
        Verdict::Pass
            | Verdict::ReferenceUndefined
            | Verdict::TrapExpected
            | Verdict::TimeoutExpected
    );
    let why = if inside {
        String::new()
    } else {
        format!("{}: {}", r.verdict.name(), r.detail)
    };
    Ok((sites.outcome(obs), why))
}

/// How many instances of a case run, how they are launched and stressed.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    pub instances: u64,
    pub per_launch: usize,
    pub stress: Stress,
    /// Seed of the `shuffle` launch sizes.
    pub seed: u64,
    /// No launch starts after this many seconds.
    pub seconds: Option<f64>,
}

/// Run one case's campaign on `devs`: the launches are planned up front (sizes from
/// [`launch_size`]) and dealt round-robin to the backends, each on a thread of its own, so that
/// one's device work overlaps another's host work; each launch is one [`run_copies_then`] of its
/// instances, and the threads' tallies are joined.
pub fn run_case<B: Backend + Send>(
    devs: &mut [B],
    file: &str,
    case: &Case,
    sched: Schedule,
) -> Result<CaseLitmus, String> {
    let Schedule {
        instances: total,
        per_launch,
        stress,
        seed,
        seconds,
    } = sched;
    let mut case = case.clone();
    // Recorded single-run observations are not the litmus's business (the core would replay
    // them for every instance).
    case.observed.clear();
    let known = KnownDivergences::default();
    let (r0, ex) = reference_side(file, &case, &known, DEFAULT_PROFILE);
    let ex = ex.ok_or_else(|| {
        format!(
            "{file} `{}`: fails on the reference: {} {}",
            case.name,
            r0.verdict.name(),
            r0.detail
        )
    })?;
    let sites = RaceSites::of(&ex);
    // A race of outcomes (the sm_90 prediction a set of classes, e.g. A-TX-RACE-HW's completes
    // or hangs) is observed by the instances' endings.
    let outcome_race = ex.prediction.undecided() == Some(Undecided::Class);
    if sites.bytes.is_empty() && !outcome_race {
        return Err(format!(
            "{file} `{}`: the reference leaves no byte uncertain and predicts one outcome (no race \
             to observe)",
            case.name
        ));
    }
    let mut allowed = sites.describe();
    if outcome_race {
        allowed.push(format!("the run {}", ex.prediction));
    }
    let mut plan: Vec<(u64, usize)> = Vec::new();
    let mut done = 0u64;
    while done < total {
        let n = launch_size(stress, per_launch, seed, plan.len() as u64);
        let n = n.min((total - done) as usize);
        plan.push((done, n));
        done += n as u64;
    }
    let workers = devs.len().max(1);
    let (case, known, sites, plan) = (&case, &known, &sites, &plan);
    let t = Instant::now();
    let deadline = seconds.map(|s| t + std::time::Duration::from_secs_f64(s));
    let tallies: Vec<Result<(Tally, u64, u64), String>> = std::thread::scope(|s| {
        let handles: Vec<_> = devs
            .iter_mut()
            .enumerate()
            .map(|(w, dev)| {
                s.spawn(move || {
                    let mut tally = Tally::default();
                    let (mut ran, mut launched) = (0u64, 0u64);
                    for &(first, n) in plan.iter().skip(w).step_by(workers) {
                        if deadline.is_some_and(|d| Instant::now() >= d) {
                            break;
                        }
                        let judged = run_copies_then(
                            DEFAULT_PROFILE,
                            dev,
                            known,
                            (file, case),
                            first,
                            n,
                            |j| reduce_keeping(sites, j),
                        )?;
                        ran += n as u64;
                        launched += 1;
                        tally.judged(first, judged);
                    }
                    Ok((tally, ran, launched))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a litmus worker panicked".into()))
            })
            .collect()
    });
    let mut tally = Tally::default();
    let (mut done, mut launches) = (0u64, 0u64);
    for t in tallies {
        let (t, ran, launched) = t?;
        tally.merge(t);
        done += ran;
        launches += launched;
    }
    let seconds = t.elapsed().as_secs_f64();
    let not_observed = tally.not_observed;
    let not_observed_reason = tally
        .not_observed_first
        .as_ref()
        .map_or(String::new(), |(i, why)| format!("instance {i}: {why}"));
    let (first_divergence, ptx) = match tally.first_divergence.take() {
        Some((i, j)) => (
            j.observation.map(|o| (i, o)),
            j.ptx.as_deref().unwrap_or_default().to_string(),
        ),
        None => (None, String::new()),
    };
    let (outcomes, divergences) = tally.into_lists(done);
    Ok(CaseLitmus {
        file: file.to_string(),
        case: case.name.clone(),
        allowed,
        instances: done,
        launches,
        seconds,
        instances_per_s: done as f64 / seconds.max(1e-9),
        outcomes,
        divergences,
        not_observed,
        not_observed_reason,
        first_divergence,
        ptx,
    })
}

/// The Markdown form of a report.
pub fn markdown(r: &LitmusReport) -> String {
    let mut s = format!(
        "# Litmus campaign\n\ndevice: {} | driver: {} | date: {} | commit: {} | stress: {:?} | \
         per launch: {}\n",
        r.device, r.driver, r.date, r.commit, r.stress, r.per_launch
    );
    for c in &r.cases {
        s += &format!(
            "\n## {} (`{}`)\n\n{} instances in {} launches, {:.1} s ({:.0} instances/s); \
             {} divergences, {} not observed\n\nallowed: {}\n\n| outcome | count | frequency | \
             first instance |\n| --- | ---: | ---: | ---: |\n",
            c.case,
            c.file,
            c.instances,
            c.launches,
            c.seconds,
            c.instances_per_s,
            c.divergences.iter().map(|d| d.count).sum::<u64>(),
            c.not_observed,
            c.allowed.join("; ")
        );
        for o in &c.outcomes {
            s += &format!(
                "| `{}` | {} | {:.6} | {} |\n",
                o.outcome, o.count, o.frequency, o.first_instance
            );
        }
        for d in &c.divergences {
            s += &format!(
                "| **DIVERGENCE** `{}` ({}) | {} | {:.6} | {} |\n",
                d.outcome, d.divergence, d.count, d.frequency, d.first_instance
            );
        }
        if c.not_observed > 0 {
            s += &format!("\nnot observed: {}\n", c.not_observed_reason);
        }
    }
    s
}

/// Run every selected case on `devs` and write `litmus.json` / `litmus.md` into `out`.
pub fn campaign<B: Backend + Send>(
    devs: &mut [B],
    cases: &[(String, Case)],
    args: &LitmusArgs,
    commit: String,
) -> Result<LitmusReport, String> {
    let info = devs.first().ok_or("no litmus worker")?.info();
    let mut report = LitmusReport {
        device: info.device,
        driver: info.driver,
        date: info.date,
        commit,
        stress: args.stress,
        per_launch: args.per_launch,
        cases: vec![],
    };
    for (file, case) in cases {
        let sched = Schedule {
            instances: args.instances,
            per_launch: args.per_launch,
            stress: args.stress,
            seed: args.seed,
            seconds: args.seconds_per_case,
        };
        let c = run_case(devs, file, case, sched)?;
        println!(
            "{}: {} instances, {:.0} instances/s, {} outcomes, {} divergent",
            c.case,
            c.instances,
            c.instances_per_s,
            c.outcomes.len(),
            c.divergences.iter().map(|d| d.count).sum::<u64>()
        );
        for o in &c.outcomes {
            println!("  {:>10} {:.6}  {}", o.count, o.frequency, o.outcome);
        }
        for d in &c.divergences {
            println!(
                "  {:>10} DIVERGENCE {}  ({})",
                d.count, d.outcome, d.divergence
            );
        }
        if let Some((i, obs)) = &c.first_divergence {
            // A runnable case with the observation, beside its kernel (as `run` writes them).
            let mut d = case.clone();
            d.name = format!("{}#{i}", case.name);
            ptxconform_gpu::engine::write_divergence(&args.out, &d, &c.ptx, Some(obs))?;
        }
        report.cases.push(c);
    }
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    std::fs::write(args.out.join("litmus.json"), json).map_err(|e| e.to_string())?;
    std::fs::write(args.out.join("litmus.md"), markdown(&report)).map_err(|e| e.to_string())?;
    Ok(report)
}

/// `ptxconform litmus`: needs a GPU (without one it says so and exits 2).
pub fn main(args: &LitmusArgs) -> Result<i32, String> {
    // Bad case arguments are errors with or without a GPU.
    let cases = select(&args.cases)?;
    let Some(d) = crate::stdout::device_unless(false, args.device, "litmus needs a GPU") else {
        return Ok(2);
    };
    let info = RunInfo {
        device: d.name.clone(),
        driver: d.cuda(),
        date: ptxconform_core::result::today(),
        mode: format!("litmus (stress {:?})", args.stress),
        ptxconform: env!("CARGO_PKG_VERSION").into(),
        ..RunInfo::default()
    };
    let mut engines = Vec::new();
    for _ in 0..args.workers.max(1) {
        let mut eng =
            ptxconform_gpu::engine::open(ptxconform_gpu::engine::Spec::on(&d, info.clone(), 20))?;
        // A batch of up to `--per-launch` instances is one launch.
        eng.limits.instances = args.per_launch.max(1);
        let stress = args.stress;
        // `none` runs the program as `run` emits it (an engine with a rewrite guards its steps
        // one by one, so that the spin runs in every thread).
        if stress != Stress::None {
            eng.rewrite = Some(Arc::new(move |c: &Case, em| stress_ptx(c, em, stress)));
        }
        engines.push(eng);
    }
    let commit = crate::bench::git_commit(args.commit.as_deref());
    let r = campaign(&mut engines, &cases, args, commit)?;
    for (w, eng) in engines.iter().enumerate() {
        println!("worker {w}: {}", eng.breakdown());
    }
    println!("wrote {}", args.out.join("litmus.json").display());
    let (n, secs) = r
        .cases
        .iter()
        .fold((0, 0.0), |(n, t), c| (n + c.instances, t + c.seconds));
    println!(
        "total: {n} instances in {secs:.1} s ({:.0} instances/s)",
        n as f64 / secs.max(1e-9)
    );
    // A divergence, or an instance that could not be observed, fails the campaign.
    let failed = r
        .cases
        .iter()
        .any(|c| !c.divergences.is_empty() || c.not_observed > 0);
    Ok(i32::from(failed))
}

#[cfg(test)]
mod tests;
