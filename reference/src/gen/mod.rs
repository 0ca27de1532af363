//! Random cases from fuzzer bytes: always-valid generation in the manner of wasm-smith.
//!
//! [`generate`] reads an [`arbitrary::Unstructured`] and builds a schema-valid [`Case`] whose
//! program is *legal* (every step assembles for the case's target, every asynchronous operation
//! completes through its mechanism, mbarrier counts and tx bytes balance) unless the header asked
//! for one deliberate deviation ([`Intent`]): a statically illegal instruction, a run-time
//! undefined operation, or a race. Instructions are built through the typed model
//! ([`crate::ptx`]) and printed with `Display`, so every `ptx:` step parses.
//!
//! Byte layout (for determinism and locality): a fixed-size header ([`HEADER`] bytes) chooses the
//! target, launch, regions and the swarm ([`swarm::Swarm`]: which families, qualifiers and operand
//! forms this program may use); then one fixed-size chunk ([`BLOCK`] bytes) per episode. An
//! episode is a short, self-completing instruction sequence of one family (issue → commit/arrive →
//! wait), so flipping a byte of chunk k changes episode k and at most the mbarrier parities of
//! later ones. Missing bytes read as zero.
//!
//! Programs as shape × values ([`generate_shaped`]): the header and episode bytes are the
//! *shape* (families, instructions, qualifiers, who runs each step, the launch and the region
//! sizes the kernel is compiled for, the deviation); a second byte stream is one *value set*
//! (region contents, copy sizes and offsets with their tx counts, src-size, ignore-src
//! predicates, byte masks, plain stores' bytes, tensor loads' box starts), each value placed by a
//! class the value set enables ([`bytes::ValueClasses`]: the least and greatest the rule allows,
//! one off either, the middle, random). The value sets of a shape emit one kernel text. Still
//! drawn with the shape: mbarrier and arrival counts and multicast ctaMasks (they decide which
//! steps exist), cache policies (0), tensor maps and tensor store/prefetch coordinates, tcgen05
//! operands, and a deviating episode's values. [`generate`] reads both kinds from one stream.
//!
//! One module per family ([`cp_async`], [`bulk`] (bulk copies, prefetches and reductions),
//! [`tensor`], [`tcgen05`], [`mbarrier`], [`store`]), each with an `episode` function and a
//! [`swarm::Family`] bit; [`world`] lays out launches and regions, [`concurrent`] makes racy
//! programs, [`oracle`] holds the CPU oracles a campaign checks every program with. Beside the
//! generator: [`sweep`] (random tensor-copy configurations for `ptxconform sweep`) and
//! [`special_values`] (the reduction special-value corpus).

pub mod bulk;
pub mod bytes;
pub mod concurrent;
pub mod cp_async;
pub mod mbarrier;
pub mod oracle;
pub mod special_values;
pub mod store;
#[cfg(test)]
pub mod strategy;
pub mod swarm;
pub mod sweep;
pub mod tcgen05;
pub mod tensor;
pub mod world;

use crate::case::model::{Case, Expect};
use crate::target::Target;
use arbitrary::Unstructured;
use bytes::{Chunk, ValueClasses};
use swarm::{Families, Family, Swarm};
use world::World;

/// The generator's version: what a campaign's program indices mean. Raised whenever the
/// programs generated from the same bytes and config change (a campaign journal of another
/// version is not resumed). 2: programs as shape × values ([`generate_shaped`], value classes).
/// 3: the mutation score's gaps closed: reduce regions of special operand pairs, tx-counts over
/// the whole range in four orders, waits on the preceding parity, group waits followed by a
/// store, N traversal strides, and more undefined tensor loads (shared address, boxDim, corner).
/// 4: a program that may multicast sometimes runs in the last cluster of a grid of several (the
/// others idle, [`GenConfig::max_clusters`]; the default `max_ctas` 8 leaves room for two).
/// 5: an undefined bulk load is misaligned or, half the time, followed by a wait on the
/// preceding parity that races with its copies (`mbarrier.parity_wait_race`).
/// 6: an undefined im2col load of rank 4 or 5 takes its rank's own limits (a corner past its
/// range, an offset at it) first, half the time; map perturbations are drawn among those that
/// apply to the map.
/// 7: an undefined mbarrier episode draws among seven rules (arrive, init and phaseParity
/// operands out of range, init on a valid object, arrive_drop of the only expected arrival,
/// beside the pending count and the invalidated object), and the program goes on after it.
/// 8: four more: a tx-count just past its range (2^20 and one or two above, or as far below)
/// and brought back, a .noComplete arrive of every pending arrival, two phases' arrivals with
/// no wait between them, and a cp.async over a valid object, each followed by a wait.
/// 9: an undefined bulk load draws among five rules: misaligned, the parity race, a source
/// range past its region (into the canary after it), a ctaMask bit past the cluster, and a
/// `.shared::cta` destination in another CTA of the cluster.
/// 10: an undefined tensor load with a `.shared::cta` destination in a cluster launch has that
/// destination in another CTA of the cluster one time in eight (`tensor.dst_not_executing_cta`).
pub const GENERATOR_VERSION: u32 = 10;

