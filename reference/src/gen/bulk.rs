//! Bulk episodes (§9.7.9.25.4): cp.async.bulk in every direction the case schema can address
//! (global→own shared through an mbarrier, with or without `.multicast::cluster`; shared→global
//! through a bulk async-group, with or without `.cp_mask`), cp.reduce.async.bulk (every redOp ×
//! type the table allows, to global or to own shared), and cp.async.bulk.prefetch.
//!
//! `.shared::cluster.shared::cta` copies go to another CTA of the cluster (§9.7.9.25.4.1: "a
//! different CTA"), addressed through `Mapa` parameters for both the buffer and its mbarrier.

use super::bytes::Chunk;
use super::world::{Who, World, GDST, GSRC, RDST, RSH, RSRC, SBUF};
use super::{Deviation, Intent};
use crate::case::model::{Param, StepOp};
use crate::ptx::bulk::reduce::table_allows;
use crate::ptx::bulk::{BulkCopy, BulkOp, BulkPrefetch, BulkReduce, CopyDir, RedDst};
use crate::ptx::common::{RedOp, RedType, Scope, Sem};
use crate::ptx::cp_async::cache_hint::CacheHint;
use crate::ptx::mbarrier::{ArriveMode, Dest, MbarrierOp, Order, TxOp};
use crate::ptx::operand::{Address, Space, Value};
use crate::ptx::Instruction;
use crate::sem::ub;

/// One transfer of an episode: offsets and size (multiples of 16, inside the region).
#[derive(Clone, Copy, Debug)]
struct Xfer {
    src: i64,
    dst: i64,
    size: i64,
}

/// `k` transfers into disjoint destination segments; sources anywhere (`src_fixed`: the
/// destination's segment offset, for shared sources that the episode must not overlap).
fn xfers(w: &World, c: &mut Chunk<'_>, src_same_as_dst: bool) -> Vec<Xfer> {
    let k = c.range(1, 3) as i64;
    let seg = (w.size as i64 / 16 / k) * 16;
    (0..k)
        .map(|i| {
            let size = 16 * c.value_range(1, (seg / 16) as u32) as i64;
            let dst = i * seg;
            let src = if src_same_as_dst {
                dst
            } else {
                16 * c.value_below(((w.size as i64 - size) / 16 + 1) as u32) as i64
            };
            Xfer { src, dst, size }
        })
        .collect()
}

/// An offset 8 bytes off 16-byte alignment that keeps `[off, off+size)` inside `region`.
fn misalign(x: &mut Xfer, region: i64) {
    if x.src + x.size + 8 <= region {
        x.src += 8;
    } else if x.src >= 16 {
        x.src -= 8;
    } else {
        x.size -= 16;
        x.src += 8;
    }
}

/// A source offset that puts the last 16 to 64 bytes of `[src, src+size)` past the end of
/// `region`, within the canary after it.
fn overrun(x: &mut Xfer, region: i64, c: &mut Chunk<'_>) {
    x.src = region - x.size + 16 * c.value_range(1, 4) as i64;
}

fn hint(w: &mut World, c: &mut Chunk<'_>) -> CacheHint {
    if w.swarm.features.cache_hint && c.bit() {
        CacheHint {
            qualifier: true,
            policy: Some(w.policy()),
        }
    } else {
        CacheHint::default()
    }
}

/// Apply an illegal / undefined size or hint to one instruction's `size` / `hint`.
/// Returns the intent (the caller fills in the step index for illegal ones).
fn deviate_size(
    w: &mut World,
    c: &mut Chunk<'_>,
    dev: Deviation,
    size: &mut Value,
    hint: &mut CacheHint,
) -> Option<Intent> {
    match dev {
        Deviation::Illegal => {
            if c.bit() {
                // §9.7.9.25.4.1: an immediate size not a multiple of 16 (ptxas rejects it).
                *size =
                    Value::Imm(16 * c.value_range(1, 4) as i64 + 4 * c.value_range(1, 3) as i64);
                Some(Intent::Illegal {
                    step: 0,
                    why: "immediate size not a multiple of 16".into(),
                })
            } else {
                *hint = CacheHint {
                    qualifier: true,
                    policy: None,
                };
                Some(Intent::Illegal {
                    step: 0,
                    why: "`.L2::cache_hint` without cache-policy".into(),
                })
            }
        }
        Deviation::Undefined => {
            // §9.7.9.25.4.1: a run-time size that is not a multiple of 16.
            let n = match size {
                Value::Imm(n) => *n,
                Value::Reg(_) => 16,
            };
            *size = w.param("size", Param::Int(n - 16 + 8));
            Some(Intent::Undefined {
                rule: ub::BULK_SIZE_MULTIPLE_16.id,
            })
        }
        Deviation::Racy => None,
    }
}

