#!/usr/bin/env python3
"""Generate cases/reduce/global.yaml and cases/reduce/cluster.yaml: every legal .redOp x .type of
cp.reduce.async.bulk (§9.7.9.25.4.2 table) for both destinations, with initial values chosen to
exercise the arithmetic: integer wraparound, signed vs unsigned min/max on the same bits, the
.inc/.dec wrap rules, f32 subnormals (flushed by .add.f32), f16/bf16 .noftz subnormals (kept),
round-to-nearest-even ties, overflow to infinity, infinities and NaN.

Each case reduces a 32-byte shared::cta source into a 32-byte destination that already holds
values, so every element's result depends on both operands. The expected bytes are the
reference's to compute; the case only fixes the inputs.

Run from the repository root: python3 tools/gen_reduce_cases.py"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
import yamlcase  # noqa: E402

SIZE = 32
POLICY = {"value": 0x14F0000000000000, "type": "b64"}

M32, M64 = (1 << 32) - 1, (1 << 64) - 1

# (dst, src) element lists per (op, type). Integer data is given as unsigned bit patterns; 32-bit
# data is written as typed values, 64-bit data as bytes (so edge values stay exact).
INT = {
    # add: carries out of the top bit are dropped (wraparound); s32 overflow wraps the same way.
    ("add", "u32"): ([M32, 1, 0x80000000, 123, 0x7FFFFFFF, 0, 0xFFFF0000, 5],
                     [1, M32, 0x80000000, 456, 1, 0, 0x00010000, 0xFFFFFFFB]),
    ("add", "s32"): ([0x7FFFFFFF, M32, 0x80000000, 5, 0x80000000, 0, 100, M32 - 99],
                     [1, M32, M32, 0xFFFFFFF6, 0x80000000, 0, M32 - 99, 100]),
    ("add", "u64"): ([M64, 1, 1 << 63], [1, M64, 1 << 63]),
    # min/max: the same bit patterns under u32 and s32 order differently.
    ("min", "u32"): ([0x80000000, 1, M32, 7, 0, 0x7FFFFFFF, 3, 0xFFFFFFFE],
                     [1, 0x80000000, 0, 7, M32, 0x80000000, 2, M32]),
    ("min", "s32"): ([0x80000000, 1, M32, 7, 0, 0x7FFFFFFF, 3, 0xFFFFFFFE],
                     [1, 0x80000000, 0, 7, M32, 0x80000000, 2, M32]),
    ("min", "u64"): ([1 << 63, 1, M64, 0x100000000], [1, 1 << 63, 0, 0xFFFFFFFF]),
    ("min", "s64"): ([1 << 63, 1, M64, 0x100000000], [1, 1 << 63, 0, 0xFFFFFFFF]),
    # inc: d = (d >= s) ? 0 : d + 1.   dec: d = (d == 0 || d > s) ? s : d - 1.
    ("inc", "u32"): ([0, 5, 6, 7, 0, M32, M32 - 1, 4], [5, 5, 5, M32, 0, M32, M32, 3]),
    ("dec", "u32"): ([0, 5, 6, 3, 0, M32, 1, 4], [5, 5, 5, 0, 0, M32, 9, 3]),
    # bit operations
    ("and", "b32"): ([0xF0F0F0F0, M32, 0x12345678, 0, 0xAAAAAAAA, 0x80000001, M32, 0x0F0F0F0F],
                     [0xFF00FF00, 0x0000FFFF, M32, M32, 0x55555555, 0x80000000, 0, 0x0F0F0F0F]),
    ("and", "b64"): ([0xF0F0F0F0F0F0F0F0, M64, 0x0123456789ABCDEF, 1 << 63],
                     [0xFF00FF00FF00FF00, 0xFFFFFFFF, M64, (1 << 63) | 1]),
}
for op in ["or", "xor"]:
    INT[(op, "b32")] = INT[("and", "b32")]
    INT[(op, "b64")] = INT[("and", "b64")]
INT[("max", "u32")] = INT[("min", "u32")]
INT[("max", "s32")] = INT[("min", "s32")]
INT[("max", "u64")] = INT[("min", "u64")]
INT[("max", "s64")] = INT[("min", "s64")]

INF, NAN = float("inf"), float("nan")
FLOAT = {
    # f32 add: 1 + 2^-24 is a tie (ulp 2^-23) -> even (1.0); (1 + 2^-23) + 2^-24 -> tie -> 1 + 2^-22;
    # subnormal inputs flush (2e-39 + 2e-39 -> 0, sign kept for -1e-40 + -0.0); overflow to
    # inf; inf + -inf = NaN; NaN + 1 = NaN; 2^24 + 1 -> tie -> 2^24.
    ("add", "f32"): ([1.0, 1.0 + 2**-23, 2e-39, -1e-40, 3.0e38, INF, NAN, 16777216.0],
                     [2**-24, 2**-24, 2e-39, -0.0, 3.0e38, -INF, 1.0, 1.0]),
    # f64 add: ties, subnormals (not flushed by the spec's wording), overflow, inf/NaN.
    ("add", "f64"): ([1.0, 5e-324, 1.7e308, INF], [2**-53, 5e-324, 1.7e308, NAN]),
    # f16 .noftz: 2^-24 + 2^-24 = 2^-23 (subnormal kept); 1 + 2^-11 tie -> 1; 2048 + 1 tie -> 2048;
    # 2050 + 1 tie -> 2052; 65504 + 65504 -> inf; -2^-24 + 0 keeps the sign; inf + -inf; NaN.
    ("add", "f16"): ([2**-24, 1.0, 2048.0, 2050.0, 65504.0, -2**-24, INF, NAN, 2**-14, -0.0,
                      0.5, 3.0, 1024.0, -1.0, 2**-24, 1.0],
                     [2**-24, 2**-11, 1.0, 1.0, 65504.0, 0.0, -INF, 1.0, -2**-24, -0.0,
                      2**-12, 2**-10, 0.5, 1.0, -2**-24, -1.0]),
    # bf16 .noftz: 1 + 2^-8 tie -> 1; (1 + 2^-7) + 2^-8 tie -> 1 + 2^-6; subnormal 2^-133 kept;
    # 3.38e38 + 3.38e38 -> inf; inf/NaN.
    ("add", "bf16"): ([1.0, 1.0 + 2**-7, 2**-133, 3.38e38, INF, NAN, -2**-133, 256.0,
                       2**-126, -0.0, 1.0, 2.0, 0.0, -1.0, 1.5, 1.0],
                      [2**-8, 2**-8, 2**-133, 3.38e38, -INF, 1.0, 0.0, 1.0,
                       -2**-133, -0.0, 2**-9, 2**-7, -0.0, 1.0, 2**-8, -1.0]),
    # min/max f16/bf16: -0 vs +0, NaN vs number, subnormals, infinities.
    ("min", "f16"): ([0.0, -0.0, NAN, 1.0, 2**-24, -INF, INF, 5.0, -2**-24, 65504.0, NAN, 3.0, -1.0, 0.5, 2.0, 1.0],
                     [-0.0, 0.0, 1.0, NAN, 2**-23, 1.0, 1.0, -5.0, 2**-24, INF, NAN, 3.0, -2.0, 0.25, 2.0, -1.0]),
    ("min", "bf16"): ([0.0, -0.0, NAN, 1.0, 2**-133, -INF, INF, 5.0, -2**-133, 3.38e38, NAN, 3.0, -1.0, 0.5, 2.0, 1.0],
                      [-0.0, 0.0, 1.0, NAN, 2**-132, 1.0, 1.0, -5.0, 2**-133, INF, NAN, 3.0, -2.0, 0.25, 2.0, -1.0]),
}
FLOAT[("max", "f16")] = FLOAT[("min", "f16")]
FLOAT[("max", "bf16")] = FLOAT[("min", "bf16")]

# §9.7.9.25.4.2 table of valid combinations.
TABLE = {
    "global": {
        "add": ["u32", "s32", "u64", "f32", "f64", "f16", "bf16"],
        "min": ["u32", "s32", "u64", "s64", "f16", "bf16"],
        "max": ["u32", "s32", "u64", "s64", "f16", "bf16"],
        "inc": ["u32"], "dec": ["u32"],
        "and": ["b32", "b64"], "or": ["b32", "b64"], "xor": ["b32", "b64"],
    },
    "cluster": {
        "add": ["u32", "s32", "u64"],
        "min": ["u32", "s32"], "max": ["u32", "s32"],
        "inc": ["u32"], "dec": ["u32"],
        "and": ["b32"], "or": ["b32"], "xor": ["b32"],
    },
}


def width(ty):
    return {"f16": 2, "bf16": 2, "f32": 4, "f64": 8}.get(ty) or int(ty[1:]) // 8


def int_bytes(vals, ty):
    w = width(ty)
    out = b"".join(v.to_bytes(w, "little") for v in vals)
    assert len(out) <= SIZE, (ty, len(out))
    return list(out)


def init_of(op, ty, which):
    if ty[0] == "f" or ty == "bf16":
        data = FLOAT[(op, ty)][which]
        assert len(data) * width(ty) <= SIZE
        return {"values": {"type": ty, "data": data}}
    vals = INT[(op, ty)][which]
    if width(ty) == 4:
        # 32-bit data as typed values (readable); s32 takes the signed reading of the bits.
        if ty == "s32":
            vals = [v - (1 << 32) if v >> 31 else v for v in vals]
        return {"values": {"type": ty, "data": vals}}
    # 64-bit edge values are not exact as YAML floats: write the bytes.
    return {"bytes": int_bytes(vals, ty)}


def opcode(dst, op, ty, hint=False):
    noftz = ".noftz" if op == "add" and ty in ("f16", "bf16") else ""
    h = ".L2::cache_hint" if hint else ""
    if dst == "global":
        return f"cp.reduce.async.bulk.global.shared::cta.bulk_group{h}.{op}{noftz}.{ty}"
    return f"cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.{op}.{ty}"


def global_case(op, ty, hint=False, twice=False):
    name = f"reduce.global.{op}.{ty}" + (".hint" if hint else "") + (".twice" if twice else "")
    ops = f"[out], [src], {SIZE}" + (", pol" if hint else "")
    desc = f"§9.7.9.25.4.2 cp.reduce.async.bulk .global .bulk_group .{op}.{ty}: element-wise {op} of 32 bytes into pre-set destination values"
    if hint:
        desc += "; .L2::cache_hint with a policy (hint only)"
    if twice:
        desc = f"§9.7.9.25.4.2 two .{op}.{ty} reductions of the same source into the same global destination in one bulk group: each element is reduced twice (reductions are atomic, relaxed.gpu)"
    prog = [{"ptx": f"{opcode('global', op, ty, hint)} {ops}"}]
    if twice:
        prog.append({"ptx": f"{opcode('global', op, ty, hint)} {ops}"})
    prog += [{"ptx": "cp.async.bulk.commit_group"}, {"ptx": "cp.async.bulk.wait_group 0"}]
    c = {
        "name": name,
        "description": desc,
        "target": "sm_90a",
        "memory": {
            "global": [{"name": "out", "size": SIZE, "init": init_of(op, ty, 0)}],
            "shared": [{"name": "src", "size": SIZE, "init": init_of(op, ty, 1)}],
        },
    }
    if hint:
        c["params"] = {"pol": POLICY}
    c["program"] = prog
    c["check"] = ["out", "src"]
    return c


def cluster_case(op, ty):
    return {
        "name": f"reduce.cluster.{op}.{ty}",
        "description": f"§9.7.9.25.4.2 cp.reduce.async.bulk .shared::cluster (own CTA) .mbarrier::complete_tx::bytes .{op}.{ty}: 32 bytes reduced into pre-set shared values; completes the phase by complete_tx",
        "target": "sm_90a",
        "memory": {
            "shared": [{"name": "dst", "size": SIZE, "init": init_of(op, ty, 0)},
                       {"name": "src", "size": SIZE, "init": init_of(op, ty, 1)}],
            "mbarriers": [{"name": "bar"}],
        },
        "program": [
            {"ptx": "mbarrier.init.shared::cta.b64 [bar], 1"},
            {"ptx": f"mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], {SIZE}"},
            {"ptx": f"{opcode('cluster', op, ty)} [dst], [src], {SIZE}, [bar]"},
            {"wait_parity": {"mbar": "bar", "parity": 0}},
        ],
        "check": ["dst", "src", "bar"],
    }


def remote_case(op, ty):
    """CTA 0 reduces into CTA 1's dst; remote addresses from `{ mapa: NAME, cta: N }` params."""
    c = cluster_case(op, ty)
    c["name"] = f"reduce.cluster.remote.{op}.{ty}"
    c["description"] = (f"§9.7.9.25.4.2 CTA 0 reduces (.{op}.{ty}) its shared src into CTA 1's dst "
                        "(cluster [2,1,1]); CTA 1's bar gets the complete_tx")
    c["launch"] = {"grid": [2, 1, 1], "cluster": [2, 1, 1]}
    c["params"] = {"rdst": {"mapa": "dst", "cta": 1}, "rbar": {"mapa": "bar", "cta": 1}}
    c["program"] = [
        {"cta": "all", "ptx": "mbarrier.init.shared::cta.b64 [bar], 1"},
        {"cta": 1, "ptx": f"mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], {SIZE}"},
        {"ptx": f"{opcode('cluster', op, ty)} [rdst], [src], {SIZE}, [rbar]"},
        {"cta": 1, "wait_parity": {"mbar": "bar", "parity": 0}},
    ]
    c["check"] = ["dst", "bar"]
    return c


