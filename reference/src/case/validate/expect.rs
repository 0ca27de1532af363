//! What a case expects and records: `expect: { illegal: .. }` names a restriction, `expect: {
//! bytes: .. }` and the partial regions of
//! recorded observations name declared regions and fit inside them.

use super::{p, pik, Decl, Names, Out};
use crate::case::loc::key;
use crate::case::model::*;

/// The size of the region `k` names as observations and `expect: { bytes: .. }` name regions (a
/// global region, or a shared one of an existing CTA as `name@ctaN`), or why `k` names none.
fn keyed_region_size(c: &Case, names: &Names, k: &str) -> Result<u64, String> {
    let (name, cta) = crate::case::split_region_key(k);
    let cta = cta.map(|c| c.parse::<u32>().ok());
    match (names.decls.get(name), cta) {
        (Some(Decl::Global { size }), None) => Ok(*size),
        (Some(Decl::Shared { size }), Some(Some(i))) if i < c.launch.ctas() => Ok(*size),
        (Some(Decl::Shared { .. }), Some(Some(i))) => Err(format!(
            "`{k}`: CTA {i} is not in the grid ({} CTAs)",
            c.launch.ctas()
        )),
        (Some(Decl::Shared { .. }), _) => Err(format!(
            "`{k}`: name a shared region with its CTA, `{name}@cta0`"
        )),
        _ => Err(format!(
            "`{k}` is not a global region or a shared region as `name@ctaN`"
        )),
    }
}

/// `expect: { bytes: .. }` names declared regions (shared ones of an existing CTA, as
/// `name@ctaN`) and fits them.
pub(super) fn expected_bytes(c: &Case, names: &Names, o: &mut Out) {
    let Some(Expect::Bytes(want)) = &c.expect else {
        return;
    };
    for (k, pat) in want {
        let path = p(&["expect", "bytes", k]);
        let size = match keyed_region_size(c, names, k) {
            Ok(size) => size,
            Err(why) => {
                o.err(path, why);
                continue;
            }
        };
        let n = pat.bytes.len() as u64;
        if n > size || (!pat.open && n != size) {
            o.err(
                path,
                format!(
                    "{n} expected bytes for `{k}` of {size} bytes{}",
                    if pat.open {
                        ""
                    } else {
                        " (end the pattern with `..` to check a prefix)"
                    }
                ),
            );
        }
    }
}

/// `expect: { illegal: .. }` names a restriction.
pub(super) fn expected_illegal(c: &Case, o: &mut Out) {
    if let Some(Expect::Illegal(r)) = &c.expect {
        if r.trim().is_empty() {
            o.err(
                p(&["expect", "illegal"]),
                "name the restriction the program breaks, as `ptxconform check` prints it",
            );
        }
    }
}

/// Each part of a region a recorded observation gives (`partial`) names a declared region, not
/// also observed whole, and lies inside it.
pub(super) fn partial_observations(c: &Case, names: &Names, o: &mut Out) {
    for (i, obs) in c.observed.iter().enumerate() {
        for (k, part) in &obs.partial {
            let mut path = pik(&["observed"], i, "partial");
            path.push(key(k));
            let size = match keyed_region_size(c, names, k) {
                Ok(size) => size,
                Err(why) => {
                    o.err(path, why);
                    continue;
                }
            };
            if obs.regions.contains_key(k) {
                o.err(
                    path,
                    format!("`{k}` is observed whole in `regions`; give it in one place"),
                );
                continue;
            }
            match part.range() {
                Some(r) if r.end <= size => {}
                _ => {
                    path.push(key("offset"));
                    o.err(
                        path,
                        format!(
                            "bytes {}..{} of `{k}` are observed, the region has {size} bytes",
                            part.offset,
                            part.offset as u128 + part.bytes.len() as u128
                        ),
                    );
                }
            }
        }
    }
}
