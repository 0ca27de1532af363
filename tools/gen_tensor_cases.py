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

    # Interleave (rank >= 3): 16B with every swizzle, 32B with the 32B swizzle it requires.
    cases = []
    for rank in range(3, 6):
        for ty in ["uint8", "float16", "float32", "float64"]:
            for sw in ["none", "32b", "64b", "128b"]:
                cases.append(tile_load(ty, rank, sw, interleave="16b"))
            cases.append(tile_load(ty, rank, "32b", interleave="32b"))
    counts["load_interleave"] = write("load_interleave.yaml", cases, "Interleaved tile loads.")

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
        "and": ["uint32", "int32", "uint64", "int64"],
        "or": ["uint32", "int32", "uint64", "int64"],
        "xor": ["uint32", "int32", "uint64", "int64"],
    }
    cases = []
    for op, tys in legal.items():
        for ty in TYPES:
            elem = TYPES[ty][0]
            box0 = 32 // elem
            dims = [box0 * 2, 3]
            m = tiled_map(ty, dims, [box0, 2])
            ok = ty in tys
            c = store_case(f"tensor.reduce.{op}.{ty}" + ("" if ok else ".illegal"), "sm_90a", m, [0, 0], 64, extent(elem, dims, m["global_strides"]), red=op, expect="pass" if ok else {"undefined": "tensor.reduce_type_illegal"})
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

    total = sum(counts.values())
    for k, v in counts.items():
        print(f"{k}: {v}")
    print(f"total: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
