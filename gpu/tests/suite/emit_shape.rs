//! Properties of emitted kernels: shape sharing, guards and barriers, the cp.async golden lines,
//! tensor maps, stores and bounded waits; each kernel is also assembled where ptxas is present.

use ptxconform_gpu::emit::{dump::pb, emit, DumpLayout, Emitted};
use ptxconform_gpu::ptxas;
use ptxconform_reference::case::{load_str, Case};

fn case(yaml: &str) -> Case {
    let mut v = load_str(yaml, "test.yaml").unwrap_or_else(|e| panic!("{e}"));
    v.remove(0)
}

fn emitted(yaml: &str) -> Emitted {
    let c = case(yaml);
    let e = emit(&c).unwrap_or_else(|e| panic!("{e}"));
    if let Some(p) = ptxas::for_tests() {
        if let Err(errs) = p.assemble(&e.ptx, c.target) {
            let numbered = ptxconform_gpu::test_kernel::numbered(&e.ptx);
            panic!("ptxas rejects: {errs:?}\n{numbered}");
        }
    }
    e
}

const CP_ASYNC: &str = r#"
name: t.cp_async
target: sm_80
memory:
  global: [ { name: src, size: 64, init: { pattern: 7 } } ]
  shared: [ { name: buf, size: 64, align: 16 } ]
params: { n: 4 }
program:
  - ptx: cp.async.ca.shared.global [buf+16], [src+4], 4, n
  - ptx: cp.async.commit_group
  - ptx: cp.async.wait_group 0
"#;

#[test]
fn cases_differing_in_values_share_the_kernel() {
    let a = emitted(CP_ASYNC);
    // other offsets, another layout (misaligned region), other src-size, other init and sizes
    let b = emitted(
        &CP_ASYNC
            .replace("[buf+16], [src+4], 4, n", "[buf+32], [src+8], 4, n")
            .replace(
                "size: 64, align: 16 }",
                "size: 96, align: 16, misalign: 16, init: { fill: 3 } }",
            )
            .replace("n: 4", "n: 2")
            .replace("pattern: 7", "pattern: 9"),
    );
    assert_eq!(a.ptx, b.ptx);
    assert_eq!(a.shape_key, b.shape_key);
    assert_ne!(a.pblock, b.pblock);
    assert_ne!(a.shared_init, b.shared_init);
    // the pblock carries the values: shared offset of [buf+16], src offset 4, src-size 4
    let ops = &a.pblock[pb::HEADER + 1..];
    assert_eq!(ops, &[16, 4, 4], "{:?}", a.pblock);
    let ops = &b.pblock[pb::HEADER + 1..];
    assert_eq!(ops, &[48, 8, 2], "{:?}", b.pblock);
    assert_eq!(b.dyn_smem_bytes, 112);
    assert_eq!(b.pblock[pb::IMAGE_BYTES], 112);
}

/// `memory.shared_allocation` is what the kernel is launched with; the image stays the
/// regions' extent (what is initialized and read back).
#[test]
fn the_shared_allocation_is_launched_as_stated() {
    let stated = CP_ASYNC.replace(
        "  shared: [ { name: buf, size: 64, align: 16 } ]",
        "  shared: [ { name: buf, size: 64, align: 16 } ]\n  shared_allocation: 1000",
    );
    let a = emitted(CP_ASYNC);
    let b = emitted(&stated);
    assert_eq!(a.dyn_smem_bytes, 64);
    assert_eq!(b.dyn_smem_bytes, 1000);
    assert_eq!(b.pblock[pb::IMAGE_BYTES], 64);
    assert_eq!(a.ptx, b.ptx);
    // Emitted together, the two programs do not share one emission's allocation.
    let (ca, cb) = (case(CP_ASYNC), case(&stated));
    let both = ptxconform_gpu::emit::emit_all(&[&ca, &cb]);
    let sizes: Vec<u64> = both
        .iter()
        .map(|e| e.as_ref().unwrap().dyn_smem_bytes)
        .collect();
    assert_eq!(sizes, [64, 1000]);
}

