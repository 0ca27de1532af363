//! mbarrier episodes (§9.7.13.15): one phase of an mbarrier completed by arrivals that add up to
//! its expected count (plain, with a count, arrive_drop, .noComplete followed by a completing
//! arrive), or by expect_tx / complete_tx with balanced byte counts, then waited on; or, asked
//! for undefined behaviour, one operation that breaks one of eleven mbarrier rules.

use super::bytes::Chunk;
use super::world::{Bar, Who, World, GSRC};
use super::{Deviation, Intent};
use crate::case::model::Param;
use crate::ptx::common::{Scope, Sem};
use crate::ptx::cp_async::{CacheOp, CpAsync, CpAsyncOp, CpSize, Fill};
use crate::ptx::mbarrier::{
    ArriveMode, Dest, MbarSpace, MbarrierOp, Order, TxOp, WaitKind, WaitOn,
};
use crate::ptx::operand::{Address, Value};
use crate::ptx::Instruction;
use crate::sem::mbarrier::MAX_COUNT;
use crate::sem::ub;

fn order(w: &World, c: &mut Chunk<'_>, sem: Sem) -> Order {
    if w.swarm.features.order && c.bit() {
        Order {
            sem: Some(sem),
            scope: Some(if c.bit() { Scope::Cluster } else { Scope::Cta }),
        }
    } else {
        Order::default()
    }
}

fn arrive(w: &World, c: &mut Chunk<'_>, b: usize, drop: bool, mode: ArriveMode) -> MbarrierOp {
    let no_complete = matches!(mode, ArriveMode::NoComplete { .. });
    MbarrierOp::Arrive {
        drop,
        order: if no_complete {
            Order::default()
        } else {
            order(w, c, Sem::Release)
        },
        space: w.bar_space(),
        // The state register or the sink; .noComplete keeps its state (for pending_count).
        dest: if no_complete || c.bit() {
            Dest::State(Value::reg("state"))
        } else {
            Dest::Sink
        },
        addr: World::bar_addr(b),
        mode,
    }
}

/// One plain arrive-on (count 1) on `b`, by `who`.
fn plain_arrive(w: &mut World, c: &mut Chunk<'_>, who: &Who, b: usize) {
    let a = arrive(w, c, b, false, ArriveMode::Plain { count: None });
    w.ptx(who, Instruction::Mbarrier(a));
}

/// An expect-tx or complete-tx of `tx_count` on `b`, by `who`.
fn tx_step(w: &mut World, c: &mut Chunk<'_>, who: &Who, b: usize, op: TxOp, tx_count: &Value) {
    let o = order(w, c, Sem::Relaxed);
    let space = w.bar_space();
    w.ptx(
        who,
        Instruction::Mbarrier(MbarrierOp::Tx {
            op,
            order: o,
            space,
            addr: World::bar_addr(b),
            tx_count: tx_count.clone(),
        }),
    );
}

/// Now and then (a shape choice), a wait on the parity of the phase before the current one,
/// which has completed: on a fresh object that is phase −1, complete as the model reads it
/// (A-MB-PARITY-PREINIT, seen on H100 and H200).
fn preceding_wait(w: &mut World, c: &mut Chunk<'_>, b: usize, ctas: &[u32], thread: u32) {
    if c.chance(96) {
        w.wait_preceding(b, ctas, thread);
    }
}

