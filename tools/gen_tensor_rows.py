#!/usr/bin/env python3
"""One case per legal coverage row of the tensor-copy families (written to cases/tensor/rows/).

Run from the repository root: `python3 tools/gen_tensor_rows.py [--rows coverage.json]`.

The rows come from the model itself: `ptxconform coverage --cases <empty dir> --family tensor
--no-ptxas --json` (run with target/release/ptxconform unless `--rows` names such a JSON file), so
every row the model lists as legal on some target of the matrix gets exactly one case, and a row
this script does not understand is an error rather than a silent gap. Output is deterministic
for a given row list; commit it, never edit it.

Each case is the simplest well-defined program for its row, on sm_90a where the row is legal
there (so the H100 can run it) and sm_100a otherwise:
- loads (global -> shared): one box, its complete-tx bytes announced with expect_tx (computed here
  from the box geometry, independently of the reference's copy plans), a wait, and checks of the
  destination and the mbarrier. `.multicast::cluster`: a 2-CTA cluster, mask 0b11, an mbarrier and
  expect_tx in every destination CTA; with `.cta_group::2` a 4-CTA cluster, mask 0b1111, the
  signals of each CTA pair going to its even CTA (the parity of the CTA holding `mbar`).
  `.cta_group::2` without multicast into `.shared::cluster`: CTA 1 loads into its own shared
  memory and signals the mbarrier of its peer CTA 0 (a `mapa` address).
- stores and reductions (shared::cta -> global): one box, commit_group, wait_group 0, check of the
  global tensor. Reductions use a map type the .redOp allows (hardware-confirmed ones; int64
  bitwise reductions trap on the H100, finding H8, and are avoided).
- prefetches: the prefetch, then a load of the same box in the same mode (checked as above): a
  prefetch changes no state, so the load must still deliver the tensor's bytes.
- `.L2::cache_hint`: the 64-bit policy 0x14F0000000000000 (CUTLASS's EVICT_LAST), the value the
  bulk / reduce hint cases passed with on the H100 (finding H1: plain cp.async traps with it).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_tensor_cases import TYPES, Case, coords_text, extent, im2col_map, smem_rows_pitch, tiled_map  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "cases", "tensor", "rows")

LOAD = "cp.async.bulk.tensor"
REDUCE = "cp.reduce.async.bulk.tensor"
PREFETCH = "cp.async.bulk.prefetch.tensor"
HEADS = [REDUCE, PREFETCH, LOAD]

POLICY = 0x14F0000000000000
FETCH_MODES = ["", "tile", "tile::gather4", "im2col", "im2col::w", "im2col::w::128"]
STORE_MODES = ["", "tile", "tile::scatter4", "im2col_no_offs"]
RED_OPS = ["add", "min", "max", "inc", "dec", "and", "or", "xor"]
# .redOp -> map types it allows that passed on the H100 (cases/tensor/gen/reduce.yaml), rotated.
RED_TYPES = {
    "add": ["uint32", "float32", "int32", "float16", "uint64", "bfloat16"],
    "min": ["uint32", "int32", "float16", "uint64", "bfloat16", "int64"],
    "max": ["int32", "uint32", "bfloat16", "int64", "float16", "uint64"],
    "inc": ["uint32"],
    "dec": ["uint32"],
    "and": ["uint32", "int32", "uint64"],
    "or": ["int32", "uint64", "uint32"],
    "xor": ["uint64", "uint32", "int32"],
}


class RowError(Exception):
    pass


def parse_row(row):
    """(head, qualifiers, optional operands) of a coverage row."""
    opcode, *extra = row.split(" ")
    for h in HEADS:
        if opcode.startswith(h + "."):
            return h, opcode[len(h) + 1 :].split("."), [e.lstrip("+") for e in extra]
    raise RowError(f"unknown head in row {row!r}")


def take(quals, choices):
    """The one qualifier of `choices` present in `quals` ('' if none), removed from `quals`."""
    found = [q for q in quals if q in choices]
    if len(found) > 1:
        raise RowError(f"two of {choices} in {quals}")
    if found:
        quals.remove(found[0])
        return found[0]
    return ""


def rank_of(q):
    if len(q) != 2 or q[1] != "d" or q[0] not in "12345":
        raise RowError(f"not a .dim: {q}")
    return int(q[0])


# ---- geometry: the map, coordinates, im2colInfo and the bytes a box moves ----------------------


class Geometry:
    def __init__(self, m, coords, info, tx, smem, gsize):
        self.m, self.coords, self.info, self.tx, self.smem, self.gsize = m, coords, info, tx, smem, gsize


def fetch_geometry(mode, rank):
    """The box a load / prefetch of `mode` moves (float32, the simplest hardware-confirmed maps)."""
    elem = 4
    if mode in ("", "tile"):
        # An interior box {16, 2, ...} at {16, 1, ...} of a {32, 3, ...} tensor: 64 B per row.
        dims, box = [32] + [3] * (rank - 1), [16] + [2] * (rank - 1)
        m = tiled_map("float32", dims, box)
        return Geometry(m, [16] + [1] * (rank - 1), None, 64 * 2 ** (rank - 1), 64 * 2 ** (rank - 1), extent(elem, dims, m["global_strides"]))
    if mode == "tile::gather4":
        # Columns 16..31 of rows 1, 3, 4, 6 of a 32 x 8 tensor: four 64-byte rows.
        dims = [32, 8]
        m = tiled_map("float32", dims, [16, 1])
        return Geometry(m, [16, 1, 3, 4, 6], None, 256, 256, extent(elem, dims, m["global_strides"]))
    if mode == "im2col":
        # 4 pixels x 8 channels (32 B each), zero corners and offsets.
        dims = [8, 4, 3, 2, 2][:rank]
        dims[-1] = 2
        m = im2col_map("float32", dims, [0] * (rank - 2), [0] * (rank - 2), 8, 4)
        return Geometry(m, [0] * rank, [0] * (rank - 2), 128, 128, extent(elem, dims, m["global_strides"]))
    if mode in ("im2col::w", "im2col::w::128"):
        # The wide modes need a swizzle; 128B with 32 channels = one 128-byte line per pixel.
        # wHalo 2: im2col::w loads 8 + 2 pixels, im2col::w::128 loads 4 x (32 + 2).
        w128 = mode.endswith("128")
        dims = [32, 160 if w128 else 40, 2, 2, 2][:rank]
        m = im2col_map("float32", dims, 0, 0, 32, 8, "128b", wide="w128" if w128 else "w")
        pixels = 4 * (32 + 2) if w128 else 8 + 2
        return Geometry(m, [0] * rank, [2, 0], pixels * 128, smem_rows_pitch(128, pixels, "128b"), extent(elem, dims, m["global_strides"]))
    raise RowError(f"fetch mode {mode!r}")


def store_geometry(mode, rank, ty):
    """The box a store / reduction of `mode` writes, for map type `ty`."""
    elem = TYPES[ty][0]
    if mode in ("", "tile"):
        box0 = 64 // elem
        dims, box = [2 * box0] + [3] * (rank - 1), [box0] + [2] * (rank - 1)
        m = tiled_map(ty, dims, box)
        return Geometry(m, [box0] + [1] * (rank - 1), None, 0, 64 * 2 ** (rank - 1), extent(elem, dims, m["global_strides"]))
    if mode == "tile::scatter4":
        box0 = 64 // elem
        dims = [2 * box0, 8]
        m = tiled_map(ty, dims, [box0, 1])
        return Geometry(m, [box0, 1, 3, 4, 6], None, 0, 256, extent(elem, dims, m["global_strides"]))
    if mode == "im2col_no_offs":
        cpp = 32 // elem
        dims = [cpp, 4, 3, 2, 2][:rank]
        m = im2col_map(ty, dims, [0] * (rank - 2), [0] * (rank - 2), cpp, 4)
        return Geometry(m, [0] * rank, None, 0, 128, extent(elem, dims, m["global_strides"]))
    raise RowError(f"store mode {mode!r}")


# ---- case builders -----------------------------------------------------------------------------


def short(q):
    return q.replace("::", "_")


def mode_name(mode):
    return short(mode) if mode else "default_tile"


def cta_sel(ctas, n):
    """A step's `cta` selector for this set of CTAs of an n-CTA launch (None = CTA 0 only)."""
    ctas = sorted(ctas)
    if ctas == [0]:
        return None
    if n > 1 and ctas == list(range(n)):
        return "all"
    return ctas[0] if len(ctas) == 1 else ctas