fn set_step(i: Option<Intent>, step: usize) -> Option<Intent> {
    match i {
        Some(Intent::Illegal { why, .. }) => Some(Intent::Illegal { step, why }),
        other => other,
    }
}

fn mbar_order(w: &World, c: &mut Chunk<'_>, sem: Sem) -> Order {
    if w.swarm.features.order && c.bit() {
        Order {
            sem: Some(sem),
            scope: Some(if c.bit() { Scope::Cluster } else { Scope::Cta }),
        }
    } else {
        Order::default()
    }
}

fn arrive(w: &World, c: &mut Chunk<'_>, b: usize, tx: Option<Value>) -> Instruction {
    Instruction::Mbarrier(MbarrierOp::Arrive {
        drop: false,
        mode: match tx {
            Some(tx_count) => ArriveMode::ExpectTx { tx_count },
            None => ArriveMode::Plain { count: None },
        },
        order: mbar_order(w, c, Sem::Release),
        space: w.bar_space(),
        dest: Dest::Sink,
        addr: World::bar_addr(b),
    })
}

fn expect_tx(w: &World, c: &mut Chunk<'_>, b: usize, tx: Value) -> Instruction {
    Instruction::Mbarrier(MbarrierOp::Tx {
        op: TxOp::ExpectTx,
        order: mbar_order(w, c, Sem::Relaxed),
        space: w.bar_space(),
        addr: World::bar_addr(b),
        tx_count: tx,
    })
}

