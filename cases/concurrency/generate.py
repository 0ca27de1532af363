#!/usr/bin/env python3
"""Writes the whole-warp / whole-CTA concurrency cases (too long to keep by hand):
warp_cp_async.yaml and cta_arrive.yaml. Run from this directory."""


def warp_cp_async():
    out = [
        "# A full warp: each of the 32 lanes issues a 16-byte cp.async to its own slice of dst and",
        "# arrives with cp.async.mbarrier.arrive.noinc on one mbarrier of count 32, all at once (one",
        "# `concurrent` group); lane 0 then waits for phase 0 and every copied byte is known. The lanes",
        "# touch disjoint bytes and their arrive-ons commute (A-EXEC-CONCURRENT-MBAR-COMMUTE), so the",
        "# reference runs one order instead of 64!/(2!^32).",
        "- name: concurrency.cp_async.warp_noinc",
        "  description: lanes 0-31 each cp.async 16 bytes to dst+16*lane and arrive .noinc on an mbarrier of count 32, concurrently; lane 0 waits for phase 0",
        "  target: sm_90",
        "  memory:",
        "    global: [ { name: src, size: 512, init: { pattern: 3 } } ]",
        "    shared: [ { name: dst, size: 512, init: { fill: 0xAA } } ]",
        "    mbarriers: [ { name: bar } ]",
        "  program:",
        "    - ptx: mbarrier.init.shared::cta.b64 [bar], 32",
    ]
    for lane in range(32):
        o = 16 * lane
        d = f"dst+{o}" if o else "dst"
        s = f"src+{o}" if o else "src"
        out.append(f'    - {{ ptx: "cp.async.cg.shared.global [{d}], [{s}], 16", thread: {lane}, concurrent: warp }}')
        out.append(f'    - {{ ptx: "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar]", thread: {lane}, concurrent: warp }}')
    out += [
        "    - wait_parity: { mbar: bar, parity: 0 }",
        "  check: [dst, bar]",
        "  expect: pass",
    ]
    return "\n".join(out) + "\n"


def cta_arrive():
    out = [
        "# Every thread of a 128-thread CTA (4 warps) arrives on one mbarrier of arrival count 128, all",
        "# at once (one `concurrent` group); thread 0's wait for phase 0 then succeeds and the mbarrier",
        "# is in phase 1 with its count back at 128. Arrivals commute while none but the last can",
        "# complete the phase (A-EXEC-CONCURRENT-MBAR-COMMUTE): one order instead of 128!.",
        "- name: concurrency.producers.cta_arrive_128",
        "  description: threads 0-127 each arrive once on an mbarrier of count 128, concurrently; thread 0 waits for phase 0",
        "  target: sm_90",
        "  launch: { threads: 128 }",
        "  memory:",
        "    mbarriers: [ { name: bar } ]",
        "  program:",
        "    - ptx: mbarrier.init.shared::cta.b64 [bar], 128",
    ]
    for t in range(128):
        out.append(f'    - {{ ptx: "mbarrier.arrive.shared::cta.b64 _, [bar]", thread: {t}, concurrent: cta }}')
    out += [
        "    - wait_parity: { mbar: bar, parity: 0 }",
        "  check: [bar]",
        "  expect: pass",
    ]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    with open("warp_cp_async.yaml", "w") as f:
        f.write(warp_cp_async())
    with open("cta_arrive.yaml", "w") as f:
        f.write(cta_arrive())
