//! Static legality of the mbarrier instructions: the targets and PTX ISA versions each form
//! needs, from the notes of §9.7.13.15, and the rules that make a well-formed form [`Support::never`].

use super::{v, ArriveMode, Dest, Kind, MbarSpace, MbarrierOp, Order, WaitKind, WaitOn};
use crate::ptx::common::{Scope, Sem};
use crate::target::{PtxVersion, Requirement, Support};

impl Order {
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

/// [`Family::requirement`](crate::ptx::Family::requirement) of an mbarrier instruction.
pub(super) fn requirement(op: &MbarrierOp) -> Requirement {
    // Every mbarrier instruction: "Requires sm_80 or higher", "Introduced in PTX ISA 7.0".
    let mut r = Requirement::new().and(Support::at_least("mbarrier", 80, v(7, 0)));
    let space = match op {
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
        if matches!(op.kind(), Kind::Arrive | Kind::Tx) {
            r.push(Support::at_least(".shared::cluster", 90, v(8, 0)));
        } else {
            r.push(Support::never(
                "§9.7.13.15.8: this mbarrier operation is not supported on .shared::cluster",
            ));
        }
    }
    match op {
        MbarrierOp::Init { .. } | MbarrierOp::Inval { .. } | MbarrierOp::PendingCount { .. } => {}
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
                ArriveMode::ExpectTx { .. } => r.push(Support::at_least(".expect_tx", 90, v(8, 0))),
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
