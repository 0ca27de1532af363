"""Tiny YAML writer for corpus generators: cases as block mappings, leaves as JSON (valid YAML
flow scalars), so generated files need no YAML library and read like the hand-written ones."""

import json

ORDER = ["name", "description", "target", "ptx_version", "launch", "memory", "params", "program", "check", "expect"]


def flow(v):
    """A value in YAML flow style (JSON, but with plain keys and plain simple strings)."""
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k}: {flow(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(flow(x) for x in v) + "]"
    if isinstance(v, str):
        plain = v and all(c.isalnum() or c in "_.-" for c in v)
        return v if plain and v not in ("true", "false", "null") else json.dumps(v, ensure_ascii=False)
    if isinstance(v, float):
        if v != v:
            return ".nan"
        if v in (float("inf"), float("-inf")):
            return "-.inf" if v < 0 else ".inf"
        return repr(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    return json.dumps(v, ensure_ascii=False)


def case(c):
    lines = []
    first = True
    for k in ORDER:
        if k not in c:
            continue
        v = c[k]
        lead = "- " if first else "  "
        first = False
        if k == "memory":
            lines.append(f"{lead}memory:")
            for space, items in v.items():
                if space == "mbarriers":
                    lines.append(f"    mbarriers: {flow(items)}")
                    continue
                lines.append(f"    {space}:")
                for it in items:
                    lines.append(f"      - {flow(it)}")
        elif k == "params":
            lines.append(f"{lead}params:")
            for pk, pv in v.items():
                lines.append(f"    {pk}: {flow(pv)}")
        elif k == "program":
            lines.append(f"{lead}program:")
            for st in v:
                items = list(st.items())
                lines.append(f"    - " + "\n      ".join(f"{sk}: {flow(sv)}" for sk, sv in items))
        elif k == "description":
            lines.append(f"{lead}description: {json.dumps(v, ensure_ascii=False)}")
        else:
            lines.append(f"{lead}{k}: {flow(v)}")
    return "\n".join(lines)


def write(path, header, cases):
    with open(path, "w") as f:
        f.write("".join(f"# {h}\n" for h in header))
        f.write("# GENERATED: do not edit by hand.\n")
        for c in cases:
            f.write(case(c) + "\n")
