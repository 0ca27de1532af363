#!/usr/bin/env python3
"""Generates the tcgen05 corpus (cp.yaml, alloc.yaml, ub.yaml) next to this file.

Conventions (see reference/src/sem/exec/tcgen05.rs):
- `memory.tmem: acc` is the shared word tcgen05.alloc writes; `[acc]` as taddr reads it.
- Descriptors are relative to the shared image (the emitter adds the image's address); the
  source region `src` sits at image offset 0, 1024-byte aligned.
- Checked allocations need 128 threads (the epilogue reads lanes 32w.. with warp w).
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

SWZ = {"none": (0, 16), "128B_base32b": (1, 128), "128B": (2, 128), "64B": (4, 64), "32B": (6, 32)}
SHAPES = [  # (shape, multicast, rows, chunks)
    ("128x256b", None, 128, 2),
    ("4x256b", None, 4, 2),
    ("128x128b", None, 128, 1),
    ("64x128b", "warpx2::02_13", 64, 1),
    ("64x128b", "warpx2::01_23", 64, 1),
    ("32x128b", "warpx4", 32, 1),
]
DECOMP = [None, "b4x16_p64", "b6x16_p32"]


def desc(start=0, lbo=0, sbo=0, swizzle=0, base=0, mode=0, fixed46=1, fixed53=0, reserved14=0):
    return ((start >> 4) & 0x3FFF) | (reserved14 << 14) | (((lbo >> 4) & 0x3FFF) << 16) | (((sbo >> 4) & 0x3FFF) << 32) \
        | (fixed46 << 46) | (base << 49) | (mode << 52) | (fixed53 << 53) | (swizzle << 61)


def layout_desc(swz, rows, chunks):
    code, row_bytes = SWZ[swz]
    if code == 0:
        lbo, sbo = 128, 128 * chunks  # core matrices: 8 rows x 16 B; chunk 1 right after chunk 0
    else:
        lbo, sbo = 16, 8 * row_bytes  # one swizzle atom (8 rows) per SBO
    size = max(1024, -(-rows // 8) * sbo)
    size = -(-size // 1024) * 1024
    return desc(lbo=lbo, sbo=sbo, swizzle=code), size


def i64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def yaml_case(c):
    out = [f"- name: {c['name']}", f"  description: {json.dumps(c['description'])}", "  target: sm_100a"]
    out.append(f"  launch: {c['launch']}")
    out.append("  memory:")
    for k in ("shared", "mbarriers", "tmem"):
        if c["memory"].get(k):
            out.append(f"    {k}: [ " + ", ".join(c["memory"][k]) + " ]")
    if c.get("params"):
        out.append("  params:")
        for k, v in c["params"].items():
            out.append(f"    {k}: {v}")
    out.append("  program:")
    for s in c["program"]:
        out.append(f"    - {s}")
    if c.get("check"):
        out.append(f"  check: [ {', '.join(c['check'])} ]")
    out.append(f"  expect: {c['expect']}")
    return "\n".join(out)


def cp_case(name, descr, shape, mc, decomp, group, swz="none", rows=128, chunks=1, dvalue=None, taddr="acc", commit=None, wait_cta=None, extra=()):
    d, size = layout_desc(swz, rows, chunks)
    if dvalue is not None:
        d = dvalue
    q = f"tcgen05.cp.cta_group::{group}.{shape}" + (f".{mc}" if mc else "") + (f".b8x16.{decomp}" if decomp else "")
    two = group == 2
    everyone = "cta: all, " if two else ""
    issuer = "cta: 0, " if two else ""
    commit = commit or (f"tcgen05.commit.cta_group::{group}.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [bar], mask;"
              if two else f"tcgen05.commit.cta_group::{group}.mbarrier::arrive::one.shared::cluster.b64 [bar];")
    params = {"sdesc": f"{{ value: {i64(d)}, type: b64 }}"}
    if two or "mask" in commit:
        params["mask"] = "{ value: 3, type: b16 }"
    return {
        "name": name,
        "description": descr,
        "launch": "{ grid: [2, 1, 1], cluster: [2, 1, 1], threads: 128 }" if two else "{ threads: 128 }",
        "memory": {
            "shared": [f"{{ name: src, size: {size}, align: 1024, init: {{ pattern: {size * 7 + rows} }} }}"],
            "mbarriers": ["{ name: bar }"],
            "tmem": ["{ name: acc, columns: 32 }"],
        },
        "params": {k: (v if k != "mask" or two else "{ value: 1, type: b16 }") for k, v in params.items()},
        "program": [
            f"{{ {everyone}ptx: 'mbarrier.init.shared::cta.b64 [bar], 1;' }}",
            f"{{ {everyone}ptx: 'tcgen05.alloc.cta_group::{group}.sync.aligned.shared::cta.b32 [acc], 32;' }}",
            f"{{ {issuer}ptx: '{q} [{taddr}], sdesc;' }}",
            f"{{ {issuer}ptx: '{commit}' }}",
            f"{{ {wait_cta or everyone}wait_parity: {{ mbar: bar, parity: 0 }} }}",
            *extra,
        ],
        "check": ["acc"],
        "expect": "pass",
    }


def cp_cases():
    cases = []
    for shape, mc, rows, chunks in SHAPES:
        for group in (1, 2):
            for dc in DECOMP:
                n = f"tcgen05.cp.{shape}" + (f".{mc.replace('::', '_')}" if mc else "") + f".cta{group}" + (f".{dc}" if dc else "")
                descr = f"tcgen05.cp .{shape}" + (f" .{mc}" if mc else "") + f" .cta_group::{group}" + \
                    (f" decompressing .{dc} to .b8x16" if dc else "") + "; no swizzle; every cell of the allocation checked"
                cases.append(cp_case(n, descr, shape, mc, dc, group, rows=rows, chunks=chunks))
    for swz in SWZ:
        if swz == "none":
            continue
        for shape, rows, chunks in (("128x256b", 128, 2), ("128x128b", 128, 1)):
            n = f"tcgen05.cp.swizzle_{swz}.{shape}"
            cases.append(cp_case(n, f"tcgen05.cp .{shape} from a {swz}-swizzled K-major source (descriptor swizzle mode {SWZ[swz][0]})",
                                 shape, None, None, 1, swz=swz, rows=rows, chunks=chunks))
    # A non-zero base offset with 128B swizzle, and a cp into a lane/column offset.
    d, _ = layout_desc("128B", 128, 2)
    cases.append(cp_case("tcgen05.cp.swizzle_128B.base_offset3", "128B swizzle with descriptor base offset 3 (pattern phase shifted)",
                         "128x256b", None, None, 1, swz="128B", rows=128, chunks=2, dvalue=d | (3 << 49)))
    cases.append(cp_case("tcgen05.cp.4x256b.lane64_col8", "tcgen05.cp .4x256b into lane 64, column 8 of the allocation",
                         "4x256b", None, None, 1, rows=4, chunks=2, taddr="acc+0x400008"))
    # The other commit forms (generic / .shared::cluster, multicast or not, both cta_groups).
    C = "tcgen05.commit.cta_group::{g}.mbarrier::arrive::one{sp}{mc}.b64 [bar]{m};"
    for g, sp, mcast in ((1, "", False), (1, "", True), (1, ".shared::cluster", True), (2, "", False), (2, ".shared::cluster", False), (2, "", True)):
        text = C.format(g=g, sp=sp, mc=".multicast::cluster" if mcast else "", m=", mask" if mcast else "")
        n = f"tcgen05.cp.commit.cta{g}" + (".shared_cluster" if sp else ".generic") + (".multicast" if mcast else "")
        cases.append(cp_case(n, f"tcgen05.cp .128x128b completed through `{text}`", "128x128b", None, None, g, rows=128, chunks=1,
                             commit=text, wait_cta="cta: 0, " if g == 2 and not mcast else None))
    ld = "tcgen05.ld.sync.aligned.32x32b.x4.b32 {x0, x1, x2, x3}"
    cases.append(cp_case("tcgen05.cp.then_ld", "copy, commit, wait, fence::after_thread_sync, then warp 0 loads its lanes (tcgen05.ld + wait::ld, wait::st)",
                         "128x256b", None, None, 1, rows=128, chunks=2,
                         extra=("{ ptx: 'tcgen05.fence::after_thread_sync;' }", f"{{ ptx: '{ld}, [acc];' }}",
                                "{ ptx: 'tcgen05.wait::ld.sync.aligned;' }", "{ ptx: 'tcgen05.wait::st.sync.aligned;' }",
                                "{ ptx: 'tcgen05.fence::before_thread_sync;' }")))
    return cases


def base(name, descr, program, expect, params=None, threads=32, tmem=("{ name: acc, columns: 32 }",), launch=None, shared=None, check=None):
    return {
        "name": name, "description": descr,
        "launch": launch or f"{{ threads: {threads} }}",
        "memory": {"shared": shared or [], "mbarriers": [], "tmem": list(tmem)},
        "params": params or {}, "program": program, "check": check or [], "expect": expect,
    }


A1 = "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"
D1 = "tcgen05.dealloc.cta_group::1.sync.aligned.b32"
R1 = "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;"


def alloc_cases():
    return [
        base("tcgen05.alloc.dealloc", "alloc 32 columns, dealloc them, relinquish the permit",
             [f"{{ ptx: '{A1} [acc], 32;' }}", f"{{ ptx: '{D1} acc, 32;' }}", f"{{ ptx: '{R1}' }}"], "pass"),
        base("tcgen05.alloc.two_allocations", "two allocations (64 then 32 columns, non-increasing) placed first-fit, both freed",
             [f"{{ ptx: '{A1} [acc], 64;' }}", f"{{ ptx: '{A1} [acc2], 32;' }}", f"{{ ptx: '{D1} acc2, 32;' }}", f"{{ ptx: '{D1} acc, 64;' }}"], "pass",
             tmem=("{ name: acc, columns: 64 }", "{ name: acc2, columns: 32 }")),
        base("tcgen05.alloc.generic_dst", "alloc with a generic destination address (no .shared::cta), then dealloc",
             ["{ ptx: 'tcgen05.alloc.cta_group::1.sync.aligned.b32 [acc], 32;' }", f"{{ ptx: '{D1} acc, 32;' }}"], "pass"),
        base("tcgen05.alloc.cta_group2.generic_dst", "cta_group::2 alloc through a generic destination address in both CTAs, then dealloc",
             ["{ cta: all, ptx: 'tcgen05.alloc.cta_group::2.sync.aligned.b32 [acc], 32;' }",
              "{ cta: all, ptx: 'tcgen05.dealloc.cta_group::2.sync.aligned.b32 acc, 32;' }"], "pass",
             launch="{ grid: [2, 1, 1], cluster: [2, 1, 1], threads: 32 }"),
        base("tcgen05.alloc.full_512", "allocate all 512 columns, then free them",
             [f"{{ ptx: '{A1} [acc], 512;' }}", f"{{ ptx: '{D1} acc, 512;' }}"], "pass", tmem=("{ name: acc, columns: 512 }",)),
        base("tcgen05.alloc.checked_unwritten", "a checked allocation nothing writes: every cell may hold any value",
             [f"{{ ptx: '{A1} [acc], 32;' }}", "{ ptx: 'tcgen05.fence::before_thread_sync;' }"], "pass", threads=128, check=["acc"]),
        base("tcgen05.alloc.cta_group2", "cta_group::2 alloc in both CTAs of a cluster pair, then dealloc",
             ["{ cta: all, ptx: 'tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [acc], 32;' }",
              "{ cta: all, ptx: 'tcgen05.dealloc.cta_group::2.sync.aligned.b32 acc, 32;' }"], "pass",
             launch="{ grid: [2, 1, 1], cluster: [2, 1, 1], threads: 32 }"),
    ]


def ub_cases():
    cases = []

    def u(rule, descr, program, **kw):
        cases.append(base(f"tcgen05.ub.{rule.split('tcgen05.', 1)[1]}", descr, program, f"{{ undefined: {rule} }}", **kw))

    u("tcgen05.alloc.ncols_invalid", "nCols 48 is not a power of two in [32, 512]", [f"{{ ptx: '{A1} [acc], n;' }}"], params={"n": 48})
    u("tcgen05.alloc.ncols_increasing", "a 64-column allocation after a 32-column one",
      [f"{{ ptx: '{A1} [acc], 32;' }}", f"{{ ptx: '{A1} [acc2], 64;' }}"], tmem=("{ name: acc, columns: 32 }", "{ name: acc2, columns: 64 }"))
    u("tcgen05.alloc.after_relinquish", "alloc after relinquish_alloc_permit", [f"{{ ptx: '{R1}' }}", f"{{ ptx: '{A1} [acc], 32;' }}"])
    u("tcgen05.alloc.not_deallocated_at_exit", "an unchecked allocation still live when the kernel exits", [f"{{ ptx: '{A1} [acc], 32;' }}"])
    u("tcgen05.dealloc.not_allocated", "dealloc twice", [f"{{ ptx: '{A1} [acc], 32;' }}", f"{{ ptx: '{D1} acc, 32;' }}", f"{{ ptx: '{D1} acc, 32;' }}"])
    u("tcgen05.dealloc.ncols_mismatch", "dealloc 32 of a 64-column allocation",
      [f"{{ ptx: '{A1} [acc], 64;' }}", f"{{ ptx: '{D1} acc, 32;' }}"], tmem=("{ name: acc, columns: 64 }",))
    ld = "tcgen05.ld.sync.aligned.32x32b.x1.b32 {x}"
    u("tcgen05.tmem.out_of_range", "tcgen05.ld of column 512", [f"{{ ptx: '{A1} [acc], 32;' }}", f"{{ ptx: '{ld}, [acc+512];' }}"])
    u("tcgen05.tmem.unallocated", "tcgen05.ld of column 32 of a 32-column allocation", [f"{{ ptx: '{A1} [acc], 32;' }}", f"{{ ptx: '{ld}, [acc+32];' }}"])
    u("tcgen05.ldst.lane_access", "warp 0 loads lanes 32..63", [f"{{ ptx: '{A1} [acc], 32;' }}", f"{{ ptx: '{ld}, [acc+0x200000];' }}"])
    d, size = layout_desc("none", 128, 1)
    src = [f"{{ name: src, size: {size}, align: 1024, init: {{ pattern: 77 }} }}"]
    u("tcgen05.warp_operand_not_uniform", "dealloc nCols = %laneid: the threads of the warp disagree",
      [f"{{ ptx: '{A1} [acc], 32;' }}", f"{{ ptx: '{D1} acc, %laneid;' }}"])

    def cpu(rule, descr, dv, shape="128x128b", taddr="acc", target_desc=True):
        u(rule, descr, [f"{{ ptx: '{A1} [acc], 32;' }}", f"{{ ptx: 'tcgen05.cp.cta_group::1.{shape} [{taddr}], sdesc;' }}"],
          shared=src, params={"sdesc": f"{{ value: {i64(dv)}, type: b64 }}"})

    cpu("tcgen05.desc.fixed_46_48", "descriptor bits 46-48 = 0", desc(lbo=128, sbo=128, fixed46=0))
    cpu("tcgen05.desc.fixed_53_60", "descriptor bit 53 set", desc(lbo=128, sbo=128, fixed53=1))
    cpu("tcgen05.desc.reserved_bits", "descriptor bit 14 set", desc(lbo=128, sbo=128, reserved14=1))
    cpu("tcgen05.desc.swizzle_invalid", "swizzle mode 3", desc(lbo=128, sbo=128, swizzle=3))
    cpu("tcgen05.desc.start_misaligned", "128B/32B-atom swizzle with start address 16", desc(start=16, lbo=16, sbo=1024, swizzle=1))
    cpu("tcgen05.desc.lbo_absolute_swizzle", "absolute leading-dimension mode without swizzle", desc(lbo=128, sbo=128, mode=1))
    cpu("tcgen05.desc.lbo_absolute_base_offset", "absolute leading-dimension mode with base offset 1", desc(lbo=16, sbo=1024, swizzle=2, mode=1, base=1))
    cpu("tcgen05.desc.lbo_absolute_target", "absolute leading-dimension mode on sm_100a (sm_103a only)", desc(lbo=16, sbo=1024, swizzle=2, mode=1))
    cpu("tcgen05.cp.multicast_lane", ".64x128b.warpx2::02_13 to lane 1", desc(lbo=128, sbo=128), shape="64x128b.warpx2::02_13", taddr="acc+0x10000")
    cpu("tcgen05.cp.lane_range", ".4x256b at lane 126 reaches lane 129", desc(lbo=128, sbo=256), shape="4x256b", taddr="acc+0x7E0000")
    cpu("tcgen05.cp.column_range", ".128x256b at column 510 reaches column 517", desc(lbo=128, sbo=256), shape="128x256b", taddr="acc+510")
    cpu("tcgen05.cp.smem_range", "descriptor start beyond the shared image", desc(start=0x3FF00, lbo=128, sbo=128))
    u("tcgen05.cp.peer_inactive", "cta_group::2 alloc without a cluster (no peer CTA)",
      ["{ ptx: 'tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [acc], 32;' }"])
    u("tcgen05.cta_group_mixed", "cta_group::1 alloc then cta_group::2 relinquish in one kernel",
      [f"{{ ptx: '{A1} [acc], 32;' }}", "{ ptx: 'tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;' }"])
    return cases


def write(fname, header, cases):
    with open(os.path.join(HERE, fname), "w") as f:
        f.write(f"# {header}\n# Generated by generate.py; edit that, not this file.\n")
        f.write("\n\n".join(yaml_case(c) for c in cases) + "\n")


if __name__ == "__main__":
    write("cp.yaml", "tcgen05.cp: every shape x multicast x cta_group x decompression, every descriptor swizzle mode.", cp_cases())
    write("alloc.yaml", "Tensor Memory allocation: alloc / dealloc / relinquish_alloc_permit.", alloc_cases())
    write("ub.yaml", "One case per reachable tcgen05 UB rule (sem::ub layer Tcgen05).", ub_cases())
