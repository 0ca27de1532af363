//! Parsing an mbarrier instruction: the operation after `mbarrier.`, its qualifiers taken by set,
//! and the operand list each operation takes.

use super::{ArriveMode, Dest, Kind, MbarSpace, MbarrierOp, Order, TxOp, WaitKind, WaitOn};
use crate::ptx::lex::SyntaxError;
use crate::ptx::opcode::Opcode;
use crate::ptx::operand::{Args, Value};

/// The operation segment after `mbarrier.`.
const OPS: [(&str, Kind); 9] = [
    ("init", Kind::Init),
    ("inval", Kind::Inval),
    ("expect_tx", Kind::Tx),
    ("complete_tx", Kind::Tx),
    ("arrive", Kind::Arrive),
    ("arrive_drop", Kind::Arrive),
    ("test_wait", Kind::Wait),
    ("try_wait", Kind::Wait),
    ("pending_count", Kind::PendingCount),
];

/// A register-only operand, as a `Value`; the sink `_` is only arrive's destination.
fn reg(args: &Args, i: usize, what: &str) -> Result<Value, SyntaxError> {
    match args.reg(i, what)? {
        r if r == "_" => Err(SyntaxError::new(
            args.offset_of(i),
            format!("{what} (a register)"),
            "the sink `_`",
        )),
        r => Ok(Value::Reg(r)),
    }
}

/// A register-or-immediate operand; not the sink `_`.
fn value(args: &Args, i: usize, what: &str) -> Result<Value, SyntaxError> {
    match args.value(i, what)? {
        Value::Reg(r) if r == "_" => Err(SyntaxError::new(
            args.offset_of(i),
            format!("{what} (register or immediate)"),
            "the sink `_`",
        )),
        v => Ok(v),
    }
}

/// arrive / arrive_drop's destination: a state register or the sink `_`.
fn dest(args: &Args) -> Result<Dest, SyntaxError> {
    match args.reg(0, "state or sink `_`")? {
        r if r == "_" => Ok(Dest::Sink),
        r => Ok(Dest::State(Value::Reg(r))),
    }
}

pub(super) fn parse_mbarrier(op: &Opcode, args: &Args) -> Result<MbarrierOp, SyntaxError> {
    let Some(sub) = op.toks.get(1) else {
        return Err(SyntaxError::new(
            op.at,
            "an mbarrier operation after `mbarrier.`",
            "none",
        ));
    };
    let Some(&(name, kind)) = OPS.iter().find(|(n, _)| *n == sub.text) else {
        return Err(SyntaxError::new(
            sub.at,
            "an mbarrier operation (init, inval, expect_tx, complete_tx, arrive, arrive_drop, test_wait, try_wait, pending_count)",
            format!("`.{}`", sub.text),
        ));
    };
    let full = format!("mbarrier.{name}");
    let mut q = op.quals(&full);
    // Sub-operation qualifiers first: they decide the operand list.
    let expect_tx = kind == Kind::Arrive && q.flag("expect_tx")?;
    let no_complete = kind == Kind::Arrive && q.flag("noComplete")?;
    if expect_tx && no_complete {
        return Err(SyntaxError::new(
            op.at,
            "at most one of `.expect_tx`, `.noComplete`",
            "both",
        ));
    }
    let parity = kind == Kind::Wait && q.flag("parity")?;
    // init, inval and pending_count take no `.sem.scope`: leave those to `finish` to reject.
    let order = if kind.sems().is_empty() {
        Order::default()
    } else {
        Order::parse(&mut q, kind.sems())?
    };
    let space = if kind == Kind::PendingCount {
        None
    } else {
        q.take(&MbarSpace::CHOICES, "state space")?
    };
    let b64 = q.flag("b64")?;
    q.finish(&full)?;
    let out = match kind {
        Kind::Init => {
            args.count(2, 2, "[addr], count")?;
            MbarrierOp::Init {
                space,
                addr: args.addr(0, "addr")?,
                count: value(args, 1, "count")?,
            }
        }
        Kind::Inval => {
            args.count(1, 1, "[addr]")?;
            MbarrierOp::Inval {
                space,
                addr: args.addr(0, "addr")?,
            }
        }
        Kind::Tx => {
            args.count(2, 2, "[addr], txCount")?;
            let op = if name == "expect_tx" {
                TxOp::ExpectTx
            } else {
                TxOp::CompleteTx
            };
            MbarrierOp::Tx {
                op,
                order,
                space,
                addr: args.addr(0, "addr")?,
                tx_count: value(args, 1, "txCount")?,
            }
        }
        Kind::Arrive => {
            let mode = if expect_tx {
                args.count(3, 3, "state, [addr], txCount")?;
                ArriveMode::ExpectTx {
                    tx_count: value(args, 2, "txCount")?,
                }
            } else if no_complete {
                args.count(3, 3, "state, [addr], count")?;
                ArriveMode::NoComplete {
                    count: value(args, 2, "count")?,
                }
            } else {
                args.count(2, 3, "state, [addr]{, count}")?;
                ArriveMode::Plain {
                    count: if args.len() == 3 {
                        Some(value(args, 2, "count")?)
                    } else {
                        None
                    },
                }
            };
            MbarrierOp::Arrive {
                drop: name == "arrive_drop",
                mode,
                order,
                space,
                dest: dest(args)?,
                addr: args.addr(1, "addr")?,
            }
        }
        Kind::Wait => {
            let try_wait = name == "try_wait";
            let token = if parity { "phaseParity" } else { "state" };
            if try_wait {
                args.count(
                    3,
                    4,
                    &format!("waitComplete, [addr], {token}{{, suspendTimeHint}}"),
                )?;
            } else {
                args.count(3, 3, &format!("waitComplete, [addr], {token}"))?;
            }
            let on = if parity {
                WaitOn::Parity(value(args, 2, token)?)
            } else {
                WaitOn::State(reg(args, 2, token)?)
            };
            let kind = if try_wait {
                WaitKind::Try {
                    time_hint: if args.len() == 4 {
                        Some(value(args, 3, "suspendTimeHint")?)
                    } else {
                        None
                    },
                }
            } else {
                WaitKind::Test
            };
            MbarrierOp::Wait {
                kind,
                order,
                space,
                wait_complete: reg(args, 0, "waitComplete")?,
                addr: args.addr(1, "addr")?,
                on,
            }
        }
        Kind::PendingCount => {
            args.count(2, 2, "count, state")?;
            MbarrierOp::PendingCount {
                count: reg(args, 0, "count")?,
                state: reg(args, 1, "state")?,
            }
        }
    };
    if !b64 {
        // §9.7.13.15.1: the mbarrier object (and its state) is `.b64`; every form spells it.
        return Err(SyntaxError::new(q.end, "the type qualifier `.b64`", "none"));
    }
    Ok(out)
}
