//! What a completed job showed of a case, decoded into the typed observation the judge reads:
//! the outcome, every region's bytes, broken canaries, mbarrier parities, Tensor Memory, and the
//! CTAs and steps that did not finish.

use super::{global_geometry, DUMP, FIRST_GLOBAL};
use crate::device::{JobResult, Outcome};
use crate::emit::Emitted;
use ptxconform_core::differential::Ran;
use ptxconform_core::judge::shared_key;
use ptxconform_core::result::RunInfo;
use ptxconform_reference::case::{Case, Ending, Observation, Parity};
use ptxconform_reference::layout::{Layout, Place, CANARY_BYTE};
use std::collections::BTreeMap;

/// What the device showed of `case` in job result `r`, typed; `Failed` when the harness, not the
/// case, went wrong.
pub fn observation(case: &Case, em: &Emitted, r: &JobResult, info: &RunInfo) -> Ran {
    let mut obs = Observation {
        device: info.device.clone(),
        driver: info.driver.clone(),
        date: info.date.clone(),
        build: None,
        outcome: Ending::Completed,
        regions: BTreeMap::new(),
        partial: BTreeMap::new(),
        mbarriers: BTreeMap::new(),
        tmem: BTreeMap::new(),
        canaries_broken: vec![],
        not_reached: vec![],
    };
    obs.outcome = match ending(&r.outcome) {
        Ok(e) => e,
        Err(why) => return Ran::Failed(why),
    };
    if obs.outcome != Ending::Completed {
        return Ran::Observed(obs);
    }
    match read_back(case, em, r, &mut obs) {
        Ok(()) => Ran::Observed(obs),
        Err(e) => Ran::Failed(e),
    }
}

/// How the case ended by the worker's `outcome`; `Err`: the harness, not the case, went wrong.
fn ending(outcome: &Outcome) -> Result<Ending, String> {
    Ok(match outcome {
        Outcome::Ok => Ending::Completed,
        Outcome::Trap { kind, code } => Ending::Trap {
            kind: *kind,
            code: *code,
        },
        Outcome::Timeout { after_ms } => Ending::Watchdog(*after_ms),
        // The driver refused a tensor map of the case: a fact about the case, for the judge.
        Outcome::MapNotEncoded { map } => Ending::Rejected(format!(
            "parameter uses tensor map {map}, which failed to encode"
        )),
        other => return Err(format!("{other:?}").chars().take(600).collect()),
    })
}

/// Decode the dump and the global buffers of a completed job into `obs`.
fn read_back(
    case: &Case,
    em: &Emitted,
    r: &JobResult,
    obs: &mut Observation,
) -> Result<(), String> {
    let get = |i: usize| {
        r.read_back
            .iter()
            .find(|b| b.index == i)
            .map(|b| b.data.as_slice())
            .ok_or_else(|| format!("buffer {i} not read back"))
    };
    let view = em.dump_layout.decode(get(DUMP)?)?;
    let layout = Layout::of(case).map_err(|e| e.to_string())?;
    for (i, g) in case.memory.global.iter().enumerate() {
        let data = get(FIRST_GLOBAL + i)?;
        let (start, size, _) = global_geometry(case, i);
        let (s, e) = (start as usize, (start + g.size) as usize);
        if data.len() < size as usize {
            return Err(format!("global `{}` read back short", g.name));
        }
        if data[..s]
            .iter()
            .chain(&data[e..])
            .any(|&b| b != CANARY_BYTE)
        {
            obs.canaries_broken.push(g.name.clone());
        }
        obs.regions.insert(g.name.clone(), data[s..e].to_vec());
    }
    for (cta, img) in view.images.iter().enumerate() {
        for s in &case.memory.shared {
            if let Some(Place::Shared { offset, size }) = layout.get(&s.name) {
                let (a, b) = (offset as usize, (offset + size) as usize);
                if b <= img.len() {
                    obs.regions
                        .insert(shared_key(&s.name, cta), img[a..b].to_vec());
                }
            }
        }
    }
    for (cta, ms) in view.parity.iter().enumerate() {
        for (m, &(parity0_done, parity1_done)) in ms.iter().enumerate() {
            let p = Parity {
                parity0_done,
                parity1_done,
            };
            obs.mbarriers
                .insert(shared_key(&em.dump_layout.mbarriers[m], cta), p);
        }
    }
    let steps: Vec<usize> = view
        .timeouts
        .iter()
        .enumerate()
        .filter(|(_, cs)| cs.iter().any(|&t| t))
        .map(|(s, _)| s)
        .collect();
    if !steps.is_empty() {
        obs.outcome = Ending::Timeout(steps);
    }
    obs.not_reached = view
        .reached_end
        .iter()
        .enumerate()
        .filter(|(_, &r)| !r)
        .map(|(c, _)| c as u32)
        .collect();
    for (cta, ks) in view.tmem.iter().enumerate() {
        for (k, cells) in ks.iter().enumerate() {
            obs.tmem
                .insert(shared_key(&em.dump_layout.tmem[k].0, cta), cells.clone());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refused map ends the case as the driver's rejection (in the words the worker used to
    /// send); a setup failure is the harness's, whatever its message says.
    #[test]
    fn a_refused_map_is_a_rejection_and_a_setup_failure_is_not() {
        assert_eq!(
            ending(&Outcome::MapNotEncoded { map: 2 }),
            Ok(Ending::Rejected(
                "parameter uses tensor map 2, which failed to encode".into()
            ))
        );
        let setup = Outcome::Setup {
            message: "tensor map 0: store offset 4096 outside buffer".into(),
        };
        assert!(ending(&setup).is_err());
        assert_eq!(
            ending(&Outcome::Timeout { after_ms: 5 }),
            Ok(Ending::Watchdog(5))
        );
    }
}
