//! The trap budget (`fuzz --trap-budget F`): a program the reference predicts may trap costs a
//! fresh worker process and CUDA context (0.2–0.5 s on an H100), and a trapping shape traps in
//! every value set, so a campaign that runs them all is bound by traps. The budget is the largest
//! share F of the campaign's hardware wall time spent on trapping launches: a share, not a count,
//! because what a trap costs differs between machines and drivers while the share is what the
//! rest of the campaign loses. Trapping launches run as their own batch, timed; before a block
//! runs, the time its traps may take is `F/(1-F)` × the other hardware time so far minus the
//! trap time so far, divided by the measured cost of one trap.
//!
//! Which predicted traps run, by value ([`select`]): first those of a rule whose silicon
//! evidence is thin (fewer than [`THIN_BELOW`] runs: the corpus's recorded runs, counted as
//! `ptxconform rules` counts them, plus this campaign's), fewest runs first; then those that hit a
//! coverage cell no program has hit; then at most one per shape. The rest are skipped (counted
//! as skipped, never as passed).

use super::coverage::{Cell, CoverageMap};
pub use crate::evidence::THIN_BELOW;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The largest share of hardware wall time for trapping launches (`None`: every program runs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrapBudget(pub f64);

impl std::str::FromStr for TrapBudget {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let f: f64 = s
            .parse()
            .map_err(|_| format!("`{s}`: a share of the hardware time, 0 to 1 (e.g. 0.2)"))?;
        if !(0.0..=1.0).contains(&f) {
            return Err(format!("`{s}`: a share of the hardware time is 0 to 1"));
        }
        Ok(TrapBudget(f))
    }
}

/// Hardware time and runs by kind of launch (`campaign.json`'s `trap_budget`), over resumed runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// The budget share (absent: no budget, every program ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub share: Option<f64>,
    /// Programs predicted to trap, run and skipped.
    pub predicted_traps: u64,
    pub trap_runs: u64,
    pub skipped: u64,
    /// Programs predicted to hang (all run: a bounded wait), and their batches' seconds.
    pub predicted_hangs: u64,
    pub hang_seconds: f64,
    /// Seconds of the trap batches and of every other hardware batch.
    pub trap_seconds: f64,
    pub other_seconds: f64,
    /// Runs of predicted traps by rule, this campaign's evidence beside the corpus's.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub runs_by_rule: BTreeMap<String, u64>,
}

impl Ledger {
    /// Trapping programs the next block may run under `share`.
    pub fn allowance(&self, share: f64) -> usize {
        if share >= 1.0 {
            return usize::MAX;
        }
        if share <= 0.0 {
            return 0;
        }
        if self.trap_runs == 0 {
            return 1; // one to learn what a trap costs here
        }
        let per_trap = self.trap_seconds / self.trap_runs as f64;
        let left =
            share / (1.0 - share) * (self.other_seconds + self.hang_seconds) - self.trap_seconds;
        if left <= 0.0 || per_trap <= 0.0 {
            0
        } else {
            (left / per_trap).floor() as usize
        }
    }

    /// The share of hardware time trapping launches took.
    pub fn trap_share(&self) -> f64 {
        let all = self.trap_seconds + self.hang_seconds + self.other_seconds;
        if all > 0.0 {
            self.trap_seconds / all
        } else {
            0.0
        }
    }

    /// `traps 12 run / 340 skipped (trap budget 0.20; 18% of hardware time), hangs 40 (2%)`.
    pub fn describe(&self) -> String {
        let all = (self.trap_seconds + self.hang_seconds + self.other_seconds).max(1e-9);
        let budget = self
            .share
            .map_or("no trap budget".into(), |s| format!("trap budget {s:.2}"));
        format!(
            "predicted traps {} run, {} skipped ({budget}; {:.0}% of hardware time), predicted hangs {} ({:.0}%)",
            self.trap_runs,
            self.skipped,
            100.0 * self.trap_share(),
            self.predicted_hangs,
            100.0 * self.hang_seconds / all
        )
    }
}

/// A program predicted to trap.
#[derive(Clone, Debug)]
pub struct Candidate<'a> {
    pub shape: u64,
    pub rule: Option<&'a str>,
    pub cells: &'a [Cell],
}

/// Which of `cands` (in program order) run within `allowance`: thin evidence first (fewest runs,
/// `runs(rule)`, counting those chosen), then a cell not hit in `map` (nor by one chosen), then
/// the first of a shape none of whose programs ran (`shapes_run`, updated).
pub fn select(
    cands: &[Candidate<'_>],
    allowance: usize,
    runs: &dyn Fn(&str) -> u64,
    map: &CoverageMap,
    shapes_run: &mut BTreeSet<u64>,
) -> Vec<bool> {
    let mut chosen = vec![false; cands.len()];
    let mut left = allowance;
    let mut extra: BTreeMap<&str, u64> = BTreeMap::new();
    // Thin evidence, the fewest runs first.
    while left > 0 {
        let thinnest = cands
            .iter()
            .enumerate()
            .filter(|(i, _)| !chosen[*i])
            .filter_map(|(i, c)| {
                let r = c.rule?;
                let n = runs(r) + extra.get(r).copied().unwrap_or(0);
                (n < THIN_BELOW as u64).then_some((n, i, r))
            })
            .min();
        let Some((_, i, r)) = thinnest else { break };
        chosen[i] = true;
        *extra.entry(r).or_default() += 1;
        left -= 1;
    }
    // A cell nobody has hit.
    let mut claimed: BTreeSet<&Cell> = BTreeSet::new();
    for (i, c) in cands.iter().enumerate() {
        if left == 0 {
            break;
        }
        if chosen[i] {
            claimed.extend(c.cells);
            continue;
        }
        if c.cells
            .iter()
            .any(|x| map.is_new(x) && !claimed.contains(x))
        {
            chosen[i] = true;
            claimed.extend(c.cells);
            left -= 1;
        }
    }
    // One per shape.
    for (i, c) in cands.iter().enumerate() {
        if chosen[i] {
            shapes_run.insert(c.shape);
        }
    }
    for (i, c) in cands.iter().enumerate() {
        if left == 0 {
            break;
        }
        if !chosen[i] && shapes_run.insert(c.shape) {
            chosen[i] = true;
            left -= 1;
        }
    }
    chosen
}