#[test]
fn shape_changes_with_what_stays_in_the_text() {
    let a = emitted(CP_ASYNC);
    for other in [
        CP_ASYNC.replace(
            "cp.async.ca.shared.global [buf+16], [src+4], 4, n",
            "cp.async.ca.shared.global [buf+16], [src+4], 8, n",
        ),
        CP_ASYNC.replace("wait_group 0", "wait_group 1"),
        CP_ASYNC
            .replace(
                "  - ptx: cp.async.commit_group\n",
                "  - ptx: cp.async.commit_group\n    thread: 1\n",
            )
            .replace(
                "name: t.cp_async",
                "name: t.cp_async\nlaunch: { threads: 64 }",
            ),
    ] {
        let b = emitted(&other);
        assert_ne!(a.shape_key, b.shape_key, "{other}");
    }
}

#[test]
fn cp_async_golden_lines() {
    let e = emitted(CP_ASYNC);
    let lines: Vec<&str> = e.ptx.lines().collect();
    assert_eq!(
        &lines[..3],
        &[".version 7.0", ".target sm_80", ".address_size 64"]
    );
    assert!(lines.contains(&".extern .shared .align 1024 .b8 smem[];"));
    assert!(lines.contains(&".visible .entry ptxconform_case(.param .u64 table)"));
    // instance number = %ctaid.x / the case's grid x; its (pblock, dump) pair from the table
    assert!(lines.contains(&"div.u32 %r3, %r4, 1;"), "{}", e.ptx);
    assert!(lines.contains(&"mul.wide.u32 %rd0, %r3, 16;"), "{}", e.ptx);
    assert_eq!(e.max_instances(), i32::MAX as usize);
    // the copy: a shared address register, a global address register, the immediate cp-size and
    // the src-size from the block
    let cp = lines
        .iter()
        .position(|l| l.starts_with("cp.async.ca.shared.global"))
        .expect("cp.async line");
    let parts: Vec<&str> = lines[cp]
        .trim_end_matches(';')
        .split([' ', ','])
        .filter(|s| !s.is_empty())
        .collect();
    assert_eq!(parts.len(), 5, "{}", lines[cp]);
    assert!(
        parts[1].starts_with("[%r")
            && parts[2].starts_with("[%rd")
            && parts[3] == "4"
            && parts[4].starts_with("%r"),
        "{}",
        lines[cp]
    );
    let dst = parts[1].trim_matches(['[', ']']);
    let srcsize = parts[4];
    // dst = block value + smem base; src-size loaded from the block at operand slot 3
    assert!(
        lines[..cp].contains(&format!("add.u32 {dst}, {dst}, %r0;").as_str()),
        "{}",
        e.ptx
    );
    let off = (pb::HEADER + 1 + 2) * 8;
    assert!(
        lines[..cp].contains(&format!("ld.global.b32 {srcsize}, [%rd0+{off}];").as_str()),
        "{}",
        e.ptx
    );
    assert!(lines.contains(&"cp.async.commit_group;") && lines.contains(&"cp.async.wait_group 0;"));
    // one executor: no barrier between steps; the epilogue starts with one
    let first = e.step_map[0].lines.start;
    let last = e.step_map.last().unwrap().lines.end;
    assert!(!lines[first - 1..last - 1].contains(&"bar.sync 0;"));
    assert_eq!(lines[last - 1], "bar.sync 0;");
    assert!(e.ptx.trim_end().ends_with("ret;\n}"));
    // step_map: each step's range holds its instruction
    for (s, needle) in e.step_map.iter().zip([
        "cp.async.ca",
        "cp.async.commit_group",
        "cp.async.wait_group",
    ]) {
        assert!(
            lines[s.lines.start - 1..s.lines.end - 1]
                .iter()
                .any(|l| l.starts_with(needle)),
            "{s:?}"
        );
    }
}

