//! Emitted kernels on a real device (driver API directly, in this process). Without a CUDA driver
//! the tests return early, unless `PTXCONFORM_REQUIRE_GPU` is set.

use ptxconform_gpu::device::driver::{Driver, LaunchDims, ParamImage};
use ptxconform_gpu::device::gpu_available;
use ptxconform_gpu::emit::{emit, DumpView, Emitted};
use ptxconform_reference::case::{load_file, load_str, Case};
use ptxconform_reference::layout::{CANARY, CANARY_BYTE};
use std::path::Path;

struct Run {
    dump: DumpView,
    /// Each global region's bytes after the kernel.
    globals: Vec<Vec<u8>>,
    /// Whether every canary byte around every global region is intact.
    canaries_ok: bool,
}

fn device() -> bool {
    match gpu_available() {
        Ok(d) => {
            eprintln!(
                "device: {} sm_{}{}",
                d.name, d.compute_capability.0, d.compute_capability.1
            );
            true
        }
        Err(e) => {
            assert!(
                std::env::var_os("PTXCONFORM_REQUIRE_GPU").is_none(),
                "GPU required: {e}"
            );
            ptxconform_gpu::test_support::note(&format!("no GPU: {e}"), "PTXCONFORM_REQUIRE_GPU");
            false
        }
    }
}

fn run(case: &Case) -> Run {
    let mut e: Emitted = emit(case).unwrap();
    let d = Driver::load().unwrap();
    let dev = d.device(0).unwrap();
    let ctx = dev.context().unwrap();
    let mut bufs = Vec::new();
    let mut bases = Vec::new();
    for (i, r) in case.memory.global.iter().enumerate() {
        let total = (r.size + 2 * CANARY + r.align + r.misalign) as usize;
        let mut b = ctx.alloc(total).unwrap();
        b.fill(CANARY_BYTE).unwrap();
        let start = (b.addr() + CANARY).div_ceil(r.align) * r.align + r.misalign;
        let off = (start - b.addr()) as usize;
        b.write(off, &r.init.materialize(r.size).unwrap()).unwrap();
        e.set_global_base(i, start);
        bases.push(off);
        bufs.push(b);
    }
    let mut init = ctx.alloc(e.shared_init.len()).unwrap();
    init.write(0, &e.shared_init).unwrap();
    e.set_shared_init(init.addr());
    let pbytes = e.pblock_bytes();
    let mut pblock = ctx.alloc(pbytes.len()).unwrap();
    pblock.write(0, &pbytes).unwrap();
    let mut dump = ctx.alloc(e.dump_layout.total_bytes as usize).unwrap();
    dump.fill(0).unwrap();
    let m = ctx
        .load_module(&e.ptx)
        .unwrap_or_else(|err| panic!("{err:?}\n{}", e.ptx));
    let f = m.function(e.entry).unwrap();
    let clustered = e.launch.cluster.iter().product::<u32>() > 1;
    let dims = LaunchDims {
        grid: e.launch.grid,
        block: e.launch.block,
        cluster: clustered.then_some(e.launch.cluster),
        dynamic_smem: e.dyn_smem_bytes as u32,
    };
    // One instance: the table's only entry is (pblock, dump).
    let mut table = ctx.alloc(16).unwrap();
    let entry: Vec<u8> = [pblock.addr(), dump.addr()]
        .iter()
        .flat_map(|a| a.to_le_bytes())
        .collect();
    table.write(0, &entry).unwrap();
    let mut params = vec![ParamImage::from_bytes(&table.addr().to_le_bytes())];
    assert!(
        e.tensor_maps.is_empty(),
        "tensor maps are not encoded by this test"
    );
    ctx.launch(&f, &dims, &mut params).unwrap();
    ctx.synchronize()
        .unwrap_or_else(|err| panic!("{}: {err:?}", case.name));
    let raw = dump.read(0, e.dump_layout.total_bytes as usize).unwrap();
    let mut globals = Vec::new();
    let mut canaries_ok = true;
    for ((r, b), off) in case.memory.global.iter().zip(&bufs).zip(bases) {
        let all = b.read(0, b.len()).unwrap();
        canaries_ok &= all[off - CANARY as usize..off]
            .iter()
            .all(|&x| x == CANARY_BYTE);
        let end = off + r.size as usize;
        canaries_ok &= all[end..end + CANARY as usize]
            .iter()
            .all(|&x| x == CANARY_BYTE);
        globals.push(all[off..end].to_vec());
    }
    Run {
        dump: e.dump_layout.decode(&raw).unwrap(),
        globals,
        canaries_ok,
    }
}

fn examples(file: &str) -> Vec<Case> {
    load_file(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../cases/examples")
            .join(file),
    )
    .unwrap()
}

