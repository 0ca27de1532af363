//! mbarrier instructions (§9.7.13.15): STUB until the typed family lands in main.

use super::{Machine, R};
use crate::ptx::mbarrier::MbarrierOp;

impl Machine<'_> {
    pub(super) fn mbarrier(&mut self, op: &MbarrierOp) -> R {
        match *op {}
    }
}
