//! cp.async episodes (§9.7.9.25.3): a few 4/8/16-byte copies from `gsrc` into distinct 16-byte
//! slots of `sbuf`, completed by commit_group + wait_group / wait_all, or by
//! cp.async.mbarrier.arrive{.noinc} on an mbarrier.

use super::bytes::Chunk;
use super::world::{World, GSRC, SBUF};
use super::{Deviation, Intent};
use crate::case::model::{Param, StepOp};
use crate::ptx::cp_async::cache_hint::CacheHint;
use crate::ptx::cp_async::{CacheOp, CpAsync, CpAsyncOp, CpSize, Fill, PrefetchSize};
use crate::ptx::mbarrier::{ArriveMode, Dest, MbarrierOp, Order};
use crate::ptx::operand::{Address, Value};
use crate::ptx::Instruction;
use crate::sem::ub;

pub fn episode(w: &mut World, c: &mut Chunk<'_>, dev: Option<Deviation>) -> Option<Intent> {
    let all = c.below(4) == 0 && w.ctas() > 1;
    let (cta, thread) = w.one(c);
    let ctas: Vec<u32> = if all {
        (0..w.ctas()).collect()
    } else {
        vec![cta]
    };
    let who = w.who(&ctas, thread);
    let f = w.swarm.features;
    let slots = (w.size / 16) as u32;
    let k = c.range(1, 4).min(slots);
    let first_slot = c.value_below(slots);
    let mut intent = None;
    // Which copy deviates (if any), and how.
    let bad = c.below(k) as usize;
    for i in 0..k as usize {
        let size = c.pick(&CpSize::ALL);
        let cache = if size == CpSize::B16 && c.bit() {
            CacheOp::Cg
        } else {
            CacheOp::Ca
        };
        let shared = w.cp_async_spelling();
        let hint = if f.cache_hint && c.bit() {
            CacheHint {
                qualifier: true,
                policy: Some(w.policy()),
            }
        } else {
            CacheHint::default()
        };
        let prefetch = if f.prefetch_size {
            [
                None,
                Some(PrefetchSize::B64),
                Some(PrefetchSize::B128),
                Some(PrefetchSize::B256),
            ][c.below(4) as usize]
        } else {
            None
        };
        let fill_kind = if f.fill { c.below(3) } else { 0 };
        let fill = match fill_kind {
            1 => {
                let n = c.value_range(0, size.bytes() as u32) as i64;
                Fill::SrcSize(w.b32(c, n))
            }
            2 => {
                let v = c.value_bit();
                Fill::IgnoreSrc(w.ignore_pred(v))
            }
            _ => Fill::Full,
        };
        // §9.7.9.25.3.1: dst and src aligned to cp-size; slots are 16 bytes, sources size-aligned.
        let slot = (first_slot + i as u32) % slots;
        let src_off = size.bytes() * c.value_below((w.size as i64 / size.bytes()) as u32) as i64;
        let mut copy = CpAsync {
            cache,
            shared,
            hint,
            prefetch,
            dst: Address::reg_off(SBUF, slot as i64 * 16),
            src: Address::reg_off(GSRC, src_off),
            size,
            fill,
        };
        if i == bad && intent.is_none() {
            match dev {
                Some(Deviation::Illegal) => {
                    let why = match c.below(3) {
                        // §9.7.9.25.3.1 syntax: `.cg` only with cp-size 16.
                        0 if size != CpSize::B16 => {
                            copy.cache = CacheOp::Cg;
                            "`.cg` with cp-size 4/8"
                        }
                        1 => {
                            // Without a fill operand: ptxas 13.0 reads a 4th immediate under
                            // `.L2::cache_hint` as an (immediate) cache-policy, so `…, 4, 2` would
                            // be legal to it (finding; the model reads it as src-size).
                            copy.hint = CacheHint {
                                qualifier: true,
                                policy: None,
                            };
                            copy.fill = Fill::Full;
                            "`.L2::cache_hint` without cache-policy"
                        }
                        _ => {
                            copy.fill = Fill::SrcSize(Value::Imm(
                                size.bytes() + 1 + c.value_below(8) as i64,
                            ));
                            "immediate src-size above cp-size"
                        }
                    };
                    intent = Some(Intent::Illegal {
                        step: w.steps.len(),
                        why: why.into(),
                    });
                }
                Some(Deviation::Undefined) => {
                    if c.bit() {
                        // §9.7.9.25.3.1: src-size larger than cp-size is undefined.
                        let n = size.bytes() + 1 + c.value_below(16) as i64;
                        copy.fill = Fill::SrcSize(w.param("size", Param::Int(n)));
                        intent = Some(Intent::Undefined {
                            rule: ub::CP_ASYNC_SRC_SIZE.id,
                        });
                    } else {
                        // §6.4.1: a source 2 bytes off cp-size alignment, still inside the region.
                        let off = if src_off >= size.bytes() {
                            src_off - size.bytes() + 2
                        } else {
                            src_off + 2
                        };
                        copy.src = Address::reg_off(GSRC, off);
                        intent = Some(Intent::Undefined {
                            rule: ub::ADDRESS_MISALIGNED.id,
                        });
                    }
                }
                Some(Deviation::Racy) => {
                    // §9.7.9.25.3.2: two operations of one group writing the same location.
                    let again = copy.clone();
                    w.ptx(&who, Instruction::CpAsync(CpAsyncOp::Copy(again)));
                    intent = Some(Intent::Racy {
                        rule: ub::CP_ASYNC_SAME_DST_IN_GROUP.id,
                    });
                }
                _ => {}
            }
        }
        w.ptx(&who, Instruction::CpAsync(CpAsyncOp::Copy(copy)));
    }
    complete(w, c, &ctas, thread);
    intent
}

