//! Batched hardware execution: many case instances per launch.
//!
//! Cases whose emitted kernels are identical (same [`Emitted::shape_key`], launch shape and
//! shared-memory size) run as *instances* of one launch, each in its own CTAs or cluster (see
//! the kernel ABI in [`crate::emit`]). A launch is one worker [`Job`] with two buffers, composed
//! and uploaded once: `IN` (the instance table, every pblock and initial shared image) and `OUT`
//! (every dump and global region between canaries, read back with one copy). The result of a
//! batch is split into one [`JobResult`] per instance, shaped exactly like the result of a job of
//! that case alone, so observation and judgement do not know about batching.
//!
//! A launch that does not complete (trap, driver rejection, watchdog) says nothing about which
//! instance caused it: it is split in halves and the halves re-run (each trap costs the worker
//! its context), until every failure is pinned to one instance run alone — about log2(n)
//! rounds. Instances the caller isolates (the reference predicts a trap, a hang or undefined
//! behaviour; a known finding) never share a launch. A trap costs far more than a launch: on an
//! H100 the fault itself takes 0.1–0.35 s to be reported and a fresh worker 0.2–0.3 s (driver
//! init and context creation, serialised by the driver across processes).

use super::{global_geometry, DUMP, FIRST_GLOBAL};
use crate::device::{
    Address, BufferSpec, Job, JobResult, KernelLaunch, KernelParam, LaunchDims, Outcome, Patch,
    Piece, ReadBack, Supervisor,
};
use crate::emit::{tmap_slots, Emitted};
use ptxconform_reference::case::Case;
use ptxconform_reference::layout::CANARY_BYTE;
use std::collections::BTreeMap;

/// The batch's input buffer (table, pblocks, shared images), its global regions between their
/// canaries (given and read back by pieces: mostly canary bytes) and its dumps.
const IN: usize = 0;
const OUT: usize = 1;
const DUMPS: usize = 2;

/// Whether an instance may share its launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Isolation {
    /// Expected to trap (predicted by the reference, or a known finding; with trap workers also
    /// a recorded trap): a launch of its own, scheduled before the other lone launches so that
    /// each trap is the first job of a fresh worker and needs no confirmation run, or with
    /// [`Limits::trap_workers`] after every other launch, each in a worker of its own.
    Suspect,
    /// May disturb its neighbours (undefined behaviour, a predicted hang): a launch of its own.
    Alone,
    /// Shares a launch with the other instances of its shape.
    Shared,
}

/// One case instance ready to run.
#[derive(Clone, Copy)]
pub struct Unit<'a> {
    pub case: &'a Case,
    pub em: &'a Emitted,
    pub isolation: Isolation,
}

/// A shape's compiled kernel: the module holding it (registered with the supervisor) and its
/// entry name there.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub module: u64,
    pub entry: String,
}

/// Limits of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most instances per launch.
    pub instances: usize,
    /// Most bytes of the two buffers together (keeps one job's transfer bounded).
    pub bytes: u64,
    /// The least time a `wait_parity` step waits before it calls the wait a timeout
    /// ([`wait_bound_ns`]).
    pub wait_floor_ns: u64,
    /// Workers that run the launches expected to trap ([`Isolation::Suspect`]) at the end, each
    /// launch in a worker of its own, in parallel ([`Supervisor::run_apart`]); 1: they run first
    /// on the supervisor's worker, one fresh worker after each trap (as before).
    pub trap_workers: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            instances: 4096,
            bytes: 256 << 20,
            wait_floor_ns: WAIT_FLOOR_NS,
            trap_workers: 1,
        }
    }
}

/// The part of a wait's bound that does not grow with the launch: a completion of the corpus's
/// copies takes microseconds (its largest case moves 1 MiB; one launch at most [`Limits::bytes`],
/// covered by [`NS_PER_KIB`]); the floor covers what is not the copy: `%globaltimer` ticks (as
/// coarse as 32 µs on some parts), the completion's signalling, and a time slice of another
/// context on the device (`--devices 0,0`) while the CTA waits, each well under a millisecond to
/// a few. 20 ms is ten times that, and a tenth of the 200 ms the waits had: an expected timeout
/// costs its launch about 20 ms instead of 200.
pub const WAIT_FLOOR_NS: u64 = 20_000_000;

