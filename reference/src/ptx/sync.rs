//! Fences and the cluster barrier that order the asynchronous-copy machinery: `fence` / `membar`
//! (§9.7.13.4: thread, `.sync_restrict`, `.mbarrier_init`, bi-directional proxy and
//! uni-directional `tensormap::generic` / `async::generic` proxy fences) and
//! `barrier.cluster.{arrive,wait}` (§9.7.13.3.2, not in our spec copy: syntax and notes from the
//! docs.nvidia.com page as reproduced at nvidia.github.io/cccl/libcudacxx/ptx/instructions/barrier.cluster.html).
//!
//! Qualifiers are taken by set and printed in syntax-block order. Well-formed combinations that
//! break a rule the page states (`.sync_restrict::shared::cta` without `.release` or `.cluster`, ...)
//! are representable and carry [`Support::never`].

use super::common::{Scope, Sem};
use super::lex::SyntaxError;
use super::opcode::{self, Opcode, Quals};
use super::operand::{Address, Args, ParseCtx, Slot, Space};
use super::Family;
use crate::target::{PtxVersion, Requirement, Support};
use std::fmt;

const fn v(major: u8, minor: u8) -> PtxVersion {
    PtxVersion::new(major, minor)
}

const SCOPES: [(&str, Scope); 4] = [
    ("cta", Scope::Cta),
    ("cluster", Scope::Cluster),
    ("gpu", Scope::Gpu),
    ("sys", Scope::Sys),
];
const ALL_SCOPES: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];
/// `.sem` of `fence` (§9.7.13.4).
const FENCE_SEMS: [Sem; 4] = [Sem::Sc, Sem::AcqRel, Sem::Acquire, Sem::Release];
/// `.acquire` / `.release` of the uni-directional proxy fences.
const ACQ_REL: [Sem; 2] = [Sem::Acquire, Sem::Release];

fn sem_choices(sems: &[Sem]) -> Vec<(&'static str, Sem)> {
    sems.iter().map(|s| (s.ptx(), *s)).collect()
}

/// `.sync_restrict::shared::{cta,cluster}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SyncRestrict {
    SharedCta,
    SharedCluster,
}

impl SyncRestrict {
    const CHOICES: [(&'static str, SyncRestrict); 2] = [
        ("sync_restrict::shared::cta", SyncRestrict::SharedCta),
        (
            "sync_restrict::shared::cluster",
            SyncRestrict::SharedCluster,
        ),
    ];
    fn ptx(self) -> &'static str {
        match self {
            SyncRestrict::SharedCta => "sync_restrict::shared::cta",
            SyncRestrict::SharedCluster => "sync_restrict::shared::cluster",
        }
    }
    /// §9.7.13.4: `::shared::cta` needs `.release`, `::shared::cluster` needs `.acquire`, and
    /// either needs `.cluster` scope.
    fn require(self, sem: Option<Sem>, scope: Scope, r: &mut Requirement) {
        let want = match self {
            SyncRestrict::SharedCta => Sem::Release,
            SyncRestrict::SharedCluster => Sem::Acquire,
        };
        if sem != Some(want) {
            r.push(Support::never(format!(
                ".{} needs .{}",
                self.ptx(),
                want.ptx()
            )));
        }
        if scope != Scope::Cluster {
            r.push(Support::never(format!(
                ".{} needs .cluster scope",
                self.ptx()
            )));
        }
        r.push(Support::at_least(".sync_restrict", 90, v(8, 6)));
    }
}

/// Bi-directional `.proxykind`: `.alias`, `.async{.global|.shared::cta|.shared::cluster}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProxyKind {
    Alias,
    Async(Option<AsyncSpace>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AsyncSpace {
    Global,
    SharedCta,
    SharedCluster,
}

impl AsyncSpace {
    const CHOICES: [(&'static str, AsyncSpace); 3] = [
        ("global", AsyncSpace::Global),
        ("shared::cta", AsyncSpace::SharedCta),
        ("shared::cluster", AsyncSpace::SharedCluster),
    ];
    fn ptx(self) -> &'static str {
        match self {
            AsyncSpace::Global => "global",
            AsyncSpace::SharedCta => "shared::cta",
            AsyncSpace::SharedCluster => "shared::cluster",
        }
    }
}

impl ProxyKind {
    fn all() -> Vec<ProxyKind> {
        let mut v = vec![ProxyKind::Alias, ProxyKind::Async(None)];
        v.extend(
            AsyncSpace::CHOICES
                .iter()
                .map(|(_, s)| ProxyKind::Async(Some(*s))),
        );
        v
    }
    fn quals(self) -> [&'static str; 2] {
        match self {
            ProxyKind::Alias => ["alias", ""],
            ProxyKind::Async(s) => ["async", s.map(AsyncSpace::ptx).unwrap_or("")],
        }
    }
}

/// `membar.level`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    Cta,
    Gl,
    Sys,
}

