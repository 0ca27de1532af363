#!/usr/bin/env python3
"""Generate cases/mbarrier/forms.yaml: every spelling of the mbarrier instructions that the
coverage matrix lists as a row (§9.7.13.15.11-16): arrive / arrive_drop x {plain, .expect_tx,
.noComplete} x .sem.scope x state space x {state register, sink} x {count, none};
expect_tx / complete_tx x .sem.scope x state space; test_wait / try_wait {.parity} x .sem.scope x
state space {+ timeHint}. Each case wraps the form in a program whose counts make the form's
bookkeeping decide the outcome, and waits for the phase the form takes part in.

Counts are chosen so every case is well defined: arrive_drop never lowers the expected count
below 1, .noComplete never completes the phase, and phase 0 is completed by a final plain arrive
(plus a complete_tx where the form expects transactions).

Run from the repository root: python3 tools/gen_mbarrier_cases.py"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import yamlcase  # noqa: E402

SPACES = ["", "shared", "shared::cta", "shared::cluster"]
ARRIVE_ORDERS = ["", "release.cta", "release.cluster", "relaxed.cta", "relaxed.cluster"]
TX_ORDERS = ["", "relaxed.cta", "relaxed.cluster"]
WAIT_ORDERS = ["", "acquire.cta", "acquire.cluster", "relaxed.cta", "relaxed.cluster"]
TX = 16


def q(*parts):
    return "".join("." + p for p in parts if p)


def tag(s):
    return s.replace("::", "_").replace(".", "_") if s else "none"


def base(name, desc, program):
    return {
        "name": name,
        "description": desc,
        "target": "sm_90a",
        "memory": {"mbarriers": [{"name": "bar"}]},
        "program": program,
        "check": ["bar"],
    }


def arrive_cases():
    out = []
    for op in ["arrive", "arrive_drop"]:
        for kind in ["", "expect_tx", "noComplete"]:
            # §9.7.13.15.13-14: .noComplete takes only the optional .release.cta and .shared{::cta}.
            orders = ["", "release.cta"] if kind == "noComplete" else ARRIVE_ORDERS
            spaces = ["", "shared", "shared::cta"] if kind == "noComplete" else SPACES
            for order in orders:
                for space in spaces:
                    # .shared::cluster arrives cannot return a state: the sink is mandatory.
                    dests = ["_"] if space == "shared::cluster" else ["_", "state"]
                    # count: optional for plain arrives, mandatory for .noComplete, none with .expect_tx.
                    counts = {"": [None, 2], "expect_tx": [None], "noComplete": [1]}[kind]
                    for dest in dests:
                        for count in counts:
                            out.append(arrive_case(op, kind, order, space, dest, count))
    return out


def arrive_case(op, kind, order, space, dest, count):
    opcode = f"mbarrier.{op}{q(kind)}{q(order)}{q(space)}.b64"
    ops = [dest, "[bar]"]
    if kind == "expect_tx":
        ops.append(str(TX))
    if count is not None:
        ops.append(str(count))
    c = count or 1
    # One more expected arrival than the form gives, so a final plain arrive completes phase 0
    # (and arrive_drop keeps the expected count >= 1).
    init = c + 1
    prog = [{"ptx": f"mbarrier.init.shared::cta.b64 [bar], {init}"}, {"ptx": f"{opcode} {', '.join(ops)}"}]
    if kind == "expect_tx":
        prog.append({"ptx": f"mbarrier.complete_tx.shared::cta.b64 [bar], {TX}"})
    prog.append({"ptx": "mbarrier.arrive.shared::cta.b64 _, [bar]"})
    prog.append({"wait_parity": {"mbar": "bar", "parity": 0}})
    parts = [op, tag(kind), tag(order), tag(space), "state" if dest == "state" else "sink"]
    if count is not None:
        parts.append(f"count{count}")
    sec = "9.7.13.15.14" if op == "arrive_drop" else "9.7.13.15.13"
    what = {"": "arrive-on", "expect_tx": f"expect-tx({TX}) then arrive-on", "noComplete": "arrive-on that must not complete the phase"}[kind]
    desc = f"§{sec} form `{opcode}` ({what}, count {c}{', dropping the expected count' if op == 'arrive_drop' else ''}) on init {init}; a final arrive completes phase 0"
    return base("mbarrier.form." + ".".join(parts), desc, prog)


def tx_cases():
    out = []
    for op in ["expect_tx", "complete_tx"]:
        for order in TX_ORDERS:
            for space in SPACES:
                opcode = f"mbarrier.{op}{q(order)}{q(space)}.b64"
                if op == "expect_tx":
                    prog = [
                        {"ptx": "mbarrier.init.shared::cta.b64 [bar], 1"},
                        {"ptx": f"{opcode} [bar], {TX}"},
                        {"ptx": "mbarrier.arrive.shared::cta.b64 _, [bar]"},
                        {"ptx": f"mbarrier.complete_tx.shared::cta.b64 [bar], {TX}"},
                    ]
                    desc = f"§9.7.13.15.11 form `{opcode}`: tx-count {TX} holds phase 0 open past the arrive until complete_tx"
                else:
                    prog = [
                        {"ptx": "mbarrier.init.shared::cta.b64 [bar], 1"},
                        {"ptx": f"mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], {TX}"},
                        {"ptx": f"{opcode} [bar], {TX}"},
                    ]
                    desc = f"§9.7.13.15.12 form `{opcode}`: completes the {TX} expected bytes and so phase 0"
                prog.append({"wait_parity": {"mbar": "bar", "parity": 0}})
                out.append(base(f"mbarrier.form.{op}.{tag(order)}.{tag(space)}", desc, prog))
    return out


def wait_cases():
    out = []
    for op in ["test_wait", "try_wait"]:
        for parity in [False, True]:
            for order in WAIT_ORDERS:
                for space in ["", "shared", "shared::cta"]:
                    for hint in ([False, True] if op == "try_wait" else [False]):
                        opcode = f"mbarrier.{op}{'.parity' if parity else ''}{q(order)}{q(space)}.b64"
                        ops = ["done", "[bar]", "0" if parity else "state"]
                        if hint:
                            ops.append("1000")
                        prog = [
                            {"ptx": "mbarrier.init.shared::cta.b64 [bar], 2"},
                            {"ptx": "mbarrier.arrive.shared::cta.b64 state, [bar]"},
                            # Probe the open phase 0 (False), complete it, probe again (True).
                            {"ptx": f"{opcode} {', '.join(ops)}"},
                            {"ptx": "mbarrier.arrive.shared::cta.b64 _, [bar]"},
                            {"ptx": f"{opcode} {', '.join(ops)}"},
                            {"ptx": "mbarrier.arrive.shared::cta.b64 _, [bar], 2"},
                            {"wait_parity": {"mbar": "bar", "parity": 1}},
                        ]
                        parts = [op, "parity" if parity else "state", tag(order), tag(space)]
                        if hint:
                            parts.append("hint")
                        desc = (f"§9.7.13.15.16 form `{opcode}`{' with a timeHint' if hint else ''}: probes the open phase 0 "
                                "(False), then the completed one (True, which allows arriving on phase 1)")
                        out.append(base("mbarrier.form." + ".".join(parts), desc, prog))
    return out


def main():
    cases = arrive_cases() + tx_cases() + wait_cases()
    yamlcase.write("cases/mbarrier/forms.yaml",
                   ["Every mbarrier instruction spelling of the coverage matrix, each in a well-defined program (§9.7.13.15).",
                    "Generated by tools/gen_mbarrier_cases.py."], cases)
    print(f"{len(cases)} cases")


if __name__ == "__main__":
    main()