/// An undefined mbarrier operation on `b` in `ctas`, one rule of §9.7.13.15 drawn among those
/// the target has. What follows it in the program is drawn as usual: where silicon's object
/// after the UB is not the one the text would leave, the bookkeeping assumes the text's or
/// forgets the object (a later episode initializes it again), so that the campaign sees what
/// silicon does with the program around the UB.
fn undefined(w: &mut World, c: &mut Chunk<'_>, b: usize, ctas: &[u32], thread: u32) -> Intent {
    let who = w.who(ctas, thread);
    let sm90 = w.target.sm >= 90;
    let mbar = |op: MbarrierOp| Instruction::Mbarrier(op);
    let space = w.bar_space();
    // A count outside [1, 2^20-1]: 0, or 2^20 and a little past it. Counts are operands the
    // kernel reads from its parameter block, so value sets move between the two sides.
    let bad_count = |w: &mut World, c: &mut Chunk<'_>| {
        let v = if c.value_bit() {
            0
        } else {
            MAX_COUNT as i64 + 1 + c.value_below(4) as i64
        };
        w.param("size", Param::Int(v))
    };
    let rule = match c.below(11) {
        // §9.7.13.15.2: more arrivals than pending (a count operand: sm_90).
        0 if sm90 => {
            w.ensure_bar(b, ctas, thread, 1);
            let a = arrive(
                w,
                c,
                b,
                false,
                ArriveMode::Plain {
                    count: Some(Value::Imm(2)),
                },
            );
            w.ptx(&who, mbar(a));
            &ub::MBAR_PENDING_RANGE
        }
        // §9.7.13.15.13: an arrive count operand outside its range (sm_90).
        1 if sm90 => {
            w.ensure_bar(b, ctas, thread, 1);
            let count = bad_count(w, c);
            let a = arrive(w, c, b, false, ArriveMode::Plain { count: Some(count) });
            w.ptx(&who, mbar(a));
            &ub::MBAR_ARRIVE_COUNT_RANGE
        }
        // §9.7.13.15.9: an init count outside its range, on an invalidated location; the
        // object silicon leaves is forgotten.
        2 => {
            invalidate(w, b, ctas, thread);
            let count = bad_count(w, c);
            w.ptx(
                &who,
                mbar(MbarrierOp::Init {
                    space,
                    addr: World::bar_addr(b),
                    count,
                }),
            );
            &ub::MBAR_INIT_COUNT_RANGE
        }
        // §9.7.13.15.9: init on a valid object, with arrivals of its phase already in when its
        // count allows; the bookkeeping takes the new object's phase 0.
        3 => {
            let count = c.range(1, 3);
            w.ensure_bar(b, ctas, thread, count);
            if count > 1 && c.bit() {
                plain_arrive(w, c, &who, b);
            }
            let again = c.range(1, 3);
            w.ptx(
                &who,
                mbar(MbarrierOp::Init {
                    space,
                    addr: World::bar_addr(b),
                    count: Value::Imm(again as i64),
                }),
            );
            for &k in ctas {
                w.bars[b][k as usize] = Some(Bar {
                    count: again,
                    phases: 0,
                });
            }
            &ub::MBAR_INIT_ON_VALID
        }
        // §9.7.13.15.2: arrive_drop of the only expected arrival. Silicon completes the phase
        // and expects nothing after it (A-MB-ARRIVE-COUNTS-HW): half the time the bookkeeping
        // says so (a count no episode asks for, so the next one on `b` initializes it again),
        // half the time it keeps the text's object and later arrive-ons pass the pending count.
        4 => {
            w.ensure_bar(b, ctas, thread, 1);
            let a = arrive(w, c, b, true, ArriveMode::Plain { count: None });
            w.ptx(&who, mbar(a));
            if c.bit() {
                for &k in ctas {
                    if let Some(bar) = w.bars[b][k as usize].as_mut() {
                        bar.count = 0;
                        bar.phases += 1;
                    }
                }
            }
            &ub::MBAR_EXPECTED_RANGE
        }
        // §9.7.13.15.16: a phaseParity operand other than 0 or 1.
        5 => {
            w.ensure_bar(b, ctas, thread, 1);
            let v = 2 + c.value_below(2) as i64;
            let parity = w.param("size", Param::Int(v));
            let kind = if sm90 && c.bit() {
                WaitKind::Try { time_hint: None }
            } else {
                WaitKind::Test
            };
            let o = order(w, c, Sem::Acquire);
            w.ptx(
                &who,
                mbar(MbarrierOp::Wait {
                    kind,
                    order: o,
                    space,
                    wait_complete: Value::reg("done"),
                    addr: World::bar_addr(b),
                    on: WaitOn::Parity(parity),
                }),
            );
            &ub::MBAR_PARITY_VALUE
        }
        // §9.7.13.15.2: a tx-count taken just past its range and brought back.
        7 if sm90 => tx_past_range(w, c, b, ctas, thread),
        // §9.7.13.15.13: a .noComplete arrive of every pending arrival.
        8 if sm90 => {
            let count = c.range(1, 3);
            w.ensure_bar(b, ctas, thread, count);
            let before = c.below(count);
            for _ in 0..before {
                plain_arrive(w, c, &who, b);
            }
            let left = w.b32(c, (count - before) as i64);
            let a = arrive(w, c, b, false, ArriveMode::NoComplete { count: left });
            w.ptx(&who, mbar(a));
            w.wait_phase(b, ctas, thread);
            &ub::MBAR_NOCOMPLETE_COMPLETES
        }
        // §9.7.13.15.4: the arrivals of two phases in a row, the first unobserved by any wait.
        9 => {
            let count = c.range(1, 2);
            w.ensure_bar(b, ctas, thread, count);
            for _ in 0..2 * count {
                plain_arrive(w, c, &who, b);
            }
            for &k in ctas {
                if let Some(bar) = w.bars[b][k as usize].as_mut() {
                    bar.phases += 1;
                }
            }
            w.wait_phase(b, ctas, thread);
            &ub::MBAR_ARRIVE_BEFORE_WAIT
        }
        // §9.7.13.15: a cp.async writes over a valid object, which is then arrived on and waited
        // on as if intact.
        10 => overwrite(w, c, b, ctas, thread),
        // §9.7.13.15: an arrive on a location that holds no valid mbarrier object.
        _ => {
            invalidate(w, b, ctas, thread);
            plain_arrive(w, c, &who, b);
            &ub::MBAR_NOT_INITIALIZED
        }
    };
    Intent::Undefined { rule: rule.id }
}

