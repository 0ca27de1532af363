//! The `mbarrier.*` instructions (§9.7.13.15): init / inval, expect_tx / complete_tx, arrive and
//! arrive_drop (plain, `.expect_tx`, `.noComplete`), test_wait / try_wait (state or `.parity`),
//! pending_count. `cp.async.mbarrier.arrive` belongs to the cp.async family.
//!
//! Qualifiers are taken by set (real code writes `.shared::cta.release.cluster` as well as
//! `.release.cluster.shared::cta`) and printed in syntax-block order. Spellings that mean the same
//! (`.shared` / `.shared::cta`, an explicit default `.release.cta` / none) stay distinct so that
//! printing round-trips. Combinations that are well-formed text but break a rule the page states
//! (`.sem` without `.scope`, a `state` destination on `.shared::cluster`, ...) are representable
//! and carry [`Support::never`](crate::target::Support::never), so the legality differential
//! against ptxas can exercise them.

mod legality;
mod parse;

use super::common::{Scope, Sem};
use super::lex::SyntaxError;
use super::opcode::{self, Opcode, Quals};
use super::operand::{Address, Args, ParseCtx, RegTy, Slot, Space, Value};
use super::Family;
use crate::target::{PtxVersion, Requirement};
use std::fmt;

const fn v(major: u8, minor: u8) -> PtxVersion {
    PtxVersion::new(major, minor)
}

/// The `.space` qualifier of an mbarrier instruction; absent means generic addressing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MbarSpace {
    /// `.shared` (means `.shared::cta`).
    Shared,
    SharedCta,
    SharedCluster,
}

impl MbarSpace {
    const ALL: [MbarSpace; 3] = [
        MbarSpace::Shared,
        MbarSpace::SharedCta,
        MbarSpace::SharedCluster,
    ];
    const CHOICES: [(&'static str, MbarSpace); 3] = [
        ("shared", MbarSpace::Shared),
        ("shared::cta", MbarSpace::SharedCta),
        ("shared::cluster", MbarSpace::SharedCluster),
    ];
    fn space(self) -> Space {
        match self {
            MbarSpace::Shared => Space::Shared,
            MbarSpace::SharedCta => Space::SharedCta,
            MbarSpace::SharedCluster => Space::SharedCluster,
        }
    }
    fn options() -> Vec<Option<MbarSpace>> {
        std::iter::once(None)
            .chain(Self::ALL.iter().copied().map(Some))
            .collect()
    }
}

fn addr_space(s: Option<MbarSpace>) -> Space {
    s.map(MbarSpace::space).unwrap_or(Space::Generic)
}

/// `{.sem}{.scope}` of an mbarrier instruction. Which `.sem` values parse depends on the
/// instruction (see [`Kind::sems`]); scopes are `.cta` / `.cluster`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Order {
    pub sem: Option<Sem>,
    pub scope: Option<Scope>,
}

const SCOPES: [(&str, Scope); 2] = [("cta", Scope::Cta), ("cluster", Scope::Cluster)];

impl Order {
    fn parse(q: &mut Quals, sems: &[Sem]) -> Result<Order, SyntaxError> {
        let choices: Vec<(&str, Sem)> = sems.iter().map(|s| (s.ptx(), *s)).collect();
        Ok(Order {
            sem: q.take(&choices, "`.sem`")?,
            scope: q.take(&SCOPES, "`.scope`")?,
        })
    }
    fn quals(self) -> [&'static str; 2] {
        [
            self.sem.map(Sem::ptx).unwrap_or(""),
            self.scope.map(Scope::ptx).unwrap_or(""),
        ]
    }
    /// Every `{.sem}{.scope}` written form, including one without the other.
    fn all(sems: &[Sem]) -> Vec<Order> {
        let mut out = Vec::new();
        for sem in std::iter::once(None).chain(sems.iter().copied().map(Some)) {
            for scope in [None, Some(Scope::Cta), Some(Scope::Cluster)] {
                out.push(Order { sem, scope });
            }
        }
        out
    }
}

/// expect_tx or complete_tx.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TxOp {
    ExpectTx,
    CompleteTx,
}

/// test_wait or try_wait; only try_wait takes the optional `suspendTimeHint`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WaitKind {
    Test,
    Try { time_hint: Option<Value> },
}

