//! The campaign's mutation score (`fuzz --mutants`, a build with the `mutants` feature): every
//! hardware observation is judged against the reference under each mutant still alive
//! ([`ptxconform_core::mutants::kills_among`]), so one GPU campaign serves every mutant and the
//! kill rate costs CPU only. The first kill of each mutant is kept in the figures
//! ([`super::Stats::mutant_kills`]) for `ptxconform mutants --campaign`.

use super::Campaign;
use ptxconform_core::differential::Judged;
use ptxconform_reference::case::Case;

impl Campaign<'_> {
    /// Judge a hardware batch's observations under the mutants not killed yet; record each
    /// mutant's first kill (program order).
    #[cfg(feature = "mutants")]
    pub(super) fn mutant_kills(&mut self, judged: &[(u64, &Case, &Judged)]) {
        use super::MutantKill;
        use ptxconform_core::mutants::{kills_among, Kill};
        use ptxconform_reference::sem::mutant::Mutant;
        use rayon::prelude::*;
        let alive: Vec<Mutant> = Mutant::ALL
            .iter()
            .copied()
            .filter(|m| !self.stats.mutant_kills.contains_key(m.id()))
            .collect();
        if alive.is_empty() {
            return;
        }
        let known = &self.opts.known;
        let kills: Vec<Vec<(Mutant, Kill)>> = judged
            .par_iter()
            .map(|(_, case, j)| match &j.observation {
                Some(obs) => kills_among(crate::fuzz::GENERATED, case, obs, &alive, known),
                None => Vec::new(),
            })
            .collect();
        // Seconds of campaign so far, over resumed runs.
        let seconds = self.clock.1 + self.clock.0.elapsed().as_secs_f64();
        for ((k, case, _), ks) in judged.iter().zip(kills) {
            for (m, how) in ks {
                self.stats
                    .mutant_kills
                    .entry(m.id().to_string())
                    .or_insert_with(|| MutantKill {
                        seconds,
                        programs: self.stats.programs,
                        program: *k,
                        case: case.name.clone(),
                        fingerprint: format!("{:016x}", super::fingerprint(case)),
                        judge_fails: how == Kill::Fails,
                    });
            }
        }
    }

    /// Without the mutation schema there is nothing to judge (`Campaign::open` refuses
    /// `--mutants` in such a build).
    #[cfg(not(feature = "mutants"))]
    pub(super) fn mutant_kills(&mut self, _: &[(u64, &Case, &Judged)]) {}
}
