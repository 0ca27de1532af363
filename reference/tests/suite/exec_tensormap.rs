//! Executor: tensormap.replace (§9.7.9.26) and tensormap.cp_fenceproxy (§9.7.13.16) on bytes:
//! the update pattern of spec/02's example, the opaque object (A-TMAP-OPAQUE), 128-byte
//! alignment (A-TMAP-ALIGN) and the address-window UB.

use crate::exec_support::*;
use ptxconform_reference::sem::memory::Byte;

/// `cluster` CTAs; `gmap` (256 B global, pattern 3), `out` (256 B global, 0x11), `smap` (256 B
/// shared, pattern 5), all 128-byte aligned.
fn prog(cluster: u32, params: &str, body: &str) -> String {
    format!(
        "name: t\ntarget: sm_90a\nlaunch: {{ grid: [{cluster},1,1], cluster: [{cluster},1,1] }}\n{params}memory:\n  global:\n    - {{ name: gmap, size: 256, align: 128, init: {{ pattern: 3 }} }}\n    - {{ name: out, size: 256, align: 128, init: {{ fill: 0x11 }} }}\n  shared:\n    - {{ name: smap, size: 256, align: 128, init: {{ pattern: 5 }} }}\nprogram:\n{body}"
    )
}

const CP: &str =
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned";

#[test]
fn cp_fenceproxy_copies_128_bytes_at_once() {
    let x = defined(&prog(
        1,
        "",
        &format!("  - ptx: {CP} [out+128], [smap], 128\n"),
    ));
    let o = known(global(&x, "out")).unwrap();
    assert_eq!(&o[128..], &pattern(5, 256)[..128], "A-TMAP-SYNC: landed");
    assert!(o[..128].iter().all(|b| *b == 0x11));
}

#[test]
fn replace_makes_the_object_unconstrained_then_the_copy_carries_it() {
    let body = format!(
        "  - ptx: tensormap.replace.tile.global_address.shared::cta.b1024.b64 [smap+128], 4096\n  - ptx: {CP} [out], [smap+128], 128\n  - ptx: fence.proxy.tensormap::generic.acquire.gpu [out], 128\n"
    );
    let x = defined(&prog(1, "", &body));
    let s = shared(&x, 0, "smap");
    assert!(s[128..].iter().all(|b| *b == Byte::ANY), "A-TMAP-OPAQUE");
    assert_eq!(known(&s[..128]).unwrap(), &pattern(5, 256)[..128]);
    let o = global(&x, "out");
    assert!(o[..128].iter().all(|b| *b == Byte::ANY));
    assert!(o[128..].iter().all(|b| *b == Byte::Known(0x11)));
    // Every field form runs, in global memory and through a generic address too.
    for ptx in [
        "tensormap.replace.tile.rank.global.b1024.b32 [gmap], 2",
        "tensormap.replace.tile.box_dim.global.b1024.b32 [gmap+128], 4, 64",
        "tensormap.replace.tile.elemtype.b1024.b32 [gmap], 10",
        "tensormap.replace.tile.swizzle_mode.b1024.b32 [smap], 3",
    ] {
        let x = defined(&prog(1, "", &format!("  - ptx: {ptx}\n")));
        let changed = if ptx.contains("smap") {
            shared(&x, 0, "smap")
        } else {
            global(&x, "gmap")
        };
        let at = if ptx.contains("+128") { 128 } else { 0 };
        assert!(
            changed[at..at + 128].iter().all(|b| *b == Byte::ANY),
            "{ptx}"
        );
    }
}

#[test]
fn classified_ub() {
    let one = |ptx: &str| {
        undefined(&prog(
            2,
            "params: { far: { mapa: smap, cta: 1 } }\n",
            &format!("  - ptx: {ptx}\n"),
        ))
    };
    // A-TMAP-ALIGN: 128-byte objects need 128-byte aligned addresses.
    assert_eq!(
        one("tensormap.replace.tile.rank.global.b1024.b32 [gmap+64], 2"),
        ("address.misaligned", 0)
    );
    assert_eq!(
        one(&format!("{CP} [out], [smap+64], 128")),
        ("address.misaligned", 0)
    );
    // The object must fit its region.
    assert_eq!(
        undefined(
            &prog(1, "", &format!("  - ptx: {CP} [out], [smap], 128\n"))
                .replace("name: smap, size: 256", "name: smap, size: 64")
        ),
        ("address.out_of_region", 0)
    );
    // A generic address in another CTA's shared memory is outside both windows.
    assert_eq!(
        one("tensormap.replace.tile.rank.b1024.b32 [far], 2"),
        ("address.out_of_region", 0)
    );
    // A copy into a destination an asynchronous copy is still writing.
    let racing = format!(
        "  - ptx: cp.async.bulk.global.shared::cta.bulk_group [out], [smap], 128\n  - ptx: {CP} [out], [smap+128], 128\n"
    );
    assert_eq!(
        undefined(&prog(1, "", &racing)),
        ("async.dst_written_before_completion", 1)
    );
}

#[test]
fn operand_kinds_are_case_errors() {
    // `.global` on a shared place and an unbound new_val register are mistakes in the case.
    for body in [
        "  - ptx: tensormap.replace.tile.rank.global.b1024.b32 [smap], 2\n",
        "  - ptx: tensormap.replace.tile.rank.global.b1024.b32 [gmap], r\n",
    ] {
        let case = case(&prog(1, "", body));
        assert!(
            ptxconform_reference::sem::exec::execute(&case).is_err(),
            "{body}"
        );
    }
}