/// What the wait tests: the `state` returned by an arrive (`.b64` register) or, with `.parity`,
/// the phase parity (`.b32`, register or immediate).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WaitOn {
    State(Value),
    Parity(Value),
}

/// The forms of mbarrier.arrive / arrive_drop after the head.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArriveMode {
    /// `state, [addr]{, count}`.
    Plain { count: Option<Value> },
    /// `.expect_tx`: `state, [addr], txCount` (the arrive count is 1).
    ExpectTx { tx_count: Value },
    /// `.noComplete`: `state, [addr], count` (count mandatory).
    NoComplete { count: Value },
}

/// The destination of arrive / arrive_drop: a `.b64` state register or the sink `_`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dest {
    State(Value),
    Sink,
}

#[derive(Clone, Debug, PartialEq)]
pub enum MbarrierOp {
    /// `mbarrier.init{.shared{::cta}}.b64 [addr], count;`
    Init {
        space: Option<MbarSpace>,
        addr: Address,
        count: Value,
    },
    /// `mbarrier.inval{.shared{::cta}}.b64 [addr];`
    Inval {
        space: Option<MbarSpace>,
        addr: Address,
    },
    /// `mbarrier.{expect,complete}_tx{.sem.scope}{.space}.b64 [addr], txCount;`
    Tx {
        op: TxOp,
        order: Order,
        space: Option<MbarSpace>,
        addr: Address,
        tx_count: Value,
    },
    /// `mbarrier.arrive{_drop}{.expect_tx|.noComplete}{.sem.scope}{.space}.b64 state|_, [addr] ...;`
    Arrive {
        drop: bool,
        mode: ArriveMode,
        order: Order,
        space: Option<MbarSpace>,
        dest: Dest,
        addr: Address,
    },
    /// `mbarrier.{test,try}_wait{.parity}{.sem.scope}{.shared{::cta}}.b64 waitComplete, [addr], state|phaseParity {, suspendTimeHint};`
    Wait {
        kind: WaitKind,
        order: Order,
        space: Option<MbarSpace>,
        wait_complete: Value,
        addr: Address,
        on: WaitOn,
    },
    /// `mbarrier.pending_count.b64 count, state;`
    PendingCount { count: Value, state: Value },
}

/// The instruction kinds, for the qualifier vocabulary each one takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Init,
    Inval,
    Tx,
    Arrive,
    Wait,
    PendingCount,
}

impl Kind {
    fn sems(self) -> &'static [Sem] {
        match self {
            Kind::Tx => &[Sem::Relaxed],
            Kind::Arrive => &[Sem::Release, Sem::Relaxed],
            Kind::Wait => &[Sem::Acquire, Sem::Relaxed],
            _ => &[],
        }
    }
}

impl MbarrierOp {
    fn kind(&self) -> Kind {
        match self {
            MbarrierOp::Init { .. } => Kind::Init,
            MbarrierOp::Inval { .. } => Kind::Inval,
            MbarrierOp::Tx { .. } => Kind::Tx,
            MbarrierOp::Arrive { .. } => Kind::Arrive,
            MbarrierOp::Wait { .. } => Kind::Wait,
            MbarrierOp::PendingCount { .. } => Kind::PendingCount,
        }
    }

