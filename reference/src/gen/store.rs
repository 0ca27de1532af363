//! Plain (generic-proxy) stores between episodes: they dirty a region when no asynchronous
//! operation is in flight (well defined), exercising the reference's memory merge.

use super::bytes::Chunk;
use super::world::{World, GDST, GSRC, SBUF};
use super::{Deviation, Intent};
use crate::case::model::StepOp;

pub fn episode(w: &mut World, c: &mut Chunk<'_>, _dev: Option<Deviation>) -> Option<Intent> {
    plain(w, c);
    None
}

/// One store of 1..=16 bytes at the start of a region, by a chosen CTA and thread.
pub fn plain(w: &mut World, c: &mut Chunk<'_>) {
    let (cta, thread) = w.one(c);
    let who = w.who(&[cta], thread);
    let at = c.pick(&[GSRC, GDST, SBUF]);
    let n = c.range(1, 16);
    let bytes = (0..n).map(|_| c.byte()).collect();
    w.step(
        &who,
        StepOp::Store {
            at: at.into(),
            bytes,
        },
    );
}
