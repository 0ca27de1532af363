//! Emitted kernels on a real device (driver API directly, in this process). Without a CUDA driver
//! the tests return early, unless `PTXCONFORM_REQUIRE_GPU` is set.

use ptxconform::emit::{emit, DumpView, Emitted};
use ptxconform::gpu::driver::{Driver, LaunchDims, ParamImage};
use ptxconform::gpu::gpu_available;
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
    let mut params = vec![
        ParamImage::from_bytes(&pblock.addr().to_le_bytes()),
        ParamImage::from_bytes(&dump.addr().to_le_bytes()),
    ];
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

#[test]
fn examples_run_on_device() {
    if !device() {
        return;
    }
    // cp.async: buf[0..16] = src[16..32], buf[16..20] = src[0..4]
    let c = &examples("cp_async_copy.yaml")[0];
    let r = run(c);
    let src = c.memory.global[0].init.materialize(64).unwrap();
    let img = &r.dump.images[0];
    assert_eq!(&img[..16], &src[16..32]);
    assert_eq!(&img[16..20], &src[..4]);
    assert!(img[20..64].iter().all(|&b| b == 0));
    assert_eq!(r.dump.reached_end, vec![true]);
    assert!(r.canaries_ok);
    assert_eq!(r.globals[0], src);

    // bulk copy completed through the mbarrier: dst = src, phase 0 complete, no timeout
    let c = &examples("bulk_copy_mbarrier.yaml")[0];
    let r = run(c);
    let src = c.memory.global[0].init.materialize(256).unwrap();
    assert_eq!(&r.dump.images[0][..256], &src[..]);
    assert_eq!(r.dump.parity[0], vec![(true, false)]);
    assert!(r.dump.timeouts.iter().all(|s| !s[0]));
    assert_eq!(r.dump.reached_end, vec![true]);

    let cs = examples("mbarrier_phase.yaml");
    let r = run(&cs[0]);
    assert_eq!(
        r.dump.parity[0],
        vec![(true, false)],
        "two arrivals complete phase 0"
    );
    assert!(!r.dump.timeouts[3][0]);
    let r = run(&cs[1]);
    assert!(r.dump.timeouts[2][0], "a missing arrival times out");
    assert!(!r.dump.parity[0][0].0, "phase 0 incomplete");
    assert_eq!(r.dump.reached_end, vec![true]);
}

#[test]
fn cluster_steps_run_in_order_on_device() {
    if !device() {
        return;
    }
    let c = load_str(
        r#"
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
"#,
        "t.yaml",
    )
    .unwrap()
    .remove(0);
    let r = run(&c);
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
    assert_eq!(r.dump.reached_end, vec![true; 4]);
}

#[path = "emit_mapa.rs"]
mod mapa;

#[test]
fn mapa_remote_copy_on_device() {
    let Ok(mut cs) = load_str(mapa::REMOTE, "t.yaml") else {
        eprintln!("Param::Mapa not in the case model yet");
        return;
    };
    if !device() {
        return;
    }
    let c = cs.remove(0);
    let r = run(&c);
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
    assert_eq!(r.dump.reached_end, vec![true, true]);
}