    /// The opcode with its qualifiers in syntax-block order.
    fn opcode(&self) -> String {
        let sp = |s: &Option<MbarSpace>| s.map(|s| addr_space(Some(s)).ptx()).unwrap_or("");
        match self {
            MbarrierOp::Init { space, .. } => opcode::join("mbarrier.init", &[sp(space), "b64"]),
            MbarrierOp::Inval { space, .. } => opcode::join("mbarrier.inval", &[sp(space), "b64"]),
            MbarrierOp::Tx {
                op, order, space, ..
            } => {
                let head = match op {
                    TxOp::ExpectTx => "mbarrier.expect_tx",
                    TxOp::CompleteTx => "mbarrier.complete_tx",
                };
                let [s, c] = order.quals();
                opcode::join(head, &[s, c, sp(space), "b64"])
            }
            MbarrierOp::Arrive {
                drop,
                mode,
                order,
                space,
                ..
            } => {
                let head = if *drop {
                    "mbarrier.arrive_drop"
                } else {
                    "mbarrier.arrive"
                };
                let m = match mode {
                    ArriveMode::Plain { .. } => "",
                    ArriveMode::ExpectTx { .. } => "expect_tx",
                    ArriveMode::NoComplete { .. } => "noComplete",
                };
                let [s, c] = order.quals();
                opcode::join(head, &[m, s, c, sp(space), "b64"])
            }
            MbarrierOp::Wait {
                kind,
                order,
                space,
                on,
                ..
            } => {
                let head = match kind {
                    WaitKind::Test => "mbarrier.test_wait",
                    WaitKind::Try { .. } => "mbarrier.try_wait",
                };
                let p = if matches!(on, WaitOn::Parity(_)) {
                    "parity"
                } else {
                    ""
                };
                let [s, c] = order.quals();
                opcode::join(head, &[p, s, c, sp(space), "b64"])
            }
            MbarrierOp::PendingCount { .. } => "mbarrier.pending_count.b64".to_string(),
        }
    }
}

impl fmt::Display for MbarrierOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ", self.opcode())?;
        match self {
            MbarrierOp::Init { addr, count, .. } => write!(f, "{addr}, {count}"),
            MbarrierOp::Inval { addr, .. } => write!(f, "{addr}"),
            MbarrierOp::Tx { addr, tx_count, .. } => write!(f, "{addr}, {tx_count}"),
            MbarrierOp::Arrive {
                mode, dest, addr, ..
            } => {
                match dest {
                    Dest::State(s) => write!(f, "{s}, {addr}")?,
                    Dest::Sink => write!(f, "_, {addr}")?,
                }
                match mode {
                    ArriveMode::Plain { count: None } => Ok(()),
                    ArriveMode::Plain { count: Some(c) } | ArriveMode::NoComplete { count: c } => {
                        write!(f, ", {c}")
                    }
                    ArriveMode::ExpectTx { tx_count } => write!(f, ", {tx_count}"),
                }
            }
            MbarrierOp::Wait {
                kind,
                wait_complete,
                addr,
                on,
                ..
            } => {
                let (WaitOn::State(x) | WaitOn::Parity(x)) = on;
                write!(f, "{wait_complete}, {addr}, {x}")?;
                match kind {
                    WaitKind::Try { time_hint: Some(t) } => write!(f, ", {t}"),
                    _ => Ok(()),
                }
            }
            MbarrierOp::PendingCount { count, state } => write!(f, "{count}, {state}"),
        }
    }
}

