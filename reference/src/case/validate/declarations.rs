//! Declarations: the regions, mbarriers, tensor maps and Tensor Memory allocations of `memory`
//! (one namespace, a shared layout within budget) and the register values of `params`.

use std::collections::BTreeMap;

use super::{is_identifier, is_special, p, pi, pik, Names, Out, MAX_SHARED_BYTES};
use crate::case::init::InitError;
use crate::case::loc::{key, Seg};
use crate::case::model::*;
use crate::ptx::operand::RegTy;

fn init_problem(o: &mut Out, base: Vec<Seg>, init: &Init, e: InitError) {
    let mut path = base;
    path.push(key("init"));
    match (init, e.element) {
        (Init::Values(_), Some(i)) => path.extend([key("values"), key("data"), Seg::Idx(i)]),
        (Init::Bytes(_), Some(i)) => path.extend([key("bytes"), Seg::Idx(i)]),
        (Init::Hex(_), _) => path.push(key("hex")),
        _ => {}
    }
    o.err(path, e.message);
}

/// Declaration `i` of `memory.<list>` is named `name`: an identifier, not declared before.
fn declare_name<'a>(
    seen: &mut BTreeMap<&'a str, (&'static str, usize)>,
    o: &mut Out,
    name: &'a str,
    list: &'static str,
    i: usize,
) {
    let name_path = || pik(&["memory", list], i, "name");
    if !is_identifier(name) {
        o.err(
            name_path(),
            format!("`{name}` is not an identifier ([A-Za-z_$][A-Za-z0-9_$]*)"),
        );
    }
    if let Some(&(l, j)) = seen.get(name) {
        o.err(
            name_path(),
            format!(
                "`{name}` is already declared at {}",
                crate::case::loc::path_string(&pi(&["memory", l], j))
            ),
        );
    } else {
        seen.insert(name, (list, i));
    }
}

pub(super) fn memory(c: &Case, o: &mut Out) {
    let m = &c.memory;
    // One namespace for every declaration: operands name them without saying which kind. A
    // declaration is known by its list and index; paths are made only for a problem.
    let mut seen: BTreeMap<&str, (&str, usize)> = BTreeMap::new();
    let mut shared_end: u64 = 0;
    for (space, regions) in [("global", &m.global), ("shared", &m.shared)] {
        for (i, r) in regions.iter().enumerate() {
            let base = || pi(&["memory", space], i);
            declare_name(&mut seen, o, &r.name, space, i);
            let at = |k: &str| pik(&["memory", space], i, k);
            if r.size == 0 {
                o.err(at("size"), "a region holds at least one byte");
            }
            if r.align == 0 || !r.align.is_power_of_two() {
                o.err(
                    at("align"),
                    format!("alignment must be a power of two, not {}", r.align),
                );
            }
            if let Err(e) = r.init.check(r.size) {
                if e.element.is_none() && r.size > crate::case::init::MAX_REGION_BYTES {
                    o.err(at("size"), e.message);
                } else {
                    init_problem(o, base(), &r.init, e);
                }
            }
            if space == "shared" && r.align.is_power_of_two() {
                shared_end = shared_end
                    .div_ceil(r.align)
                    .saturating_mul(r.align)
                    .saturating_add(r.misalign)
                    .saturating_add(r.size);
            }
        }
    }
    for (i, b) in m.mbarriers.iter().enumerate() {
        declare_name(&mut seen, o, &b.name, "mbarriers", i);
        // §9.7.13.15.1: an mbarrier object is 8 bytes, 8-byte aligned.
        shared_end = shared_end.div_ceil(8).saturating_mul(8).saturating_add(8);
    }
    if shared_end > MAX_SHARED_BYTES {
        o.err(p(&["memory", "shared"]), format!("shared memory layout needs {shared_end} bytes per CTA; at most {MAX_SHARED_BYTES} (assumed sm_90/sm_100 opt-in maximum)"));
    }
    if let Some(n) = m.shared_allocation {
        // Tensor Memory words follow the mbarriers: the layout checks the rest.
        let image = shared_end.max(16).div_ceil(16).saturating_mul(16);
        if n > MAX_SHARED_BYTES || n < image {
            o.err(
                p(&["memory", "shared_allocation"]),
                format!("{n} bytes: the shared image takes {image} (regions and mbarriers, rounded up to 16) and a CTA has at most {MAX_SHARED_BYTES}"),
            );
        }
    }
    for (i, t) in m.tensor_maps.iter().enumerate() {
        declare_name(&mut seen, o, &t.name, "tensor_maps", i);
        if !m.global.iter().any(|r| r.name == t.global) {
            o.err(
                pik(&["memory", "tensor_maps"], i, "global"),
                format!("`{}` is not a global region", t.global),
            );
        }
        // The executor supplies globalAddress from the region (its align / misalign).
        if t.map.global_address != 0 {
            o.err(pik(&["memory", "tensor_maps"], i, "map"), "`map.global_address` is set by the executor from the `global` region; leave it out".to_string());
        }
    }
    for (i, t) in m.tmem.iter().enumerate() {
        declare_name(&mut seen, o, &t.name, "tmem", i);
        // §9.7.16.1.2: allocation in units of 32 columns, a power of two; §9.7.16.1: 512 columns per CTA.
        if !(32..=512).contains(&t.columns) || !t.columns.is_power_of_two() {
            o.err(
                pik(&["memory", "tmem"], i, "columns"),
                format!(
                    "columns must be a power of two in 32..=512, not {}",
                    t.columns
                ),
            );
        }
    }
}

