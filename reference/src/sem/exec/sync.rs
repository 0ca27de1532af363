//! Fences (§9.7.13.4 and the proxy fences): A-EXEC-FENCE-NOOP — the executor runs steps
//! sequentially and models no proxies, so a fence changes nothing it tracks.

use super::{Machine, R};
use crate::ptx::sync::SyncOp;

impl Machine<'_> {
    pub(super) fn sync(&mut self, _op: &SyncOp) -> R {
        Ok(())
    }
}