/// Two expect-tx (or two complete-tx) whose sum leaves the tx-count's range by 1 to 3 (values
/// of the parameter block, so value sets reach 2^20, where silicon runs on, and past it), then
/// the opposite two and the arrival, which balance the phase as the text would, and the wait.
fn tx_past_range(
    w: &mut World,
    c: &mut Chunk<'_>,
    b: usize,
    ctas: &[u32],
    thread: u32,
) -> &'static ub::UbRule {
    let who = w.who(ctas, thread);
    w.ensure_bar(b, ctas, thread, 1);
    let total = MAX_COUNT + 1 + c.value_below(3);
    let first = c.value_range(1 << 19, MAX_COUNT);
    let parts = [first, total - first].map(|n| w.param("size", Param::Int(n as i64)));
    let (out, back) = if c.bit() {
        (TxOp::ExpectTx, TxOp::CompleteTx)
    } else {
        (TxOp::CompleteTx, TxOp::ExpectTx)
    };
    for op in [out, back] {
        for tx_count in &parts {
            tx_step(w, c, &who, b, op, tx_count);
        }
    }
    plain_arrive(w, c, &who, b);
    w.wait_phase(b, ctas, thread);
    &ub::MBAR_TX_RANGE
}

/// A 4- or 8-byte cp.async from `gsrc` (value bytes) onto the object `b`, its wait, then an
/// arrival and a wait on the phase as if the object were intact. The bookkeeping keeps a count
/// no episode asks for, so that the next episode on `b` invalidates and initializes it again.
fn overwrite(
    w: &mut World,
    c: &mut Chunk<'_>,
    b: usize,
    ctas: &[u32],
    thread: u32,
) -> &'static ub::UbRule {
    let who = w.who(ctas, thread);
    w.ensure_bar(b, ctas, thread, 1);
    let size = if c.bit() { CpSize::B8 } else { CpSize::B4 };
    let src_off = size.bytes() * c.value_below((w.size as i64 / size.bytes()) as u32) as i64;
    let copy = CpAsync {
        cache: CacheOp::Ca,
        shared: w.cp_async_spelling(),
        hint: Default::default(),
        prefetch: None,
        dst: World::bar_addr(b),
        src: Address::reg_off(GSRC, src_off),
        size,
        fill: Fill::Full,
    };
    w.ptx(&who, Instruction::CpAsync(CpAsyncOp::Copy(copy)));
    w.ptx(&who, Instruction::CpAsync(CpAsyncOp::WaitAll));
    plain_arrive(w, c, &who, b);
    w.wait_phase(b, ctas, thread);
    for &k in ctas {
        if let Some(bar) = w.bars[b][k as usize].as_mut() {
            bar.count = 0;
        }
    }
    &ub::MBAR_NON_MBARRIER_ACCESS
}

/// mbarrier.inval of `b` wherever it is valid in `ctas`, and the bookkeeping forgets it.
fn invalidate(w: &mut World, b: usize, ctas: &[u32], thread: u32) {
    let valid: Vec<u32> = ctas
        .iter()
        .copied()
        .filter(|&k| w.bars[b][k as usize].is_some())
        .collect();
    if valid.is_empty() {
        return;
    }
    let at = w.who(&valid, thread);
    let space = w.bar_space();
    w.ptx(
        &at,
        Instruction::Mbarrier(MbarrierOp::Inval {
            space,
            addr: World::bar_addr(b),
        }),
    );
    for k in valid {
        w.bars[b][k as usize] = None;
    }
}