/// Header bytes (target, launch, regions, swarm, deviation).
pub const HEADER: usize = 32;
/// Bytes per episode.
pub const BLOCK: usize = 24;

/// What the generator is allowed to produce, one knob per field: each program's swarm
/// ([`swarm::Swarm::draw`]) enables a random subset of the families and features the config
/// allows, and its deviation is drawn from the `*_per_256` rates. Defaults give small, fast
/// programs. The values of a shape ([`generate_shaped`]) are drawn from [`bytes::ValueClasses`].
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Targets to choose from (each program picks one).
    pub targets: Vec<Target>,
    /// Families the swarm may enable (each program enables a random non-empty subset).
    pub families: Families,
    /// Most episodes per program (each is 1..~12 steps).
    pub max_episodes: usize,
    /// Largest region (bytes, a multiple of 128, at least 128).
    pub max_region_bytes: u64,
    /// Most CTAs in the grid: the program's own cluster, and any idle ones before it
    /// (`max_clusters`; a program runs in one cluster: CTAs of different clusters cannot be
    /// ordered).
    pub max_ctas: u32,
    /// Most CTAs in a cluster (clusters only on sm_90+).
    pub max_cluster: u32,
    /// Most clusters in the grid of a program whose swarm enables `multicast` and not tcgen05
    /// (within `max_ctas`): the program runs in the last one and the others stay idle, so that
    /// its CTA ids are not its cluster ranks and a ctaMask read as CTA ids shows. 1: one cluster
    /// always.
    pub max_clusters: u32,
    /// Most threads per CTA (multiples of 32 are chosen).
    pub max_threads: u32,
    /// Out of 256: how many programs carry one statically illegal instruction ...
    pub illegal_per_256: u8,
    /// ... one run-time undefined operation (a rule of `sem::ub`) ...
    pub undefined_per_256: u8,
    /// ... or one race between an asynchronous operation and a plain access.
    pub racy_per_256: u8,
    /// Features no program enables (a campaign steering away from a known finding).
    pub avoid: swarm::Features,
    /// Out of 256: how many episodes are concurrent ([`concurrent`]: several threads issuing
    /// copies and arrivals at once, as one `concurrent` group), decided by the last byte of the
    /// episode's chunk. 0 (the default) leaves every program as without the option.
    pub concurrent_per_256: u8,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            targets: vec![
                Target::SM_80,
                Target::SM_90,
                Target::SM_90A,
                Target::SM_100A,
                Target::SM_100F,
            ],
            families: Families::ALL,
            max_episodes: 8,
            max_region_bytes: 512,
            // Room for two clusters of up to 4 CTAs (`max_clusters`).
            max_ctas: 8,
            max_cluster: 4,
            max_clusters: 2,
            max_threads: 128,
            illegal_per_256: 0,
            undefined_per_256: 0,
            racy_per_256: 0,
            avoid: swarm::Features::default(),
            concurrent_per_256: 0,
        }
    }
}

impl GenConfig {
    /// Only legal, well-defined programs (the default).
    pub fn legal() -> Self {
        Self::default()
    }
    /// A mix: about 1/8 illegal, 1/8 undefined, 1/8 racy.
    pub fn mixed() -> Self {
        GenConfig {
            illegal_per_256: 32,
            undefined_per_256: 32,
            racy_per_256: 32,
            ..Self::default()
        }
    }
    /// `self` with about `per_256`/256 of the episodes concurrent.
    pub fn with_concurrency(self, per_256: u8) -> Self {
        GenConfig {
            concurrent_per_256: per_256,
            ..self
        }
    }
}

