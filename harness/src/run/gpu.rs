//! The hardware side of a run (emission → worker → comparison). Filled in with the emitter.

use super::{Loaded, RunArgs};
use crate::gpu::DeviceInfo;
use crate::journal::Journal;
use crate::report::{CaseResult, RunInfo, Verdict};
use indicatif::ProgressBar;

pub fn run_cases(_args: &RunArgs, _dev: &DeviceInfo, todo: &[&Loaded], journal: &mut Journal, pb: &ProgressBar, _info: &RunInfo) -> Result<Vec<CaseResult>, String> {
    let mut out = Vec::new();
    for l in todo {
        let (mut r, _) = super::reference::evaluate(&l.file, &l.case);
        if !r.verdict.is_failure() {
            r.verdict = Verdict::NotRun;
            r.detail = "hardware execution not wired yet".into();
        }
        journal.append(&r)?;
        pb.inc(1);
        out.push(r);
    }
    Ok(out)
}