/// [`announce_and_arrive`], then wait for the phase.
pub(super) fn through_mbarrier(
    w: &mut World,
    c: &mut Chunk<'_>,
    b: usize,
    dests: &[u32],
    thread: u32,
    per: &[i64],
    issue: &mut dyn FnMut(&mut World, &mut Chunk<'_>, usize),
) {
    announce_and_arrive(w, c, b, dests, thread, per, issue);
    w.wait_phase(b, dests, thread);
}

/// Announce `tx` bytes on mbarrier `b` in `dests` and run `issue`, then arrive so the phase can
/// complete when the bytes land. Styles: arrive.expect_tx first; expect_tx first and a plain
/// arrive after; one expect_tx per transfer (`per`) and a plain arrive after.
fn announce_and_arrive(
    w: &mut World,
    c: &mut Chunk<'_>,
    b: usize,
    dests: &[u32],
    thread: u32,
    per: &[i64],
    issue: &mut dyn FnMut(&mut World, &mut Chunk<'_>, usize),
) {
    let total: i64 = per.iter().sum();
    w.ensure_bar(b, dests, thread, 1);
    let at = w.who(dests, thread);
    let style = c.below(3);
    match style {
        0 => {
            let tx = w.b32(c, total);
            let a = arrive(w, c, b, Some(tx));
            w.ptx(&at, a);
        }
        1 => {
            let tx = w.b32(c, total);
            let e = expect_tx(w, c, b, tx);
            w.ptx(&at, e);
        }
        _ => {}
    }
    for (i, n) in per.iter().enumerate() {
        if style == 2 {
            let tx = w.b32(c, *n);
            let e = expect_tx(w, c, b, tx);
            w.ptx(&at, e);
        }
        issue(w, c, i);
    }
    if style != 0 {
        let a = arrive(w, c, b, None);
        w.ptx(&at, a);
    }
}

/// A plain store of `len` bytes at the start of `region` (a race when an operation is in flight).
fn store(w: &mut World, who: &Who, region: &str, len: i64) {
    let bytes = (0..len.clamp(1, w.size as i64))
        .map(|i| i as u8 ^ 0x5a)
        .collect();
    w.step(
        who,
        StepOp::Store {
            at: region.into(),
            bytes,
        },
    );
}

pub fn copy_episode(w: &mut World, c: &mut Chunk<'_>, dev: Option<Deviation>) -> Option<Intent> {
    match c.below(4) {
        2 => s2g(w, c, dev),
        3 if w.cluster_size() > 1 => s2s(w, c, dev),
        _ => g2s(w, c, dev),
    }
}

/// `.shared::cluster.shared::cta`: from the issuing CTA's `sbuf` into `sbuf` of another CTA of its
/// cluster, completing on that CTA's mbarrier.
fn s2s(w: &mut World, c: &mut Chunk<'_>, dev: Option<Deviation>) -> Option<Intent> {
    let (cta, thread) = w.one(c);
    let cs = w.cluster_size();
    let rank = World::other_rank(cta, cs, c.below(cs - 1));
    let dest = w.in_cluster(cta, rank);
    let b = c.below(w.bars.len() as u32) as usize;
    let remote = w.mapa("remote", SBUF, rank);
    let rbar = w.mapa("rbar", &World::bar_name(b), rank);
    let xs = xfers(w, c, false);
    let bad = c.below(xs.len() as u32) as usize;
    let per: Vec<i64> = xs.iter().map(|x| x.size).collect();
    let issuer = w.who(&[cta], thread);
    let mut intent = None;
    let mut issue = |w: &mut World, c: &mut Chunk<'_>, i: usize| {
        let x = xs[i];
        let mut size = w.b32(c, x.size);
        let mut h = CacheHint::default();
        let mut dst = Address::reg_off(&remote, x.dst);
        let mut racy = false;
        if i == bad && intent.is_none() {
            match dev {
                Some(Deviation::Undefined) if c.bit() => {
                    // §9.7.9.25.4.1: the destination must be another CTA's shared memory.
                    dst = Address::reg_off(SBUF, x.dst);
                    intent = Some(Intent::Undefined {
                        rule: ub::BULK_CLUSTER_DST_OWN_CTA.id,
                    });
                }
                Some(Deviation::Illegal) if c.bit() => {
                    // §9.7.9.25.4.1: `.L2::cache_hint` needs a `.global` side.
                    h = CacheHint {
                        qualifier: true,
                        policy: Some(w.policy()),
                    };
                    intent = Some(Intent::Illegal {
                        step: w.steps.len(),
                        why: "`.L2::cache_hint` on shared→shared".into(),
                    });
                }
                Some(Deviation::Racy) => racy = true,
                Some(d) => {
                    intent = set_step(deviate_size(w, c, d, &mut size, &mut h), w.steps.len())
                }
                None => {}
            }
        }
        let copy = BulkCopy {
            dir: CopyDir::CtaToCluster {
                mbar: Address::reg(&rbar),
            },
            hint: h,
            dst,
            src: Address::reg_off(SBUF, x.src),
            size,
        };
        w.ptx(&issuer, Instruction::Bulk(BulkOp::Copy(copy)));
        if racy {
            store(w, &issuer, SBUF, x.src + 16);
            intent = Some(Intent::Racy {
                rule: ub::ASYNC_SRC_MODIFIED.id,
            });
        }
    };
    through_mbarrier(w, c, b, &[dest], thread, &per, &mut issue);
    intent
}

fn g2s(w: &mut World, c: &mut Chunk<'_>, dev: Option<Deviation>) -> Option<Intent> {
    let (cta, thread) = w.one(c);
    let b = c.below(w.bars.len() as u32) as usize;
    let cs = w.cluster_size();
    let form = c.below(3);
    let mask: Option<u16> = if form == 2 && w.swarm.features.multicast && cs > 1 {
        let m = c.u16() & ((1u32 << cs) - 1) as u16;
        Some(if m == 0 { 1 << (cta % cs) } else { m })
    } else {
        None
    };
    let dests = w.destinations(cta, mask.map(u32::from));
    let mut xs = xfers(w, c, false);
    let bad = c.below(xs.len() as u32) as usize;
    let mut intent = None;
    let mut racy_store = None;
    let mut stale_wait = false;
    // The bad copy's ctaMask, and its destination in another CTA, where a plant gives them.
    let mut bad_mask = None;
    let mut bad_dst = None;
    if dev == Some(Deviation::Undefined) && c.bit() {
        let rule = match (c.below(4), mask, form) {
            (0, ..) => {
                // §9.7.9.25.4.1: source and destination must be 16-byte aligned.
                misalign(&mut xs[bad], w.size as i64);
                ub::ADDRESS_MISALIGNED.id
            }
            (1, ..) => {
                // A wait on the preceding parity while the copies still owe the phase: landed
                // first, they complete it and the parity names the next (A-WAIT-PARITY-RACE).
                stale_wait = true;
                ub::MBAR_PARITY_WAIT_RACE.id
            }
            (3, Some(m), _) => {
                // §9.7.9.25.4.1: a ctaMask bit for a rank past the cluster.
                let past = cs + c.value_below(16 - cs);
                bad_mask = Some(m | 1 << past);
                ub::BULK_MULTICAST_OUTSIDE_CLUSTER.id
            }
            (3, None, 1) if cs > 1 => {
                // §9.7.9.25.4.1: a `.shared::cta` destination in another CTA of the cluster.
                let rank = World::other_rank(cta, cs, c.below(cs - 1));
                bad_dst = Some(w.mapa("remote", SBUF, rank));
                ub::BULK_DST_NOT_OWN_CTA.id
            }
            _ => {
                // §9.7.9.25.4.1: the source range runs past its region (into the canary after
                // it, A-EXEC-REGION).
                overrun(&mut xs[bad], w.size as i64, c);
                ub::BULK_RANGE_OVERFLOW.id
            }
        };
        intent = Some(Intent::Undefined { rule });
    }
    let per: Vec<i64> = xs.iter().map(|x| x.size).collect();
    let issuer = w.who(&[cta], thread);
    let mut issue = |w: &mut World, c: &mut Chunk<'_>, i: usize| {
        let mut x = xs[i];
        let mut size = w.b32(c, x.size);
        let mut h = hint(w, c);
        let mbar = World::bar_addr(b);
        let mut dir = match (mask, form) {
            (Some(m), _) => CopyDir::GlobalToCluster {
                cta_mask: Some(w.b16(c, if i == bad { bad_mask.unwrap_or(m) } else { m })),
                mbar,
            },
            (None, 1) => CopyDir::GlobalToCta {
                ignore_oob: None,
                mbar,
            },
            _ => CopyDir::GlobalToCluster {
                cta_mask: None,
                mbar,
            },
        };
        if i == bad && intent.is_none() {
            match dev {
                Some(Deviation::Racy) => {
                    // A store of the source's first 16 bytes: its length is in the kernel text,
                    // so it does not follow the (value) offset; the copy reads from offset 0.
                    x.src = 0;
                    racy_store = Some(16)
                }
                Some(Deviation::Illegal) if c.bit() => {
                    // `.ignore_oob` is PTX ISA 9.2: beyond what the pinned ptxas (9.0) accepts.
                    dir = CopyDir::GlobalToCta {
                        ignore_oob: Some((Value::Imm(0), Value::Imm(0))),
                        mbar: World::bar_addr(b),
                    };
                    intent = Some(Intent::Illegal {
                        step: 0,
                        why: "`.ignore_oob` needs PTX ISA 9.2".into(),
                    });
                }
                Some(d) => intent = deviate_size(w, c, d, &mut size, &mut h),
                None => {}
            }
            intent = set_step(intent.take(), w.steps.len());
        }
        let dst = match (&bad_dst, i == bad) {
            (Some(remote), true) => Address::reg_off(remote, x.dst),
            _ => Address::reg_off(SBUF, x.dst),
        };
        let copy = BulkCopy {
            dir,
            hint: h,
            dst,
            src: Address::reg_off(GSRC, x.src),
            size,
        };
        w.ptx(&issuer, Instruction::Bulk(BulkOp::Copy(copy)));
        if let Some(len) = racy_store.take() {
            // §9.7.9.25.1: the source must not change before the copy completes.
            store(w, &issuer, GSRC, len);
            intent = Some(Intent::Racy {
                rule: ub::ASYNC_SRC_MODIFIED.id,
            });
        }
    };
    announce_and_arrive(w, c, b, &dests, thread, &per, &mut issue);
    if stale_wait {
        w.wait_preceding(b, &dests, thread);
    }
    w.wait_phase(b, &dests, thread);
    intent
}