/// What a generated program is meant to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Intent {
    /// Legal and well defined: the reference must execute it without UB and every wait completes.
    WellDefined,
    /// One step is statically illegal for the target (its `Requirement` verdict is not `Legal`).
    Illegal { step: usize, why: String },
    /// One step is undefined at run time by this `sem::ub` rule id (earlier steps are well defined).
    Undefined { rule: &'static str },
    /// A plain access races with an in-flight asynchronous operation (a `sem::ub` rule id).
    Racy { rule: &'static str },
}

/// The deviation a program asks its chosen episode for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deviation {
    Illegal,
    Undefined,
    Racy,
}

/// A generated case with the intent it was built for.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    pub case: Case,
    pub intent: Intent,
    /// Episodes generated: chunk k (bytes `HEADER + k*BLOCK ..`) drove episode k.
    pub episodes: usize,
}

/// Build one case from `u`. Never fails: missing bytes read as zero. Shape and value choices
/// come from the same bytes (the single-stream layout of the module doc).
pub fn generate(u: &mut Unstructured<'_>, cfg: &GenConfig) -> arbitrary::Result<Generated> {
    let mut head_bytes = [0u8; HEADER];
    take(u, &mut head_bytes);
    let available = (u.len() / BLOCK).max(1);
    let mut head = Chunk::new(&head_bytes);
    let next = |_| {
        let mut block = [0u8; BLOCK];
        take(u, &mut block);
        block
    };
    Ok(build(&mut head, cfg, available, next, |_| None))
}

/// Value bytes of one value set: a class byte ([`ValueClasses`]), the header's values (region
/// contents: the reduce regions' special pairs take two bytes an element), then
/// [`VALUE_BLOCK`] bytes per episode.
pub const VALUE_HEADER: usize = 256;
/// Value bytes per episode.
pub const VALUE_BLOCK: usize = 96;

/// Value bytes a value set needs under `cfg` (more are ignored, missing ones read as zero).
pub fn value_len(cfg: &GenConfig) -> usize {
    1 + VALUE_HEADER + VALUE_BLOCK * cfg.max_episodes.max(1)
}

/// Build one case of the shape `shape` (header and episode chunks, as [`generate`] reads them)
/// with the values `values` ([`value_len`] bytes). Cases of one `shape` emit one kernel text:
/// they differ only in what the kernel reads from its parameter block and regions.
pub fn generate_shaped(shape: &[u8], values: &[u8], cfg: &GenConfig) -> Generated {
    let classes = ValueClasses::from_byte(values.first().copied().unwrap_or(0));
    let values = values.get(1..).unwrap_or(&[]);
    let part = |from: usize, len: usize| -> &[u8] {
        values
            .get(from..)
            .map_or(&[][..], |v| &v[..len.min(v.len())])
    };
    let head_bytes = shape.get(..HEADER.min(shape.len())).unwrap_or(&[]);
    let mut head = Chunk::with_values(head_bytes, part(0, VALUE_HEADER), classes);
    let available = (shape.len().saturating_sub(HEADER) / BLOCK).max(1);
    build(
        &mut head,
        cfg,
        available,
        |k| {
            let mut block = [0u8; BLOCK];
            if let Some(b) = shape.get(HEADER + k * BLOCK..) {
                let n = b.len().min(BLOCK);
                block[..n].copy_from_slice(&b[..n]);
            }
            block
        },
        |k| Some((part(VALUE_HEADER + k * VALUE_BLOCK, VALUE_BLOCK), classes)),
    )
}

/// The generator over a header chunk and `available` episode chunks (`block(k)`: chunk k's
/// shape bytes; `values(k)`: its value bytes and classes, `None` for a single-stream chunk).
fn build<'v>(
    head: &mut Chunk<'_>,
    cfg: &GenConfig,
    available: usize,
    mut block: impl FnMut(usize) -> [u8; BLOCK],
    values: impl Fn(usize) -> Option<(&'v [u8], ValueClasses)>,
) -> Generated {
    let deviation = {
        let b = head.byte() as u32;
        let (i, d, r) = (
            cfg.illegal_per_256 as u32,
            cfg.undefined_per_256 as u32,
            cfg.racy_per_256 as u32,
        );
        if b < i {
            Some(Deviation::Illegal)
        } else if b < i + d {
            Some(Deviation::Undefined)
        } else if b < i + d + r {
            Some(Deviation::Racy)
        } else {
            None
        }
    };
    let swarm = Swarm::draw(head, cfg);
    let mut w = World::new(head, cfg, swarm);
    // Episodes: as many as the input holds (so a longer input gives a longer program), capped.
    let wanted = 1 + head.below(cfg.max_episodes.max(1) as u32) as usize;
    let n = wanted.min(available);
    let bad_at = head.below(n as u32) as usize;
    let mut intent = Intent::WellDefined;
    for k in 0..n {
        let bytes = block(k);
        let mut c = match values(k) {
            Some((v, classes)) => Chunk::with_values(&bytes, v, classes),
            None => Chunk::new(&bytes),
        };
        let dev = if k == bad_at { deviation } else { None };
        let fam = w.swarm.pick(c.byte(), dev);
        let conc = bytes[BLOCK - 1] < cfg.concurrent_per_256;
        let got = match conc
            .then(|| concurrent::episode(&mut w, &mut c, dev))
            .flatten()
        {
            Some(got) => got,
            None => episode(fam, &mut w, &mut c, dev),
        };
        if let Some(i) = got {
            intent = i;
        }
    }
    if w.steps.is_empty() {
        // Every family emits steps, but keep the schema rule (a program has a step) unconditional.
        store::plain(&mut w, &mut Chunk::new(&[]));
    }
    let case = w.finish(&intent);
    Generated {
        case,
        intent,
        episodes: n,
    }
}

