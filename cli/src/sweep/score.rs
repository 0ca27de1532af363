//! How rows are scored and counted: per class dimension (and per UB rule), against the targets
//! of issue 34, with the trap kinds predicted against those observed.

use super::Row;
use ptxconform_reference::case::TrapKind;
use ptxconform_reference::gen::sweep::placement::{Tx, SMEM_MAX};
use ptxconform_reference::gen::sweep::Combo;
use ptxconform_reference::sem::exec::{HwOutcome, OutcomeClass, Prediction, Undecided};
use serde::Serialize;
use std::collections::BTreeSet;

/// An observed trap's kind against the prediction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KindScore {
    /// The prediction is that trap, and only it.
    Exact,
    /// The prediction allows that trap among other outcomes.
    Undecided,
    /// The prediction does not allow it.
    Wrong,
}

impl KindScore {
    pub fn of(p: &Prediction, kind: TrapKind) -> KindScore {
        let o = HwOutcome::Traps(kind);
        match (p.allows(o), p.undecided()) {
            (false, _) => KindScore::Wrong,
            (true, None) => KindScore::Exact,
            (true, Some(_)) => KindScore::Undecided,
        }
    }
}

/// Counts of one class value.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Tally {
    /// Well-defined configurations observed, and those whose bytes matched exactly.
    pub defined: u64,
    pub defined_agree: u64,
    /// Undefined configurations observed, and those whose outcome class the prediction allows.
    pub undefined: u64,
    pub undefined_agree: u64,
    /// Of those allowed, predicted by a set of several classes (undecided: against the target).
    pub undefined_undecided: u64,
    /// Configurations with no observation.
    pub not_observed: u64,
    /// Undefined completions with bytes predicted (maps as encoded), and those that matched.
    pub undefined_bytes: u64,
    pub undefined_bytes_agree: u64,
    /// Observed traps, those whose kind was predicted exactly, and those allowed among others.
    pub traps: u64,
    pub traps_exact: u64,
    pub traps_undecided: u64,
}

impl Tally {
    pub(super) fn add(&mut self, r: &Row) {
        match (r.agree, r.well_defined()) {
            (None, _) => self.not_observed += 1,
            (Some(a), true) => {
                self.defined += 1;
                self.defined_agree += a as u64;
            }
            (Some(a), false) => {
                self.undefined += 1;
                self.undefined_agree += a as u64;
                let several = r.prediction().undecided() == Some(Undecided::Class);
                self.undefined_undecided += (a && several) as u64;
            }
        }
        if let Some(b) = r.bytes {
            self.undefined_bytes += 1;
            self.undefined_bytes_agree += b as u64;
        }
        if let Some(k) = r.kind {
            self.traps += 1;
            self.traps_exact += (k == KindScore::Exact) as u64;
            self.traps_undecided += (k == KindScore::Undecided) as u64;
        }
    }

    /// Undefined configurations whose class was predicted by a set of that one class.
    pub fn undefined_decided(&self) -> u64 {
        self.undefined_agree - self.undefined_undecided
    }

    /// The three figures of [`TARGETS`]: (met, of).
    pub fn figures(&self) -> [(u64, u64); 3] {
        [
            (self.defined_agree, self.defined),
            (self.undefined_decided(), self.undefined),
            (self.traps_exact, self.traps),
        ]
    }
}

/// A target of issue 34.
pub struct Target {
    pub what: &'static str,
    /// Percent.
    pub at_least: f64,
}

/// Exact bytes (well defined), outcome class (undefined), exact trap kind (observed traps).
pub const TARGETS: [Target; 3] = [
    Target {
        what: "well defined, exact bytes",
        at_least: 99.9,
    },
    Target {
        what: "undefined, outcome class (undecided sets count against)",
        at_least: 97.0,
    },
    Target {
        what: "observed traps, exact trap kind (undecided sets count against)",
        at_least: 90.0,
    },
];

pub fn pct(a: u64, n: u64) -> String {
    if n == 0 {
        "–".to_string()
    } else {
        format!("{:.2}%", 100.0 * a as f64 / n as f64)
    }
}

/// The class dimensions agreement is reported over; the `v2:` ones only for draw v2 rows.
pub const DIMENSIONS: [&str; 13] = [
    "mode",
    "rank",
    "type",
    "swizzle",
    "interleave",
    "oob",
    "predicted",
    "rule",
    "v2: region size",
    "v2: allocation",
    "v2: buffer start mod 128",
    "v2: rows narrower than their padding",
    "v2: expect-tx",
];

