//! Plain (generic-proxy) stores between episodes: they dirty a region when no asynchronous
//! operation is in flight (well defined), exercising the reference's memory merge. Half of them
//! are followed by `fence.proxy.async` (where the target has it), so later async-proxy reads of
//! the stored bytes come both ordered (exact bytes) and unordered (old or new bytes,
//! `proxy.generic_write_async_read`, §8.6).

use super::bytes::Chunk;
use super::world::{World, GDST, GSRC, SBUF};
use super::{Deviation, Intent};
use crate::case::model::StepOp;
use crate::ptx::Statement;
use crate::target::{PtxVersion, Verdict};

/// The fence that orders a thread's generic-proxy writes before its async-proxy accesses.
const PROXY_FENCE: &str = "fence.proxy.async";

pub fn episode(w: &mut World, c: &mut Chunk<'_>, _dev: Option<Deviation>) -> Option<Intent> {
    let who = plain(w, c);
    if c.byte() & 1 == 1 && fence_legal(w) {
        w.step(&who, StepOp::Ptx(PROXY_FENCE.into()));
    }
    None
}

fn fence_legal(w: &World) -> bool {
    Statement::parse(PROXY_FENCE).is_ok_and(|s| {
        s.instr
            .requirement()
            .verdict(w.target, PtxVersion::MAX_SUPPORTED)
            == Verdict::Legal
    })
}

/// One store of 1..=16 bytes at the start of a region, by a chosen CTA and thread (returned,
/// for a fence by the same thread).
pub fn plain(w: &mut World, c: &mut Chunk<'_>) -> super::world::Who {
    let (cta, thread) = w.one(c);
    let who = w.who(&[cta], thread);
    let at = c.pick(&[GSRC, GDST, SBUF]);
    let n = c.range(1, 16);
    let bytes = (0..n).map(|_| c.value_byte()).collect();
    w.step(
        &who,
        StepOp::Store {
            at: at.into(),
            bytes,
        },
    );
    who
}