/// What the copies of a launch may add to the bound, per KiB of its buffers: a KiB at 10 GB/s
/// (a three-hundredth of an H100's memory bandwidth) takes 102.4 ns, so all of a launch's bytes
/// moving at that rate still complete inside the bound (256 MiB: +28 ms).
pub const NS_PER_KIB: u64 = 103;

/// The bound of every `wait_parity` in a launch whose buffers hold `bytes`: `floor` plus
/// [`NS_PER_KIB`] per KiB. A wait longer than that is a timeout (the program does not complete
/// the barrier), never a slow completion.
pub fn wait_bound_ns(bytes: u64, floor: u64) -> u64 {
    floor.saturating_add(bytes.div_ceil(1024).saturating_mul(NS_PER_KIB))
}

/// Where one instance lives in the batch's buffers.
struct Placement {
    dump: u64,
    /// Start of each global region's buffer (its canary head) in `OUT`.
    globals: Vec<u64>,
}

fn align_to(x: u64, a: u64) -> u64 {
    x.next_multiple_of(a.max(1))
}

/// Buffer bytes of one instance (both buffers), for packing.
fn footprint(u: &Unit) -> u64 {
    let em = u.em;
    let mut b = 16 + em.pblock.len() as u64 * 8 + em.shared_init.len() as u64 + 32;
    b += em.dump_layout.total_bytes + 256;
    for i in 0..u.case.memory.global.len() {
        let (_, size, align) = global_geometry(u.case, i);
        b += size + align;
    }
    b
}

