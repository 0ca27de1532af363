//! Where and on what a run happened.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where and on what a run happened.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct RunInfo {
    pub device: String,
    pub driver: String,
    pub date: String,
    pub mode: String,
    pub ptxconform: String,
    /// The profile (`spec` or `sm_90`) results were judged under (empty: not recorded).
    #[serde(default)]
    pub profile: String,
    /// A hardware run under the sm_90 profile on a device or driver outside the scope its
    /// silicon readings were recorded in: that scope (the predictions are untested here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outside_evidence: Option<super::SeenOn>,
}

/// Today's date (UTC) as `YYYY-MM-DD`, for run metadata.
pub fn today() -> String {
    // Days since the epoch to a civil date (no date crate needed for one line of metadata).
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let z = (secs / 86400) as i64 + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}