impl Level {
    const CHOICES: [(&'static str, Level); 3] =
        [("cta", Level::Cta), ("gl", Level::Gl), ("sys", Level::Sys)];
    fn ptx(self) -> &'static str {
        match self {
            Level::Cta => "cta",
            Level::Gl => "gl",
            Level::Sys => "sys",
        }
    }
}

/// `fence.proxy.…` or its old spelling `membar.proxy.…`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Spelling {
    Fence,
    Membar,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SyncOp {
    /// `fence{.sem}.scope;`
    Thread { sem: Option<Sem>, scope: Scope },
    /// `fence{.sem}.sync_restrict::shared::{cta,cluster}.scope;`
    SyncRestrict {
        sem: Option<Sem>,
        restrict: SyncRestrict,
        scope: Scope,
    },
    /// `fence.mbarrier_init{.sem}.scope;` (the page's only form: `.release.cluster`).
    MbarrierInit { sem: Option<Sem>, scope: Scope },
    /// `fence.proxy.proxykind;` / `membar.proxy.proxykind;`
    Proxy { spelling: Spelling, kind: ProxyKind },
    /// `fence.proxy.tensormap::generic.{release,acquire}.scope {[addr], size};`
    ProxyTensormap {
        sem: Sem,
        scope: Scope,
        range: Option<(Address, i64)>,
    },
    /// `fence.proxy.async::generic.{acquire,release}.sync_restrict::shared::{cluster,cta}.scope;`
    ProxyAsyncGeneric {
        sem: Sem,
        restrict: SyncRestrict,
        scope: Scope,
    },
    /// `membar.level;`
    Membar { level: Level },
    /// `barrier.cluster.arrive{.release|.relaxed}{.aligned};`
    ClusterArrive { sem: Option<Sem>, aligned: bool },
    /// `barrier.cluster.wait{.acquire}{.aligned};`
    ClusterWait { acquire: bool, aligned: bool },
}

impl SyncOp {
    fn opcode(&self) -> String {
        let sem = |s: &Option<Sem>| s.map(Sem::ptx).unwrap_or("");
        let aligned = |a: bool| if a { "aligned" } else { "" };
        match self {
            SyncOp::Thread { sem: s, scope } => opcode::join("fence", &[sem(s), scope.ptx()]),
            SyncOp::SyncRestrict {
                sem: s,
                restrict,
                scope,
            } => opcode::join("fence", &[sem(s), restrict.ptx(), scope.ptx()]),
            SyncOp::MbarrierInit { sem: s, scope } => {
                opcode::join("fence.mbarrier_init", &[sem(s), scope.ptx()])
            }
            SyncOp::Proxy { spelling, kind } => {
                let head = match spelling {
                    Spelling::Fence => "fence.proxy",
                    Spelling::Membar => "membar.proxy",
                };
                opcode::join(head, &kind.quals())
            }
            SyncOp::ProxyTensormap { sem, scope, .. } => {
                opcode::join("fence.proxy.tensormap::generic", &[sem.ptx(), scope.ptx()])
            }
            SyncOp::ProxyAsyncGeneric {
                sem,
                restrict,
                scope,
            } => opcode::join(
                "fence.proxy.async::generic",
                &[sem.ptx(), restrict.ptx(), scope.ptx()],
            ),
            SyncOp::Membar { level } => opcode::join("membar", &[level.ptx()]),
            SyncOp::ClusterArrive { sem: s, aligned: a } => {
                opcode::join("barrier.cluster.arrive", &[sem(s), aligned(*a)])
            }
            SyncOp::ClusterWait {
                acquire,
                aligned: a,
            } => opcode::join(
                "barrier.cluster.wait",
                &[if *acquire { "acquire" } else { "" }, aligned(*a)],
            ),
        }
    }
}

impl fmt::Display for SyncOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.opcode())?;
        if let SyncOp::ProxyTensormap {
            range: Some((addr, size)),
            ..
        } = self
        {
            write!(f, " {addr}, {size}")?;
        }
        Ok(())
    }
}

