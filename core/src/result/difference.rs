//! What the judge found between the model's execution and an observation, typed. A result's
//! detail is rendered from these; fuzz signatures, attribution's comparison of builds and
//! campaigns decide on them, never on the detail's words.

use super::ExpectedByte;
use ptxconform_reference::case::Ending;
use ptxconform_reference::sem::exec::{HwOutcome, Undecided};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One difference between the model and what a device showed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Difference {
    /// The run did not complete: a trap (its CUDA error), a wait that hit its bound, the host
    /// watchdog, or the driver's refusal of a tensor map.
    Ending { ended: Ending },
    /// The case expects the driver to refuse a tensor map (`expect: driver_rejects`); the run was
    /// not refused. `model`: the maps the model's driver refuses, with the rule of each.
    NotRefused {
        ended: Ending,
        model: Vec<(String, String)>,
    },
    /// The case is undefined and the run ended outside the model's predicted outcomes.
    Mispredicted {
        predicted: Vec<HwOutcome>,
        ended: Ending,
    },
    /// The case is undefined and the model's prediction allows several outcome classes (or trap
    /// kinds): the run could not tell the model wrong. Not a failure; counted.
    Undecided {
        /// The UB rule id.
        rule: String,
        predicted: Vec<HwOutcome>,
        between: Undecided,
    },
    /// Canary bytes around these global regions were overwritten.
    Canaries { regions: Vec<String> },
    /// These CTAs did not reach the end of the program.
    NotReached { ctas: Vec<u32> },
    /// A region read back at another length than the case declares.
    Length {
        region: String,
        observed: usize,
        declared: usize,
    },
    /// A part of a region was observed that lies (partly) outside it.
    OutsideRegion {
        region: String,
        offset: u64,
        len: usize,
        region_len: usize,
    },
    /// The first byte of a region outside the model's allowed set.
    Byte {
        region: String,
        offset: usize,
        expected: ExpectedByte,
        observed: u8,
    },
    /// The first Tensor Memory cell the model does not accept (`expected: None`: unwritten).
    TensorMemory {
        region: String,
        lane: usize,
        column: usize,
        expected: Option<u32>,
        observed: u32,
    },
    /// An mbarrier's phase parity differs: the model's current parity, and what
    /// `mbarrier.test_wait.parity` said for parities 0 and 1.
    Parity {
        mbarrier: String,
        parity: u32,
        parity0_done: bool,
        parity1_done: bool,
    },
}

/// A region, mbarrier or Tensor Memory key without its `@ctaN`.
fn base(key: &str) -> &str {
    key.split('@').next().unwrap_or(key)
}

/// How a run ended, in a few words.
fn ending_summary(e: &Ending) -> String {
    match e {
        Ending::Completed => "completed".into(),
        Ending::Timeout(steps) => format!("timed out in wait step(s) {steps:?}"),
        Ending::Trap { kind, code } => format!("trapped {kind} (CUDA error {code})"),
        Ending::Watchdog(ms) => format!("hit the watchdog after {ms} ms"),
        Ending::Rejected(m) => format!("the driver refused a tensor map: {m}"),
    }
}

/// Predicted outcomes in words.
fn outcomes(o: &[HwOutcome]) -> String {
    let all: Vec<String> = o.iter().map(|o| o.to_string()).collect();
    all.join(" or ")
}

/// The maps the model's driver refuses (map, rule), in words.
pub fn model_refusals(model: &[(String, String)]) -> String {
    if model.is_empty() {
        return "the driver model refuses no map".to_string();
    }
    let maps: Vec<String> = model.iter().map(|(m, r)| format!("`{m}`: {r}")).collect();
    format!("the driver model refuses {}", maps.join(", "))
}