impl Family for MbarrierOp {
    const HEADS: &'static [&'static str] = &["mbarrier"];

    fn parse(_head: &str, op: &Opcode, args: &Args, _ctx: &ParseCtx) -> Result<Self, SyntaxError> {
        parse::parse_mbarrier(op, args)
    }

    fn variants() -> Vec<Self> {
        let addr = || Address::reg("addr");
        let r = |n: &str| Value::reg(n);
        let mut out = Vec::new();
        for space in MbarSpace::options() {
            out.push(MbarrierOp::Init {
                space,
                addr: addr(),
                count: r("count"),
            });
            out.push(MbarrierOp::Inval {
                space,
                addr: addr(),
            });
            for op in [TxOp::ExpectTx, TxOp::CompleteTx] {
                for order in Order::all(Kind::Tx.sems()) {
                    out.push(MbarrierOp::Tx {
                        op,
                        order,
                        space,
                        addr: addr(),
                        tx_count: r("txCount"),
                    });
                }
            }
            for drop in [false, true] {
                let modes = [
                    ArriveMode::Plain { count: None },
                    ArriveMode::Plain {
                        count: Some(r("count")),
                    },
                    ArriveMode::ExpectTx {
                        tx_count: r("txCount"),
                    },
                    ArriveMode::NoComplete { count: r("count") },
                ];
                for mode in modes {
                    for order in Order::all(Kind::Arrive.sems()) {
                        for dest in [Dest::State(r("state")), Dest::Sink] {
                            out.push(MbarrierOp::Arrive {
                                drop,
                                mode: mode.clone(),
                                order,
                                space,
                                dest,
                                addr: addr(),
                            });
                        }
                    }
                }
            }
            let kinds = [
                WaitKind::Test,
                WaitKind::Try { time_hint: None },
                WaitKind::Try {
                    time_hint: Some(r("suspendTimeHint")),
                },
            ];
            for kind in kinds {
                for on in [WaitOn::State(r("state")), WaitOn::Parity(r("phaseParity"))] {
                    for order in Order::all(Kind::Wait.sems()) {
                        out.push(MbarrierOp::Wait {
                            kind: kind.clone(),
                            order,
                            space,
                            wait_complete: r("waitComplete"),
                            addr: addr(),
                            on: on.clone(),
                        });
                    }
                }
            }
        }
        out.push(MbarrierOp::PendingCount {
            count: r("pendingCount"),
            state: r("state"),
        });
        out
    }

    fn requirement(&self) -> Requirement {
        legality::requirement(self)
    }

    fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        let b32 = |role, value, imm_ok| Slot::Value {
            role,
            ty: RegTy::B32,
            value,
            imm_ok,
        };
        match self {
            MbarrierOp::Init { space, addr, count } => {
                f(Slot::Addr {
                    role: "addr",
                    space: addr_space(*space),
                    addr,
                });
                f(b32("count", count, true));
            }
            MbarrierOp::Inval { space, addr } => f(Slot::Addr {
                role: "addr",
                space: addr_space(*space),
                addr,
            }),
            MbarrierOp::Tx {
                space,
                addr,
                tx_count,
                ..
            } => {
                f(Slot::Addr {
                    role: "addr",
                    space: addr_space(*space),
                    addr,
                });
                f(b32("txCount", tx_count, true));
            }
            MbarrierOp::Arrive {
                mode,
                space,
                dest,
                addr,
                ..
            } => {
                if let Dest::State(s) = dest {
                    f(Slot::Value {
                        role: "state",
                        ty: RegTy::B64,
                        value: s,
                        imm_ok: false,
                    });
                }
                f(Slot::Addr {
                    role: "addr",
                    space: addr_space(*space),
                    addr,
                });
                match mode {
                    ArriveMode::Plain { count: None } => {}
                    ArriveMode::Plain { count: Some(c) } | ArriveMode::NoComplete { count: c } => {
                        f(b32("count", c, true))
                    }
                    ArriveMode::ExpectTx { tx_count } => f(b32("txCount", tx_count, true)),
                }
            }
            MbarrierOp::Wait {
                kind,
                space,
                wait_complete,
                addr,
                on,
                ..
            } => {
                f(Slot::Value {
                    role: "waitComplete",
                    ty: RegTy::Pred,
                    value: wait_complete,
                    imm_ok: false,
                });
                f(Slot::Addr {
                    role: "addr",
                    space: addr_space(*space),
                    addr,
                });
                match on {
                    WaitOn::State(s) => f(Slot::Value {
                        role: "state",
                        ty: RegTy::B64,
                        value: s,
                        imm_ok: false,
                    }),
                    WaitOn::Parity(p) => f(b32("phaseParity", p, true)),
                }
                if let WaitKind::Try { time_hint: Some(t) } = kind {
                    f(b32("suspendTimeHint", t, true));
                }
            }
            MbarrierOp::PendingCount { count, state } => {
                f(Slot::Value {
                    role: "count",
                    ty: RegTy::B32,
                    value: count,
                    imm_ok: false,
                });
                f(Slot::Value {
                    role: "state",
                    ty: RegTy::B64,
                    value: state,
                    imm_ok: false,
                });
            }
        }
    }

    fn row(&self) -> String {
        let mut s = self.opcode();
        match self {
            MbarrierOp::Arrive { mode, dest, .. } => {
                if matches!(dest, Dest::State(_)) {
                    s.push_str(" +state");
                }
                if let ArriveMode::Plain { count: Some(_) } = mode {
                    s.push_str(" +count");
                }
            }
            MbarrierOp::Wait {
                kind: WaitKind::Try { time_hint: Some(_) },
                ..
            } => s.push_str(" +suspendTimeHint"),
            _ => {}
        }
        s
    }

    fn family(&self) -> &'static str {
        "mbarrier"
    }
}

#[cfg(test)]
mod tests;
