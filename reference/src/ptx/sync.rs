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
mod tests {
    use super::*;
    use crate::target::{Target, Verdict};

    family_parser!(Sync, SyncOp);

    #[test]
    fn every_variant_round_trips() {
        let all = SyncOp::variants();
        // 4 scopes × (5 sems × (thread, mbarrier_init, 2 sync_restrict) + 2 sems × (2 tensormap + 2 async::generic))
        // + 2 spellings × 5 proxy kinds + 3 membar levels + 2 aligned × (3 arrive + 2 wait)
        assert_eq!(all.len(), 4 * (5 * 4 + 2 * 4) + 2 * 5 + 3 + 2 * 5);
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

    /// Every fence / membar / barrier.cluster instruction in the examples of spec/08 (Part A) and
    /// spec/03 (barrier.cluster in the mbarrier try_wait example 4).
    const MANUAL: &[&str] = &[
        "membar.gl;",
        "membar.cta;",
        "membar.sys;",
        "fence.sc.cta;",
        "fence.sc.cluster;",
        "fence.proxy.alias;",
        "membar.proxy.alias;",
        "fence.mbarrier_init.release.cluster;",
        "fence.proxy.async;",
        "fence.proxy.async.shared::cta;",
        "fence.proxy.async.shared::cluster;",
        "fence.proxy.async.global;",
        "fence.proxy.tensormap::generic.release.gpu;",
        "fence.proxy.tensormap::generic.acquire.gpu [tmap], 128;",
        "barrier.cluster.wait.acquire;",
        "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;",
        "fence.mbarrier_init.release.cluster;",
        "barrier.cluster.arrive.relaxed;",
        "fence.acquire.sync_restrict::shared::cluster.cluster;",
        "fence.release.sync_restrict::shared::cta.cluster;",
        // syntax block lines that are concrete instructions
        "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;",
        // spec/03 §9.7.13.15.16 example 4
        "barrier.cluster.arrive;",
        "barrier.cluster.wait;",
    ];

    #[test]
    fn manual_examples_parse_legal_and_reprint() {
        for text in MANUAL {
            let x = parse(text).unwrap_or_else(|e| panic!("`{text}`: {e}"));
            assert_eq!(format!("{x};"), *text, "canonical order is the manual's");
            assert_eq!(
                x.requirement()
                    .verdict(Target::SM_90A, PtxVersion::MAX_SUPPORTED),
                Verdict::Legal,
                "{text}"
            );
        }
        let x = parse("fence.cluster.sync_restrict::shared::cta.release").unwrap();
        assert_eq!(
            x.to_string(),
            "fence.release.sync_restrict::shared::cta.cluster"
        );
        let x = parse("barrier.cluster.arrive.aligned.release").unwrap();
        assert_eq!(x.to_string(), "barrier.cluster.arrive.release.aligned");
    }

    #[test]
    fn syntax_placeholders_and_bad_forms_are_errors() {
        let err = |t: &str| parse(t).unwrap_err().to_string();
        // The syntax block's placeholders are not instructions.
        assert_eq!(
            err("fence.op_restrict.release.cluster"),
            "expected a qualifier of fence, found `.op_restrict`"
        );
        assert_eq!(err("fence.proxy.proxykind"), "expected proxy kind: one of `.alias`, `.async`, `.tensormap::generic`, `.async::generic`, found none");
        assert_eq!(
            err("membar.level"),
            "expected `.level`: one of `.cta`, `.gl`, `.sys`, found none"
        );
        assert_eq!(
            err("fence.sc"),
            "expected `.scope`: one of `.cta`, `.cluster`, `.gpu`, `.sys`, found none"
        );
        assert_eq!(
            err("fence.sc.cta [a], 128"),
            "expected at most 0 operands (fence takes no operands), found 2"
        );
        assert_eq!(
            err("fence.proxy.tensormap::generic.acquire.gpu [tmap]"),
            "expected operand 2 (size), found end of instruction"
        );
        assert_eq!(
            err("fence.proxy.tensormap::generic.acquire.gpu [tmap], n"),
            "expected size (an integer constant), found a register"
        );
        assert_eq!(
            err("fence.proxy.tensormap::generic.acquire.gpu tmap, 128"),
            "expected addr as an address `[...]`, found a register"
        );
        assert_eq!(err("membar.proxy.tensormap::generic.release.gpu"), "expected a bi-directional proxy kind after `membar.proxy`, found a uni-directional one");
        assert_eq!(
            err("fence.proxy.async.shared"),
            "expected a qualifier of fence.proxy, found `.shared`"
        );
        assert_eq!(
            err("barrier.cluster.wait.release"),
            "expected a qualifier of barrier.cluster, found `.release`"
        );
        assert_eq!(
            err("barrier.cluster.arrive.release.relaxed"),
            "expected at most one `.sem`, found a second one, `.relaxed`"
        );
        assert_eq!(
            err("barrier.cluster.sync"),
            "expected `.arrive` or `.wait`: one of `.arrive`, `.wait`, found none"
        );
        assert_eq!(
            err("fence.mbarrier_init.release.sync_restrict::shared::cta.cluster"),
            "expected at most one of `.op_restrict`, `.sync_restrict`, found both"
        );
    }

    #[test]
    fn requirements_follow_the_notes() {
        let verdict = |t: &str, tgt: Target| {
            parse(t)
                .unwrap()
                .requirement()
                .verdict(tgt, PtxVersion::MAX_SUPPORTED)
        };
        let min = |t: &str, tgt: Target| parse(t).unwrap().requirement().min_ptx_for(tgt);
        assert_eq!(min("fence.sc.gpu", Target::SM_80), Ok(v(7, 0)));
        assert!(min("fence.sc.cluster", Target::SM_80).is_err());
        assert!(min("fence.acquire.gpu", Target::SM_80).is_err());
        assert_eq!(min("fence.acquire.gpu", Target::SM_90), Ok(v(8, 6)));
        assert_eq!(
            min("fence.proxy.tensormap::generic.release.gpu", Target::SM_90),
            Ok(v(8, 3))
        );
        assert_eq!(min("fence.proxy.alias", Target::SM_80), Ok(v(7, 5)));
        assert!(min("fence.proxy.async", Target::SM_80).is_err());
        assert_eq!(min("barrier.cluster.arrive", Target::SM_90), Ok(v(7, 8)));
        assert_eq!(
            min("barrier.cluster.arrive.relaxed.aligned", Target::SM_90),
            Ok(v(8, 0))
        );
        assert_eq!(
            verdict(
                "fence.release.sync_restrict::shared::cta.gpu",
                Target::SM_90A
            ),
            Verdict::WrongTarget {
                why: ".sync_restrict::shared::cta needs .cluster scope".into()
            }
        );
        assert_eq!(
            verdict(
                "fence.acquire.sync_restrict::shared::cta.cluster",
                Target::SM_90A
            ),
            Verdict::WrongTarget {
                why: ".sync_restrict::shared::cta needs .release".into()
            }
        );
        assert!(matches!(
            verdict("fence.mbarrier_init.release.cta", Target::SM_90A),
            Verdict::WrongTarget { .. }
        ));
        assert!(matches!(
            verdict(
                "fence.proxy.tensormap::generic.acquire.gpu [a], 64",
                Target::SM_90A
            ),
            Verdict::WrongTarget { .. }
        ));
    }

    #[test]
    fn operand_slots_and_rows() {
        let mut x = parse("fence.proxy.tensormap::generic.acquire.sys [tmap+8], 128").unwrap();
        let mut seen = Vec::new();
        x.visit_operands(&mut |s| {
            if let Slot::Addr { role, space, addr } = s {
                seen.push(format!("{role}@{space:?}={addr}"));
            } else {
                seen.push("?".into());
            }
        });
        assert_eq!(seen, ["addr@Generic=[tmap+8]"]);
        assert_eq!(x.row(), "fence.proxy.tensormap::generic.acquire.sys +addr");
        assert_eq!(x.family(), "fence");
        let mut y = parse("fence.sc.cta").unwrap();
        y.visit_operands(&mut |_| panic!("no operands"));
        assert_eq!(
            parse("barrier.cluster.wait").unwrap().family(),
            "barrier.cluster"
        );
        assert_eq!(
            parse("membar.proxy.async.global").unwrap().row(),
            "membar.proxy.async.global"
        );
    }
}
