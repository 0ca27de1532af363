//! The case under construction: launch, regions, mbarrier bookkeeping, parameters and steps.
//! Families add episodes through it; it keeps what they need to stay legal (which mbarriers are
//! initialised in which CTA, with which count, and how many phases completed).

use super::bytes::Chunk;
use super::swarm::Swarm;
use super::{expect_for, GenConfig, Intent};
use crate::case::model::*;
use crate::ptx::common::{RedOp, RedType};
use crate::ptx::cp_async::SharedSpelling;
use crate::ptx::mbarrier::{MbarSpace, MbarrierOp};
use crate::ptx::operand::{Address, Value};
use crate::ptx::Instruction;
use crate::target::Target;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Global source (pattern) and destination regions.
pub const GSRC: &str = "gsrc";
pub const GDST: &str = "gdst";
/// Per-CTA shared buffer: destination of global→shared copies, source of shared→global ones.
pub const SBUF: &str = "sbuf";
/// Typed regions of cp.reduce.async.bulk: shared source, global and shared destinations.
pub const RSRC: &str = "rsrc";
pub const RDST: &str = "rdst";
pub const RSH: &str = "rsh";

/// One initialised mbarrier object (in one CTA).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bar {
    /// Expected arrivals of the current phase.
    pub count: u32,
    /// Phases completed (and waited on) so far; the current phase's parity is `phases % 2`.
    pub phases: u32,
}

/// Who runs a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Who {
    pub cta: Ctas,
    pub thread: u32,
}

pub struct World {
    pub target: Target,
    /// The launch of the program's own cluster, the only one that runs steps: `grid` is that
    /// cluster, whose CTAs the world numbers from 0 ([`World::finish`] places it in the grid).
    pub launch: Launch,
    /// Clusters of the grid before the program's own: they run no step (see [`World::new`]).
    pub idle_clusters: u32,
    pub swarm: Swarm,
    /// Bytes of every region (a multiple of 128).
    pub size: u64,
    /// Element type of the reduce regions.
    pub red_ty: RedType,
    pub memory: Memory,
    pub params: BTreeMap<String, Param>,
    pub steps: Vec<Step>,
    /// `bars[b][cta]`: the state of mbarrier `bar{b}` in each CTA.
    pub bars: Vec<Vec<Option<Bar>>>,
    /// Names the case checks at the end (`check:`).
    pub check: Vec<String>,
    /// Tensor Memory bookkeeping of the tcgen05 episodes.
    pub tc: super::tcgen05::TcState,
    /// Reduced interleavings of the concurrent groups so far, multiplied (kept within
    /// `sem::exec::concurrent::MAX_ORDERS`).
    pub orders: u128,
}

/// Small typed values for a reduce region: integers that fit every type, halves for floats.
fn typed_data(c: &mut Chunk<'_>, ty: RedType, n: usize) -> Vec<f64> {
    let signed = matches!(
        ty,
        RedType::S32 | RedType::S64 | RedType::F16 | RedType::Bf16 | RedType::F32 | RedType::F64
    );
    let float = matches!(
        ty,
        RedType::F16 | RedType::Bf16 | RedType::F32 | RedType::F64
    );
    (0..n)
        .map(|_| {
            let b = c.value_byte();
            let mut v = (b & 0x3f) as f64;
            if float && b & 0x40 != 0 {
                v += 0.5;
            }
            if signed && b & 0x80 != 0 {
                v = -v;
            }
            v
        })
        .collect()
}

/// Value sets out of 256 whose reduce regions hold special operand pairs ([`special_pairs`]).
const SPECIAL_PER_256: u8 = 128;
/// Elements of a special-value reduce region (the rest of it is zero).
const SPECIAL_ELEMS: usize = 64;