fn no_operands(args: &Args, what: &str) -> Result<(), SyntaxError> {
    args.count(0, 0, &format!("{what} takes no operands"))
}

fn parse_fence(op: &Opcode, args: &Args) -> Result<SyncOp, SyntaxError> {
    let mut q = op.quals("fence");
    if q.flag("proxy")? {
        return parse_proxy(Spelling::Fence, op, q, args);
    }
    let mbarrier_init = q.flag("mbarrier_init")?;
    let restrict = q.take(&SyncRestrict::CHOICES, "`.sync_restrict`")?;
    let sem = q.take(&sem_choices(&FENCE_SEMS), "`.sem`")?;
    let scope = q.need(&SCOPES, "`.scope`")?;
    q.finish("fence")?;
    no_operands(args, "fence")?;
    match (mbarrier_init, restrict) {
        (true, Some(_)) => Err(SyntaxError::new(
            op.at,
            "at most one of `.op_restrict`, `.sync_restrict`",
            "both",
        )),
        (true, None) => Ok(SyncOp::MbarrierInit { sem, scope }),
        (false, Some(restrict)) => Ok(SyncOp::SyncRestrict {
            sem,
            restrict,
            scope,
        }),
        (false, None) => Ok(SyncOp::Thread { sem, scope }),
    }
}

/// What follows `.proxy`: a bi-directional kind, or a `to::from` uni-directional pair.
#[derive(Clone, Copy)]
enum ProxyHead {
    Alias,
    Async,
    TensormapGeneric,
    AsyncGeneric,
}

fn parse_proxy(
    spelling: Spelling,
    op: &Opcode,
    mut q: Quals,
    args: &Args,
) -> Result<SyncOp, SyntaxError> {
    let head = q.need(
        &[
            ("alias", ProxyHead::Alias),
            ("async", ProxyHead::Async),
            ("tensormap::generic", ProxyHead::TensormapGeneric),
            ("async::generic", ProxyHead::AsyncGeneric),
        ],
        "proxy kind",
    )?;
    let family = if spelling == Spelling::Fence {
        "fence.proxy"
    } else {
        "membar.proxy"
    };
    let uni = matches!(head, ProxyHead::TensormapGeneric | ProxyHead::AsyncGeneric);
    if spelling == Spelling::Membar && uni {
        // §9.7.13.4 syntax: `membar.proxy.proxykind` only; `to::from` pairs are fence-only.
        return Err(SyntaxError::new(
            op.at,
            "a bi-directional proxy kind after `membar.proxy`",
            "a uni-directional one",
        ));
    }
    match head {
        ProxyHead::Alias => {
            q.finish(family)?;
            no_operands(args, family)?;
            Ok(SyncOp::Proxy {
                spelling,
                kind: ProxyKind::Alias,
            })
        }
        ProxyHead::Async => {
            let space = q.take(&AsyncSpace::CHOICES, "state space")?;
            q.finish(family)?;
            no_operands(args, family)?;
            Ok(SyncOp::Proxy {
                spelling,
                kind: ProxyKind::Async(space),
            })
        }
        ProxyHead::TensormapGeneric => {
            let sem = q.need(&sem_choices(&ACQ_REL), "`.sem`")?;
            let scope = q.need(&SCOPES, "`.scope`")?;
            q.finish("fence.proxy.tensormap::generic")?;
            args.count(0, 2, "{[addr], size}")?;
            let range = match args.len() {
                0 => None,
                1 => {
                    return Err(SyntaxError::new(
                        args.end,
                        "operand 2 (size)",
                        "end of instruction",
                    ))
                }
                _ => Some((args.addr(0, "addr")?, args.imm(1, "size")?)),
            };
            Ok(SyncOp::ProxyTensormap { sem, scope, range })
        }
        ProxyHead::AsyncGeneric => {
            let sem = q.need(&sem_choices(&ACQ_REL), "`.sem`")?;
            let restrict = q.need(&SyncRestrict::CHOICES, "`.sync_restrict`")?;
            let scope = q.need(&SCOPES, "`.scope`")?;
            q.finish("fence.proxy.async::generic")?;
            no_operands(args, "fence.proxy.async::generic")?;
            Ok(SyncOp::ProxyAsyncGeneric {
                sem,
                restrict,
                scope,
            })
        }
    }
}