def step(ctas, n, **op):
    s = {}
    sel = cta_sel(ctas, n)
    if sel is not None:
        s["cta"] = sel
    s.update(op)
    return s


def with_policy(c, hint):
    """Declares the cache-policy param when `hint`; the operand text to append."""
    if hint:
        c.params["pol"] = {"value": POLICY, "type": "b64"}
        return ", pol"
    return ""


def load_case(name, target, opcode, dst, mode, rank, multicast, cta_group, hint, prefetch=None, prefetch_hint=False, description=""):
    """A load of `opcode` (the row's exact opcode text). `prefetch`: the prefetch instruction run
    before it (the case then covers the prefetch row; `prefetch_hint`: it takes the policy)."""
    g = fetch_geometry(mode, rank)
    c = Case(name, target, description)
    c.glob.append({"name": "src", "size": g.gsize, "init": {"pattern": 11 + rank}})
    # 64 spare bytes past the box stay 0xAA: the copy writes exactly the box.
    c.shared.append({"name": "dst", "size": g.smem + 64, "align": 1024, "init": {"fill": 170}})
    c.mbars.append({"name": "bar"})
    c.maps.append({"name": "tm", "global": "src", "map": g.m})
    pol = with_policy(c, hint)
    with_policy(c, prefetch_hint)

    # Who issues, where the data lands, and which CTA's mbarrier each landing signals.
    issuer, mbar = 0, "bar"
    if multicast:
        n = 4 if cta_group == "cta_group::2" else 2
        dsts = list(range(n))
        if cta_group == "cta_group::2":
            # §9.7.9.25.5.2: each destination signals the CTA of its pair with the parity of the
            # CTA holding `mbar` (CTA 0, even): CTAs 0, 1 -> 0; CTAs 2, 3 -> 2.
            signals = {d & ~1 for d in dsts}
            per_signal = 2
        else:
            signals, per_signal = set(dsts), 1
        mask = (1 << n) - 1
    elif cta_group == "cta_group::2" and dst == "shared::cluster":
        # CTA 1 loads into its own shared memory, signalling its peer CTA 0's mbarrier.
        n, issuer, signals, per_signal, mask = 2, 1, {0}, 1, None
        c.params["peerbar"] = {"mapa": "bar", "cta": 0}
        mbar = "peerbar"
    else:
        n, signals, per_signal, mask = 1, {0}, 1, None
    if n > 1:
        c.launch = {"grid": [n, 1, 1], "cluster": [n, 1, 1], "threads": 32}

    info = f", {coords_text(g.info)}" if g.info is not None else ""
    mc = f", {mask}" if multicast else ""
    ins = f"{opcode} [dst], [tm, {coords_text(g.coords)}], [{mbar}]{info}{mc}{pol}"
    c.program = [
        step(range(n), n, ptx="mbarrier.init.shared::cta.b64 [bar], 1"),
        step(signals, n, ptx=f"mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], {g.tx * per_signal}"),
    ]
    if prefetch:
        c.program.append(step([issuer], n, ptx=prefetch(g)))
    c.program.append(step([issuer], n, ptx=ins))
    c.program.append(step(signals, n, wait_parity={"mbar": "bar", "parity": 0}))
    c.check = ["dst", "bar"]
    return c


