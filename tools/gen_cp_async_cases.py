#!/usr/bin/env python3
"""Generate cases/cp_async/copy.yaml: every cp.async (non-bulk) copy qualifier combination
(§9.7.9.25.3.1): .ca/.cg x cp-size x .shared/.shared::cta x {no 4th operand, src-size, ignore-src}
x {no hint, .L2::cache_hint + policy} x {no prefetch, .L2::64B/128B/256B}. Each copy is completed
through commit_group + wait_group 0 and checks the destination (filled with 0xAA first, so the
zero fill of src-size < cp-size and ignore-src = true is visible).

Run from the repository root: python3 tools/gen_cp_async_cases.py"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import yamlcase  # noqa: E402

# CUTLASS-style L2 eviction policies (createpolicy encodings): evict_normal / first / last.
POLICY = {"value": 0x14F0000000000000, "type": "b64"}

SRC4 = [  # 4th operand forms: (tag, operand text or None, params, what)
    ("full", None, {}, "no src-size: cp-size bytes copied"),
]


def fourth_operands(size):
    yield ("full", None, {}, "no src-size: cp-size bytes copied")
    yield ("srcsize_eq", str(size), {}, f"src-size = cp-size = {size} (immediate)")
    partial = {4: 3, 8: 5, 16: 7}[size]
    yield ("srcsize_part", "n", {"n": partial}, f"src-size {partial} < cp-size {size} (register): {size - partial} bytes zero-filled")
    yield ("srcsize_zero", "0", {}, f"src-size 0: all {size} bytes zero-filled")
    yield ("ignore_true", "p", {"p": {"value": 1, "type": "pred"}}, "ignore-src = true: source ignored, zeros written")
    yield ("ignore_false", "p", {"p": {"value": 0, "type": "pred"}}, "ignore-src = false: copied normally")


def main():
    cases = []
    for cache in ["ca", "cg"]:
        for size in [4, 8, 16]:
            if cache == "cg" and size != 16:
                continue  # §9.7.9.25.3.1: .cg only with cp-size 16
            for space in ["shared", "shared::cta"]:
                for tag, op4, params, what in fourth_operands(size):
                    for hint in [False, True]:
                        for pf in ["", "L2::64B", "L2::128B", "L2::256B"]:
                            # Full cross product only on the plain spelling; the ::cta spelling
                            # gets every 4th-operand form once (hint/prefetch are orthogonal).
                            if space == "shared::cta" and (hint or pf):
                                continue
                            if tag not in ("full", "srcsize_part", "ignore_true") and (hint or pf):
                                continue
                            quals = f"cp.async.{cache}.{space}.global"
                            if hint:
                                quals += ".L2::cache_hint"
                            if pf:
                                quals += "." + pf
                            # Aligned, non-zero offsets so the offset arithmetic is exercised.
                            dst_off, src_off = size, 3 * size
                            ops = [f"[buf+{dst_off}]", f"[src+{src_off}]", str(size)]
                            if op4:
                                ops.append(op4)
                            p = dict(params)
                            if hint:
                                ops.append("pol")
                                p["pol"] = POLICY
                            sp = "cta" if space == "shared::cta" else "shared"
                            name = f"cp_async.{cache}.{size}.{sp}.{tag}"
                            if hint:
                                name += ".hint"
                            if pf:
                                name += "." + pf.split("::")[1]
                            desc = f"§9.7.9.25.3.1 cp.async.{cache} {size} bytes via .{space}: {what}"
                            if hint:
                                desc += "; .L2::cache_hint with a 64-bit policy (hint only, no effect on data)"
                            if pf:
                                desc += f"; .{pf} prefetch size (performance hint only)"
                            c = {
                                "name": name,
                                "description": desc,
                                "target": "sm_90a",
                                "memory": {
                                    "global": [{"name": "src", "size": 64, "init": {"pattern": 0xC0 + size}}],
                                    "shared": [{"name": "buf", "size": 48, "align": 16, "init": {"fill": 0xAA}}],
                                },
                            }
                            if p:
                                c["params"] = p
                            c["program"] = [
                                {"ptx": f"{quals} {', '.join(ops)}"},
                                {"ptx": "cp.async.commit_group"},
                                {"ptx": "cp.async.wait_group 0"},
                            ]
                            c["check"] = ["buf"]
                            cases.append(c)
    yamlcase.write(
        "cases/cp_async/copy.yaml",
        ["cp.async copy variants (§9.7.9.25.3.1), one case per qualifier/operand combination.",
         "Generated by tools/gen_cp_async_cases.py."],
        cases,
    )
    print(f"{len(cases)} cases")


if __name__ == "__main__":
    main()