#[test]
fn barriers_between_executors() {
    let e = emitted(
        r#"
name: t.bar
target: sm_90
launch: { threads: 64 }
memory: { mbarriers: [ { name: bar } ] }
program:
  - ptx: mbarrier.init.shared::cta.b64 [bar], 2
  - ptx: mbarrier.arrive.shared::cta.b64 state, [bar]
  - thread: 32
    ptx: mbarrier.arrive.shared::cta.b64 state, [bar]
  - wait_parity: { mbar: bar, parity: 0 }
"#,
    );
    let lines: Vec<&str> = e.ptx.lines().collect();
    let body = |i: usize| &lines[e.step_map[i].lines.start - 1..e.step_map[i].lines.end - 1];
    assert_eq!(body(0).first(), Some(&"setp.eq.u32 %p1, %r2, 0;"));
    assert!(
        !body(1).contains(&"bar.sync 0;"),
        "same executor: no barrier"
    );
    // ... and no guard of its own: it runs under step 0's, whose skip label ends step 1
    assert!(
        !body(0).iter().any(|l| l.ends_with(':'))
            && !body(1)
                .iter()
                .any(|l| l.contains("%r2,") || l.contains(" bra ")),
        "{:?} {:?}",
        body(0),
        body(1)
    );
    assert!(body(1).last().is_some_and(|l| l.starts_with("$L_skip")));
    assert_eq!(
        body(2).first(),
        Some(&"bar.sync 0;"),
        "thread 0 -> thread 32"
    );
    assert!(
        body(2)
            .iter()
            .any(|l| l.starts_with("setp.eq.u32 %p") && l.ends_with(", %r2, 32;")),
        "{:?}",
        body(2)
    );
    assert_eq!(
        body(3).first(),
        Some(&"bar.sync 0;"),
        "thread 32 -> thread 0"
    );
    // the state written by step 1 and step 2 is one register
    let state = |i: usize| {
        body(i)
            .iter()
            .find(|l| l.starts_with("mbarrier.arrive"))
            .unwrap()
            .split([' ', ','])
            .nth(1)
            .unwrap()
            .to_string()
    };
    assert_eq!(state(1), state(2));
    // the bounded wait
    let w = body(3);
    assert!(
        w.iter()
            .any(|l| l.starts_with("mbarrier.try_wait.parity.shared.b64") && l.ends_with(", 0;")),
        "{w:?}"
    );
    assert!(w.iter().any(|l| l.contains("%globaltimer")));
    assert!(
        w.iter()
            .any(|l| l.starts_with("st.global.u32") && l.ends_with(", 1;")),
        "timeout flag store"
    );
    assert_eq!(e.version.to_string(), "8.0");
    assert!(e.ptx.contains("fence.proxy.async.shared::cta;"));
    assert!(
        e.ptx.contains("mbarrier.test_wait.parity.shared.b64"),
        "epilogue parity probe"
    );
}

#[test]
fn cluster_barrier_between_ctas_and_all_ctas_guard() {
    let e = emitted(
        r#"
name: t.cluster
target: sm_90a
launch: { grid: [2,1,1], cluster: [2,1,1], threads: 32 }
memory:
  shared: [ { name: buf, size: 32 } ]
  mbarriers: [ { name: bar } ]
program:
  - cta: all
    ptx: mbarrier.init.shared::cta.b64 [bar], 1
  - store: { at: buf, bytes: [1, 2, 3] }
  - cta: 1
    store: { at: buf, bytes: [4] }
  - cta: [0, 1]
    thread: 0
    ptx: mbarrier.arrive.shared::cta.b64 _, [bar]
"#,
    );
    let lines: Vec<&str> = e.ptx.lines().collect();
    let body = |i: usize| &lines[e.step_map[i].lines.start - 1..e.step_map[i].lines.end - 1];
    assert!(
        !body(0).iter().any(|l| l.contains("%r1,")),
        "cta: all tests no CTA: {:?}",
        body(0)
    );
    assert_eq!(
        &body(1)[..2],
        &[
            "barrier.cluster.arrive.release.aligned;",
            "barrier.cluster.wait.acquire.aligned;"
        ]
    );
    assert_eq!(
        body(1)
            .iter()
            .filter(|l| l.starts_with("st.shared.u8"))
            .count(),
        3
    );
    assert_eq!(body(2)[0], "barrier.cluster.arrive.release.aligned;");
    assert!(
        body(3).iter().any(|l| l.starts_with("setp.eq.or.u32")),
        "CTA list: {:?}",
        body(3)
    );
    assert!(e.ptx.contains("%cluster_ctarank"));
    // operand values in emission order: init [bar] and count, store offset + bytes, store
    // offset + byte, arrive [bar], then the epilogue's parity probe of bar
    assert_eq!(
        &e.pblock[pb::HEADER..],
        &[32, 1, 0, 1, 2, 3, 0, 4, 32, 32][..],
        "{:?}",
        e.pblock
    );
    assert_eq!(e.launch.cluster, [2, 1, 1]);
    assert_eq!(e.dump_layout.ctas, 2);
}