/// Completion: a group (wait_group 0 / wait_all, a second empty group and wait_group 1 then 0,
/// or wait_all on uncommitted copies), or an mbarrier that the async arrive-on completes. After
/// the waits that rest on a rule of the group queues (an empty group's position, wait_all's
/// commit) a plain store may write over the copies' first slot: well defined only if the copies
/// have completed, so a misreading of the rule calls the program racy.
fn store_over(w: &mut World, c: &mut Chunk<'_>, ctas: &[u32], thread: u32) {
    if !c.bit() {
        return;
    }
    let bytes: Vec<u8> = (0..16).map(|_| c.value_byte()).collect();
    for &k in ctas {
        let who = w.who(&[k], thread);
        w.step(
            &who,
            StepOp::Store {
                at: SBUF.into(),
                bytes: bytes.clone(),
            },
        );
    }
}

/// Completion: see [`store_over`].
fn complete(w: &mut World, c: &mut Chunk<'_>, ctas: &[u32], thread: u32) {
    let who = w.who(ctas, thread);
    let cp = |w: &mut World, op: CpAsyncOp| {
        w.ptx(&who, Instruction::CpAsync(op));
    };
    match c.below(5) {
        0 => {
            cp(w, CpAsyncOp::CommitGroup);
            cp(w, CpAsyncOp::WaitGroup(0));
        }
        1 => {
            cp(w, CpAsyncOp::CommitGroup);
            cp(w, CpAsyncOp::WaitAll);
        }
        2 => {
            // The empty group is the most recent: wait_group 1 completes the copies' group
            // (A-GRP-EMPTY-COUNTS), so the store may follow at once.
            cp(w, CpAsyncOp::CommitGroup);
            cp(w, CpAsyncOp::CommitGroup);
            cp(w, CpAsyncOp::WaitGroup(1));
            store_over(w, c, ctas, thread);
            cp(w, CpAsyncOp::WaitGroup(0));
        }
        3 => {
            // wait_all commits the copies itself (§9.7.9.25.3.3).
            cp(w, CpAsyncOp::WaitAll);
            store_over(w, c, ctas, thread);
        }
        _ => {
            // §9.7.13.15.15: with .noinc the async arrive-on is one of the init count's arrivals;
            // without it the pending count is incremented first, so the thread arrives as well.
            let b = c.below(w.bars.len() as u32) as usize;
            let noinc = c.bit();
            w.ensure_bar(b, ctas, thread, 1);
            let space = w.cp_async_spelling();
            cp(
                w,
                CpAsyncOp::MbarrierArrive {
                    noinc,
                    space: Some(space),
                    addr: World::bar_addr(b),
                },
            );
            if !noinc {
                let arrive = MbarrierOp::Arrive {
                    drop: false,
                    mode: ArriveMode::Plain { count: None },
                    order: Order::default(),
                    space: w.bar_space(),
                    dest: Dest::Sink,
                    addr: World::bar_addr(b),
                };
                w.ptx(&who, Instruction::Mbarrier(arrive));
            }
            w.wait_phase(b, ctas, thread);
        }
    }
}
