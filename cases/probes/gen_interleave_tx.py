#!/usr/bin/env python3
"""Writes cases/probes/interleave-tx.yaml (`--analyse`: reads its recorded runs back): probes of the complete-tx count silicon credits to an
mbarrier (issue 34), for interleaved tensor loads and, as controls of the mechanism, plain bulk
copies and explicit mbarrier.complete_tx.

Each case copies one box (or range) once per expect-tx value E of a ladder, each copy into a
region of its own (`xE`) completing on an mbarrier of its own (`bE`), all issued before any
wait; then it waits on each. The recorded outcome lists the wait steps that timed out and the
parity of every mbarrier, so each E reads as "completed" or "never completed"; the dumps show
every byte each copy wrote (the waits that time out leave ample time for the rest to land).

The ladders separate these readings of what silicon credits (G: the model's granule bytes,
dense rows, A-TENSOR-ACCEPTED-MAP-HW; B: prod(boxDim) x element size, the count the
independent check expected):
- exact G: only E = G completes;
- exact B: only E = B completes;
- zero crossing in P-byte pieces: every multiple of P up to G completes;
- completion once tx-count <= 0: every E <= G completes;
- every dimension traversed (rank-2 included), or rows padded to the swizzle span: the larger
  count of the description completes.
E = G + 16 never completes under any of them (the control).

Run on a GPU with `ptxconform run cases/probes/interleave-tx.yaml --record`, then
`python3 cases/probes/gen_interleave_tx.py --analyse`. Regenerating the file drops what was
recorded into it.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "interleave-tx.yaml")
SIZE = {"uint8": 1, "bfloat16": 2, "float16": 2, "float32": 4, "float64": 8}
ENCODE_32B = "tensormap.encode_rejected:interleave-32b-needs-swizzle-32b"


def flow(x):
    return json.dumps(x, separators=(", ", ": "))


def granule(il):
    return 16 if il == "16b" else 32


def model_bytes(il, box, es):
    """The model's complete-tx (A-TENSOR-ACCEPTED-MAP-HW, Assumption::InterleaveGranuleUnits and
    InterleaveDropsDimRankMinus2): dimension 0 in granules, dimension rank-2 not traversed."""
    rank = len(box)
    n = granule(il)
    for i, (b, e) in enumerate(zip(box, es)):
        n *= 1 if i == rank - 2 else -(-b // e)
    return n


def extent(il, dims, strides):
    top = dims[0] * granule(il)
    for d, s in zip(dims[1:], strides):
        top += (d - 1) * s
    return -(-top // 128) * 128


def alternates(il, sw, box, es):
    """Counts above G that other readings give: every dimension traversed (rank-2 included),
    and rows padded to the swizzle span as without interleave."""
    full = granule(il)
    for b, e in zip(box, es):
        full *= -(-b // e)
    span = {"none": 0, "32b": 32, "64b": 64, "128b": 128}[sw]
    row = -(-box[0] // es[0]) * granule(il)
    rows = model_bytes(il, box, es) // row
    return [full, rows * max(row, span)]


def ladder(g, b):
    small = [16, 32, 48, 64, 96, 128]
    if g <= 256:
        es = list(range(16, g + 1, 16))
    else:
        half = g // 2 // 32 * 32
        es = small + [half, half + 16, g - 32, g - 16, g]
    es += [g + 16, b]
    return sorted({e for e in es if 0 < e})


def region(name, size, fill=170):
    return f"      - {{name: {name}, size: {size}, align: 1024, init: {{fill: {fill}}}}}"


def expect_of(il, sw):
    if il == "32b" and sw != "32b":
        return f"{{undefined: '{ENCODE_32B}'}}"
    return "{undefined: wait.never_completes}"


def tensor_case(name, ty, il, sw, dims, strides, box, coords, es=None, oob="none", only=None):
    rank = len(dims)
    es = es or [1] * rank
    g = model_bytes(il, box, es)
    b = 1
    for x in box:
        b *= x
    b *= SIZE[ty]
    values = only if only is not None else sorted(set(ladder(g, b) + alternates(il, sw, box, es)))
    smem = -(-max(g, 16) // 1024) * 1024
    m = {
        "encode": "tiled",
        "tensor_data_type": ty,
        "global_dim": dims,
        "global_strides": strides,
        "box_dim": box,
        "interleave": il,
        "swizzle": sw,
        "l2_promotion": "none",
        "oob_fill": oob,
    }
    if any(e != 1 for e in es):
        m["element_strides"] = es
    c = ", ".join(map(str, coords))
    lines = [
        f"- name: {name}",
        f"  description: \"{il} interleave, swizzle {sw}, {ty} box {box} at [{c}]: model"
        f" complete-tx G = {g}, box elements x size B = {b}, all dimensions / span-padded rows"
        f" {alternates(il, sw, box, es)}; one copy per expect-tx in"
        f" {values} (region xE, mbarrier bE)\"",
        "  target: sm_90a",
        "  launch: {grid: [1, 1, 1], cluster: [1, 1, 1], threads: 32}",
        "  memory:",
        "    global:",
        f"      - {{name: src, size: {extent(il, dims, strides)}, align: 256, init: {{pattern: 7}}}}",
        "    shared:",
    ]
    lines += [region(f"x{e}", smem) for e in values]
    # A copy that writes past its region lands in the next one or in `guard`, inside the
    # allocation: it shows in the dumps instead of trapping the launch.
    lines.append(region("guard", smem))
    lines.append("    mbarriers: [" + ", ".join(f"{{name: b{e}}}" for e in values) + "]")
    lines.append(f"    tensor_maps: [{{name: tm, global: src, map: {flow(m)}}}]")
    lines.append("  program:")
    for e in values:
        lines += [
            f"    - ptx: mbarrier.init.shared::cta.b64 [b{e}], 1",
            f"    - ptx: mbarrier.arrive.expect_tx.shared::cta.b64 _, [b{e}], {e}",
            f"    - ptx: cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile"
            f".mbarrier::complete_tx::bytes [x{e}], [tm, {{{c}}}], [b{e}]",
        ]
    lines += [f"    - wait_parity: {{mbar: b{e}, parity: 0}}" for e in values]
    lines.append(f"  expect: {expect_of(il, sw) if values != [g] else 'pass'}")
    return "\n".join(lines)


def bulk_case(name, size, values):
    """cp.async.bulk global -> shared of `size` bytes, one copy per expect-tx."""
    lines = [
        f"- name: {name}",
        f"  description: \"cp.async.bulk of {size} bytes (complete-tx {size}); one copy per"
        f" expect-tx in {values}: which tx-count crossings complete a phase\"",
        "  target: sm_90a",
        "  launch: {grid: [1, 1, 1], cluster: [1, 1, 1], threads: 32}",
        "  memory:",
        "    global:",
        f"      - {{name: src, size: {size}, align: 256, init: {{pattern: 5}}}}",
        "    shared:",
    ]
    lines += [region(f"x{e}", -(-size // 1024) * 1024) for e in values]
    lines.append("    mbarriers: [" + ", ".join(f"{{name: b{e}}}" for e in values) + "]")
    lines.append("  program:")
    for e in values:
        lines += [
            f"    - ptx: mbarrier.init.shared::cta.b64 [b{e}], 1",
            f"    - ptx: mbarrier.arrive.expect_tx.shared::cta.b64 _, [b{e}], {e}",
            f"    - ptx: cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes"
            f" [x{e}], [src], {size}, [b{e}]",
        ]
    lines += [f"    - wait_parity: {{mbar: b{e}, parity: 0}}" for e in values]
    lines.append("  expect: {undefined: wait.never_completes}")
    return "\n".join(lines)


def complete_tx_case():
    """Explicit complete_tx against arrive.expect_tx 64: overshoot in one step (-16, -64), the
    exact count in two steps, and a crossing of zero followed by more (32 + 32 + 64)."""
    seqs = {"over16": [80], "over64": [128], "exact2": [32, 32], "cross": [32, 32, 64]}
    lines = [
        "- name: probe.iltx.mbarrier.complete_tx_overshoot",
        "  description: \"arrive.expect_tx 64 then explicit complete_tx: one step past zero"
        " (80, 128), two steps to zero (32+32, the control that completes), and a crossing of"
        " zero followed by 64 more (32+32+64)\"",
        "  target: sm_90a",
        "  launch: {grid: [1, 1, 1], cluster: [1, 1, 1], threads: 32}",
        "  memory:",
        "    mbarriers: [" + ", ".join(f"{{name: {k}}}" for k in seqs) + "]",
        "  program:",
    ]
    for k, steps in seqs.items():
        lines += [
            f"    - ptx: mbarrier.init.shared::cta.b64 [{k}], 1",
            f"    - ptx: mbarrier.arrive.expect_tx.shared::cta.b64 _, [{k}], 64",
        ]
        lines += [f"    - ptx: mbarrier.complete_tx.shared::cta.b64 [{k}], {n}" for n in steps]
    lines += [f"    - wait_parity: {{mbar: {k}, parity: 0}}" for k in seqs]
    lines.append("  expect: {undefined: wait.never_completes}")
    return "\n".join(lines)


# Shapes: (tag, type, dims, strides, box, coordinate sets). Strides are multiples of 32 and
# cover the previous dimension under either granule, so only the interleave/swizzle pair can
# break a rule of the text.
SHAPES = [
    ("f64r3", "float64", [4, 3, 5], [128, 384], [2, 3, 4], [[0, 0, 0], [3, 1, 2]]),
    ("bf16r4", "bfloat16", [8, 5, 6, 3], [256, 1280, 7680], [8, 3, 3, 1], [[0, 0, 0, 0], [6, 3, 4, 1]]),
    ("u8r3", "uint8", [20, 3, 4], [640, 1920], [16, 2, 3], [[8, 1, 2]]),
]
SWIZZLES = ["none", "32b", "64b", "128b"]


def main():
    cases = []
    for il in ["16b", "32b"]:
        for sw in SWIZZLES:
            for tag, ty, dims, strides, box, coord_sets in SHAPES:
                for coords in coord_sets:
                    at = "_".join(str(x) for x in coords)
                    cases.append(
                        tensor_case(f"probe.iltx.{il}.sw{sw}.{tag}.at{at}", ty, il, sw, dims, strides, box, coords)
                    )
    # The three configurations of cases/probes/issue34.yaml, with the ladder, and alone with
    # the expect-tx the independent check used, three times (is the outcome repeatable?).
    i34 = [
        ("il16b_sw128b.bf16_4d", "bfloat16", "16b", "128b", [8, 7, 12, 4], [16, 128, 1568],
         [8, 3, 3, 1], [6, 4, 9, 1], None, "nan_request_zero_fma", 144),
        ("il32b_no_swizzle.f64_4d", "float64", "32b", "none", [4, 4, 4, 12], [64, 288, 1152],
         [4, 2, 3, 1], [-3, 3, 2, -1], [1, 1, 1, 6], "none", 192),
        ("il32b_sw128b.f64_3d", "float64", "32b", "128b", [4, 27, 26], [64, 1728],
         [4, 2, 24], [1, 6, 15], None, "none", 1536),
    ]
    for tag, ty, il, sw, dims, strides, box, coords, es, oob, tx in i34:
        for r in range(2):
            cases.append(
                tensor_case(f"probe.iltx.issue34.{tag}.ladder.r{r}", ty, il, sw, dims, strides, box, coords, es, oob)
            )
        for r in range(3):
            cases.append(
                tensor_case(f"probe.iltx.issue34.{tag}.tx{tx}.r{r}", ty, il, sw, dims, strides, box, coords, es, oob, only=[tx])
            )
    cases.append(bulk_case("probe.iltx.bulk.b256", 256, [16, 32, 48, 64, 96, 128, 192, 240, 256, 272]))
    cases.append(bulk_case("probe.iltx.bulk.b1024", 1024, [16, 32, 64, 128, 256, 512, 528, 1008, 1024, 1040]))
    cases.append(complete_tx_case())
    head = "# " + __doc__.strip().replace("\n", "\n# ").replace("# \n", "#\n")
    head += "\n# Generated by cases/probes/gen_interleave_tx.py; a probe folder: `run` skips it unless named.\n\n"
    with open(OUT, "w") as f:
        f.write(head + "\n".join(cases) + "\n")
    print(f"{len(cases)} cases -> {OUT}")


def analyse():
    """After `run --record`: per case and device, the expect-tx values whose phase completed,
    and which readings of the module doc fit them (the counts G, B and the alternates are read
    back from the case descriptions)."""
    import re
    import sys

    import yaml

    for c in yaml.safe_load(open(OUT)):
        d = c.get("description", "")
        nums = lambda key: [int(x) for x in re.findall(key + r"\D*?(\d+)", d)[:1]]
        g, b = nums("G ="), nums("B =")
        alt = [int(x) for x in re.findall(r"rows \[(\d+), (\d+)\]", d)[0]] if "rows [" in d else []
        bars = [m["name"] for m in c["memory"].get("mbarriers", [])]
        es = sorted(int(n[1:]) for n in bars if n[1:].isdigit())
        for o in c.get("observed", []):
            par = o.get("mbarriers", {})
            if not es:
                named = {n: par.get(f"{n}@cta0", {}).get("parity0_done") for n in bars}
                print(f"{c['name']} [{o.get('device')}, {o.get('outcome')}]: phase 0 done {named}")
                continue
            done = sorted(e for e in es if par.get(f"b{e}@cta0", {}).get("parity0_done"))
            dumps = {o["regions"].get(f"x{e}@cta0") for e in es} - {None}
            fits = []
            if g:
                g0 = g[0]
                below = [e for e in es if e <= g0]
                if done == [g0]:
                    fits.append("exact G")
                if b and done == [b[0]]:
                    fits.append("exact B")
                if done == below:
                    fits.append("tx <= 0 completes")
                for piece in (16, 32, 64, 128):
                    if done and done == [e for e in below if e % piece == 0]:
                        fits.append(f"zero crossing, {piece}-byte pieces")
                fits += [f"exact {a} (alternate)" for a in alt if done == [a]]
            print(f"{c['name']} [{o.get('device')}, {o.get('outcome')}]: completed {done}"
                  f" of {es}; {len(dumps)} distinct dumps; fits: {', '.join(fits) or 'none'}")
    sys.stdout.flush()


if __name__ == "__main__":
    import sys

    analyse() if sys.argv[1:] == ["--analyse"] else main()