/// What the example cases must show on silicon.
fn check_example(c: &Case, r: &Run) {
    assert!(r.canaries_ok, "{}: a canary was overwritten", c.name);
    assert!(
        r.dump.reached_end.iter().all(|&x| x),
        "{}: a CTA did not reach the end",
        c.name
    );
    match c.name.as_str() {
        "examples.cp_async.cg16_ca4" => {
            // buf[0..16] = src[16..32], buf[16..20] = src[0..4]
            let src = c.memory.global[0].init.materialize(64).unwrap();
            let img = &r.dump.images[0];
            assert_eq!(&img[..16], &src[16..32]);
            assert_eq!(&img[16..20], &src[..4]);
            assert!(img[20..64].iter().all(|&b| b == 0));
            assert_eq!(r.globals[0], src);
        }
        "examples.bulk.g2s_complete_tx" => {
            // dst = src, phase 0 complete, no timeout
            let src = c.memory.global[0].init.materialize(256).unwrap();
            assert_eq!(&r.dump.images[0][..256], &src[..]);
            assert_eq!(r.dump.parity[0], vec![(true, false)]);
            assert!(r.dump.timeouts.iter().all(|s| !s[0]));
        }
        "examples.mbarrier.two_arrivals" => {
            assert_eq!(
                r.dump.parity[0],
                vec![(true, false)],
                "two arrivals complete phase 0"
            );
            assert!(!r.dump.timeouts[3][0]);
        }
        "examples.mbarrier.missing_arrival" => {
            assert!(r.dump.timeouts[2][0], "a missing arrival times out");
            assert!(!r.dump.parity[0][0].0, "phase 0 incomplete");
        }
        "t.cluster" => {
            // steps in order across CTAs of the clusters; CTA numbers 0..4
            let heads: Vec<&[u8]> = r.dump.images.iter().map(|i| &i[..4]).collect();
            assert_eq!(
                heads,
                vec![
                    &[1, 2, 3, 9][..],
                    &[9, 9, 9, 9],
                    &[9, 9, 9, 9],
                    &[4, 9, 9, 9]
                ]
            );
            let par: Vec<(bool, bool)> = r.dump.parity.iter().map(|p| p[0]).collect();
            assert_eq!(
                par,
                vec![(true, false), (false, true), (false, true), (true, false)]
            );
        }
        "t.remote" => {
            let src = c.memory.shared[0].init.materialize(64).unwrap();
            assert_eq!(
                &r.dump.images[1][128..192],
                &src[..],
                "CTA 1's dst holds CTA 0's src"
            );
            assert!(
                r.dump.images[0][128..192].iter().all(|&b| b == 0xAA),
                "CTA 0's dst untouched"
            );
            assert_eq!(r.dump.parity[1][0], (true, false));
            assert!(!r.dump.timeouts[3][1]);
        }
        other => panic!("no expectation for {other}"),
    }
}

/// The examples, a clustered case and (once `Param::Mapa` is in the model) a remote copy.
fn example_cases() -> Vec<Case> {
    let mut v: Vec<Case> = [
        "cp_async_copy.yaml",
        "bulk_copy_mbarrier.yaml",
        "mbarrier_phase.yaml",
    ]
    .iter()
    .flat_map(|f| examples(f))
    .collect();
    v.extend(load_str(CLUSTER, "cluster.yaml").unwrap());
    match load_str(mapa::REMOTE, "remote.yaml") {
        Ok(c) => v.extend(c),
        Err(_) => eprintln!("Param::Mapa not in the case model yet: remote copy left out"),
    }
    v
}

#[test]
fn examples_run_on_device() {
    if !device() {
        return;
    }
    for c in example_cases() {
        check_example(&c, &run(&c));
    }
}

/// Checks results a driver-API script produced from [`write_jobs`]' file on a GPU machine
/// (`$PTXCONFORM_EMIT_RESULTS`: `[{name, dump: hex, globals: [hex of the whole buffer],
/// offs: [[offset, size]]}]`).
#[test]
#[ignore]
fn check_remote_results() {
    let Some(path) = std::env::var_os("PTXCONFORM_EMIT_RESULTS") else {
        return;
    };
    let res: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let unhex = |s: &str| {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect::<Vec<u8>>()
    };
    let cases = example_cases();
    let mut checked = 0;
    for r in res.as_array().unwrap() {
        let Some(c) = cases.iter().find(|c| c.name == r["name"]) else {
            eprintln!(
                "{}: not among this build's cases (Param::Mapa missing?)",
                r["name"]
            );
            continue;
        };
        assert!(
            r.get("jit").is_none(),
            "{}: JIT failed: {}",
            c.name,
            r["log"]
        );
        let e = emit(c).unwrap();
        let dump = e
            .dump_layout
            .decode(&unhex(r["dump"].as_str().unwrap()))
            .unwrap();
        let mut globals = Vec::new();
        let mut canaries_ok = true;
        for (g, o) in r["globals"]
            .as_array()
            .unwrap()
            .iter()
            .zip(r["offs"].as_array().unwrap())
        {
            let all = unhex(g.as_str().unwrap());
            let (off, size) = (
                o[0].as_u64().unwrap() as usize,
                o[1].as_u64().unwrap() as usize,
            );
            let k = CANARY as usize;
            canaries_ok &= all[off - k..off]
                .iter()
                .chain(&all[off + size..off + size + k])
                .all(|&x| x == CANARY_BYTE);
            globals.push(all[off..off + size].to_vec());
        }
        check_example(
            c,
            &Run {
                dump,
                globals,
                canaries_ok,
            },
        );
        checked += 1;
    }
    assert_eq!(checked, cases.len());
}

const CLUSTER: &str = r#"
name: t.cluster
target: sm_90a
launch: { grid: [4,1,1], cluster: [2,1,1], threads: 64 }
memory:
  shared: [ { name: buf, size: 32, init: { fill: 9 } } ]
  mbarriers: [ { name: bar } ]
program:
  - cta: all
    ptx: mbarrier.init.shared::cta.b64 [bar], 1
  - store: { at: buf, bytes: [1, 2, 3] }
  - cta: 3
    thread: 33
    store: { at: buf, bytes: [4] }
  - cta: [0, 3]
    ptx: mbarrier.arrive.shared::cta.b64 _, [bar]
"#;

use crate::emit_mapa as mapa;