fn parse_membar(op: &Opcode, args: &Args) -> Result<SyncOp, SyntaxError> {
    let mut q = op.quals("membar");
    if q.flag("proxy")? {
        return parse_proxy(Spelling::Membar, op, q, args);
    }
    let level = q.need(&Level::CHOICES, "`.level`")?;
    q.finish("membar")?;
    no_operands(args, "membar")?;
    Ok(SyncOp::Membar { level })
}

fn parse_cluster(op: &Opcode, args: &Args) -> Result<SyncOp, SyntaxError> {
    let mut q = op.quals("barrier.cluster");
    #[derive(Clone, Copy, PartialEq)]
    enum W {
        Arrive,
        Wait,
    }
    let which = q.need(
        &[("arrive", W::Arrive), ("wait", W::Wait)],
        "`.arrive` or `.wait`",
    )?;
    let out = match which {
        W::Arrive => {
            let sem = q.take(&sem_choices(&[Sem::Release, Sem::Relaxed]), "`.sem`")?;
            SyncOp::ClusterArrive {
                sem,
                aligned: q.flag("aligned")?,
            }
        }
        W::Wait => {
            let acquire = q.flag("acquire")?;
            SyncOp::ClusterWait {
                acquire,
                aligned: q.flag("aligned")?,
            }
        }
    };
    q.finish("barrier.cluster")?;
    no_operands(args, "barrier.cluster")?;
    Ok(out)
}