#[test]
fn guard_and_tensor_map() {
    let e = emitted(
        r#"
name: t.tensor
target: sm_90a
memory:
  global: [ { name: g, size: 4096 } ]
  shared: [ { name: dst, size: 1024, align: 1024 } ]
  mbarriers: [ { name: bar } ]
  tensor_maps: [ { name: tm, global: g, map: { encode: tiled, tensor_data_type: uint8, global_dim: [64, 64], global_strides: [64], box_dim: [16, 8] } } ]
params: { x: 0, y: 8, p: { value: 1, type: pred } }
program:
  - ptx: mbarrier.init.shared::cta.b64 [bar], 1
  - ptx: "@p cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [dst], [tm, {x, y}], [bar]"
"#,
    );
    assert!(
        e.ptx.contains(&format!(
            ".visible .entry ptxconform_case(.param .u64 table, .param .align 64 .b8 tmaps[{}])",
            128 * ptxconform_gpu::emit::TMAP_SLOTS
        )),
        "{}",
        e.ptx
    );
    // one map per instance: a launch holds as many instances as there are slots
    assert_eq!(e.max_instances(), ptxconform_gpu::emit::TMAP_SLOTS);
    let lines: Vec<&str> = e.ptx.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.contains("cp.async.bulk.tensor.2d"))
        .expect("tensor line");
    assert!(lines[i].starts_with("@%p"), "{}", lines[i]);
    let map = lines[i]
        .split('[')
        .nth(2)
        .unwrap()
        .split(',')
        .next()
        .unwrap();
    assert!(lines[..i].contains(&format!("cvta.param.u64 {map}, {map};").as_str()));
    assert!(lines[..i].contains(&format!("mov.u64 {map}, tmaps;").as_str()));
    // the instance's map: tmaps + instance * 128
    assert!(
        lines[..i]
            .iter()
            .any(|l| l.starts_with(&format!("add.s64 {map}, {map}, %rd"))),
        "{}",
        e.ptx
    );
    let pred = lines[i].split(' ').next().unwrap().trim_start_matches('@');
    assert!(
        lines[..i]
            .iter()
            .any(|l| l.starts_with(&format!("setp.ne.b32 {pred},"))),
        "{}",
        e.ptx
    );
    assert_eq!(e.tensor_maps.len(), 1);
    assert_eq!(
        (
            e.tensor_maps[0].param.as_str(),
            e.tensor_maps[0].global_index
        ),
        ("tmaps[0]", 0)
    );
}

#[test]
fn invalid_case_is_an_error() {
    let mut c = case(CP_ASYNC);
    c.program[0].op = ptxconform_reference::case::StepOp::Ptx(
        "cp.async.ca.shared.global [buf], [nowhere], 4".into(),
    );
    let e = emit(&c).unwrap_err();
    assert!(e.0.contains("nowhere"), "{e}");
}

#[test]
fn dump_layout_decodes() {
    let d = DumpLayout::new(2, 32, vec!["a".into(), "b".into()], 3);
    assert_eq!((d.parity_at, d.timeouts_at, d.reached_at), (64, 80, 104));
    assert_eq!(d.total_bytes, 112);
    let mut buf = vec![0u8; d.total_bytes as usize];
    buf[d.image(1)][0] = 9;
    buf[d.parity_word(1, 1)] = 2;
    buf[d.timeout_flag(2, 0)] = 1;
    buf[d.reached(1)] = 1;
    let v = d.decode(&buf).unwrap();
    assert_eq!(v.images[1][0], 9);
    assert_eq!(v.parity[1], vec![(false, false), (false, true)]);
    assert_eq!(v.timeouts[2], vec![true, false]);
    assert_eq!(v.reached_end, vec![false, true]);
    assert!(d.decode(&buf[..10]).is_err());
}