fn s2g(w: &mut World, c: &mut Chunk<'_>, dev: Option<Deviation>) -> Option<Intent> {
    let (cta, thread) = w.one(c);
    let who = w.who(&[cta], thread);
    let mut xs = xfers(w, c, true);
    let bad = c.below(xs.len() as u32) as usize;
    let per_copy_commit = c.bit();
    let mut intent = None;
    if dev == Some(Deviation::Undefined) && c.bit() {
        misalign(&mut xs[bad], w.size as i64);
        intent = Some(Intent::Undefined {
            rule: ub::ADDRESS_MISALIGNED.id,
        });
    }
    let mut groups = 0;
    for (i, x) in xs.iter().enumerate() {
        let mut size = w.b32(c, x.size);
        let mut h = hint(w, c);
        let byte_mask = if w.swarm.features.cp_mask && c.bit() {
            let m = c.value_u16();
            Some(w.b16(c, m))
        } else {
            None
        };
        let mut dir = CopyDir::CtaToGlobal { byte_mask };
        let mut racy = false;
        if i == bad && intent.is_none() {
            match dev {
                Some(Deviation::Racy) => racy = true,
                Some(Deviation::Illegal) if w.target.sm < 100 && c.bit() => {
                    dir = CopyDir::CtaToGlobal {
                        byte_mask: Some(Value::Imm(0xffff)),
                    };
                    intent = Some(Intent::Illegal {
                        step: w.steps.len(),
                        why: "`.cp_mask` needs sm_100".into(),
                    });
                }
                Some(d) => {
                    intent = set_step(deviate_size(w, c, d, &mut size, &mut h), w.steps.len())
                }
                None => {}
            }
        }
        let copy = BulkCopy {
            dir,
            hint: h,
            dst: Address::reg_off(GDST, x.dst),
            src: Address::reg_off(SBUF, x.src),
            size,
        };
        w.ptx(&who, Instruction::Bulk(BulkOp::Copy(copy)));
        if racy {
            store(w, &who, SBUF, x.src + 16);
            intent = Some(Intent::Racy {
                rule: ub::ASYNC_SRC_MODIFIED.id,
            });
        }
        if per_copy_commit {
            w.ptx(&who, Instruction::Bulk(BulkOp::CommitGroup));
            groups += 1;
        }
    }
    if !per_copy_commit {
        w.ptx(&who, Instruction::Bulk(BulkOp::CommitGroup));
        groups = 1;
    }
    // §9.7.9.25.6.2: `.read` waits for the source reads only; a full wait_group 0 always follows
    // so that no write is in flight when the episode ends.
    if c.bit() {
        let n = c.below(groups) as i64;
        w.ptx(&who, Instruction::Bulk(BulkOp::WaitGroup { read: true, n }));
    }
    w.ptx(
        &who,
        Instruction::Bulk(BulkOp::WaitGroup { read: false, n: 0 }),
    );
    intent
}