/// A fuzzer's input as shape × values: the first [`shape_len`] bytes are the shape; bytes past
/// them, if any, are one value set ([`generate_shaped`]); else the single-stream [`generate`].
/// Inputs no longer than a shape generate exactly what [`generate_bytes`] does.
pub fn generate_input(data: &[u8], cfg: &GenConfig) -> Generated {
    let n = shape_len(cfg);
    match data.get(n..) {
        Some(values) if !values.is_empty() => generate_shaped(&data[..n], values, cfg),
        _ => generate_bytes(data, cfg),
    }
}

/// Bytes of a shape under `cfg`: the header and every episode it allows.
pub fn shape_len(cfg: &GenConfig) -> usize {
    HEADER + BLOCK * cfg.max_episodes.max(1)
}

/// Convenience: generate from a byte slice.
pub fn generate_bytes(bytes: &[u8], cfg: &GenConfig) -> Generated {
    let mut u = Unstructured::new(bytes);
    // `generate` reads only fixed-size chunks with zero fill, so it cannot fail.
    match generate(&mut u, cfg) {
        Ok(g) => g,
        Err(_) => unreachable_generated(),
    }
}

fn unreachable_generated() -> Generated {
    let mut w = World::new(&mut Chunk::new(&[]), &GenConfig::default(), Swarm::none());
    store::plain(&mut w, &mut Chunk::new(&[]));
    Generated {
        case: w.finish(&Intent::WellDefined),
        intent: Intent::WellDefined,
        episodes: 0,
    }
}

/// Copy the next `out.len()` bytes (zeros once the input runs out).
fn take(u: &mut Unstructured<'_>, out: &mut [u8]) {
    let n = out.len().min(u.len());
    if let Ok(b) = u.bytes(n) {
        out[..n].copy_from_slice(b);
    }
}

/// Run one episode of `fam`; returns the intent if the episode deviated.
fn episode(
    fam: Family,
    w: &mut World,
    c: &mut Chunk<'_>,
    dev: Option<Deviation>,
) -> Option<Intent> {
    match fam {
        Family::CpAsync => cp_async::episode(w, c, dev),
        Family::BulkCopy => bulk::copy_episode(w, c, dev),
        Family::BulkReduce => bulk::reduce_episode(w, c, dev),
        Family::BulkPrefetch => bulk::prefetch_episode(w, c, dev),
        Family::Mbarrier => mbarrier::episode(w, c, dev),
        Family::Store => store::episode(w, c, dev),
        Family::Tcgen05 => tcgen05::episode(w, c, dev),
        Family::Tensor => tensor::episode(w, c, dev),
    }
}

/// `Expect` for an intent (illegal programs assert nothing at run time).
pub fn expect_for(intent: &Intent) -> Option<Expect> {
    match intent {
        Intent::WellDefined => Some(Expect::Pass),
        Intent::Undefined { rule } | Intent::Racy { rule } => {
            Some(Expect::Undefined((*rule).to_string()))
        }
        Intent::Illegal { .. } => None,
    }
}

/// The intent a case's `expect` states, the inverse of [`expect_for`] (a rule the model does not
/// know, a trap or a timeout states no generator intent: well defined).
pub fn intent_of(expect: Option<&Expect>) -> Intent {
    match expect {
        Some(Expect::Undefined(r)) => match crate::sem::ub::rule(r) {
            Some(rule) => Intent::Undefined { rule: rule.id },
            None => Intent::WellDefined,
        },
        _ => Intent::WellDefined,
    }
}

#[cfg(test)]
mod tests;
