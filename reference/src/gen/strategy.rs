//! proptest strategies over the generator's space: a byte vector mapped through [`generate`], so
//! proptest's shrinking (shorter vectors, smaller bytes) shrinks programs too.

use super::{generate_bytes, GenConfig, Generated};
use crate::case::model::Case;
use proptest::collection::vec;
use proptest::prelude::*;

/// Input bytes long enough for a header and up to `max_episodes` episodes.
pub fn bytes(cfg: &GenConfig) -> impl Strategy<Value = Vec<u8>> {
    vec(
        any::<u8>(),
        0..super::HEADER + super::BLOCK * cfg.max_episodes.max(1),
    )
}

/// Generated cases under `cfg`, with their intent.
pub fn generated(cfg: GenConfig) -> impl Strategy<Value = Generated> {
    bytes(&cfg).prop_map(move |b| generate_bytes(&b, &cfg))
}

/// Legal, well-defined generated cases (the default config).
pub fn case() -> impl Strategy<Value = Case> {
    generated(GenConfig::legal()).prop_map(|g| g.case)
}