/// For [`SPECIAL_PER_256`] of the value sets, the reduce source and destination contents as
/// (destination, source) element pairs of the reduction special-value corpus
/// ([`super::special_values::pairs`]: ±0, subnormals, ±inf, NaN payloads and signs, rounding
/// ties and overflow for floats; signed and unsigned boundaries for integers), element `i` of
/// the source meeting element `i` of the destination (reduce transfers keep source and
/// destination offsets equal). Values only: the kernel's text is the same either way. A
/// single-stream chunk (no value set) keeps the small values of [`typed_data`].
fn special_pairs(c: &mut Chunk<'_>, ty: RedType, size: usize) -> Option<(Vec<u8>, Vec<u8>)> {
    if !c.has_values() || c.value_byte() >= SPECIAL_PER_256 {
        return None;
    }
    // Integer ops read the boundaries of their own kind: arithmetic, bitwise, inc/dec.
    let op = [RedOp::Add, RedOp::And, RedOp::Inc][c.value_byte() as usize % 3];
    let pairs = super::special_values::pairs(op, ty);
    let n = ty.bytes();
    let (mut src, mut dst) = (Vec::new(), Vec::new());
    for _ in 0..(size / n).min(SPECIAL_ELEMS) {
        let i = u16::from_le_bytes([c.value_byte(), c.value_byte()]) as usize;
        let p = &pairs[i % pairs.len()];
        src.extend_from_slice(&p.s.to_le_bytes()[..n]);
        dst.extend_from_slice(&p.d.to_le_bytes()[..n]);
    }
    Some((src, dst))
}

