//! Fences (§9.7.13.4) and barrier.cluster. Steps already run sequentially, so only the proxy
//! fences change modelled state: they order the bytes a proxy wrote for the other proxy
//! ([`crate::sem::proxy`]) and release mbarrier.init operations to the cluster's async proxy.
//! Thread fences, `fence.proxy.alias`, `fence.proxy.tensormap::generic` and `barrier.cluster`
//! stay no-ops (A-EXEC-FENCE-NOOP).
//!
//! Model positions (named, listed in `exec::ASSUMPTIONS`):
//! - A-EXEC-PROXY-CAUSAL: a proxy fence orders every write earlier in step order in its state
//!   space, not only the fencing thread's: the emitted kernel separates steps of different
//!   threads by bar.sync / barrier.cluster release-acquire, which puts those writes before the
//!   fence in causality order (§8.6 asks for a proxy fence in that order, not for one per thread).
//! - A-EXEC-MBAR-INIT-RELEASE: an mbarrier.init is released to a cluster peer's async
//!   complete-tx by fence.mbarrier_init.release.cluster of the initialising thread (the
//!   fence's own restriction, §9.7.13.4), or by a generic-to-async proxy fence of its CTA
//!   (fence.proxy.async{,.shared::cta,.shared::cluster},
//!   fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster); barrier.cluster's
//!   own release is generic-proxy only, so it does not count. Without one the model notes
//!   `proxy.mbarrier_init_unreleased` and still executes the complete-tx.

use super::{mbar_key, Machine, R};
use crate::ptx::sync::{AsyncSpace, ProxyKind, SyncOp, SyncRestrict};
use crate::sem::memory::RegionId;
use crate::sem::proxy::Proxy;

/// Which shared memory (or global memory) a proxy fence covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Covers {
    All,
    Global,
    OwnCta,
    Cluster,
}

impl Machine<'_> {
    pub(super) fn sync(&mut self, op: &SyncOp) -> R {
        let both = [Proxy::Generic, Proxy::Async];
        match op {
            SyncOp::Proxy {
                kind: ProxyKind::Async(space),
                ..
            } => {
                let covers = match space {
                    None => Covers::All,
                    Some(AsyncSpace::Global) => Covers::Global,
                    Some(AsyncSpace::SharedCta) => Covers::OwnCta,
                    Some(AsyncSpace::SharedCluster) => Covers::Cluster,
                };
                self.proxy_fence(covers, &both);
                if covers != Covers::Global {
                    self.release_inits(|_| true);
                }
            }
            // Uni-directional generic → async (§9.7.13.4): the async proxy's own writes are
            // ordered for the generic proxy by their observed completion instead.
            SyncOp::ProxyAsyncGeneric { restrict, .. } => match restrict {
                SyncRestrict::SharedCta => {
                    self.proxy_fence(Covers::OwnCta, &[Proxy::Generic]);
                    self.release_inits(|_| true);
                }
                SyncRestrict::SharedCluster => {
                    self.proxy_fence(Covers::Cluster, &[Proxy::Generic]);
                }
            },
            SyncOp::MbarrierInit { .. } => {
                let thread = self.thread;
                self.release_inits(|t| t == thread);
            }
            // A-EXEC-FENCE-NOOP.
            SyncOp::Thread { .. }
            | SyncOp::SyncRestrict { .. }
            | SyncOp::Proxy {
                kind: ProxyKind::Alias,
                ..
            }
            | SyncOp::ProxyTensormap { .. }
            | SyncOp::Membar { .. }
            | SyncOp::ClusterArrive { .. }
            | SyncOp::ClusterWait { .. } => {}
        }
        Ok(())
    }

    /// `proxy.fence_async` / `proxy.fence_async_generic` over the memory `covers` names
    /// (A-EXEC-PROXY-CAUSAL: every earlier write in it, whichever thread made it).
    fn proxy_fence(&mut self, covers: Covers, from: &[Proxy]) {
        let (cta, first, size) = (
            self.cta,
            self.cta / self.cluster * self.cluster,
            self.cluster,
        );
        self.mem.proxy_fence(
            |r| match (covers, r) {
                (Covers::All, RegionId::Global(_)) | (Covers::Global, RegionId::Global(_)) => true,
                (Covers::OwnCta, RegionId::Shared { cta: c }) => c == cta,
                (Covers::All | Covers::Cluster, RegionId::Shared { cta: c }) => {
                    (first..first + size).contains(&c)
                }
                _ => false,
            },
            from,
        );
    }

    /// Releases the executing CTA's unreleased mbarrier.init operations whose initialising
    /// thread `by` accepts (A-EXEC-MBAR-INIT-RELEASE).
    fn release_inits(&mut self, by: impl Fn(u32) -> bool) {
        let cta = self.cta;
        self.unreleased_inits
            .retain(|_, (c, t)| !(*c == cta && by(*t)));
    }

    /// mbarrier.init of `(cta, offset)` by the executing thread: unreleased until a fence.
    pub(super) fn init_done(&mut self, (cta, off): (u32, u64)) {
        let who = (self.cta, self.thread);
        self.unreleased_inits.insert(mbar_key(cta, off), who);
    }
}
