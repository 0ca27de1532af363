#!/usr/bin/env python3
"""Generate the combinatorial part of cases/tensor/ (written to cases/tensor/gen/*.yaml).

Run from the repository root: `python3 tools/gen_tensor_cases.py`. Deterministic; the output is
committed. Each case states its expectation, and the complete-tx byte count every load case
announces (mbarrier.arrive.expect_tx) is computed here independently of the reference's copy
plans: a plan that disagrees leaves the wait unable to complete (`wait.never_completes`), which
reference/tests/tensor_corpus.rs reports.

Axes: load modes (tile, gather4, im2col, im2col::w, im2col::w::128) x rank x swizzle (none, 32B,
64B, 128B; the 128B atomicity sub-modes on sm_100a) x interleave (none, 16B, 32B) x element-type
class; stores (tile, scatter4, im2col_no_offs); OOB shapes per dimension; reductions (every legal
.redOp x map type, and the illegal pairs); prefetch; multicast; one case per validator rule.
"""

import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "cases", "tensor", "gen")

# tensor_data_type -> (bytes per value, class)
TYPES = {
    "uint8": (1, "int8"),
    "uint16": (2, "int16"),
    "uint32": (4, "int32"),
    "int32": (4, "int32"),
    "uint64": (8, "int64"),
    "int64": (8, "int64"),
    "float16": (2, "f16"),
    "bfloat16": (2, "bf16"),
    "float32": (4, "f32"),
    "float32_ftz": (4, "f32"),
    "tfloat32": (4, "tf32"),
    "float64": (8, "f64"),
}
SPAN = {"none": None, "32b": 32, "64b": 64, "128b": 128, "128b_atom_32b": 128, "128b_atom_64b": 128, "128b_atom_32b_flip_8b": 128}
SM100_SWIZZLES = ["128b_atom_32b", "128b_atom_64b", "128b_atom_32b_flip_8b"]


def flow(m):
    """A YAML flow mapping / sequence (JSON is valid YAML flow syntax)."""
    return json.dumps(m, separators=(", ", ": "))