def to_global_case(name, target, opcode, mode, rank, ty, hint, description=""):
    g = store_geometry(mode, rank, ty)
    c = Case(name, target, description)
    c.glob.append({"name": "out", "size": g.gsize, "init": {"pattern": 3 + rank}})
    c.shared.append({"name": "src", "size": g.smem, "align": 1024, "init": {"pattern": 5 + rank}})
    c.maps.append({"name": "tm", "global": "out", "map": g.m})
    pol = with_policy(c, hint)
    c.program = [f"{opcode} [tm, {coords_text(g.coords)}], [src]{pol}", "cp.async.bulk.commit_group", "cp.async.bulk.wait_group 0"]
    c.check = ["out"]
    return c


def case_for(row, target, counters):
    head, quals, extra = parse_row(row)
    opcode = row.split(" ")[0]
    q = list(quals)
    rank = rank_of(q.pop(0))
    hint = bool(take(q, ["L2::cache_hint"]))
    if hint != ("cache-policy" in extra):
        raise RowError(f"{row}: cache hint without its operand (or the reverse)")
    if head == PREFETCH:
        if take(q, ["L2"]) != "L2" or take(q, ["global"]) != "global":
            raise RowError(row)
        mode = take(q, FETCH_MODES[1:])
        if q:
            raise RowError(f"{row}: left over {q}")
        pol = "pol" if hint else None

        def prefetch(g):
            info = f", {coords_text(g.info)}" if g.info is not None else ""
            return f"{opcode} [tm, {coords_text(g.coords)}]{info}" + (f", {pol}" if pol else "")

        load_op = ".".join([LOAD, f"{rank}d", "shared::cluster", "global"] + ([mode] if mode else []) + ["mbarrier::complete_tx::bytes"])
        name = f"tensor.row.prefetch.{rank}d.{mode_name(mode)}" + (".hint" if hint else "")
        desc = f"row `{row}`: a prefetch to L2, then a load of the same box must still deliver the tensor's bytes"
        return "prefetch", load_case(name, target, load_op, "shared::cluster", mode, rank, False, "", False, prefetch=prefetch, prefetch_hint=hint, description=desc)
    if head == REDUCE:
        if q[:2] != ["global", "shared::cta"]:
            raise RowError(row)
        q = q[2:]
        op = take(q, RED_OPS)
        mode = take(q, STORE_MODES[1:])
        if not op or take(q, ["bulk_group"]) != "bulk_group" or q:
            raise RowError(f"{row}: left over {q}")
        tys = RED_TYPES[op]
        ty = tys[counters.setdefault(op, 0) % len(tys)]
        counters[op] += 1
        name = f"tensor.row.reduce.{rank}d.{op}.{mode_name(mode)}" + (".hint" if hint else "")
        desc = f"row `{row}`: one box reduced ({ty} map) into the global tensor"
        return "reduce", to_global_case(name, target, opcode, mode, rank, ty, hint, desc)
    # cp.async.bulk.tensor: the direction is the `.dst.src` pair.
    if q[:2] == ["global", "shared::cta"]:
        q = q[2:]
        mode = take(q, STORE_MODES[1:])
        if take(q, ["bulk_group"]) != "bulk_group" or q:
            raise RowError(f"{row}: left over {q}")
        name = f"tensor.row.store.{rank}d.{mode_name(mode)}" + (".hint" if hint else "")
        desc = f"row `{row}`: one box stored into the global tensor"
        return "store", to_global_case(name, target, opcode, mode, rank, "float32", hint, desc)
    if q[1:2] != ["global"] or q[0] not in ("shared::cta", "shared::cluster"):
        raise RowError(row)
    dst = q.pop(0)
    q.pop(0)
    mode = take(q, FETCH_MODES[1:])
    if take(q, ["mbarrier::complete_tx::bytes"]) == "":
        raise RowError(row)
    multicast = bool(take(q, ["multicast::cluster"]))
    cta_group = take(q, ["cta_group::1", "cta_group::2"])
    if q:
        raise RowError(f"{row}: left over {q}")
    if multicast != ("ctaMask" in extra):
        raise RowError(f"{row}: multicast without ctaMask (or the reverse)")
    parts = [f"{rank}d", "cta" if dst == "shared::cta" else "cluster", mode_name(mode)]
    parts += ["multicast"] if multicast else []
    parts += [short(cta_group)] if cta_group else []
    parts += ["hint"] if hint else []
    name = "tensor.row.load." + ".".join(parts)
    how = []
    if multicast:
        how.append("multicast to every CTA of the cluster, an mbarrier with expect_tx in each CTA it signals")
    if cta_group == "cta_group::2" and not multicast and dst == "shared::cluster":
        how.append("CTA 1 loads into its own shared memory and signals its peer CTA 0's mbarrier")
    desc = f"row `{row}`: one box" + ("; " + "; ".join(how) if how else "")
    group = "load_im2col" if mode.startswith("im2col") else ("load_gather4" if mode == "tile::gather4" else ("load_multicast" if multicast else "load_tile"))
    return group, load_case(name, target, opcode, dst, mode, rank, multicast, cta_group, hint, description=desc)


