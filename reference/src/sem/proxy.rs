//! Memory proxies (§8.6, §9.7.9.25.2): which method of access wrote a byte last, and the rules
//! that say when the other proxy sees that write.
//!
//! The generic proxy is every ordinary access (the `store` step, `cp.async` — "a weak memory
//! operation performed in the generic proxy", §9.7.9.25.3.1 — and `tcgen05.alloc`'s address
//! word); the async proxy is `cp{.reduce}.async.bulk{.tensor}` (§9.7.9.25.2). [`super::memory`]
//! keeps, per byte, an [`Unfenced`] mark while the other proxy is not yet ordered with the last
//! write; the executor reads through a proxy and records a [`Note`] naming the rule whenever a
//! read or write crosses proxies without the fence the rule asks for.
//!
//! Crossing proxies without a fence is not undefined behaviour (the text only says a fence is
//! "required"/"needs"): the bytes concerned become uncertain — old ∪ new values — and the
//! execution says which rule made them so.

use super::memory::ByteSet;

/// A method of memory access (§8.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Proxy {
    Generic,
    Async,
}

impl Proxy {
    pub fn other(self) -> Proxy {
        match self {
            Proxy::Generic => Proxy::Async,
            Proxy::Async => Proxy::Generic,
        }
    }
}

/// A byte whose last write (through `writer`) the other proxy is not ordered with yet: a read
/// through the other proxy may still see any value of `stale` (the values before that write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unfenced {
    pub writer: Proxy,
    pub stale: ByteSet,
}

/// What a rule does to the bytes it governs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Effect {
    /// Without the fence the rule asks for, the bytes become uncertain (old ∪ new).
    Uncertain,
    /// An ordering the rule establishes: the bytes it covers become certain for the other proxy.
    Orders,
    /// Recorded in the execution's notes; the modelled state is unchanged (see the rule).
    Noted,
}

/// One rule about proxies, as the spec states it (one sentence each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProxyRule {
    pub id: &'static str,
    pub section: &'static str,
    pub effect: Effect,
    pub summary: &'static str,
}

macro_rules! rules {
    ($($name:ident = ($id:literal, $sec:literal, $effect:ident, $summary:literal);)*) => {
        $(pub const $name: ProxyRule =
            ProxyRule { id: $id, section: $sec, effect: Effect::$effect, summary: $summary };)*
        /// Every proxy rule of the model, in declaration order.
        pub const CATALOGUE: &[ProxyRule] = &[$($name),*];
    };
}

rules! {
    GENERIC_WRITE_ASYNC_READ = ("proxy.generic_write_async_read", "8.6, 9.7.9.25.2", Uncertain,
        "an async-proxy read (bulk / tensor copy source, reduction destination) of bytes written through the generic proxy with no fence.proxy.async for their state space since may see the value before that write");
    GENERIC_WRITE_ASYNC_WRITE = ("proxy.generic_write_async_write", "8.6, 9.7.9.25.2", Uncertain,
        "an async-proxy write over bytes written through the generic proxy with no fence.proxy.async since is unordered with that write: each byte ends as either value");
    ASYNC_WRITE_GENERIC_READ = ("proxy.async_write_generic_read", "9.7.9.25.2", Uncertain,
        "a generic-proxy read of bytes an async-proxy write completed into, before that completion is observed, may see the value before the write");
    COMPLETION_FENCE = ("proxy.completion_fence", "9.7.9.25.2", Orders,
        "the observed completion of a cp{.reduce}.async.bulk operation (async-group wait or mbarrier phase) is followed by an implicit generic-async proxy fence: its result is visible to the generic proxy");
    FENCE_PROXY_ASYNC = ("proxy.fence_async", "9.7.13.4", Orders,
        "fence.proxy.async{.global|.shared::cta|.shared::cluster} (membar.proxy.async) orders generic- and async-proxy accesses both ways, in that state space (all of them without one)");
    FENCE_ASYNC_GENERIC = ("proxy.fence_async_generic", "9.7.13.4", Orders,
        "fence.proxy.async::generic.{release|acquire}.sync_restrict::shared::{cta|cluster}.cluster orders prior generic-proxy accesses before later async-proxy accesses to .shared::cta (release) / .shared::cluster (acquire) objects");
    MBARRIER_INIT_UNRELEASED = ("proxy.mbarrier_init_unreleased", "9.7.13.4", Noted,
        "a cluster peer's async operation signals complete-tx on an mbarrier whose mbarrier.init the initialising thread did not release with fence.mbarrier_init.release.cluster (or a generic-to-async proxy fence): the peer may see the object uninitialised");
}

/// Looks a proxy rule up by id.
pub fn rule(id: &str) -> Option<&'static ProxyRule> {
    CATALOGUE.iter().find(|r| r.id == id)
}

/// A proxy rule that applied during an execution: where, and to what.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Note {
    pub rule: &'static str,
    pub section: &'static str,
    pub step: usize,
    pub cta: u32,
    pub detail: String,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "step {} cta {}: [{}] (§{}): {}",
            self.step, self.cta, self.rule, self.section, self.detail
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_unique_sections_present_and_disjoint_from_ub() {
        let mut seen = HashSet::new();
        for r in CATALOGUE {
            assert!(seen.insert(r.id), "duplicate {}", r.id);
            assert!(r.id.starts_with("proxy."), "{}", r.id);
            assert!(r.section.starts_with(|c: char| c.is_ascii_digit()));
            assert!(
                super::super::ub::rule(r.id).is_none(),
                "{} is also UB",
                r.id
            );
        }
        assert_eq!(rule("proxy.fence_async"), Some(&FENCE_PROXY_ASYNC));
        assert_eq!(rule("proxy.nope"), None);
        assert_eq!(Proxy::Generic.other(), Proxy::Async);
    }
}