def ceil_div(a, b):
    return -(-a // b)


def dense_strides(elem, dims):
    out, s = [], dims[0] * elem
    for d in dims[1:]:
        s = ceil_div(s, 16) * 16
        out.append(s)
        s *= d
    return out


def extent(elem, dims, strides):
    """Bytes the tensor spans (the last row padded to 16 for stores' 16-byte clipping)."""
    if not strides:
        return ceil_div(dims[0] * elem, 16) * 16
    return strides[-1] * dims[-1]


class Case:
    def __init__(self, name, target="sm_90a", description=""):
        self.name, self.target, self.description = name, target, description
        self.glob, self.shared, self.mbars, self.maps, self.params = [], [], [], [], {}
        self.program, self.check, self.expect, self.launch = [], [], "pass", None

    def text(self):
        lines = [f"- name: {self.name}"]
        if self.description:
            lines.append(f"  description: {flow(self.description)}")
        lines.append(f"  target: {self.target}")
        if self.launch:
            lines.append(f"  launch: {flow(self.launch)}")
        lines.append("  memory:")
        for key, items in (("global", self.glob), ("shared", self.shared), ("mbarriers", self.mbars), ("tensor_maps", self.maps)):
            if items:
                lines.append(f"    {key}:")
                lines.extend(f"      - {flow(i)}" for i in items)
        if self.params:
            lines.append(f"  params: {flow(self.params)}")
        lines.append("  program:")
        for p in self.program:
            lines.append(f"    - {flow(p) if isinstance(p, dict) else 'ptx: ' + p}")
        if self.check:
            lines.append(f"  check: {flow(self.check)}")
        if isinstance(self.expect, str):
            lines.append(f"  expect: {self.expect}")
        else:
            lines.append(f"  expect: {flow(self.expect)}")
        return "\n".join(lines)


def tiled_map(ty, dims, box, swizzle="none", interleave="none", es=None, oob="none", strides=None):
    elem = TYPES[ty][0] if ty in TYPES else 1
    m = {"encode": "tiled", "tensor_data_type": ty, "global_dim": dims, "global_strides": strides if strides is not None else dense_strides(elem, dims), "box_dim": box}
    if swizzle != "none":
        m["swizzle"] = swizzle
    if interleave != "none":
        m["interleave"] = interleave
    if es:
        m["element_strides"] = es
    if oob != "none":
        m["oob_fill"] = oob
    return m


def smem_rows_pitch(inner_bytes, rows, swizzle, interleave="none"):
    span = SPAN[swizzle]
    pitch = max(inner_bytes, span) if (span and interleave == "none") else inner_bytes
    return max(16, rows * pitch)


def coords_text(cs):
    return "{" + ", ".join(str(c) for c in cs) + "}"


def load_case(name, target, ty, m, coords, tx, smem_bytes, global_bytes, dst="shared::cluster", mode_q="tile", info=None, expect="pass", description=""):
    c = Case(name, target, description)
    c.glob.append({"name": "src", "size": global_bytes, "init": {"pattern": 7}})
    c.shared.append({"name": "dst", "size": smem_bytes, "align": 1024, "init": {"fill": 170}})
    c.mbars.append({"name": "bar"})
    c.maps.append({"name": "tm", "global": "src", "map": m})
    rank = len(m["global_dim"])
    ninfo = f", {coords_text(info)}" if info is not None else ""
    c.program = [
        "mbarrier.init.shared::cta.b64 [bar], 1",
        f"mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], {tx}",
        f"cp.async.bulk.tensor.{rank}d.{dst}.global.{mode_q}.mbarrier::complete_tx::bytes [dst], [tm, {coords_text(coords)}], [bar]{ninfo}",
        {"wait_parity": {"mbar": "bar", "parity": 0}},
    ]
    c.check = ["dst", "bar"]
    c.expect = expect
    return c


def box_units(box, es):
    n = 1
    for b, e in zip(box, es):
        n *= ceil_div(b, e)
    return n


def tile_load(ty, rank, swizzle, interleave="none", es=None, oob_coords=None, oob="none", dst="shared::cluster", tag=""):
    elem = TYPES[ty][0]
    span = SPAN[swizzle]
    inner = span if (span and interleave == "none") else 32
    if interleave != "none" and swizzle == "none":
        inner = 32
    box0 = max(1, inner // elem)
    dims = [box0 * 2] + [3, 4, 2, 2][: rank - 1]
    box = [box0] + [2] * (rank - 1)
    es_full = es or [1] * rank
    m = tiled_map(ty, dims, box, swizzle, interleave, es, oob)
    units = box_units([box0] + box[1:], [1] + es_full[1:])
    tx = units * elem
    rows = units // box0
    smem = smem_rows_pitch(box0 * elem, rows, swizzle, interleave)
    coords = oob_coords or [0] * rank
    target = "sm_100a" if swizzle in SM100_SWIZZLES else "sm_90a"
    name = f"tensor.load.tile.{rank}d.{ty}.sw_{swizzle}.il_{interleave}{tag}"
    g = extent(elem, dims, m["global_strides"])
    return load_case(name, target, ty, m, coords, tx, smem, g, dst=dst)


GRANULE = {"16b": 16, "32b": 32}


def interleave_box_bytes(box, es, interleave):
    """complete-tx bytes of an interleaved tile box, computed here from the observed rule
    (reports/findings.md H9): dimension 0 counts G-byte granules (G = 16 / 32) whatever the
    type, and dimension rank-2 is not traversed."""
    g = GRANULE[interleave]
    n = 1
    for k, (b, e) in enumerate(zip(box, es)):
        n *= 1 if k == len(box) - 2 else ceil_div(b, e)
    return n * g


def granule_strides(dims, interleave):
    """Dense byte strides of a tensor whose dimension 0 counts interleave granules."""
    strides, s = [], dims[0] * GRANULE[interleave]
    for d in dims[1:]:
        strides.append(s)
        s *= d
    return strides


def interleave_map(ty, rank, interleave, swizzle, es=None, oob="none"):
    """An interleaved tiled map: dimension 0 of dims / box / coordinates in granules."""
    box0 = max(1, 32 // TYPES[ty][0])
    dims = [box0 + 2, 3, 4, 3, 2][:rank]
    box = [box0, 2, 3, 2, 2][:rank]
    return tiled_map(ty, dims, box, swizzle, interleave, es, oob, strides=granule_strides(dims, interleave))


def interleave_load(ty, rank, swizzle, interleave, coords=None, es=None, oob="none", tag=""):
    m = interleave_map(ty, rank, interleave, swizzle, es=es, oob=oob)
    tx = interleave_box_bytes(m["box_dim"], es or [1] * rank, interleave)
    name = f"tensor.load.tile.{rank}d.{ty}.sw_{swizzle}.il_{interleave}{tag}"
    glob = m["global_strides"][-1] * m["global_dim"][-1]
    return load_case(name, "sm_90a", ty, m, coords or [0] * rank, tx, tx, glob)


def interleave_store(ty, rank, interleave, swizzle, coords=None, tag=""):
    m = interleave_map(ty, rank, interleave, swizzle)
    smem = interleave_box_bytes(m["box_dim"], [1] * rank, interleave)
    glob = m["global_strides"][-1] * m["global_dim"][-1]
    return store_case(f"tensor.store.tile.{rank}d.{ty}.sw_{swizzle}.il_{interleave}{tag}", "sm_90a", m, coords or [0] * rank, smem, glob)


def im2col_interleave_load(ty, rank, interleave, swizzle, tag="", coords=None):
    """Observed on H200 (Im2colInterleaveStepsDim0): pixel k is granule c0 + k of dimension 0,
    one G-byte row each, so complete-tx = pixelsPerColumn x G."""
    elem = TYPES[ty][0]
    g = GRANULE[interleave]
    cpp = 16 // elem
    dims = [cpp + 2, 5, 3, 2, 2][:rank]
    dims[-1] = 2  # N
    strides = granule_strides(dims, interleave)
    spatial = rank - 2
    m = im2col_map(ty, dims, [0] * spatial, [0] * spatial, cpp, 6, swizzle)
    m["global_strides"] = strides
    m["interleave"] = interleave
    tx = 6 * g
    c = coords or [0] * rank
    return load_case(f"tensor.load.im2col.{rank}d.{ty}.sw_{swizzle}.il_{interleave}{tag}", "sm_90a", ty, m, c, tx, tx, strides[-1] * dims[-1], mode_q="im2col", info=[0] * spatial)


def store_case(name, target, m, coords, smem_bytes, global_bytes, mode_q="tile", expect="pass", red=None):
    c = Case(name, target)
    c.glob.append({"name": "out", "size": global_bytes, "init": {"pattern": 3}})
    c.shared.append({"name": "src", "size": smem_bytes, "align": 1024, "init": {"pattern": 5}})
    c.maps.append({"name": "tm", "global": "out", "map": m})
    rank = len(m["global_dim"])
    head = f"cp.reduce.async.bulk.tensor.{rank}d.global.shared::cta.{red}" if red else f"cp.async.bulk.tensor.{rank}d.global.shared::cta"
    c.program = [
        f"{head}.{mode_q}.bulk_group [tm, {coords_text(coords)}], [src]",
        "cp.async.bulk.commit_group",
        "cp.async.bulk.wait_group 0",
    ]
    c.check = ["out"]
    c.expect = expect
    return c


def tile_store(ty, rank, swizzle, coords=None, tag=""):
    elem = TYPES[ty][0]
    span = SPAN[swizzle]
    inner = span or 32
    box0 = inner // elem
    dims = [box0 * 2] + [3, 4, 2, 2][: rank - 1]
    box = [box0] + [2] * (rank - 1)
    m = tiled_map(ty, dims, box, swizzle)
    rows = box_units(box, [1] * rank) // box0
    smem = smem_rows_pitch(box0 * elem, rows, swizzle)
    target = "sm_100a" if swizzle in SM100_SWIZZLES else "sm_90a"
    return store_case(f"tensor.store.tile.{rank}d.{ty}.sw_{swizzle}{tag}", target, m, coords or [0] * rank, smem, extent(elem, dims, m["global_strides"]))


def im2col_map(ty, dims, lower, upper, cpp, ppc, swizzle="none", wide=None):
    elem = TYPES[ty][0]
    m = {"encode": "im2col_wide" if wide else "im2col", "tensor_data_type": ty, "global_dim": dims, "global_strides": dense_strides(elem, dims)}
    if wide:
        m.update({"pixel_box_lower_corner_width": lower, "pixel_box_upper_corner_width": upper, "mode": wide})
    else:
        m.update({"pixel_box_lower_corner": lower, "pixel_box_upper_corner": upper})
    m.update({"channels_per_pixel": cpp, "pixels_per_column": ppc})
    if swizzle != "none":
        m["swizzle"] = swizzle
    return m


def im2col_load(ty, rank, swizzle):
    elem = TYPES[ty][0]
    span = SPAN[swizzle]
    cpp = (span or 32) // elem
    dims = [cpp, 4, 3, 2, 2][:rank]
    dims[-1] = 2  # N
    spatial = rank - 2
    m = im2col_map(ty, dims, [0] * spatial, [0] * spatial, cpp, 4, swizzle)
    tx = 4 * cpp * elem
    smem = smem_rows_pitch(cpp * elem, 4, swizzle)
    info = [0] * spatial
    return load_case(f"tensor.load.im2col.{rank}d.{ty}.sw_{swizzle}", "sm_90a", ty, m, [0] * rank, tx, smem, extent(elem, dims, m["global_strides"]), mode_q="im2col", info=info)


def wide_load(ty, rank, swizzle, w128):
    elem = TYPES[ty][0]
    cpp = SPAN[swizzle] // elem
    dims = [cpp, 40 if not w128 else 160, 2, 2, 2][:rank]
    m = im2col_map(ty, dims, 0, 0, cpp, 8, swizzle, wide="w128" if w128 else "w")
    halo = 2
    pixels = (4 * (32 + halo)) if w128 else (8 + halo)
    tx = pixels * cpp * elem
    smem = smem_rows_pitch(cpp * elem, pixels, swizzle)
    q = "im2col::w::128" if w128 else "im2col::w"
    name = f"tensor.load.{q.replace('::', '_')}.{rank}d.{ty}.sw_{swizzle}"
    return load_case(name, "sm_100a", ty, m, [0] * rank, tx, smem, extent(elem, dims, m["global_strides"]), mode_q=q, info=[halo, 0])


def gather4(ty, swizzle):
    elem = TYPES[ty][0]
    box0 = (SPAN[swizzle] or 64) // elem
    dims = [box0 * 2, 8]
    m = tiled_map(ty, dims, [box0, 1], swizzle)
    tx = 4 * box0 * elem
    smem = smem_rows_pitch(box0 * elem, 4, swizzle)
    target = "sm_100a"
    c = load_case(f"tensor.load.gather4.2d.{ty}.sw_{swizzle}", target, ty, m, [0, 1, 3, 5, 7], tx, smem, extent(elem, dims, m["global_strides"]), mode_q="tile::gather4")
    return c


def base_tiled():
    return tiled_map("float32", [64, 3], [16, 2])


def base_im2col(rank=3, ty="float32"):
    dims = [8, 4, 3, 2, 2][:rank]
    return im2col_map(ty, dims, [0] * (rank - 2), [0] * (rank - 2), 16 // TYPES.get(ty, (4,))[0] * 2 if ty in TYPES else 128, 4)


def packed(ty="16u4_align16b", dims=(128, 2), box0=128, extra=None):
    m = {"encode": "tiled", "tensor_data_type": ty, "global_dim": list(dims), "global_strides": [128] * (len(dims) - 1), "box_dim": [box0] + [1] * (len(dims) - 1)}
    m.update(extra or {})
    return m


def wide(extra=None, rank=3):
    m = im2col_map("float32", [32, 40, 2, 2, 2][:rank], 0, 0, 32, 8, "128b", wide="w")
    m.update(extra or {})
    return m


def upd(m, **kw):
    m = dict(m)
    m.update(kw)
    return m


# rule id -> (target, map, region misalign). One case each; the first failing rule must be this one.
REJECTIONS = [
    ("fields-for-encode", "sm_90a", upd(base_tiled(), channels_per_pixel=8), 0),
    ("array-lengths-match-rank", "sm_90a", upd(base_tiled(), box_dim=[16]), 0),
    ("im2col-wide-needs-sm100", "sm_90a", wide(), 0),
    ("packed-type-needs-sm100", "sm_90a", packed("16u4_align8b"), 0),
    ("swizzle-atomicity-needs-sm100", "sm_90a", upd(base_tiled(), swizzle="128b_atom_32b"), 0),
    ("rank-range", "sm_90a", tiled_map("uint8", [16, 2, 2, 2, 2, 2], [16, 1, 1, 1, 1, 1]), 0),
    ("rank-interleave-min-3", "sm_90a", upd(base_tiled(), interleave="16b"), 0),
    ("rank-im2col-3-to-5", "sm_90a", im2col_map("float32", [8, 4], [], [], 8, 4), 0),
    ("global-address-align-16", "sm_90a", base_tiled(), 8),
    ("global-address-align-32-interleave-32b", "sm_90a", tiled_map("float32", [8, 2, 2], [8, 1, 1], "32b", "32b"), 16),
    ("global-address-align-32-packed16", "sm_100a", packed(), 16),
    ("global-dim-range", "sm_90a", upd(base_tiled(), global_dim=[64, 0]), 0),
    ("global-dim0-packed16-multiple-128", "sm_100a", packed(dims=(64, 2)), 0),
    ("global-dim0-u4-align8b-multiple-2", "sm_100a", packed("16u4_align8b", dims=(63, 2), box0=32), 0),
    ("global-stride-multiple-16", "sm_90a", upd(base_tiled(), global_strides=[264]), 0),
    ("global-stride-below-2-40", "sm_90a", upd(base_tiled(), global_strides=[1 << 40]), 0),
    ("global-stride-multiple-32-interleave-32b", "sm_90a", upd(tiled_map("float32", [8, 2, 2], [8, 1, 1], "32b", "32b"), global_strides=[48, 96]), 0),
    ("global-stride-multiple-32-packed16", "sm_100a", upd(packed(), global_strides=[80]), 0),
    ("global-stride-covers-previous", "sm_90a", upd(base_tiled(), global_strides=[128]), 0),
    ("box-dim-range", "sm_90a", upd(base_tiled(), box_dim=[16, 0]), 0),
    ("box-inner-bytes-multiple-of-16", "sm_90a", upd(base_tiled(), box_dim=[2, 2]), 0),
    ("im2col-channel-bytes-multiple-of-16", "sm_90a", upd(base_im2col(), channels_per_pixel=2), 0),
    ("box-dim0-packed16-is-128", "sm_100a", packed(box0=64), 0),
    ("element-stride-range", "sm_90a", upd(base_tiled(), element_strides=[1, 9]), 0),
    ("box-inner-within-swizzle-span", "sm_90a", upd(base_tiled(), swizzle="32b"), 0),
    ("interleave-32b-needs-swizzle-32b", "sm_90a", tiled_map("float32", [8, 2, 2], [8, 1, 1], "none", "32b"), 0),
    ("packed-u6-needs-interleave-none", "sm_100a", packed("16u6_align16b", dims=(128, 2, 2), extra={"interleave": "16b", "global_strides": [128, 256]}), 0),
    ("packed16-swizzle-modes", "sm_100a", packed(extra={"swizzle": "64b"}), 0),
    ("oob-nan-needs-float-type", "sm_90a", upd(tiled_map("uint32", [64, 3], [16, 2]), oob_fill="nan_request_zero_fma"), 0),
    ("im2col-corner-range", "sm_90a", upd(base_im2col(4), pixel_box_lower_corner=[-129, 0], pixel_box_upper_corner=[0, 0]), 0),
    ("im2col-box-nonzero-area", "sm_90a", upd(base_im2col(), pixel_box_upper_corner=[-4]), 0),
    ("channels-per-pixel-range", "sm_90a", upd(base_im2col(), channels_per_pixel=0), 0),
    ("channels-per-pixel-packed16-is-128", "sm_100a", {"encode": "im2col", "tensor_data_type": "16u4_align16b", "global_dim": [128, 4, 2], "global_strides": [128, 512], "pixel_box_lower_corner": [0], "pixel_box_upper_corner": [0], "channels_per_pixel": 64, "pixels_per_column": 4}, 0),
    ("pixels-per-column-range", "sm_90a", upd(base_im2col(), pixels_per_column=0), 0),
    ("im2col-wide-corner-range", "sm_100a", wide({"pixel_box_lower_corner_width": -200}, rank=4), 0),
    ("im2col-wide-swizzle-modes", "sm_100a", wide({"swizzle": "32b", "channels_per_pixel": 8}), 0),
    ("im2col-wide-interleave-none", "sm_100a", wide({"interleave": "16b"}), 0),
]


def rejection_case(rule, target, m, misalign):
    rank = max(1, min(5, len(m["global_dim"])))
    c = Case(f"tensor.reject.{rule}", target, f"validator rule {rule}")
    size = 1 << 16
    g = {"name": "src", "size": size}
    if misalign:
        g["misalign"] = misalign
    c.glob.append(g)
    c.shared.append({"name": "dst", "size": 1024, "align": 1024})
    c.mbars.append({"name": "bar"})
    c.maps.append({"name": "tm", "global": "src", "map": m})
    c.program = ["mbarrier.init.shared::cta.b64 [bar], 1", f"cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst], [tm, {coords_text([0] * rank)}], [bar]"]
    c.expect = {"undefined": f"tensormap.encode_rejected:{rule}"}
    return c


def copy_rule_cases():
    """One case per copy rule of sem::tensor::access::copy_rule (UB `tensor.copy:<rule>`)."""
    out = []

    def load(rule, target, m, ins, dst="dst", gsize=1 << 14, store=False):
        c = Case(f"tensor.copy_rule.{rule}", target, f"copy rule {rule}")
        c.glob.append({"name": "src", "size": gsize})
        c.shared.append({"name": "dst", "size": 1 << 16, "align": 1024})
        c.mbars.append({"name": "bar"})
        c.maps.append({"name": "tm", "global": "src", "map": m})
        c.program = ["mbarrier.init.shared::cta.b64 [bar], 1", ins]
        c.expect = {"undefined": f"tensor.copy:{rule}"}
        out.append(c)

    mb = "mbarrier::complete_tx::bytes"
    load("coords-count", "sm_90a", tiled_map("float32", [64, 3, 2], [16, 2, 1]), f"cp.async.bulk.tensor.2d.shared::cluster.global.tile.{mb} [dst], [tm, {{0, 0}}], [bar]")
    load("mode-matches-map", "sm_90a", base_im2col(), f"cp.async.bulk.tensor.3d.shared::cluster.global.tile.{mb} [dst], [tm, {{0, 0, 0}}], [bar]")
    load("gather4-scatter4-shape", "sm_100a", base_tiled(), f"cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.{mb} [dst], [tm, {{0, 0, 1, 2, 0}}], [bar]")
    load("im2col-offsets-range", "sm_90a", base_im2col(5), f"cp.async.bulk.tensor.5d.shared::cluster.global.im2col.{mb} [dst], [tm, {{0, 0, 0, 0, 0}}], [bar], {{32, 0, 0}}")
    load("whalo-woffset-range", "sm_100a", wide(), f"cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.{mb} [dst], [tm, {{0, 0, 0}}], [bar], {{512, 0}}")
    load("im2col-filter-base-in-box", "sm_90a", base_im2col(), f"cp.async.bulk.tensor.3d.shared::cluster.global.im2col.{mb} [dst], [tm, {{0, -1, 0}}], [bar], {{0}}")
    load("packed-coord0-alignment", "sm_100a", packed("16u4_align8b", box0=32), f"cp.async.bulk.tensor.2d.shared::cluster.global.tile.{mb} [dst], [tm, {{1, 0}}], [bar]")
    load("smem-alignment", "sm_100a", upd(base_tiled(), swizzle="128b_atom_64b"), f"cp.async.bulk.tensor.2d.shared::cluster.global.tile.{mb} [dst+32], [tm, {{0, 0}}], [bar]")
    load("box-fits-shared-memory", "sm_90a", tiled_map("float32", [256, 256], [256, 256]), f"cp.async.bulk.tensor.2d.shared::cluster.global.tile.{mb} [dst], [tm, {{0, 0}}], [bar]", gsize=1 << 18)
    load("box-start-16b-aligned", "sm_90a", base_tiled(), f"cp.async.bulk.tensor.2d.shared::cluster.global.tile.{mb} [dst], [tm, {{1, 0}}], [bar]")
    load("flip-8b-load-not-im2col-w", "sm_100a", upd(base_tiled(), swizzle="128b_atom_32b_flip_8b"), "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [tm, {0, 0}], [dst]")
    load("store-coords-in-tensor", "sm_90a", base_tiled(), "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [tm, {-16, 0}], [dst]")
    load("packed-type-direction", "sm_100a", packed(), "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [tm, {0, 0}], [dst]")
    return out


# Sub-byte types (sm_100a): (values per unit, global bytes per unit, shared bytes per unit).
PACKED = {"16u4_align8b": (2, 1, 1), "16u4_align16b": (16, 8, 16), "16u6_align16b": (16, 12, 16)}


def packed_load(ty, rank, swizzle):
    vals, gb, sb = PACKED[ty]
    box0 = 128
    row_g, row_s = box0 // vals * gb, box0 // vals * sb
    dims = [256] + [3, 2, 2, 2][: rank - 1]
    s0 = 256 // vals * gb
    strides = []
    acc = s0
    for d in dims[1:]:
        acc = ceil_div(acc, 32) * 32
        strides.append(acc)
        acc *= d
    box = [box0] + [2] * (rank - 1)
    m = {"encode": "tiled", "tensor_data_type": ty, "global_dim": dims, "global_strides": strides, "box_dim": box}
    if swizzle != "none":
        m["swizzle"] = swizzle
    rows = 2 ** (rank - 1)
    tx = rows * row_s
    smem = smem_rows_pitch(row_s, rows, swizzle)
    g = strides[-1] * dims[-1] if strides else ceil_div(s0, 16) * 16
    c = load_case(f"tensor.load.tile.{rank}d.{ty}.sw_{swizzle}", "sm_100a", ty, m, [0] * rank, tx, smem, g)
    if sb != gb:
        c.check = ["bar"]  # padding bytes of each unit are indeterminate
    return c, m, smem, g


def packed_store(ty, rank, swizzle):
    _, m, smem, g = packed_load(ty, rank, swizzle)
    return store_case(f"tensor.store.tile.{rank}d.{ty}.sw_{swizzle}", "sm_100a", m, [0] * rank, smem, g)


def write(fname, cases, header):
    with open(os.path.join(OUT, fname), "w") as f:
        f.write(f"# GENERATED by tools/gen_tensor_cases.py -- do not edit. {header}\n")
        f.write("\n\n".join(c.text() for c in cases) + "\n")
    return len(cases)


def main():
    os.makedirs(OUT, exist_ok=True)
    counts = {}

    # Tile loads: rank x swizzle x type.
    cases = []
    for rank in range(1, 6):
        for sw in ["none", "32b", "64b", "128b"]:
            for ty in TYPES:
                if SPAN[sw] and SPAN[sw] < TYPES[ty][0]:
                    continue
                cases.append(tile_load(ty, rank, sw))
    # .shared::cta destination (PTX 8.6) and traversal strides.
    for rank in range(1, 6):
        cases.append(tile_load("float32", rank, "128b", dst="shared::cta", tag=".cta"))
    for rank in range(2, 6):
        cases.append(tile_load("uint16", rank, "none", es=[1] + [2] * (rank - 1), tag=".es2"))
    counts["load_tile"] = write("load_tile.yaml", cases, "Tile loads: rank x swizzle x element type.")

    # Interleave (rank >= 3): 16B with every swizzle, 32B with the 32B swizzle it requires;
    # inner coordinates, dimension-0 bounds and traversal strides count granules (H9).
    cases = []
    for rank in range(3, 6):
        for ty in ["uint8", "float16", "float32", "float64"]:
            for sw in ["none", "32b", "64b", "128b"]:
                cases.append(interleave_load(ty, rank, sw, "16b"))
            cases.append(interleave_load(ty, rank, "32b", "32b"))
        for il, sw in [("16b", "none"), ("32b", "32b")]:
            cases.append(interleave_load("float32", rank, sw, il, coords=[1] * rank, tag=".at1"))
            # dimension 0 runs past the tensor's last granule; dimension 1 starts before 0
            cases.append(interleave_load("float32", rank, sw, il, coords=[6, -1] + [0] * (rank - 2), tag=".oob"))
            cases.append(interleave_load("float32", rank, sw, il, coords=[6, -1] + [0] * (rank - 2), oob="nan_request_zero_fma", tag=".oob_nan"))
    for il, sw in [("16b", "none"), ("32b", "32b")]:
        cases.append(interleave_load("uint16", 3, sw, il, es=[2, 1, 2], tag=".es2"))
        cases.append(interleave_load("tfloat32", 3, sw, il, tag=".tf32"))
        cases.append(interleave_load("float16", 4, sw, il, coords=[0, 0, 0, 2], oob="nan_request_zero_fma", tag=".oob_nan"))
    counts["load_interleave"] = write("load_interleave.yaml", cases, "Interleaved tile loads.")
    cases = []
    for rank in range(3, 6):
        for il, sw in [("16b", "none"), ("16b", "128b"), ("32b", "32b")]:
            cases.append(interleave_store("float32", rank, il, sw))
            cases.append(interleave_store("uint8", rank, il, sw, coords=[1] * rank, tag=".at1"))
    cases = []
    for rank in range(3, 6):
        for il, sw in [("16b", "none"), ("16b", "64b"), ("32b", "32b")]:
            cases.append(im2col_interleave_load("float32", rank, il, sw))
            cases.append(im2col_interleave_load("uint8", rank, il, sw, coords=[1, 1] + [0] * (rank - 2), tag=".at1"))
    counts["load_im2col_interleave"] = write("load_im2col_interleave.yaml", cases, "Interleaved im2col loads (observed: pixel k is granule c0 + k of dimension 0).")
    counts["store_interleave"] = write("store_interleave.yaml", cases, "Interleaved tile stores (position: the load's granule layout, InterleaveGranuleUnits).")

    # 128B atomicity sub-modes (sm_100a).
    cases = []
    for rank in [1, 2, 3]:
        for sw in SM100_SWIZZLES:
            for ty in ["uint8", "float16", "float32", "float64"]:
                cases.append(tile_load(ty, rank, sw))
    counts["load_atom"] = write("load_atom.yaml", cases, "128B swizzle atomicity sub-modes (sm_100a).")

    # OOB: per dimension, negative / past-the-end / wholly outside; zero and NaN fill.
    cases = []
    for rank in [2, 3, 5]:
        for ty, oob in [("float32", "none"), ("float32", "nan_request_zero_fma"), ("float16", "nan_request_zero_fma"), ("float64", "nan_request_zero_fma"), ("uint8", "none")]:
            elem = TYPES[ty][0]
            box0 = 32 // elem
            dims = [box0 * 2] + [3, 4, 2, 2][: rank - 1]
            for d in range(rank):
                for shape in ["neg", "past", "outside"]:
                    cs = [0] * rank
                    step = box0 if d == 0 else 1
                    if shape == "neg":
                        cs[d] = -step
                    elif shape == "past":
                        cs[d] = dims[d] - step
                    else:
                        cs[d] = dims[d] + (box0 if d == 0 else 2)
                    c = tile_load(ty, rank, "none", oob_coords=cs, oob=oob, tag=f".oob_{oob[:3]}.d{d}_{shape}")
                    cases.append(c)
    counts["load_oob"] = write("load_oob.yaml", cases, "Out-of-bound boxes per dimension.")

    # im2col (sm_90a) and the wide modes (sm_100a); gather4 (sm_100a).
    cases = []
    for rank in [3, 4, 5]:
        for ty in ["uint8", "float16", "float32", "float64"]:
            for sw in ["none", "32b", "64b", "128b"]:
                if SPAN[sw] and SPAN[sw] < TYPES[ty][0]:
                    continue
                cases.append(im2col_load(ty, rank, sw))
    counts["load_im2col"] = write("load_im2col.yaml", cases, "im2col loads.")
    cases = []
    for rank in [3, 4, 5]:
        for ty in ["float16", "float32"]:
            for sw in ["64b", "128b", "128b_atom_32b"]:
                for w128 in [False, True]:
                    cases.append(wide_load(ty, rank, sw, w128))
    counts["load_im2col_w"] = write("load_im2col_w.yaml", cases, "im2col::w / im2col::w::128 loads (sm_100a).")
    cases = [gather4(ty, sw) for ty in ["uint8", "float16", "float32", "float64"] for sw in ["none", "32b", "64b", "128b"] if not (SPAN[sw] and SPAN[sw] < TYPES[ty][0])]
    counts["load_gather4"] = write("load_gather4.yaml", cases, "tile::gather4 loads (sm_100a).")

    # Stores.
    cases = []
    for rank in range(1, 6):
        for sw in ["none", "32b", "64b", "128b"]:
            for ty in ["uint8", "uint16", "uint32", "uint64", "float16", "bfloat16", "float32", "float64"]:
                cases.append(tile_store(ty, rank, sw))
    # Past-the-end stores: the OOB part is not written.
    for rank in [2, 3]:
        for d in range(rank):
            cs = [0] * rank
            cs[d] = {0: 8, 1: 2, 2: 3}[d]
            cases.append(tile_store("float32", rank, "none", coords=cs, tag=f".d{d}_past"))
    counts["store_tile"] = write("store_tile.yaml", cases, "Tile stores.")
    cases = []
    for ty in ["float16", "float32"]:
        box0 = 64 // TYPES[ty][0]
        dims = [box0 * 2, 8]
        m = tiled_map(ty, dims, [box0, 1])
        c = store_case(f"tensor.store.scatter4.2d.{ty}", "sm_100a", m, [0, 1, 3, 5, 7], 4 * 64, extent(TYPES[ty][0], dims, m["global_strides"]), mode_q="tile::scatter4")
        cases.append(c)
    for rank in [3, 4, 5]:
        for ty in ["float16", "float32"]:
            elem = TYPES[ty][0]
            cpp = 32 // elem
            dims = [cpp, 4, 3, 2, 2][:rank]
            m = im2col_map(ty, dims, [0] * (rank - 2), [0] * (rank - 2), cpp, 4)
            cases.append(store_case(f"tensor.store.im2col_no_offs.{rank}d.{ty}", "sm_90a", m, [0] * rank, 4 * 32, extent(elem, dims, m["global_strides"]), mode_q="im2col_no_offs"))
    counts["store_other"] = write("store_other.yaml", cases, "scatter4 (sm_100a) and im2col_no_offs stores.")

    # Reductions: every .redOp x map type; illegal pairs classified.
    legal = {
        "add": ["uint32", "int32", "uint64", "float32", "float32_ftz", "float16", "bfloat16"],
        "min": ["uint32", "int32", "uint64", "int64", "float16", "bfloat16"],
        "max": ["uint32", "int32", "uint64", "int64", "float16", "bfloat16"],
        "inc": ["uint32"],
        "dec": ["uint32"],
        "and": ["uint32", "int32", "uint64"],  # INT64: a trap on H100/H200 (H8), so not .b64
        "or": ["uint32", "int32", "uint64"],  # INT64: a trap on H100/H200 (H8), so not .b64
        "xor": ["uint32", "int32", "uint64"],  # INT64: a trap on H100/H200 (H8), so not .b64
    }
    def unlisted_rule(op, ty):
        # An .add over a float map the table leaves out completes on H100 (its own rule).
        if op == "add" and ty in ("float64", "tfloat32", "tfloat32_ftz"):
            return "tensor.reduce_add_unlisted_float"
        return "tensor.reduce_type_illegal"

    cases = []
    for op, tys in legal.items():
        for ty in TYPES:
            elem = TYPES[ty][0]
            box0 = 32 // elem
            dims = [box0 * 2, 3]
            m = tiled_map(ty, dims, [box0, 2])
            ok = ty in tys
            c = store_case(f"tensor.reduce.{op}.{ty}" + ("" if ok else ".illegal"), "sm_90a", m, [0, 0], 64, extent(elem, dims, m["global_strides"]), red=op, expect="pass" if ok else {"undefined": unlisted_rule(op, ty)})
            cases.append(c)
        # im2col_no_offs reduction.
    for rank in [3, 4, 5]:
        dims = [8, 4, 3, 2, 2][:rank]
        m = im2col_map("float32", dims, [0] * (rank - 2), [0] * (rank - 2), 8, 4)
        cases.append(store_case(f"tensor.reduce.add.im2col_no_offs.{rank}d", "sm_90a", m, [0] * rank, 128, extent(4, dims, m["global_strides"]), mode_q="im2col_no_offs", red="add"))
    counts["reduce"] = write("reduce.yaml", cases, "cp.reduce.async.bulk.tensor: .redOp x map type.")

    # Prefetch.
    cases = []
    for rank in range(1, 6):
        c = Case(f"tensor.prefetch.tile.{rank}d")
        dims = [64] + [3] * (rank - 1)
        m = tiled_map("float32", dims, [16] + [2] * (rank - 1))
        c.glob.append({"name": "src", "size": extent(4, dims, m["global_strides"])})
        c.maps.append({"name": "tm", "global": "src", "map": m})
        c.program = [f"cp.async.bulk.prefetch.tensor.{rank}d.L2.global.tile [tm, {coords_text([0] * rank)}]"]
        cases.append(c)
    for rank in [3, 4, 5]:
        c = Case(f"tensor.prefetch.im2col.{rank}d")
        dims = [8, 4, 3, 2, 2][:rank]
        m = im2col_map("float32", dims, [0] * (rank - 2), [0] * (rank - 2), 8, 4)
        c.glob.append({"name": "src", "size": extent(4, dims, m["global_strides"])})
        c.maps.append({"name": "tm", "global": "src", "map": m})
        c.program = [f"cp.async.bulk.prefetch.tensor.{rank}d.L2.global.im2col [tm, {coords_text([0] * rank)}], {coords_text([0] * (rank - 2))}"]
        cases.append(c)
    counts["prefetch"] = write("prefetch.yaml", cases, "cp.async.bulk.prefetch.tensor.")

    cases = []
    for rank in [1, 2, 3]:
        for sw in ["none", "64b", "128b", "128b_atom_32b"]:
            cases.append(packed_load("16u4_align8b", rank, sw)[0])
        for sw in ["none", "128b", "128b_atom_32b"]:
            cases.append(packed_load("16u4_align16b", rank, sw)[0])
            cases.append(packed_load("16u6_align16b", rank, sw)[0])
        for sw in ["none", "128b", "128b_atom_32b", "128b_atom_64b"]:
            cases.append(packed_store("16u6_align16b", rank, sw))
        for sw in ["none", "128b"]:
            cases.append(packed_store("16u4_align8b", rank, sw))
    counts["packed"] = write("packed.yaml", cases, "Sub-byte types (sm_100a): loads and stores.")
    counts["reject"] = write("reject.yaml", [rejection_case(*r) for r in REJECTIONS], "One case per validator rule (tensormap.encode_rejected:<rule>).")
    counts["copy_rule"] = write("copy_rule.yaml", copy_rule_cases(), "One case per copy rule (tensor.copy:<rule>).")

    total = sum(counts.values())
    for k, v in counts.items():
        print(f"{k}: {v}")
    print(f"total: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