impl Difference {
    /// Where it shows, stable across programs that fail the same way: the region, mbarrier or
    /// Tensor Memory without its CTA, the trap kind, or what kind of difference it is.
    pub fn site(&self) -> String {
        match self {
            Difference::Ending {
                ended: Ending::Trap { kind, .. },
            } => format!("trap {kind}"),
            Difference::Ending {
                ended: Ending::Timeout(_) | Ending::Watchdog(_),
            } => "timeout".into(),
            Difference::Ending {
                ended: Ending::Rejected(_),
            } => "driver refusal".into(),
            Difference::Ending {
                ended: Ending::Completed,
            } => "completed".into(),
            Difference::NotRefused { .. } => "not refused".into(),
            Difference::Mispredicted { ended, .. } => {
                format!(
                    "mispredicted: {}",
                    Difference::Ending {
                        ended: ended.clone()
                    }
                    .site()
                )
            }
            Difference::Undecided { .. } => "undecided".into(),
            Difference::Canaries { .. } => "canaries".into(),
            Difference::NotReached { .. } => "not reached".into(),
            Difference::Length { region, .. }
            | Difference::OutsideRegion { region, .. }
            | Difference::Byte { region, .. } => base(region).to_string(),
            Difference::TensorMemory { region, .. } => format!("tmem {}", base(region)),
            Difference::Parity { mbarrier, .. } => format!("mbarrier {}", base(mbarrier)),
        }
    }
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::Ending { ended } => match ended {
                Ending::Trap { kind, code } => write!(f, "trap {kind} (CUDA error {code})"),
                Ending::Watchdog(ms) => write!(f, "timeout: watchdog after {ms} ms"),
                Ending::Timeout(steps) => write!(f, "timeout in wait step(s) {steps:?}"),
                Ending::Rejected(message) => write!(f, "driver: {message}"),
                Ending::Completed => f.write_str("completed"),
            },
            Difference::NotRefused { ended, model } => write!(
                f,
                "expected the driver to refuse a tensor map ({}); the run {}",
                model_refusals(model),
                ending_summary(ended)
            ),
            Difference::Mispredicted { predicted, ended } => write!(
                f,
                "outcome mispredicted: the run {}, the model predicts {}",
                ending_summary(ended),
                outcomes(predicted)
            ),
            Difference::Undecided {
                predicted, between, ..
            } => write!(
                f,
                "prediction undecided between {}: {}",
                match between {
                    Undecided::Class => "outcome classes",
                    Undecided::Kind => "trap kinds",
                },
                outcomes(predicted)
            ),
            Difference::Canaries { regions } => {
                write!(f, "canary bytes overwritten around {regions:?}")
            }
            Difference::NotReached { ctas } => write!(f, "CTAs {ctas:?} did not reach the end"),
            Difference::Length {
                region,
                observed,
                declared,
            } => write!(
                f,
                "{region}: {observed} bytes observed, the case declares {declared}"
            ),
            Difference::OutsideRegion {
                region,
                offset,
                len,
                region_len,
            } => write!(
                f,
                "{region}: bytes from {offset} ({len} of them) observed, the region has {region_len}"
            ),
            Difference::Byte {
                region,
                offset,
                observed,
                ..
            } => write!(f, "{region} byte {offset}: observed {observed:#04x}"),
            Difference::TensorMemory {
                region,
                lane,
                column,
                expected,
                observed,
            } => {
                let expected = match expected {
                    Some(v) => format!("Known({v})"),
                    None => "Unwritten".into(),
                };
                write!(
                    f,
                    "Tensor Memory {region} lane {lane} column {column}: observed {observed:#010x}, \
                     expected {expected}"
                )
            }
            Difference::Parity {
                mbarrier,
                parity,
                parity0_done,
                parity1_done,
            } => write!(
                f,
                "mbarrier {mbarrier}: phase parity {parity} expected, test_wait.parity gave \
                 ({parity0_done}, {parity1_done})"
            ),
        }
    }
}

/// The differences as one line, in order.
pub fn render(ds: &[Difference]) -> String {
    ds.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_drop_the_cta_and_name_the_kind() {
        let byte = Difference::Byte {
            region: "buf@cta3".into(),
            offset: 2,
            expected: ExpectedByte::OneOf(vec![1, 2]),
            observed: 9,
        };
        assert_eq!(byte.site(), "buf");
        assert_eq!(byte.to_string(), "buf@cta3 byte 2: observed 0x09");
        let trap = Difference::Ending {
            ended: Ending::trap(700),
        };
        assert_eq!(trap.site(), "trap IllegalAddress");
        assert_eq!(trap.to_string(), "trap IllegalAddress (CUDA error 700)");
        let parity = Difference::Parity {
            mbarrier: "bar@cta1".into(),
            parity: 1,
            parity0_done: true,
            parity1_done: true,
        };
        assert_eq!(parity.site(), "mbarrier bar");
        let tmem = Difference::TensorMemory {
            region: "t@cta0".into(),
            lane: 3,
            column: 1,
            expected: None,
            observed: 5,
        };
        assert_eq!(
            tmem.to_string(),
            "Tensor Memory t@cta0 lane 3 column 1: observed 0x00000005, expected Unwritten"
        );
        assert_eq!(
            render(&[
                Difference::NotReached { ctas: vec![0] },
                Difference::Canaries {
                    regions: vec!["src".into()]
                }
            ]),
            "CTAs [0] did not reach the end; canary bytes overwritten around [\"src\"]"
        );
        // Round trip through JSON (journals and summaries hold them).
        for d in [byte, trap, parity, tmem] {
            let j = serde_json::to_string(&d).unwrap();
            assert_eq!(serde_json::from_str::<Difference>(&j).unwrap(), d, "{j}");
        }
    }
}