/// The launch of `units` (all of one shape) as one job for the driver's JIT (at `jit_level`),
/// and where each instance landed; [`bind`] points it at a compiled kernel instead.
fn batch_job(
    id: u64,
    units: &[Unit],
    jit_level: Option<u8>,
    wait_floor_ns: u64,
) -> Result<(Job, Vec<Placement>), String> {
    let first = units.first().ok_or("empty batch")?;
    let n = units.len() as u64;
    let mut inb = vec![0u8; (16 * n) as usize];
    let (mut out_len, mut out_init, mut out_pieces) = (0u64, Vec::new(), Vec::new());
    let mut dumps_len = 0u64;
    let mut patches = Vec::new();
    let mut out_align = 256u64;
    let mut places = Vec::with_capacity(units.len());
    let mut tensor_maps = Vec::new();
    let put = |buf: &mut Vec<u8>, align: u64, bytes: &[u8]| {
        let at = align_to(buf.len() as u64, align);
        buf.resize(at as usize, 0);
        buf.extend_from_slice(bytes);
        at
    };
    let reserve = |len: &mut u64, align: u64, size: u64| {
        let at = align_to(*len, align);
        *len = at + size;
        at
    };
    // Each instance's bytes on every core; only their placement below is sequential.
    let contents: Vec<(Vec<u8>, Vec<Vec<u8>>)> = {
        use rayon::prelude::*;
        units
            .par_iter()
            .map(|u| {
                let inits = u
                    .case
                    .memory
                    .global
                    .iter()
                    .map(|r| {
                        r.init
                            .materialize(r.size)
                            .map_err(|e| format!("global `{}`: {e}", r.name))
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                Ok((u.em.pblock_bytes(), inits))
            })
            .collect::<Result<_, String>>()?
    };
    let mut pblocks = Vec::with_capacity(units.len());
    for (i, (u, (pblock, inits))) in units.iter().zip(contents).enumerate() {
        let (case, em) = (u.case, u.em);
        let pblock_at = put(&mut inb, 16, &pblock);
        pblocks.push(pblock_at as usize);
        let init_at = put(&mut inb, 16, &em.shared_init);
        let dump_at = reserve(&mut dumps_len, 256, em.dump_layout.total_bytes.max(16));
        let mut globals = Vec::new();
        for (g, init) in inits.into_iter().enumerate() {
            let (start, size, align) = global_geometry(case, g);
            out_align = out_align.max(align);
            // Canary bytes are the buffer's fill: only the region's contents cross.
            let at = reserve(&mut out_len, align, size);
            out_pieces.push(Piece {
                at: at + start,
                len: init.len() as u64,
            });
            out_init.extend_from_slice(&init);
            patches.push(Patch {
                offset: pblock_at + ((crate::emit::dump::pb::HEADER + g) * 8) as u64,
                address: Address::Buffer {
                    index: OUT,
                    offset: at + start,
                },
            });
            globals.push(at);
        }
        patches.push(Patch {
            offset: pblock_at + (crate::emit::dump::pb::SHARED_INIT * 8) as u64,
            address: Address::Buffer {
                index: IN,
                offset: init_at,
            },
        });
        patches.push(Patch {
            offset: 16 * i as u64,
            address: Address::Buffer {
                index: IN,
                offset: pblock_at,
            },
        });
        patches.push(Patch {
            offset: 16 * i as u64 + 8,
            address: Address::Buffer {
                index: DUMPS,
                offset: dump_at,
            },
        });
        for t in &em.tensor_maps {
            let (start, _, _) = global_geometry(case, t.global_index);
            tensor_maps.push(crate::device::map_request::request_at(
                &t.map,
                Address::Buffer {
                    index: OUT,
                    offset: globals[t.global_index] + start,
                },
            ));
        }
        places.push(Placement {
            dump: dump_at,
            globals,
        });
    }
    // Every instance waits as long as the whole launch's copies may take.
    let bound = wait_bound_ns(inb.len() as u64 + out_len + dumps_len, wait_floor_ns).to_le_bytes();
    for at in pblocks {
        let slot = at + crate::emit::dump::pb::TIMEOUT_NS * 8;
        if let Some(b) = inb.get_mut(slot..slot + 8) {
            b.copy_from_slice(&bound);
        }
    }
    let em = first.em;
    let dims = LaunchDims {
        grid: [
            em.launch.grid[0]
                .checked_mul(units.len() as u32)
                .ok_or("grid too large")?,
            em.launch.grid[1],
            em.launch.grid[2],
        ],
        block: em.launch.block,
        cluster: (em.launch.cluster != [1, 1, 1]).then_some(em.launch.cluster),
        dynamic_smem: u32::try_from(em.dyn_smem_bytes).map_err(|_| "shared image too large")?,
    };
    let mut params = vec![KernelParam::Pointer(Address::Buffer {
        index: IN,
        offset: 0,
    })];
    if !tensor_maps.is_empty() {
        let slots = tmap_slots(em.version);
        if tensor_maps.len() > slots {
            return Err(format!("{} tensor maps in one launch", tensor_maps.len()));
        }
        params.push(KernelParam::TensorMapArray {
            first: 0,
            count: tensor_maps.len(),
            slots,
        });
    }
    let job = Job {
        id,
        buffers: vec![
            BufferSpec {
                size: inb.len().max(16) as u64,
                align: 256,
                fill: 0,
                init: inb,
                patches,
                pieces: vec![],
            },
            BufferSpec {
                size: out_len.max(16),
                align: out_align,
                fill: CANARY_BYTE,
                init: out_init,
                patches: vec![],
                pieces: out_pieces,
            },
            BufferSpec {
                size: dumps_len.max(16),
                align: 256,
                fill: 0,
                init: vec![],
                patches: vec![],
                pieces: vec![],
            },
        ],
        tensor_maps,
        launch: Some(KernelLaunch {
            ptx: em.ptx.to_string(),
            cubin: Vec::new(),
            kernel: em.entry.to_string(),
            module: 0,
            dims,
            params,
            jit_level,
        }),
        read_back: vec![DUMPS, OUT],
    };
    Ok((job, places))
}

/// Name a compiled kernel in `job` (its module was sent to the worker once) in place of the PTX
/// for the JIT.
fn bind(job: &mut Job, kernel: &Kernel) {
    if let Some(l) = &mut job.launch {
        l.ptx = String::new();
        l.kernel = kernel.entry.clone();
        l.module = kernel.module;
        l.jit_level = None;
    }
}

/// The per-instance results of a completed batch: each shaped like the result of the case's own
/// job (dump at [`DUMP`], global `g`'s buffer at `FIRST_GLOBAL + g`).
fn split(units: &[Unit], places: &[Placement], job: &Job, jr: &JobResult) -> Vec<JobResult> {
    let whole = |index: usize| {
        let spec = job.buffers.get(index).ok_or("no such buffer")?;
        match jr.read_back.iter().find(|b| b.index == index) {
            Some(b) => b.whole_of(spec),
            None => Ok(std::borrow::Cow::Borrowed(&[][..])),
        }
    };
    let (dumps, out) = match whole(DUMPS).and_then(|d| Ok((d, whole(OUT)?))) {
        Ok(both) => both,
        Err(e) => {
            let failed = Outcome::Setup {
                message: format!("read-back: {e}"),
            };
            return units
                .iter()
                .map(|_| JobResult::bare(jr.id, failed.clone()))
                .collect();
        }
    };
    use rayon::prelude::*;
    let n = units.len().max(1) as u64;
    // Where each instance's encoded maps start among the launch's.
    let first_map: Vec<usize> = units
        .iter()
        .scan(0, |at, u| {
            let first = *at;
            *at += u.em.tensor_maps.len();
            Some(first)
        })
        .collect();
    units
        .par_iter()
        .zip(places)
        .zip(first_map)
        .map(|((u, p), first)| {
            let mut r = JobResult::bare(jr.id, jr.outcome.clone());
            r.wall_us = jr.wall_us / n;
            r.jit_info_log = jr.jit_info_log.clone();
            r.tensor_maps = jr
                .tensor_maps
                .iter()
                .skip(first)
                .take(u.em.tensor_maps.len())
                .cloned()
                .collect();
            let slice = |buf: &[u8], at: u64, len: u64| {
                buf.get(at as usize..(at + len) as usize)
                    .map(<[u8]>::to_vec)
                    .unwrap_or_default()
            };
            let dump = slice(&dumps, p.dump, u.em.dump_layout.total_bytes.max(16));
            r.read_back.push(ReadBack::whole(DUMP, dump));
            for (g, at) in p.globals.iter().enumerate() {
                let (_, size, _) = global_geometry(u.case, g);
                r.read_back
                    .push(ReadBack::whole(FIRST_GLOBAL + g, slice(&out, *at, size)));
            }
            r
        })
        .collect()
}

/// Launches of `units`: groups of one shape, split by `limits`; `alone` units by themselves.
fn groups(units: &[Unit], limits: Limits) -> Vec<Vec<usize>> {
    type Shape = (u64, [[u32; 3]; 3], u64);
    let mut by_shape: BTreeMap<Shape, Vec<usize>> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, u) in units.iter().enumerate() {
        if u.isolation != Isolation::Shared {
            out.push(vec![i]);
        } else {
            let l = &u.em.launch;
            let key = (
                u.em.shape_key,
                [l.grid, l.cluster, l.block],
                u.em.dyn_smem_bytes,
            );
            by_shape.entry(key).or_default().push(i);
        }
    }
    for (_, members) in by_shape {
        let cap = units[members[0]]
            .em
            .max_instances()
            .min(limits.instances)
            .max(1);
        let mut cur: Vec<usize> = Vec::new();
        let mut bytes = 0;
        for i in members {
            let b = footprint(&units[i]);
            if !cur.is_empty() && (cur.len() >= cap || bytes + b > limits.bytes) {
                out.push(std::mem::take(&mut cur));
                bytes = 0;
            }
            cur.push(i);
            bytes += b;
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out
}

/// Counters of one [`execute`] call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchStats {
    pub launches: u64,
    /// Launches that failed as a whole and were split.
    pub splits: u64,
    pub instances: u64,
    /// Host time composing launch buffers and splitting their results.
    pub host: std::time::Duration,
    /// Time in the worker supervisor (transfer, launch, worker restarts).
    pub device: std::time::Duration,
    /// Time the workers report for their launches (module load, upload, run, read-back).
    pub worker: std::time::Duration,
    /// The same, by phase.
    pub phases: crate::device::Phases,
    /// Wall time of the launches run apart (expected traps, [`Limits::trap_workers`]).
    pub apart: std::time::Duration,
}

/// One round of composed launches: the units each job holds and where each instance landed.
struct Round {
    groups: Vec<Vec<usize>>,
    jobs: Vec<Job>,
    places: Vec<Vec<Placement>>,
    /// Lone launches, run with the supervisor's confirmation setting; a multi-instance launch is
    /// not confirmed (a failing one is split anyway).
    single: bool,
    /// Run apart, each launch in a worker of its own, this many at a time (0: on the
    /// supervisor's worker).
    apart: usize,
}

/// The launches of a batch, composed before the device is needed (see [`plan`]).
pub struct Plan {
    rounds: Vec<Round>,
    /// Host time composing them.
    host: std::time::Duration,
    /// How they were composed, for the launches of a split.
    how: Composing,
}

/// Compose options a batch's rounds keep ([`Limits`]' part of them).
#[derive(Clone, Copy)]
struct Composing {
    jit_level: Option<u8>,
    wait_floor_ns: u64,
    trap_workers: usize,
}

/// Compose every launch of `units`: multi-instance launches first, then lone ones (suspects
/// first, so that each trap is the first job of a fresh worker). It needs neither the device nor
/// compiled kernels, so a caller can compose a batch while the device runs the one before.
pub fn plan(units: &[Unit], limits: Limits, jit_level: Option<u8>) -> Result<Plan, String> {
    let how = Composing {
        jit_level,
        wait_floor_ns: limits.wait_floor_ns,
        trap_workers: limits.trap_workers,
    };
    compose(units, groups(units, limits), how)
}

fn compose(units: &[Unit], launches: Vec<Vec<usize>>, how: Composing) -> Result<Plan, String> {
    use rayon::prelude::*;
    let Composing {
        jit_level,
        wait_floor_ns,
        trap_workers,
    } = how;
    let t = std::time::Instant::now();
    let (multi, mut single): (Vec<_>, Vec<_>) = launches.into_iter().partition(|g| g.len() > 1);
    single.sort_by_key(|g| units[g[0]].isolation);
    // With several trap workers, the suspects wait for the end, apart from the other launches.
    let suspects: Vec<Vec<usize>> = if trap_workers > 1 {
        let (s, rest) = single
            .into_iter()
            .partition(|g| units[g[0]].isolation == Isolation::Suspect);
        single = rest;
        s
    } else {
        Vec::new()
    };
    let mut rounds = Vec::new();
    for (groups, single, apart) in [
        (multi, false, 0),
        (single, true, 0),
        (suspects, true, trap_workers),
    ] {
        if groups.is_empty() {
            continue;
        }
        let (jobs, places) = groups
            .par_iter()
            .enumerate()
            .map(|(k, g)| {
                let us: Vec<Unit> = g.iter().map(|&i| units[i]).collect();
                batch_job(k as u64, &us, jit_level, wait_floor_ns)
            })
            .collect::<Result<Vec<_>, String>>()?
            .into_iter()
            .unzip();
        rounds.push(Round {
            groups,
            jobs,
            places,
            single,
            apart,
        });
    }
    Ok(Plan {
        rounds,
        host: t.elapsed(),
        how,
    })
}

/// Run the launches `plan` composed for `units` on the device and return one result per unit,
/// in order. `kernels` maps a shape key to its offline-compiled kernel (missing: the worker's
/// JIT compiles the PTX, at the level the plan was composed with). A launch that fails as a whole is split in
/// halves and the halves run again.
pub fn execute(
    sup: &mut Supervisor,
    units: &[Unit],
    kernels: &std::collections::HashMap<u64, Kernel>,
    stats: &mut BatchStats,
    mut plan: Plan,
) -> Result<Vec<JobResult>, String> {
    use rayon::prelude::*;
    let mut results: Vec<Option<JobResult>> = vec![None; units.len()];
    let confirm = sup.confirm_failures();
    let how = plan.how;
    loop {
        stats.host += plan.host;
        let mut pending = Vec::new();
        for round in plan.rounds {
            let Round {
                groups,
                mut jobs,
                places,
                single,
                apart,
            } = round;
            for (g, job) in groups.iter().zip(&mut jobs) {
                if let Some(k) = kernels.get(&units[g[0]].em.shape_key) {
                    bind(job, k);
                }
            }
            let t = std::time::Instant::now();
            sup.set_confirm_failures(single && confirm);
            let rs = if apart > 1 {
                sup.run_apart(&jobs, apart)
            } else {
                sup.run(&jobs)
            };
            sup.set_confirm_failures(confirm);
            stats.device += t.elapsed();
            if apart > 1 {
                stats.apart += t.elapsed();
            }
            let t = std::time::Instant::now();
            let rs = rs.map_err(|e| format!("GPU worker: {e:?}"))?;
            stats.launches += jobs.len() as u64;
            // Completed launches are split into their instances' results on every core.
            let split_up: Vec<Option<Vec<JobResult>>> = groups
                .par_iter()
                .zip(places)
                .zip(&jobs)
                .zip(&rs)
                .map(|(((g, p), job), jr)| {
                    (jr.outcome == Outcome::Ok || g.len() == 1).then(|| {
                        let us: Vec<Unit> = g.iter().map(|&i| units[i]).collect();
                        split(&us, &p, job, jr)
                    })
                })
                .collect();
            for ((g, jr), each) in groups.into_iter().zip(&rs).zip(split_up) {
                stats.worker += std::time::Duration::from_micros(jr.wall_us);
                stats.phases += jr.phases;
                if let Some(each) = each {
                    for (i, r) in g.iter().zip(each) {
                        results[*i] = Some(r);
                    }
                    stats.instances += g.len() as u64;
                } else {
                    stats.splits += 1;
                    let half = g.len() / 2;
                    pending.push(g[..half].to_vec());
                    pending.push(g[half..].to_vec());
                }
            }
            stats.host += t.elapsed();
        }
        if pending.is_empty() {
            break;
        }
        plan = compose(units, pending, how)?;
    }
    results
        .into_iter()
        .map(|r| r.ok_or_else(|| "a unit got no result".to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxconform_reference::case::{load_str, Init};

    /// The GPU upload holds the bytes `Init::materialize` gives, the reference's own source of a
    /// region's contents: here procedural (`hash`) global and shared regions.
    #[test]
    fn upload_holds_the_materialized_contents() {
        let case = load_str(
            "name: h
target: sm_80
memory:
  global: [ { name: src, size: 8192, init: { hash: 5 } } ]
  shared: [ { name: buf, size: 64, init: { hash: 6 } } ]
program:
  - ptx: cp.async.ca.shared.global [buf], [src], 4
  - ptx: cp.async.wait_all
",
            "h.yaml",
        )
        .unwrap()
        .remove(0);
        let em = crate::emit::emit(&case).unwrap();
        let unit = Unit {
            case: &case,
            em: &em,
            isolation: Isolation::Shared,
        };
        let (job, places) = batch_job(1, &[unit], None, WAIT_FLOOR_NS).unwrap();
        let (start, _, _) = global_geometry(&case, 0);
        let at = (places[0].globals[0] + start) as usize;
        let want = Init::Hash(5).materialize(8192).unwrap();
        let out = job.buffers[OUT].image().unwrap();
        assert_eq!(out[at..at + 8192], want[..]);
        // The region's canaries are the buffer's fill, not bytes sent along.
        assert_eq!(job.buffers[OUT].init.len(), 8192);
        assert!(out[at - 256..at].iter().all(|&b| b == CANARY_BYTE));
        assert!(out[at + 8192..at + 8192 + 256]
            .iter()
            .all(|&b| b == CANARY_BYTE));
        let shared = Init::Hash(6).materialize(64).unwrap();
        let found = em.shared_init.windows(64).any(|w| w == shared.as_slice());
        assert!(found, "the shared image holds the hash contents");
    }

    /// Every instance's wait bound is the launch's: the floor plus the launch's bytes at the
    /// slowest rate, never the emitter's fixed default.
    #[test]
    fn waits_are_bounded_by_what_the_launch_can_take() {
        assert_eq!(wait_bound_ns(0, WAIT_FLOOR_NS), WAIT_FLOOR_NS);
        // The largest launch: its copies at 10 GB/s fit in the bound.
        let most = Limits::default().bytes;
        assert!(wait_bound_ns(most, 0) >= most / 10);
        assert!(wait_bound_ns(most, WAIT_FLOOR_NS) < crate::emit::DEFAULT_TIMEOUT_NS);
        let case = load_str(
            "name: w
target: sm_90
memory:
  global: [ { name: src, size: 4096 } ]
  shared: [ { name: buf, size: 64 } ]
  mbarriers: [ { name: bar } ]
program:
  - ptx: mbarrier.init.shared::cta.b64 [bar], 1
  - ptx: mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 16
  - ptx: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [src], 16, [bar]
  - wait_parity: { mbar: bar, parity: 0 }
",
            "w.yaml",
        )
        .unwrap()
        .remove(0);
        let em = crate::emit::emit(&case).unwrap();
        let unit = Unit {
            case: &case,
            em: &em,
            isolation: Isolation::Shared,
        };
        let (job, _) = batch_job(1, &[unit, unit], None, 1_000).unwrap();
        let bytes: u64 = job.buffers.iter().map(|b| b.size).sum();
        let want = wait_bound_ns(bytes, 1_000);
        let table = &job.buffers[IN];
        for i in 0..2 {
            let p = table.patches.iter().find(|p| p.offset == 16 * i).unwrap();
            let Address::Buffer { offset, .. } = p.address else {
                panic!("the table points into IN")
            };
            let slot = offset as usize + crate::emit::dump::pb::TIMEOUT_NS * 8;
            let got = u64::from_le_bytes(table.init[slot..slot + 8].try_into().unwrap());
            assert_eq!(got, want, "instance {i}");
        }
    }

    /// With several trap workers the expected traps leave the lone launches for a last round
    /// run apart; with one they lead the lone launches, as before.
    #[test]
    fn expected_traps_run_apart_at_the_end_with_trap_workers() {
        let file =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/cp_async/copy.yaml");
        let cases = ptxconform_reference::case::load_file(&file).unwrap();
        let ems: Vec<Emitted> = cases[..4]
            .iter()
            .map(|c| crate::emit::emit(c).unwrap())
            .collect();
        let iso = [
            Isolation::Shared,
            Isolation::Alone,
            Isolation::Suspect,
            Isolation::Suspect,
        ];
        let units: Vec<Unit> = cases
            .iter()
            .zip(&ems)
            .zip(iso)
            .map(|((case, em), isolation)| Unit {
                case,
                em,
                isolation,
            })
            .collect();
        let shape = |p: &Plan| -> Vec<(usize, usize, Vec<Isolation>)> {
            p.rounds
                .iter()
                .map(|r| {
                    let isos = r.groups.iter().map(|g| units[g[0]].isolation).collect();
                    (r.groups.len(), r.apart, isos)
                })
                .collect()
        };
        let one = plan(&units, Limits::default(), None).unwrap();
        use Isolation::*;
        assert_eq!(
            shape(&one),
            vec![(4, 0, vec![Suspect, Suspect, Alone, Shared])],
            "every launch alone (one per shape), suspects first"
        );
        let four = Limits {
            trap_workers: 4,
            ..Limits::default()
        };
        let apart = plan(&units, four, None).unwrap();
        assert_eq!(
            shape(&apart),
            vec![(2, 0, vec![Alone, Shared]), (2, 4, vec![Suspect, Suspect])]
        );
    }
}