fn json_name<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|x| x.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// An outcome as tables name it.
pub fn outcome_name(o: HwOutcome) -> String {
    match o {
        HwOutcome::Completes => "completes".into(),
        HwOutcome::Hangs => "hangs".into(),
        HwOutcome::Traps(k) => format!("trap {k}"),
        HwOutcome::Refused => "refused".into(),
    }
}

fn class_name(c: OutcomeClass) -> &'static str {
    match c {
        OutcomeClass::Completes => "completion",
        OutcomeClass::Hangs => "hang",
        OutcomeClass::Traps => "trap",
        OutcomeClass::Refused => "driver refusal",
    }
}

/// A prediction as tables name it: its outcomes.
pub fn prediction_name(p: &[HwOutcome]) -> String {
    let all: Vec<String> = p.iter().map(|&o| outcome_name(o)).collect();
    all.join(" or ")
}

/// The value of `dim` for a row (none: the dimension does not apply).
pub fn dimension_value(r: &Row, dim: &str) -> Option<String> {
    let pl = r.key.placement.as_ref();
    Some(match dim {
        "mode" => json_name(&r.key.mode),
        "rank" => r.key.rank.to_string(),
        "type" => json_name(&r.key.ty),
        "swizzle" => json_name(&r.key.swizzle),
        "interleave" => json_name(&r.key.interleave),
        "oob" => json_name(&r.key.oob),
        "predicted" => {
            let classes: BTreeSet<OutcomeClass> = r.predicted.iter().map(|o| o.class()).collect();
            let names: Vec<&str> = classes.into_iter().map(class_name).collect();
            match names.as_slice() {
                [one] => one.to_string(),
                _ => format!("undecided: {}", names.join(" or ")),
            }
        }
        "rule" => r.rule.clone().unwrap_or_else(|| "(well defined)".into()),
        "v2: region size" => json_name(&pl?.size),
        "v2: allocation" => json_name(&pl?.allocation),
        "v2: buffer start mod 128" => match pl?.base {
            b if b % 16 != 0 => "off the 16-byte grid".into(),
            b => format!("{:3}", b % 128),
        },
        "v2: rows narrower than their padding" => pl?.narrow.to_string(),
        "v2: expect-tx" => match (pl?.tx, r.expect_tx) {
            (Some(Tx::Large), Some(t)) if t >= 65_536 => "large (≥ 65,536 B)".into(),
            (Some(t), _) => json_name(&t),
            (None, _) => return None,
        },
        _ => return None,
    })
}

/// What draw v2 reached beyond the per-dimension tables.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Coverage {
    /// Draw v2 configurations.
    pub configurations: u64,
    /// Type × swizzle × interleave combinations drawn, of [`Combo::COUNT`].
    pub combos: usize,
    pub combos_of: usize,
    /// Buffer starts mod 1024 on the 16-byte grid drawn, of 64; starts off the grid.
    pub residues_1024: usize,
    pub off_grid: u64,
    /// Allocations above 48 KiB (opt-in), and at the device's maximum.
    pub above_48k: u64,
    pub at_max: u64,
    /// Loads whose expect-tx total 65,536 bytes or more, and with several expect-tx.
    pub tx_65536: u64,
    pub tx_split: u64,
}

impl Coverage {
    pub fn of(rows: &[Row]) -> Coverage {
        let mut combos = BTreeSet::new();
        let mut residues = BTreeSet::new();
        let mut c = Coverage {
            combos_of: Combo::COUNT,
            ..Coverage::default()
        };
        for r in rows {
            let Some(pl) = &r.key.placement else { continue };
            c.configurations += 1;
            combos.insert((
                json_name(&r.key.ty),
                json_name(&r.key.swizzle),
                json_name(&r.key.interleave),
            ));
            if pl.base % 16 == 0 {
                residues.insert(pl.base);
            } else {
                c.off_grid += 1;
            }
            let a = r.shared_allocation.unwrap_or(0);
            c.above_48k += (a > 48 * 1024) as u64;
            c.at_max += (a == SMEM_MAX) as u64;
            c.tx_65536 += r.expect_tx.is_some_and(|t| t >= 65_536) as u64;
            c.tx_split += (pl.tx == Some(Tx::Large)) as u64;
        }
        c.combos = combos.len();
        c.residues_1024 = residues.len();
        c
    }
}