pub fn episode(w: &mut World, c: &mut Chunk<'_>, dev: Option<Deviation>) -> Option<Intent> {
    let all = c.below(4) == 0 && w.ctas() > 1;
    let (cta, thread) = w.one(c);
    let ctas: Vec<u32> = if all {
        (0..w.ctas()).collect()
    } else {
        vec![cta]
    };
    let who = w.who(&ctas, thread);
    let b = c.below(w.bars.len() as u32) as usize;
    let sm90 = w.target.sm >= 90;
    let mbar = |op: MbarrierOp| Instruction::Mbarrier(op);
    match dev {
        Some(Deviation::Illegal) => {
            // §9.7.13.15.8: init is not supported on `.shared::cluster`.
            let step = w.ptx(
                &who,
                mbar(MbarrierOp::Init {
                    space: Some(MbarSpace::SharedCluster),
                    addr: World::bar_addr(b),
                    count: Value::Imm(1),
                }),
            );
            return Some(Intent::Illegal {
                step,
                why: "mbarrier.init on .shared::cluster".into(),
            });
        }
        Some(Deviation::Undefined) => return Some(undefined(w, c, b, &ctas, thread)),
        _ => {}
    }
    let mode = if sm90 { c.below(3) } else { 0 };
    match mode {
        1 => {
            // expect_tx, complete_tx of the same byte count (anywhere in the tx-count range:
            // standalone counts of 2^16 bytes and more are reached) and the one arrival, in one
            // of four orders: complete_tx first takes the tx-count below zero (well defined,
            // §9.7.13.15.5), and the phase completes at whichever step brings both the pending
            // count and the tx-count to zero, the arrival, a complete_tx or an expect_tx.
            w.ensure_bar(b, &ctas, thread, 1);
            preceding_wait(w, c, b, &ctas, thread);
            let tx = c.value_range(1, MAX_COUNT) as i64;
            let txv = w.b32(c, tx);
            let tx_op =
                |w: &mut World, c: &mut Chunk<'_>, op: TxOp| tx_step(w, c, &who, b, op, &txv);
            let arrival = |w: &mut World, c: &mut Chunk<'_>| {
                plain_arrive(w, c, &who, b);
            };
            match c.below(4) {
                0 => {
                    tx_op(w, c, TxOp::ExpectTx);
                    tx_op(w, c, TxOp::CompleteTx);
                    arrival(w, c);
                }
                1 => {
                    tx_op(w, c, TxOp::CompleteTx);
                    tx_op(w, c, TxOp::ExpectTx);
                    arrival(w, c);
                }
                2 => {
                    tx_op(w, c, TxOp::CompleteTx);
                    arrival(w, c);
                    tx_op(w, c, TxOp::ExpectTx);
                }
                _ => {
                    tx_op(w, c, TxOp::ExpectTx);
                    arrival(w, c);
                    tx_op(w, c, TxOp::CompleteTx);
                }
            }
        }
        _ => {
            // Arrivals from random threads adding up to the expected count.
            let count = c.range(1, 4);
            w.ensure_bar(b, &ctas, thread, count);
            preceding_wait(w, c, b, &ctas, thread);
            let mut left = count;
            let mut dropped = 0;
            while left > 0 {
                let t = c.below(w.launch.threads);
                let at = w.who(&ctas, t);
                let kind = c.below(4);
                let a = match kind {
                    // A count operand without .noComplete: sm_90, PTX 7.8.
                    1 if sm90 && left > 1 => {
                        let k = c.range(1, left);
                        left -= k;
                        let v = w.b32(c, k as i64);
                        arrive(w, c, b, false, ArriveMode::Plain { count: Some(v) })
                    }
                    // arrive_drop: this phase's arrival, and one fewer expected from the next phase
                    // on (kept at least 1, §9.7.13.15.2).
                    2 if count - dropped > 1 => {
                        left -= 1;
                        dropped += 1;
                        arrive(w, c, b, true, ArriveMode::Plain { count: None })
                    }
                    // .noComplete with fewer than the pending arrivals (it must not complete the phase).
                    3 if left > 1 => {
                        let k = c.range(1, left - 1);
                        left -= k;
                        let v = w.b32(c, k as i64);
                        arrive(w, c, b, false, ArriveMode::NoComplete { count: v })
                    }
                    _ => {
                        left -= 1;
                        arrive(w, c, b, false, ArriveMode::Plain { count: None })
                    }
                };
                w.ptx(&at, mbar(a));
            }
            for &k in &ctas {
                if let Some(bar) = w.bars[b][k as usize].as_mut() {
                    bar.count -= dropped;
                }
            }
        }
    }
    w.wait_phase(b, &ctas, thread);
    if c.bit() {
        // A probe of the phase just completed: it has completed, so the wait returns True.
        let parity = w.bars[b][ctas[0] as usize]
            .map(|x| (x.phases + 1) % 2)
            .unwrap_or(0);
        let kind = if sm90 && c.bit() {
            WaitKind::Try { time_hint: None }
        } else {
            WaitKind::Test
        };
        let o = order(w, c, Sem::Acquire);
        let p = MbarrierOp::Wait {
            kind,
            order: o,
            space: w.bar_space(),
            wait_complete: Value::reg("done"),
            addr: World::bar_addr(b),
            on: WaitOn::Parity(Value::Imm(parity as i64)),
        };
        w.ptx(&who, mbar(p));
    }
    None
}