/// The redOps the table allows for `ty` into `dst`.
fn ops_for(dst: Space, ty: RedType) -> Vec<RedOp> {
    RedOp::ALL
        .iter()
        .copied()
        .filter(|op| table_allows(dst, *op, ty))
        .collect()
}

pub fn reduce_episode(w: &mut World, c: &mut Chunk<'_>, dev: Option<Deviation>) -> Option<Intent> {
    if !w.has_region(RSRC) {
        return None;
    }
    let (cta, thread) = w.one(c);
    let who = w.who(&[cta], thread);
    let ty = w.red_ty;
    let cluster_ops = ops_for(Space::SharedCluster, ty);
    // A-EXEC-REDUCE-REMOTE: a reduction into the executing CTA's own `.shared::cluster` memory is
    // undefined (H100 traps), so only an Undefined deviation generates one.
    let to_cluster =
        matches!(dev, Some(Deviation::Undefined)) && c.bit() && !cluster_ops.is_empty();
    let dst_space = if to_cluster {
        Space::SharedCluster
    } else {
        Space::Global
    };
    let ops = if to_cluster {
        cluster_ops
    } else {
        ops_for(Space::Global, ty)
    };
    let xs = xfers(w, c, true);
    let bad = c.below(xs.len() as u32) as usize;
    let b = c.below(w.bars.len() as u32) as usize;
    let mut intent = None;
    let mut issue = |w: &mut World, c: &mut Chunk<'_>, i: usize| {
        let x = xs[i];
        let mut op = c.pick(&ops);
        let mut size = w.b32(c, x.size);
        let mut h = if to_cluster {
            CacheHint::default()
        } else {
            hint(w, c)
        };
        let mut noftz = op == RedOp::Add && matches!(ty, RedType::F16 | RedType::Bf16);
        if to_cluster && intent.is_none() {
            intent = Some(Intent::Undefined {
                rule: ub::BULK_CLUSTER_DST_OWN_CTA.id,
            });
        }
        if i == bad && intent.is_none() {
            match dev {
                Some(Deviation::Illegal) if c.bit() => {
                    let bad_ops: Vec<RedOp> = RedOp::ALL
                        .iter()
                        .copied()
                        .filter(|o| !table_allows(dst_space, *o, ty))
                        .collect();
                    if bad_ops.is_empty() {
                        noftz = !noftz;
                        intent = Some(Intent::Illegal {
                            step: w.steps.len(),
                            why: "`.noftz` misuse".into(),
                        });
                    } else {
                        op = c.pick(&bad_ops);
                        noftz = false;
                        intent = Some(Intent::Illegal {
                            step: w.steps.len(),
                            why: "redOp/type not in the table".into(),
                        });
                    }
                }
                Some(d) => {
                    intent = set_step(deviate_size(w, c, d, &mut size, &mut h), w.steps.len())
                }
                None => {}
            }
        }
        let (dst_kind, dst) = if to_cluster {
            (
                RedDst::Cluster {
                    mbar: World::bar_addr(b),
                },
                Address::reg_off(RSH, x.dst),
            )
        } else {
            (RedDst::Global, Address::reg_off(RDST, x.dst))
        };
        let r = BulkReduce {
            dst_kind,
            op,
            ty,
            noftz,
            hint: h,
            dst,
            src: Address::reg_off(RSRC, x.src),
            size,
        };
        w.ptx(&who, Instruction::Bulk(BulkOp::Reduce(r)));
    };
    if to_cluster {
        let per: Vec<i64> = xs.iter().map(|x| x.size).collect();
        through_mbarrier(w, c, b, &[cta], thread, &per, &mut issue);
    } else {
        for i in 0..xs.len() {
            issue(w, c, i);
        }
        w.ptx(&who, Instruction::Bulk(BulkOp::CommitGroup));
        w.ptx(
            &who,
            Instruction::Bulk(BulkOp::WaitGroup { read: false, n: 0 }),
        );
    }
    intent
}

pub fn prefetch_episode(
    w: &mut World,
    c: &mut Chunk<'_>,
    dev: Option<Deviation>,
) -> Option<Intent> {
    let (cta, thread) = w.one(c);
    let who = w.who(&[cta], thread);
    let x = xfers(w, c, false)[0];
    let mut size = w.b32(c, x.size);
    let mut h = hint(w, c);
    let mut intent = None;
    if dev == Some(Deviation::Illegal) {
        intent = set_step(
            deviate_size(w, c, Deviation::Illegal, &mut size, &mut h),
            w.steps.len(),
        );
    }
    let p = BulkPrefetch {
        hint: h,
        src: Address::reg_off(GSRC, x.src),
        size,
    };
    w.ptx(&who, Instruction::Bulk(BulkOp::Prefetch(p)));
    intent
}