FILES = {
    "load_tile": "Loads, .tile / default mode, without multicast.",
    "load_multicast": "Loads, .tile / default mode, .multicast::cluster.",
    "load_gather4": "Loads, .tile::gather4 (sm_100a).",
    "load_im2col": "Loads, .im2col / .im2col::w / .im2col::w::128.",
    "store": "cp.async.bulk.tensor shared::cta -> global.",
    "reduce": "cp.reduce.async.bulk.tensor: every .redOp x load mode x .dim.",
    "prefetch": "cp.async.bulk.prefetch.tensor, each followed by a load of the same box.",
}


def model_rows(path):
    if path:
        with open(path) as f:
            return json.load(f)
    exe = os.path.join(ROOT, "target", "release", "ptxconform")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "rows.json")
        empty = os.path.join(d, "empty")
        os.mkdir(empty)
        subprocess.run([exe, "coverage", "--cases", empty, "--family", "tensor", "--no-ptxas", "--json", out], check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", help="a `ptxconform coverage --json` file (default: run target/release/ptxconform)")
    args = ap.parse_args()
    cov = model_rows(args.rows)
    groups = {k: [] for k in FILES}
    counters = {}
    names = set()
    for r in sorted(cov["rows"], key=lambda r: r["row"]):
        legal = r["legal"]
        if not any(legal.values()):
            continue
        target = "sm_90a" if legal.get("sm_90a") else "sm_100a"
        group, c = case_for(r["row"], target, counters)
        if c.name in names:
            raise RowError(f"duplicate case name {c.name}")
        names.add(c.name)
        groups[group].append(c)
    os.makedirs(OUT, exist_ok=True)
    total = 0
    for g, cases in groups.items():
        with open(os.path.join(OUT, g + ".yaml"), "w") as f:
            f.write(f"# GENERATED by tools/gen_tensor_rows.py -- do not edit. {FILES[g]}\n")
            f.write("\n\n".join(c.text() for c in cases) + "\n")
        sm90 = sum(c.target == "sm_90a" for c in cases)
        print(f"{g}: {len(cases)} ({sm90} sm_90a)")
        total += len(cases)
    print(f"total: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