pub(super) fn params(c: &Case, names: &Names, o: &mut Out) {
    let decls = &names.decls;
    for (name, prm) in &c.params {
        let path = || p(&["params", name]);
        if !(is_identifier(name) || name.starts_with('%') && is_identifier(&name[1..]))
            || is_special(name)
        {
            o.err(path(), format!("parameter name `{name}` is not a register identifier (or is a special register)"));
        }
        if let Param::Mapa { mapa, cta } = prm {
            let shared = c.memory.shared.iter().any(|r| &r.name == mapa)
                || c.memory.mbarriers.iter().any(|b| &b.name == mapa);
            if !shared {
                o.err(
                    path(),
                    format!("mapa param `{name}`: `{mapa}` is not a shared region or mbarrier"),
                );
            }
            if *cta >= c.launch.cluster_size() {
                o.err(
                    path(),
                    format!(
                        "mapa param `{name}`: cluster rank {cta} outside a cluster of {}",
                        c.launch.cluster_size()
                    ),
                );
            }
            continue;
        }
        if decls.contains_key(name.as_str()) {
            o.err(
                path(),
                format!(
                    "parameter `{name}` has the name of a declared {}",
                    "region or object"
                ),
            );
        }
        let (value, ty) = match prm {
            Param::Int(v) => (*v, Some(RegTy::B32)),
            Param::Typed { value, ty } => (*value, RegTy::from_ptx(ty)),
            Param::Mapa { .. } => continue, // checked above
        };
        let Some(ty) = ty else {
            let mut tp = path();
            tp.push(key("type"));
            o.err(
                tp,
                "register type must be one of pred b16 b32 b64 u16 u32 u64 s32 s64",
            );
            continue;
        };
        let bits = ty.bits();
        let fits = match ty {
            RegTy::Pred => value == 0 || value == 1,
            _ if bits == 64 => true,
            // Either signed or unsigned reading of the bits is accepted for bN/uN/sN.
            _ => value >= -(1i64 << (bits - 1)) && value < (1i64 << bits),
        };
        if !fits {
            o.err(
                path(),
                format!("value {value} does not fit a {} register", ty.ptx()),
            );
        }
    }
}