impl World {
    pub fn new(head: &mut Chunk<'_>, cfg: &GenConfig, mut swarm: Swarm) -> World {
        let target = if cfg.targets.is_empty() {
            Target::SM_90
        } else {
            head.pick(&cfg.targets)
        };
        swarm.restrict(target.sm);
        let max_ctas = cfg.max_ctas.clamp(1, 16);
        // The program runs in one cluster: steps run in listed order only where the harness can
        // order them, and CTAs of different clusters (or of a cluster-less grid) cannot be
        // ordered on silicon (a fuzz campaign's first "divergence" was exactly such a cross-CTA
        // race). A program that may multicast sometimes gets idle clusters before its own
        // (`GenConfig::max_clusters`), so that its CTA ids differ from their cluster ranks and a
        // ctaMask read as CTA ids shows. The bytes are consumed either way so the layout stays.
        let (cs, clusters) = if target.sm >= 90 {
            let cs = head.range(1, cfg.max_cluster.clamp(1, 8).min(max_ctas));
            // Not with tcgen05: every CTA holds a checked Tensor Memory allocation at exit
            // (A-EXEC-TCGEN05-EPILOGUE), and an idle CTA allocates none.
            let tcgen05 = swarm.families.contains(&super::swarm::Family::Tcgen05);
            let most = if cs > 1 && swarm.features.multicast && !tcgen05 {
                cfg.max_clusters.clamp(1, max_ctas / cs)
            } else {
                1
            };
            (cs, head.range(1, most))
        } else {
            let _ = head.byte();
            let _ = head.range(1, max_ctas);
            (1, 1)
        };
        let n = cs;
        let threads = 32 * head.range(1, (cfg.max_threads / 32).clamp(1, 32));
        let size = 128 * head.range(1, (cfg.max_region_bytes / 128).clamp(1, 64) as u32) as u64;
        let red_ty = head.pick(&RedType::ALL);
        let n_bars = head.range(1, 3) as usize;
        // Region contents are values: the kernel reads them, its text does not hold them.
        let seed = head.value_byte() as u64;
        let fill = head.value_byte();
        let region = |name: &str, init: Init| Region {
            name: name.into(),
            size,
            align: 128,
            misalign: 0,
            init,
        };
        let mut memory = Memory {
            global: vec![
                region(GSRC, Init::Pattern(seed)),
                region(GDST, Init::Fill(fill)),
            ],
            shared: vec![region(SBUF, Init::Fill(fill ^ 0xAA))],
            mbarriers: (0..n_bars)
                .map(|b| MbarrierDecl {
                    name: format!("bar{b}"),
                })
                .collect(),
            ..Memory::default()
        };
        if swarm.families.contains(&super::swarm::Family::BulkReduce) {
            let elems = (size as usize / red_ty.bytes()).min(16);
            let vals = |c: &mut Chunk<'_>| {
                Init::Values(TypedValues {
                    ty: red_ty.ptx().into(),
                    data: typed_data(c, red_ty, elems),
                })
            };
            let (src, dst) = match special_pairs(head, red_ty, size as usize) {
                Some((s, d)) => (Init::Bytes(s), Init::Bytes(d)),
                None => (vals(head), vals(head)),
            };
            memory.shared.push(region(RSRC, src));
            memory.global.push(region(RDST, dst.clone()));
            memory.shared.push(region(RSH, dst));
        }
        if swarm.families.contains(&super::swarm::Family::Tensor) {
            super::tensor::add_regions(&mut memory, seed, fill);
        }
        World {
            target,
            launch: Launch {
                grid: [n, 1, 1],
                cluster: [cs, 1, 1],
                threads,
            },
            idle_clusters: clusters - 1,
            swarm,
            size,
            red_ty,
            memory,
            params: BTreeMap::new(),
            steps: Vec::new(),
            bars: vec![vec![None; n as usize]; n_bars],
            check: Vec::new(),
            tc: Default::default(),
            orders: 1,
        }
    }

    pub fn ctas(&self) -> u32 {
        self.launch.grid[0]
    }
    pub fn cluster_size(&self) -> u32 {
        self.launch.cluster[0]
    }
    /// The CTA of rank `rank` in the cluster of `cta` (1-D launches).
    pub fn in_cluster(&self, cta: u32, rank: u32) -> u32 {
        cta / self.cluster_size() * self.cluster_size() + rank
    }
    /// The CTAs a copy from `cta` writes: those whose ranks a multicast `mask` sets in `cta`'s
    /// cluster, else `cta` alone.
    pub fn destinations(&self, cta: u32, mask: Option<u32>) -> Vec<u32> {
        match mask {
            Some(m) => (0..self.cluster_size())
                .filter(|r| m & (1 << r) != 0)
                .map(|r| self.in_cluster(cta, r))
                .collect(),
            None => vec![cta],
        }
    }
    pub fn has_region(&self, name: &str) -> bool {
        self.memory
            .global
            .iter()
            .chain(&self.memory.shared)
            .any(|r| r.name == name)
    }

    /// `Who` for a set of CTAs (sorted, non-empty) and a thread.
    pub fn who(&self, ctas: &[u32], thread: u32) -> Who {
        let cta = match ctas {
            [c] => Ctas::One(*c),
            _ if ctas.len() as u32 == self.ctas() => Ctas::Named(AllCtas::All),
            _ => Ctas::List(ctas.to_vec()),
        };
        Who { cta, thread }
    }
    /// A CTA and thread chosen by two bytes.
    pub fn one(&self, c: &mut Chunk<'_>) -> (u32, u32) {
        (c.below(self.ctas()), c.below(self.launch.threads))
    }

    /// Append a `ptx:` step printed from the typed instruction; returns its index.
    pub fn ptx(&mut self, who: &Who, instr: Instruction) -> usize {
        self.steps.push(Step {
            cta: who.cta.clone(),
            thread: who.thread,
            concurrent: None,
            op: StepOp::Ptx(instr.to_string()),
        });
        self.steps.len() - 1
    }
    pub fn step(&mut self, who: &Who, op: StepOp) -> usize {
        self.steps.push(Step {
            cta: who.cta.clone(),
            thread: who.thread,
            concurrent: None,
            op,
        });
        self.steps.len() - 1
    }

    /// A fresh parameter `{prefix}{n}` holding `p`.
    pub fn param(&mut self, prefix: &str, p: Param) -> Value {
        Value::Reg(self.named_param(prefix, p))
    }

    /// [`World::param`]'s name.
    fn named_param(&mut self, prefix: &str, p: Param) -> String {
        let name = (0..)
            .map(|i| format!("{prefix}{i}"))
            .find(|n| !self.params.contains_key(n))
            .unwrap_or_default();
        self.params.insert(name.clone(), p);
        name
    }

    /// A fresh parameter `{prefix}{n}` holding the address of `region` (a shared region or
    /// mbarrier) in the CTA of cluster rank `rank` (`mapa`); its name is the address operand.
    pub fn mapa(&mut self, prefix: &str, region: &str, rank: u32) -> String {
        self.named_param(
            prefix,
            Param::Mapa {
                mapa: region.into(),
                cta: rank,
            },
        )
    }

    /// The cluster rank `k` places after `cta`'s own in a cluster of `cs` CTAs (`k` below
    /// `cs - 1`): another CTA's rank.
    pub fn other_rank(cta: u32, cs: u32, k: u32) -> u32 {
        (cta % cs + 1 + k) % cs
    }
    /// A `.b32` operand: an immediate, or (with `reg_operands`, by a byte) a `size…` parameter.
    pub fn b32(&mut self, c: &mut Chunk<'_>, v: i64) -> Value {
        let as_reg = c.bit();
        if self.swarm.features.reg_operands && as_reg {
            self.param("size", Param::Int(v))
        } else {
            Value::Imm(v)
        }
    }
    /// A `.b16` mask operand (immediate or `mask…` parameter).
    pub fn b16(&mut self, c: &mut Chunk<'_>, v: u16) -> Value {
        let as_reg = c.bit();
        if self.swarm.features.reg_operands && as_reg {
            self.param(
                "mask",
                Param::Typed {
                    value: v as i64,
                    ty: "b16".into(),
                },
            )
        } else {
            Value::Imm(v as i64)
        }
    }
    /// The cache-policy register. ASSUMPTION: a policy is a hint only (§9.7.9.25.4.1), so its
    /// value is arbitrary; we pass 0.
    pub fn policy(&mut self) -> Value {
        if !self.params.contains_key("policy") {
            self.params.insert(
                "policy".into(),
                Param::Typed {
                    value: 0,
                    ty: "b64".into(),
                },
            );
        }
        Value::reg("policy")
    }
    /// An `ignore-src` predicate parameter (named so that PTX naming habits read it as one).
    pub fn ignore_pred(&mut self, v: bool) -> String {
        match self.param(
            "ignore",
            Param::Typed {
                value: v as i64,
                ty: "pred".into(),
            },
        ) {
            Value::Reg(r) => r,
            Value::Imm(_) => String::new(),
        }
    }

    /// The `.space` qualifier the program spells shared mbarriers with.
    pub fn bar_space(&self) -> Option<MbarSpace> {
        Some(if self.swarm.features.shared_cta {
            MbarSpace::SharedCta
        } else {
            MbarSpace::Shared
        })
    }
    /// The `.shared` spelling the program's cp.async instructions use.
    pub fn cp_async_spelling(&self) -> SharedSpelling {
        if self.swarm.features.shared_cta {
            SharedSpelling::SharedCta
        } else {
            SharedSpelling::Shared
        }
    }
    pub fn bar_name(b: usize) -> String {
        format!("bar{b}")
    }
    pub fn bar_addr(b: usize) -> Address {
        Address::reg(&Self::bar_name(b))
    }

    /// Make mbarrier `b` valid with expected count `count` in each of `ctas`: init where it is
    /// not initialised, inval + init where its count differs (§9.7.13.15.9: no init on a valid object).
    pub fn ensure_bar(&mut self, b: usize, ctas: &[u32], thread: u32, count: u32) {
        let space = self.bar_space();
        let (mut fresh, mut redo) = (Vec::new(), Vec::new());
        for &c in ctas {
            match self.bars[b][c as usize] {
                Some(bar) if bar.count == count => {}
                Some(_) => redo.push(c),
                None => fresh.push(c),
            }
        }
        if !redo.is_empty() {
            let who = self.who(&redo, thread);
            self.ptx(
                &who,
                Instruction::Mbarrier(MbarrierOp::Inval {
                    space,
                    addr: Self::bar_addr(b),
                }),
            );
            fresh.extend(redo);
            fresh.sort_unstable();
        }
        if !fresh.is_empty() {
            let who = self.who(&fresh, thread);
            self.ptx(
                &who,
                Instruction::Mbarrier(MbarrierOp::Init {
                    space,
                    addr: Self::bar_addr(b),
                    count: Value::Imm(count as i64),
                }),
            );
            for c in fresh {
                self.bars[b][c as usize] = Some(Bar { count, phases: 0 });
            }
        }
    }

    /// Wait (in each of `ctas`) for the current phase of `b`, which the episode completed.
    pub fn wait_phase(&mut self, b: usize, ctas: &[u32], thread: u32) {
        for &c in ctas {
            let Some(bar) = self.bars[b][c as usize].as_mut() else {
                continue;
            };
            let parity = bar.phases % 2;
            bar.phases += 1;
            let who = self.who(&[c], thread);
            self.step(
                &who,
                StepOp::WaitParity {
                    mbar: Self::bar_name(b),
                    parity,
                },
            );
        }
    }

    /// Wait (in each of `ctas`) on the parity of the phase before the current one of `b`: it
    /// has completed (phase −1 of a fresh object counts as complete, A-MB-PARITY-PREINIT), so the
    /// wait returns at once.
    pub fn wait_preceding(&mut self, b: usize, ctas: &[u32], thread: u32) {
        for &c in ctas {
            let Some(bar) = self.bars[b][c as usize] else {
                continue;
            };
            let who = self.who(&[c], thread);
            self.step(
                &who,
                StepOp::WaitParity {
                    mbar: Self::bar_name(b),
                    parity: (bar.phases + 1) % 2,
                },
            );
        }
    }

    /// The finished case, its cluster placed after the idle ones: every step's CTAs shifted by
    /// the idle CTAs (`all` naming the program's own cluster), the grid grown by them. Cluster
    /// ranks (`mapa`, ctaMasks) are relative to the cluster and stay.
    pub fn finish(mut self, intent: &Intent) -> Case {
        let base = self.idle_clusters * self.cluster_size();
        if base > 0 {
            let own: Vec<u32> = (base..base + self.ctas()).collect();
            for s in &mut self.steps {
                s.cta = match &s.cta {
                    Ctas::One(c) => Ctas::One(base + c),
                    Ctas::Named(AllCtas::All) => Ctas::List(own.clone()),
                    Ctas::List(cs) => Ctas::List(cs.iter().map(|c| base + c).collect()),
                };
            }
            self.launch.grid[0] += base;
        }
        // FNV-1a of the steps' operations as `Debug` writes them, hashed as they are written.
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        for s in &self.steps {
            let _ = write!(h, "{:?}", s.op);
        }
        let h = h.0;
        let families: Vec<String> = self
            .swarm
            .families
            .iter()
            .map(|f| format!("{f:?}"))
            .collect();
        let what = match intent {
            Intent::WellDefined => "well defined".to_string(),
            Intent::Illegal { step, why } => format!("illegal at step {step}: {why}"),
            Intent::Undefined { rule } => format!("undefined: {rule}"),
            Intent::Racy { rule } => format!("racy: {rule}"),
        };
        Case {
            name: format!("gen.{}.{h:016x}", self.target),
            description: format!("generated ({what}); families {}", families.join(",")),
            target: self.target,
            ptx_version: None,
            launch: self.launch,
            memory: self.memory,
            params: self.params,
            program: self.steps,
            check: self.check,
            expect: expect_for(intent),
            observed: Vec::new(),
            parsed: Default::default(),
        }
    }
}

/// An FNV-1a hash that text is written into.
struct Fnv(u64);

impl std::fmt::Write for Fnv {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        for b in s.bytes() {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
        Ok(())
    }
}
