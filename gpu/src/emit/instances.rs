//! Emission of many cases at once: cases that differ only in their regions' contents (instances
//! of one template, as the bench and sweeps make them) have one program, so it is emitted once
//! and each instance gets only its own initial shared image.

use super::{emit, shared_image, EmitError, Emitted};
use ptxconform_core::hash::{fnv1a128, FNV128_OFFSET};
use ptxconform_reference::case::{Case, Memory, Region};
use ptxconform_reference::layout::Layout;
use rayon::prelude::*;
use std::collections::HashMap;

/// What of `case` its emitted program depends on: everything but its name, description,
/// recorded observations and regions' initial contents. The destructuring is exhaustive so that
/// a new field of [`Case`], [`Memory`] or [`Region`] has to be sorted here.
fn program_key(case: &Case) -> Option<u128> {
    let Case {
        name: _,
        description: _,
        target,
        ptx_version,
        launch,
        memory,
        params,
        program,
        check,
        expect,
        observed: _,
    } = case;
    let Memory {
        global,
        shared,
        mbarriers,
        tensor_maps,
        tmem,
        shared_allocation,
    } = memory;
    let layout = |rs: &[Region]| -> Vec<(String, u64, u64, u64)> {
        rs.iter()
            .map(|r| {
                let Region {
                    name,
                    size,
                    align,
                    misalign,
                    init: _,
                } = r;
                (name.clone(), *size, *align, *misalign)
            })
            .collect()
    };
    let view = (
        (target, ptx_version, launch, params, program, check, expect),
        (
            layout(global),
            layout(shared),
            mbarriers,
            tensor_maps,
            tmem,
            shared_allocation,
        ),
    );
    let bytes = serde_json::to_vec(&view).ok()?;
    Some(fnv1a128(FNV128_OFFSET, &bytes))
}

/// [`emit`] of every case, in order, on host threads: one emission per distinct program, the
/// other cases with that program getting a copy with their own shared image. A case whose
/// emission fails is emitted alone (its error names it).
pub fn emit_all(cases: &[&Case]) -> Vec<Result<Emitted, EmitError>> {
    let keys: Vec<Option<u128>> = cases.par_iter().map(|c| program_key(c)).collect();
    let mut first: HashMap<u128, usize> = HashMap::new();
    for (i, k) in keys.iter().enumerate() {
        if let Some(k) = k {
            first.entry(*k).or_insert(i);
        }
    }
    let templates: HashMap<usize, Result<Emitted, EmitError>> = first
        .par_iter()
        .map(|(_, &i)| (i, emit(cases[i])))
        .collect();
    cases
        .par_iter()
        .zip(&keys)
        .enumerate()
        .map(|(i, (case, key))| match key.map(|k| first[&k]) {
            Some(f) if f == i => templates[&f].clone(),
            Some(f) => match &templates[&f] {
                Ok(t) => instance_of(t, case),
                Err(_) => emit(case),
            },
            None => emit(case),
        })
        .collect()
}

/// `template`'s program with `case`'s initial shared image.
fn instance_of(template: &Emitted, case: &Case) -> Result<Emitted, EmitError> {
    let layout = Layout::of(case).map_err(|e| EmitError(e.0))?;
    let mut em = template.clone();
    em.shared_init = shared_image(case, &layout)?;
    Ok(em)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every corpus case, three instances of each with different contents, and the corpus as it
    /// is: `emit_all` gives exactly what `emit` gives case by case.
    #[test]
    fn emit_all_equals_emit_case_by_case() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let (loaded, errors) = ptxconform_core::corpus::load_corpus(&[dir]);
        assert!(errors.is_empty(), "{errors:?}");
        let mut cases: Vec<Case> = loaded.iter().map(|l| l.case.clone()).collect();
        let from = cases.len();
        for l in loaded.iter().step_by(7) {
            cases.extend(ptxconform_core::corpus::instances(&l.case, 3));
        }
        let refs: Vec<&Case> = cases.iter().collect();
        let all = emit_all(&refs);
        assert_eq!(all.len(), cases.len());
        let mut shared = 0;
        for (c, got) in cases.iter().zip(&all) {
            let want = emit(c);
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "case `{}`", c.name);
            shared += usize::from(got.as_ref().is_ok_and(|e| !e.shared_init.is_empty()));
        }
        assert!(shared > 500, "{shared} cases with a shared image");
        // Copies of one program do get their own contents.
        let differ = all[from..]
            .chunks(3)
            .filter(|t| match t {
                [Ok(a), Ok(b), _] => a.shared_init != b.shared_init && a.ptx == b.ptx,
                _ => false,
            })
            .count();
        assert!(
            differ > 100,
            "{differ} templates whose instances differ in shared contents"
        );
        // Instances of one template share one program key; a change of program does not.
        let t = &loaded[0].case;
        let is = ptxconform_core::corpus::instances(t, 2);
        assert_eq!(program_key(&is[0]), program_key(&is[1]));
        let mut other = t.clone();
        other.launch.threads += 32;
        assert_ne!(program_key(t), program_key(&other));
    }
}
