//! The `mbarrier.*` instructions (§9.7.13.15): init / inval, expect_tx / complete_tx, arrive and
//! arrive_drop (plain, `.expect_tx`, `.noComplete`), test_wait / try_wait (state or `.parity`),
//! pending_count. `cp.async.mbarrier.arrive` belongs to the cp.async family.
//!
//! Qualifiers are taken by set (real code writes `.shared::cta.release.cluster` as well as
//! `.release.cluster.shared::cta`) and printed in syntax-block order. Spellings that mean the same
//! (`.shared` / `.shared::cta`, an explicit default `.release.cta` / none) stay distinct so that
//! printing round-trips. Combinations that are well-formed text but break a rule the page states
//! (`.sem` without `.scope`, a `state` destination on `.shared::cluster`, ...) are representable
//! and carry [`Support::never`], so the legality differential against ptxas can exercise them.

use super::common::{Scope, Sem};
use super::lex::SyntaxError;
use super::opcode::{self, Opcode, Quals};
use super::operand::{Address, Args, ParseCtx, RegTy, Slot, Space, Value};
use super::Family;
use crate::target::{PtxVersion, Requirement, Support};
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
    /// Rules and notes shared by arrive / arrive_drop / test_wait / try_wait (§9.7.13.15.13,
    /// .14, .16): `.sem`/`.scope` from PTX 8.0, `.relaxed` from 8.6 on sm_90, `.cluster` on sm_90.
    fn require(self, r: &mut Requirement, relaxed_since: Option<PtxVersion>) {
        if self.sem.is_some() != self.scope.is_some() {
            r.push(Support::never(
                "qualifiers .sem and .scope must be specified together",
            ));
        }
        if self.sem.is_some() || self.scope.is_some() {
            r.push(Support::at_least(".sem/.scope qualifiers", 80, v(8, 0)));
        }
        if self.sem == Some(Sem::Relaxed) {
            r.push(Support::at_least(
                ".relaxed",
                90,
                relaxed_since.unwrap_or(v(8, 0)),
            ));
        }
        if self.scope == Some(Scope::Cluster) {
            r.push(Support::at_least(".cluster scope", 90, v(8, 0)));
        }
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

fn parse_mbarrier(op: &Opcode, args: &Args) -> Result<MbarrierOp, SyntaxError> {
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

impl Family for MbarrierOp {
    const HEADS: &'static [&'static str] = &["mbarrier"];

    fn parse(_head: &str, op: &Opcode, args: &Args, _ctx: &ParseCtx) -> Result<Self, SyntaxError> {
        parse_mbarrier(op, args)
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
        // Every mbarrier instruction: "Requires sm_80 or higher", "Introduced in PTX ISA 7.0".
        let mut r = Requirement::new().and(Support::at_least("mbarrier", 80, v(7, 0)));
        let space = match self {
            MbarrierOp::Init { space, .. }
            | MbarrierOp::Inval { space, .. }
            | MbarrierOp::Tx { space, .. }
            | MbarrierOp::Arrive { space, .. }
            | MbarrierOp::Wait { space, .. } => *space,
            MbarrierOp::PendingCount { .. } => None,
        };
        // "Support for sub-qualifier ::cta on .shared introduced in PTX ISA version 7.8."
        if space == Some(MbarSpace::SharedCta) {
            r.push(Support::at_least(".shared::cta", 80, v(7, 8)));
        }
        if space == Some(MbarSpace::SharedCluster) {
            // §9.7.13.15.8: only arrive, arrive_drop, expect_tx, complete_tx on .shared::cluster.
            if matches!(self.kind(), Kind::Arrive | Kind::Tx) {
                r.push(Support::at_least(".shared::cluster", 90, v(8, 0)));
            } else {
                r.push(Support::never(
                    "§9.7.13.15.8: this mbarrier operation is not supported on .shared::cluster",
                ));
            }
        }
        match self {
            MbarrierOp::Init { .. }
            | MbarrierOp::Inval { .. }
            | MbarrierOp::PendingCount { .. } => {}
            MbarrierOp::Tx { order, .. } => {
                // §9.7.13.15.11/12: introduced in PTX 8.0, sm_90; `.relaxed.scope` is part of the
                // 8.0 syntax (no separate note).
                r.push(Support::at_least(
                    "mbarrier.expect_tx / complete_tx",
                    90,
                    v(8, 0),
                ));
                order.require(&mut r, None);
            }
            MbarrierOp::Arrive {
                drop,
                mode,
                order,
                space,
                dest,
                ..
            } => {
                order.require(&mut r, Some(v(8, 6)));
                match mode {
                    ArriveMode::Plain { count: None } => {}
                    // "Support for count argument without the modifier .noComplete": 7.8, sm_90.
                    ArriveMode::Plain { count: Some(_) } => {
                        r.push(Support::at_least("count without .noComplete", 90, v(7, 8)))
                    }
                    ArriveMode::ExpectTx { .. } => {
                        r.push(Support::at_least(".expect_tx", 90, v(8, 0)))
                    }
                    ArriveMode::NoComplete { .. } => {
                        // Syntax: `.noComplete{.release.cta}{.shared{::cta}}`.
                        if order.sem.is_some_and(|s| s != Sem::Release)
                            || order.scope.is_some_and(|s| s != Scope::Cta)
                        {
                            r.push(Support::never(".noComplete takes only .release.cta"));
                        }
                        if *space == Some(MbarSpace::SharedCluster) {
                            r.push(Support::never(".noComplete takes only .shared{::cta}"));
                        }
                    }
                }
                match dest {
                    // "Support for sink symbol '_' as the destination operand": PTX 7.1, stated
                    // for arrive only. arrive_drop's page is silent and ptxas 13.0 accepts its
                    // sink at PTX 7.0, so arrive_drop takes `_` from its introduction.
                    Dest::Sink if !drop => {
                        r.push(Support::at_least("sink `_` destination", 80, v(7, 1)))
                    }
                    Dest::Sink => {}
                    Dest::State(_) => {
                        if *space == Some(MbarSpace::SharedCluster) {
                            r.push(Support::never("sink `_` is mandatory on .shared::cluster"));
                        }
                    }
                }
            }
            MbarrierOp::Wait {
                kind, order, on, ..
            } => {
                order.require(&mut r, Some(v(8, 6)));
                if let WaitKind::Try { .. } = kind {
                    r.push(Support::at_least("mbarrier.try_wait", 90, v(7, 8)));
                }
                if let WaitOn::Parity(_) = on {
                    r.push(Support::at_least(".parity", 80, v(7, 1)));
                }
            }
        }
        r
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
mod tests {
    use super::*;
    use crate::target::{Target, Verdict};

    family_parser!(Mbarrier, MbarrierOp);

    #[test]
    fn every_variant_round_trips() {
        let all = MbarrierOp::variants();
        // 4 spaces × (init, inval, 2 tx × 6 orders, 2 arrive × 4 modes × 9 orders × 2 dests, 3 waits × 2 tokens × 9 orders) + pending_count
        assert_eq!(all.len(), 4 * (2 + 2 * 6 + 2 * 4 * 9 * 2 + 3 * 2 * 9) + 1);
        let mut seen = std::collections::HashSet::new();
        for x in &all {
            let text = x.to_string();
            assert!(seen.insert(text.clone()), "two variants print as `{text}`");
            assert_eq!(
                &parse(&text).unwrap_or_else(|e| panic!("`{text}`: {e}")),
                x,
                "{text}"
            );
        }
    }

    /// Every mbarrier instruction in the examples of spec/03 and spec/08 (Part A), as written.
    const MANUAL: &[&str] = &[
        "mbarrier.init.b64        [addr],   %r1;",
        "mbarrier.init.shared::cta.b64 [shMem], 12;",
        "@t0 mbarrier.init.b64     [addr], %r1;",
        "@t0 mbarrier.inval.b64    [addr];",
        "mbarrier.init.shared.b64           [shmem], 12;",
        "@t0 mbarrier.inval.shared.b64      [shmem];",
        "@t0 mbarrier.init.shared.b64       [shmem], 24;",
        "@t0 mbarrier.inval.shared::cta.b64 [shmem];",
        "mbarrier.expect_tx.b64                       [addr], 32;",
        "mbarrier.expect_tx.relaxed.cta.shared.b64    [mbarObj1], 512;",
        "mbarrier.expect_tx.relaxed.cta.shared.b64    [mbarObj2], 512;",
        "mbarrier.complete_tx.b64             [addr],     32;",
        "mbarrier.complete_tx.shared.b64      [mbarObj1], 512;",
        "mbarrier.complete_tx.relaxed.cta.b64 [addr2],    32;",
        "mbarrier.arrive.shared.b64                       %r0, [shMem];",
        "mbarrier.arrive.shared::cta.b64                  %r0, [shMem2];",
        "mbarrier.arrive.release.cta.shared::cluster.b64  _, [remoteAddr32];",
        "mbarrier.arrive.release.cluster.b64              _, [remoteAddr64], cnt;",
        "mbarrier.arrive.expect_tx.release.cluster.b64    _, [remoteAddr64], tx_count;",
        "mbarrier.arrive.noComplete.b64                   %r1, [addr], 2;",
        "mbarrier.arrive.relaxed.cta.b64                  %r2, [addr], 4;",
        "mbarrier.arrive.b64                              %r2, [addr], cnt;",
        "@p mbarrier.arrive_drop.shared.b64 _, [shMem];",
        "@p2 mbarrier.arrive_drop.noComplete.shared.b64 _, [shMem], %a;",
        "@!p mbarrier.arrive.shared.b64   %r1, [shMem];",
        "@!p mbarrier.test_wait.shared.b64  q, [shMem], %r1;",
        "mbarrier.arrive_drop.shared::cluster.b64 _, [addr];",
        "mbarrier.arrive_drop.shared::cta.release.cluster.b64     _, [addr], cnt;",
        "mbarrier.arrive_drop.expect_tx.shared::cta.relaxed.cluster.b64 state, [addr], tx_count;",
        "mbarrier.init.shared.b64 [shMem], threadCount;",
        "mbarrier.arrive.shared.b64 state, [shMem];",
        "mbarrier.test_wait.shared.b64 p, [shMem], state;",
        "mbarrier.init.shared.b64 [shMem], totalCount;",
        "mbarrier.init.shared.b64 [shMem], N;",
        "mbarrier.arrive.shared.b64  %r1, [shMem];",
        "mbarrier.test_wait.shared.b64    complete, [shMem], %r1;",
        "mbarrier.try_wait.relaxed.cluster.shared.b64    complete, [shMem], %r1;",
        "mbarrier.test_wait.parity.shared.b64  complete, [shMem], parArg;",
        "mbarrier.init.shared.b64 [shMem2], threadCount;",
        "mbarrier.arrive.shared.b64 state, [shMem2];",
        "mbarrier.test_wait.shared::cta.b64 p, [shMem2], state;",
        "@p0 mbarrier.init.shared::cta.b64 [shMem], N;",
        "mbarrier.arrive.release.cluster.b64              _, [remAddr];",
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64  complete, [shMem], 0;",
        "mbarrier.arrive.noComplete.b64 state, [shMem], 1;",
        "mbarrier.pending_count.b64 %r1, state;",
        // spec/08 §9.7.13.4 examples
        "mbarrier.try_wait.relaxed.cluster.shared::cta.b64 complete, [addr], parity;",
        "mbarrier.arrive.relaxed.cluster.shared::cluster.b64 state, [bar];",
    ];

    #[test]
    fn manual_examples_parse_and_reprint() {
        for text in MANUAL {
            let x = parse(text).unwrap_or_else(|e| panic!("`{text}`: {e}"));
            assert_eq!(parse(&x.to_string()).unwrap(), x);
        }
        // Qualifier order as written does not matter; printing is canonical.
        let x = parse("mbarrier.arrive_drop.expect_tx.shared::cta.relaxed.cluster.b64 state, [addr], tx_count").unwrap();
        assert_eq!(x.to_string(), "mbarrier.arrive_drop.expect_tx.relaxed.cluster.shared::cta.b64 state, [addr], tx_count");
    }

    #[test]
    fn manual_errors() {
        // spec/08 §9.7.13.4 example "Release local barrier state via generic proxy".
        assert_eq!(
            parse("mbarrier.init [bar];").unwrap_err().to_string(),
            "expected 2 operands ([addr], count), found 1"
        );
        // spec/08: `state` destination on .shared::cluster parses, but the page forbids it.
        let x = parse("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 state, [bar];").unwrap();
        assert_eq!(
            x.requirement()
                .verdict(Target::SM_100A, PtxVersion::MAX_SUPPORTED),
            Verdict::WrongTarget {
                why: "sink `_` is mandatory on .shared::cluster".into()
            }
        );
    }

    #[test]
    fn syntax_errors_are_clear() {
        let err = |t: &str| parse(t).unwrap_err().to_string();
        assert_eq!(
            err("mbarrier.init.b64 [addr]"),
            "expected 2 operands ([addr], count), found 1"
        );
        assert_eq!(
            err("mbarrier.init.shared [addr], 1"),
            "expected the type qualifier `.b64`, found none"
        );
        assert_eq!(
            err("mbarrier.init.b64 addr, 1"),
            "expected addr as an address `[...]`, found a register"
        );
        assert_eq!(
            err("mbarrier.arrive.b64 7, [addr]"),
            "expected state or sink `_` (a register), found an immediate"
        );
        assert_eq!(
            err("mbarrier.test_wait.b64 p, [addr], 1"),
            "expected state (a register), found an immediate"
        );
        assert_eq!(
            err("mbarrier.test_wait.b64 p, [addr], s, 10"),
            "expected at most 3 operands (waitComplete, [addr], state), found 4"
        );
        assert_eq!(
            err("mbarrier.arrive.expect_tx.b64 s, [addr]"),
            "expected 3 operands (state, [addr], txCount), found 2"
        );
        assert_eq!(
            err("mbarrier.arrive.noComplete.b64 s, [addr]"),
            "expected 3 operands (state, [addr], count), found 2"
        );
        assert_eq!(
            err("mbarrier.arrive.acquire.cta.b64 s, [addr]"),
            "expected a qualifier of mbarrier.arrive, found `.acquire`"
        );
        assert_eq!(
            err("mbarrier.test_wait.release.cta.b64 p, [addr], s"),
            "expected a qualifier of mbarrier.test_wait, found `.release`"
        );
        assert_eq!(
            err("mbarrier.arrive.expect_tx.noComplete.b64 s, [addr], 1"),
            "expected at most one of `.expect_tx`, `.noComplete`, found both"
        );
        assert_eq!(
            err("mbarrier.arrive.shared.shared::cta.b64 s, [a]"),
            "expected at most one state space, found a second one, `.shared::cta`"
        );
        assert_eq!(err("mbarrier.wait.b64 p, [a], s"), "expected an mbarrier operation (init, inval, expect_tx, complete_tx, arrive, arrive_drop, test_wait, try_wait, pending_count), found `.wait`");
        assert_eq!(
            err("mbarrier.test_wait.b64 _, [a], s"),
            "expected waitComplete (a register), found the sink `_`"
        );
        assert_eq!(
            err("mbarrier.init.b64 [a], _"),
            "expected count (register or immediate), found the sink `_`"
        );
        assert_eq!(
            err("mbarrier.pending_count.b64 c, _"),
            "expected state (a register), found the sink `_`"
        );
        assert_eq!(
            err("mbarrier.init.cta.b64 [a], 1"),
            "expected a qualifier of mbarrier.init, found `.cta`"
        );
        assert_eq!(
            err("mbarrier.inval.relaxed.cta.b64 [a]"),
            "expected a qualifier of mbarrier.inval, found `.relaxed`"
        );
        assert_eq!(
            err("mbarrier.pending_count.shared.b64 c, s"),
            "expected a qualifier of mbarrier.pending_count, found `.shared`"
        );
        assert_eq!(
            err("mbarrier.test_wait.noComplete.b64 p, [a], s"),
            "expected a qualifier of mbarrier.test_wait, found `.noComplete`"
        );
        assert_eq!(
            err("mbarrier.arrive.parity.b64 s, [a]"),
            "expected a qualifier of mbarrier.arrive, found `.parity`"
        );
        assert_eq!(
            err("mbarrier.pending_count.b64 c, [s]"),
            "expected state (a register), found an address `[...]`"
        );
    }

    #[test]
    fn operand_slots() {
        let mut x = parse("mbarrier.try_wait.parity.shared::cta.b64 done, [bar], 1, hint").unwrap();
        let mut seen = Vec::new();
        x.visit_operands(&mut |s| match s {
            Slot::Addr { role, space, .. } => seen.push(format!("{role}@{space:?}")),
            Slot::Value {
                role, ty, imm_ok, ..
            } => seen.push(format!(
                "{role}:{}{}",
                ty.ptx(),
                if imm_ok { "/imm" } else { "" }
            )),
            _ => seen.push("?".into()),
        });
        assert_eq!(
            seen,
            [
                "waitComplete:.pred",
                "addr@SharedCta",
                "phaseParity:.b32/imm",
                "suspendTimeHint:.b32/imm"
            ]
        );
        let roles = |t: &str| {
            let mut x = parse(t).unwrap();
            let mut v = Vec::new();
            x.visit_operands(&mut |s| match s {
                Slot::Addr { role, space, .. } => v.push(format!("{role}@{space:?}")),
                Slot::Value { role, ty, .. } => v.push(format!("{role}:{}", ty.ptx())),
                _ => {}
            });
            v
        };
        assert_eq!(
            roles("mbarrier.arrive.b64 _, [a], 2"),
            ["addr@Generic", "count:.b32"]
        );
        assert_eq!(
            roles("mbarrier.arrive.expect_tx.shared::cluster.b64 _, [a], 2"),
            ["addr@SharedCluster", "txCount:.b32"]
        );
        assert_eq!(
            roles("mbarrier.arrive_drop.shared.b64 s, [a]"),
            ["state:.b64", "addr@Shared"]
        );
        assert_eq!(
            roles("mbarrier.test_wait.b64 p, [a], s"),
            ["waitComplete:.pred", "addr@Generic", "state:.b64"]
        );
        assert_eq!(
            roles("mbarrier.pending_count.b64 c, s"),
            ["count:.b32", "state:.b64"]
        );
        assert_eq!(
            roles("mbarrier.init.b64 [a], 3"),
            ["addr@Generic", "count:.b32"]
        );
    }

    #[test]
    fn requirements_follow_the_notes() {
        let min = |t: &str, tgt: Target| parse(t).unwrap().requirement().min_ptx_for(tgt);
        assert_eq!(
            min("mbarrier.init.shared.b64 [a], 1", Target::SM_80),
            Ok(v(7, 0))
        );
        assert_eq!(
            min("mbarrier.init.shared::cta.b64 [a], 1", Target::SM_80),
            Ok(v(7, 8))
        );
        assert_eq!(
            min("mbarrier.arrive.b64 _, [a]", Target::SM_80),
            Ok(v(7, 1))
        );
        assert_eq!(
            min("mbarrier.arrive_drop.b64 _, [a]", Target::SM_80),
            Ok(v(7, 0))
        );
        assert_eq!(
            min("mbarrier.test_wait.parity.b64 p, [a], 0", Target::SM_80),
            Ok(v(7, 1))
        );
        assert_eq!(
            min("mbarrier.arrive.noComplete.b64 s, [a], 2", Target::SM_80),
            Ok(v(7, 0))
        );
        assert!(min("mbarrier.arrive.b64 s, [a], 2", Target::SM_80).is_err());
        assert_eq!(
            min("mbarrier.arrive.b64 s, [a], 2", Target::SM_90),
            Ok(v(7, 8))
        );
        assert!(min("mbarrier.try_wait.b64 p, [a], s", Target::SM_80).is_err());
        assert_eq!(
            min("mbarrier.try_wait.b64 p, [a], s", Target::SM_90),
            Ok(v(7, 8))
        );
        assert_eq!(
            min("mbarrier.arrive.relaxed.cta.b64 s, [a]", Target::SM_90),
            Ok(v(8, 6))
        );
        assert_eq!(
            min("mbarrier.expect_tx.relaxed.cta.b64 [a], 4", Target::SM_90),
            Ok(v(8, 0))
        );
        assert!(min("mbarrier.arrive.release.cluster.b64 s, [a]", Target::SM_80).is_err());
        assert_eq!(
            min("mbarrier.arrive.release.cta.b64 s, [a]", Target::SM_80),
            Ok(v(8, 0))
        );
        assert!(min("mbarrier.arrive.release.b64 s, [a]", Target::SM_90A).is_err());
        assert!(min("mbarrier.init.shared::cluster.b64 [a], 1", Target::SM_90A).is_err());
        assert!(min(
            "mbarrier.arrive.noComplete.relaxed.cta.b64 s, [a], 1",
            Target::SM_90A
        )
        .is_err());
        assert_eq!(
            min("mbarrier.arrive.shared::cluster.b64 _, [a]", Target::SM_90),
            Ok(v(8, 0))
        );
    }
}