def main():
    g = []
    for op, tys in TABLE["global"].items():
        for ty in tys:
            g.append(global_case(op, ty))
    # .L2::cache_hint forms: every legal redOp x type once more with a policy.
    for op, tys in TABLE["global"].items():
        for ty in tys:
            g.append(global_case(op, ty, hint=True))
    for op, ty in [("add", "u32"), ("add", "f32"), ("inc", "u32"), ("add", "f16")]:
        g.append(global_case(op, ty, twice=True))
    yamlcase.write("cases/reduce/global.yaml",
                   ["cp.reduce.async.bulk to .global (bulk_group): every legal redOp x type (§9.7.9.25.4.2).",
                    "Generated by tools/gen_reduce_cases.py (input values and why: see the script)."], g)
    c = [cluster_case(op, ty) for op, tys in TABLE["cluster"].items() for ty in tys]
    yamlcase.write("cases/reduce/cluster.yaml",
                   ["cp.reduce.async.bulk to .shared::cluster (mbarrier complete_tx): every legal redOp x type (§9.7.9.25.4.2).",
                    "Generated by tools/gen_reduce_cases.py (input values and why: see the script)."], c)
    r = [remote_case(op, ty) for op, ty in
         [("add", "u32"), ("add", "u64"), ("min", "s32"), ("max", "u32"), ("inc", "u32"), ("dec", "u32"), ("xor", "b32")]]
    yamlcase.write("cases/reduce/cluster_remote.yaml",
                   ["cp.reduce.async.bulk .shared::cluster into another CTA of the cluster (§9.7.9.25.4.2), via mapa params.",
                    "Generated by tools/gen_reduce_cases.py."], r)
    print(f"{len(g)} global, {len(c)} cluster, {len(r)} remote cases")


if __name__ == "__main__":
    main()
