//! End-to-end tests on a real device. They run through the real worker (`CudaExecutor` in a child
//! process). Without a driver they return early, unless `PTXCONFORM_REQUIRE_GPU` is set, in which
//! case a missing GPU is a failure.

use std::time::Duration;

use super::supervisor::{Supervisor, SupervisorConfig, WorkerCommand};
use super::*;

const PTX: &str = include_str!("testdata/device_smoke.ptx");
const REAL_ENV: &str = "PTXCONFORM_CUDA_TEST_WORKER";

/// Not a test: the body of the real worker process the tests below spawn.
#[test]
fn cuda_worker_process() {
    if std::env::var_os(REAL_ENV).is_none() {
        return;
    }
    let code = worker_main(&[]);
    std::process::exit(code);
}

fn device_or_skip() -> Option<DeviceInfo> {
    match gpu_available() {
        Ok(d) => Some(d),
        Err(e) => {
            assert!(
                std::env::var_os("PTXCONFORM_REQUIRE_GPU").is_none(),
                "GPU required: {e}"
            );
            crate::test_support::note(&format!("no GPU: {e}"), "PTXCONFORM_REQUIRE_GPU");
            None
        }
    }
}

fn supervisor() -> Supervisor {
    let command = WorkerCommand {
        program: std::env::current_exe().unwrap(),
        args: [
            "device::device_tests::cuda_worker_process",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        env: vec![(REAL_ENV.into(), "1".into())],
    };
    let mut cfg = SupervisorConfig::new(command);
    cfg.job_timeout = Duration::from_secs(5);
    Supervisor::new(cfg)
}

fn buf(size: u64, init: Vec<u8>) -> BufferSpec {
    BufferSpec {
        size,
        align: 256,
        fill: 0,
        init,
        patches: vec![],
        pieces: vec![],
    }
}

fn launch(
    kernel: &str,
    grid: [u32; 3],
    cluster: Option<[u32; 3]>,
    params: Vec<KernelParam>,
) -> Option<KernelLaunch> {
    Some(KernelLaunch {
        ptx: PTX.into(),
        cubin: vec![],
        kernel: kernel.into(),
        module: 0,
        dims: LaunchDims {
            grid,
            block: [1, 1, 1],
            cluster,
            dynamic_smem: 0,
        },
        params,
        jit_level: None,
    })
}

fn at(index: usize) -> KernelParam {
    KernelParam::Pointer(Address::Buffer { index, offset: 0 })
}

fn tiled_u32_64x64(box_dim: Vec<u32>) -> TensorMapRequest {
    TensorMapRequest {
        global: Address::Buffer {
            index: 0,
            offset: 0,
        },
        encode: Encode::Tiled {
            common: EncodeCommon {
                data_type: 2, // UINT32
                rank: 2,
                global_dim: vec![64, 64],
                global_strides: vec![256],
                element_strides: vec![1, 1],
                interleave: 0,
                swizzle: 0,
                l2_promotion: 0,
                oob_fill: 0,
            },
            box_dim,
        },
        store: None,
    }
}

#[test]
fn device_end_to_end() {
    let Some(dev) = device_or_skip() else { return };
    eprintln!("device: {dev:?}");
    let grid_vals: Vec<u8> = (0u32..64 * 64).flat_map(|v| v.to_le_bytes()).collect();
    let pieces = BufferSpec {
        fill: 0xcd,
        pieces: vec![Piece { at: 100, len: 4 }],
        ..buf(512, vec![1, 2, 3, 4])
    };
    let jobs = vec![
        // 0: plain launch with read-back.
        Job {
            id: 100,
            buffers: vec![buf(4, 41u32.to_le_bytes().to_vec()), buf(4, vec![])],
            tensor_maps: vec![],
            launch: launch("copy4", [1, 1, 1], None, vec![at(0), at(1), KernelParam::U32(1)]),
            read_back: vec![1],
        },
        // 1: misaligned load → trap.
        Job { id: 101, buffers: vec![buf(64, vec![])], tensor_maps: vec![], launch: launch("misaligned", [1, 1, 1], None, vec![at(0)]), read_back: vec![] },
        // 2: JIT error.
        Job {
            id: 102,
            buffers: vec![],
            tensor_maps: vec![],
            launch: Some(KernelLaunch { ptx: ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k() { bogus.op; ret; }\n".into(), cubin: vec![], kernel: "k".into(), module: 0, dims: LaunchDims { grid: [1; 3], block: [1; 3], cluster: None, dynamic_smem: 0 }, params: vec![], jit_level: None }),
            read_back: vec![],
        },
        // 3: cluster launch: 4 CTAs in clusters of 2.
        Job { id: 103, buffers: vec![buf(16, vec![])], tensor_maps: vec![], launch: launch("cluster_rank", [4, 1, 1], Some([2, 1, 1]), vec![at(0)]), read_back: vec![0] },
        // 4: hang → watchdog.
        Job { id: 104, buffers: vec![buf(4, vec![])], tensor_maps: vec![], launch: launch("spin", [1, 1, 1], None, vec![at(0)]), read_back: vec![] },
        // 5: TMA tile load through a tensor map passed by value; plus a map the driver rejects.
        Job {
            id: 105,
            buffers: vec![buf(64 * 64 * 4, grid_vals), buf(1024, vec![])],
            tensor_maps: vec![tiled_u32_64x64(vec![16, 16]), tiled_u32_64x64(vec![16, 300])],
            launch: launch("tma_load", [1, 1, 1], None, vec![KernelParam::TensorMap(0), at(1)]),
            read_back: vec![1],
        },
        // 6: a job after everything else still works.
        Job {
            id: 106,
            buffers: vec![buf(4, 7u32.to_le_bytes().to_vec()), buf(4, vec![])],
            tensor_maps: vec![],
            launch: launch("copy4", [1, 1, 1], None, vec![at(0), at(1), KernelParam::U32(5)]),
            read_back: vec![1],
        },
        // 7: a buffer given by pieces comes back as the blocks the kernel changed.
        Job {
            id: 107,
            buffers: vec![buf(4, 9u32.to_le_bytes().to_vec()), pieces.clone()],
            tensor_maps: vec![],
            launch: launch(
                "copy4",
                [1, 1, 1],
                None,
                vec![
                    at(0),
                    KernelParam::Pointer(Address::Buffer {
                        index: 1,
                        offset: 200,
                    }),
                    KernelParam::U32(1),
                ],
            ),
            read_back: vec![1],
        },
        // 8: a kernel parameter on the map the driver rejects: no launch, a typed outcome.
        Job {
            id: 108,
            buffers: vec![buf(64 * 64 * 4, vec![]), buf(1024, vec![])],
            tensor_maps: vec![tiled_u32_64x64(vec![16, 16]), tiled_u32_64x64(vec![16, 300])],
            launch: launch("tma_load", [1, 1, 1], None, vec![KernelParam::TensorMap(1), at(1)]),
            read_back: vec![1],
        },
        // 9, 10: a buffer given no bytes is its fill (set on the device), not what the job
        // before left in an allocation of the same size (which the worker may reuse).
        Job {
            id: 109,
            buffers: vec![buf(4, 3u32.to_le_bytes().to_vec()), buf(64, vec![0x55; 64])],
            tensor_maps: vec![],
            launch: launch("copy4", [1, 1, 1], None, vec![at(0), at(1), KernelParam::U32(1)]),
            read_back: vec![1],
        },
        Job {
            id: 110,
            buffers: vec![
                buf(4, 3u32.to_le_bytes().to_vec()),
                BufferSpec {
                    fill: 0xab,
                    ..buf(64, vec![])
                },
            ],
            tensor_maps: vec![],
            launch: launch("copy4", [1, 1, 1], None, vec![at(0), at(1), KernelParam::U32(1)]),
            read_back: vec![1],
        },
    ];
    let mut s = supervisor();
    let rs = s.run(&jobs).unwrap();
    for r in &rs {
        eprintln!(
            "{}: {:?} maps={} jit_info={:?}",
            r.id,
            r.outcome,
            r.tensor_maps.len(),
            r.jit_info_log
        );
    }
    assert_eq!(rs[0].outcome, Outcome::Ok);
    assert_eq!(rs[0].read_back[0].data, 42u32.to_le_bytes());
    assert_eq!(
        rs[1].outcome,
        Outcome::Trap {
            kind: TrapKind::MisalignedAddress,
            code: 716
        }
    );
    assert!(
        matches!(&rs[2].outcome, Outcome::JitError { log, .. } if log.contains("bogus")),
        "{:?}",
        rs[2].outcome
    );
    assert_eq!(rs[3].outcome, Outcome::Ok);
    let ranks: Vec<u8> = [0u32, 1, 0, 1]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(rs[3].read_back[0].data, ranks);
    assert_eq!(rs[4].outcome, Outcome::Timeout { after_ms: 5000 });
    assert_eq!(rs[5].outcome, Outcome::Ok, "{:?}", rs[5]);
    assert!(matches!(&rs[5].tensor_maps[0], EncodeOutcome::Ok(m) if m.len() == 128));
    assert!(
        matches!(
            &rs[5].tensor_maps[1],
            EncodeOutcome::Err(EncodeError::Driver { code: 1, .. })
        ),
        "{:?}",
        rs[5].tensor_maps[1]
    );
    let tile = &rs[5].read_back[0].data;
    for row in 0..16u32 {
        for col in 0..16u32 {
            let i = ((row * 16 + col) * 4) as usize;
            let got = u32::from_le_bytes(tile[i..i + 4].try_into().unwrap());
            assert_eq!(got, row * 64 + 16 + col, "tile[{row}][{col}]");
        }
    }
    assert_eq!(rs[6].read_back[0].data, 12u32.to_le_bytes());
    assert_eq!(rs[7].outcome, Outcome::Ok, "{:?}", rs[7]);
    assert_eq!(rs[7].read_back[0].pieces, vec![Piece { at: 192, len: 64 }]);
    let mut want = pieces.image().unwrap();
    want[200..204].copy_from_slice(&10u32.to_le_bytes());
    assert_eq!(rs[7].read_back[0].whole_of(&pieces).unwrap()[..], want[..]);
    assert_eq!(rs[8].outcome, Outcome::MapNotEncoded { map: 1 });
    let mut left = vec![0x55; 64];
    left[..4].copy_from_slice(&4u32.to_le_bytes());
    assert_eq!(rs[9].read_back[0].data, left);
    let mut filled = vec![0xab; 64];
    filled[..4].copy_from_slice(&4u32.to_le_bytes());
    assert_eq!(rs[10].read_back[0].data, filled);
}

#[test]
fn device_encoders_present() {
    let Some(_) = device_or_skip() else { return };
    let d = driver::Driver::load().unwrap();
    for sym in [
        "cuTensorMapEncodeTiled",
        "cuTensorMapEncodeIm2col",
        "cuTensorMapEncodeIm2colWide",
        "cuLaunchKernelEx",
    ] {
        eprintln!("{sym}: {}", driver::symbol_present(&d, sym));
    }
    assert!(driver::symbol_present(&d, "cuTensorMapEncodeTiled"));
    assert!(!driver::symbol_present(&d, "cuNoSuchEntryPoint"));
}

/// Two engines on one device spread a batch between them (work stealing) and give the same
/// verdicts, case for case, as one engine; each result names the engine that ran it.
#[test]
fn fleet_spreads_a_batch_and_agrees_with_one_engine() {
    use crate::engine::fleet::Fleet;
    use crate::engine::Engine;
    use ptxconform_core::differential::run_batch;
    use ptxconform_core::known::KnownDivergences;
    let Some(dev) = device_or_skip() else { return };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
    let (loaded, errors) =
        ptxconform_core::corpus::load_corpus(&[root.join("cp_async"), root.join("mbarrier")]);
    assert!(errors.is_empty(), "{errors:?}");
    // Well-defined cases only: traps need fresh workers and would only slow the test down.
    let cases: Vec<(&str, &ptxconform_reference::case::Case)> = loaded
        .iter()
        .filter(|l| {
            !l.case.name.contains("hint")
                && ptxconform_core::evaluate::evaluate("", &l.case).0.verdict
                    == ptxconform_core::result::Verdict::ReferencePass
        })
        .map(|l| (l.file.as_str(), &l.case))
        .collect();
    assert!(cases.len() > 100, "{}", cases.len());
    let known = KnownDivergences::default();
    let engine = |label: &str| {
        let mut e = Engine::new(supervisor(), dev.compute_capability, None);
        e.label = label.into();
        e
    };
    let mut one = Fleet {
        engines: vec![engine("")],
    };
    let mut two = Fleet {
        engines: vec![engine("a"), engine("b")],
    };
    let r1 = run_batch(&mut one, &known, &cases).unwrap();
    let r2 = run_batch(&mut two, &known, &cases).unwrap();
    assert_eq!(r1.len(), r2.len());
    for (x, y) in r1.iter().zip(&r2) {
        assert_eq!(
            (&x.result.case, &x.result.verdict),
            (&y.result.case, &y.result.verdict),
            "{} / {}",
            x.result.detail,
            y.result.detail
        );
    }
    let ran_on = |d: &str| r2.iter().filter(|j| j.result.device == d).count();
    assert!(
        ran_on("a") > 0 && ran_on("b") > 0,
        "a {} b {}",
        ran_on("a"),
        ran_on("b")
    );
    assert!(two.engines.iter().all(|e| e.stats.launches > 0));
}
