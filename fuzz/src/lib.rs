//! Glue shared by the fuzz targets: the generator config they use; the ptxas oracle lives in the
//! CLI crate (`ptxconform::fuzz::ptxas_oracle`, shared with `ptxconform fuzz`).

pub use ptxconform::fuzz::ptxas_oracle::{check_ptxas, ptxas};
use ptxconform_reference::gen::GenConfig;
use std::sync::OnceLock;

/// The config the generated-case targets use: a mix of legal, illegal, undefined and racy programs.
pub fn config() -> &'static GenConfig {
    static C: OnceLock<GenConfig> = OnceLock::new();
    C.get_or_init(GenConfig::mixed)
}