impl Family for SyncOp {
    const HEADS: &'static [&'static str] = &["fence", "membar", "barrier.cluster"];

    fn parse(head: &str, op: &Opcode, args: &Args, _ctx: &ParseCtx) -> Result<Self, SyntaxError> {
        match head {
            "fence" => parse_fence(op, args),
            "membar" => parse_membar(op, args),
            _ => parse_cluster(op, args),
        }
    }

    fn variants() -> Vec<Self> {
        let mut out = Vec::new();
        let opt_sems = || std::iter::once(None).chain(FENCE_SEMS.iter().copied().map(Some));
        for scope in ALL_SCOPES {
            for sem in opt_sems() {
                out.push(SyncOp::Thread { sem, scope });
                out.push(SyncOp::MbarrierInit { sem, scope });
                for restrict in [SyncRestrict::SharedCta, SyncRestrict::SharedCluster] {
                    out.push(SyncOp::SyncRestrict {
                        sem,
                        restrict,
                        scope,
                    });
                }
            }
            for sem in ACQ_REL {
                for range in [None, Some((Address::reg("addr"), 128))] {
                    out.push(SyncOp::ProxyTensormap { sem, scope, range });
                }
                for restrict in [SyncRestrict::SharedCta, SyncRestrict::SharedCluster] {
                    out.push(SyncOp::ProxyAsyncGeneric {
                        sem,
                        restrict,
                        scope,
                    });
                }
            }
        }
        for spelling in [Spelling::Fence, Spelling::Membar] {
            for kind in ProxyKind::all() {
                out.push(SyncOp::Proxy { spelling, kind });
            }
        }
        for (_, level) in Level::CHOICES {
            out.push(SyncOp::Membar { level });
        }
        for aligned in [false, true] {
            for sem in [None, Some(Sem::Release), Some(Sem::Relaxed)] {
                out.push(SyncOp::ClusterArrive { sem, aligned });
            }
            for acquire in [false, true] {
                out.push(SyncOp::ClusterWait { acquire, aligned });
            }
        }
        out
    }

    fn requirement(&self) -> Requirement {
        let mut r = Requirement::new();
        // §9.7.13.4 notes: ".cluster scope qualifier": PTX 7.8, sm_90.
        let cluster = |r: &mut Requirement, scope: Scope| {
            if scope == Scope::Cluster {
                r.push(Support::at_least(".cluster scope", 90, v(7, 8)));
            }
        };
        match self {
            SyncOp::Thread { sem, scope } => {
                r.push(Support::at_least("fence", 70, v(6, 0)));
                cluster(&mut r, *scope);
                if matches!(sem, Some(Sem::Acquire | Sem::Release)) {
                    r.push(Support::at_least(".acquire/.release fence", 90, v(8, 6)));
                }
            }
            SyncOp::SyncRestrict {
                sem,
                restrict,
                scope,
            } => {
                r.push(Support::at_least("fence", 70, v(6, 0)));
                cluster(&mut r, *scope);
                if matches!(sem, Some(Sem::Acquire | Sem::Release)) {
                    r.push(Support::at_least(".acquire/.release fence", 90, v(8, 6)));
                }
                restrict.require(*sem, *scope, &mut r);
            }
            SyncOp::MbarrierInit { sem, scope } => {
                r.push(Support::at_least(".op_restrict", 90, v(8, 0)));
                cluster(&mut r, *scope);
                // The only form the page gives is `fence.op_restrict.release.cluster`.
                if *sem != Some(Sem::Release) || *scope != Scope::Cluster {
                    r.push(Support::never(
                        "fence.mbarrier_init takes exactly .release.cluster",
                    ));
                }
            }
            SyncOp::Proxy { spelling, kind } => {
                r.push(match spelling {
                    Spelling::Fence => Support::at_least("fence.proxy", 70, v(7, 5)),
                    Spelling::Membar => Support::at_least("membar.proxy", 60, v(7, 5)),
                });
                if let ProxyKind::Async(_) = kind {
                    r.push(Support::at_least("fence.proxy.async", 90, v(8, 0)));
                    // Position taken: the syntax block lets `membar.proxy.proxykind` take every
                    // .proxykind, but the notes name only fence.proxy.async, and ptxas 13.0
                    // rejects it ("Illegal modifier '.async' for instruction 'membar.proxy'").
                    if *spelling == Spelling::Membar {
                        r.push(Support::never(
                            "membar.proxy takes only .alias (.async is fence.proxy only)",
                        ));
                    }
                }
            }
            SyncOp::ProxyTensormap { sem, scope, range } => {
                r.push(Support::at_least(
                    ".to_proxykind::from_proxykind",
                    90,
                    v(8, 3),
                ));
                cluster(&mut r, *scope);
                // Syntax: `.release.scope;` and `.acquire.scope [addr], size;`.
                match (sem, range) {
                    (Sem::Release, Some(_)) => {
                        r.push(Support::never("release proxy fence takes no [addr], size"))
                    }
                    (Sem::Acquire, None) => r.push(Support::never(
                        "acquire tensormap proxy fence needs [addr], size",
                    )),
                    _ => {}
                }
                if let Some((_, size)) = range {
                    if *size != 128 {
                        r.push(Support::never("the only supported size is 128"));
                    }
                }
            }
            SyncOp::ProxyAsyncGeneric {
                sem,
                restrict,
                scope,
            } => {
                r.push(Support::at_least("fence.proxy.async", 90, v(8, 0)));
                cluster(&mut r, *scope);
                restrict.require(Some(*sem), *scope, &mut r);
            }
            SyncOp::Membar { level } => {
                r.push(match level {
                    Level::Sys => Support::at_least("membar.sys", 20, v(2, 0)),
                    _ => Support::at_least("membar.{cta,gl}", 0, v(1, 4)),
                });
            }
            SyncOp::ClusterArrive { sem, .. } => {
                // barrier.cluster: PTX 7.8, sm_90; `.release`/`.relaxed`/`.acquire` from PTX 8.0.
                r.push(Support::at_least("barrier.cluster", 90, v(7, 8)));
                if sem.is_some() {
                    r.push(Support::at_least("barrier.cluster .sem", 90, v(8, 0)));
                }
            }
            SyncOp::ClusterWait { acquire, .. } => {
                r.push(Support::at_least("barrier.cluster", 90, v(7, 8)));
                if *acquire {
                    r.push(Support::at_least("barrier.cluster .sem", 90, v(8, 0)));
                }
            }
        }
        r
    }

    fn visit_operands(&mut self, f: &mut dyn FnMut(Slot<'_>)) {
        // The size operand is a literal the syntax fixes (128), not a slot to bind.
        if let SyncOp::ProxyTensormap {
            range: Some((addr, _)),
            ..
        } = self
        {
            // "Generic Addressing is used unconditionally" and the address must be in .global.
            f(Slot::Addr {
                role: "addr",
                space: Space::Generic,
                addr,
            });
        }
    }

    fn row(&self) -> String {
        let mut s = self.opcode();
        if let SyncOp::ProxyTensormap { range: Some(_), .. } = self {
            s.push_str(" +addr");
        }
        s
    }

    fn family(&self) -> &'static str {
        match self {
            SyncOp::ClusterArrive { .. } | SyncOp::ClusterWait { .. } => "barrier.cluster",
            _ => "fence",
        }
    }
}

#[cfg(test)]
mod tests;
