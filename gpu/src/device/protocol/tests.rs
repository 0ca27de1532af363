use super::*;

/// A patch payload that is not whole patches, or names an unknown kind of address, is a
/// decoding error that says so, not a panic.
#[test]
fn malformed_patches_are_decoding_errors() {
    let spec = |patches: &str| format!(r#"{{"size":8,"patches":"{patches}"}}"#);
    let e = serde_json::from_str::<BufferSpec>(&spec("00")).unwrap_err();
    assert!(e.to_string().contains("not a whole number"), "{e}");
    let mut bad = vec![0u8; crate::device::packed::patches::LEN];
    bad[8] = 7;
    let e = serde_json::from_str::<BufferSpec>(&spec(&ptxconform_reference::hex::encode(&bad)))
        .unwrap_err();
    assert!(e.to_string().contains("unknown tag 7"), "{e}");
    let ok: BufferSpec = serde_json::from_str(&spec("")).unwrap();
    assert!(ok.patches.is_empty());
}

fn tiled(dim: u64) -> Encode {
    Encode::Tiled {
        common: EncodeCommon {
            data_type: 0,
            rank: 1,
            global_dim: vec![dim],
            global_strides: vec![],
            element_strides: vec![1],
            interleave: 0,
            swizzle: 0,
            l2_promotion: 0,
            oob_fill: 0,
        },
        box_dim: vec![16],
    }
}

/// Requests sharing parameters carry them once; each keeps its own addresses, in order.
#[test]
fn tensor_map_requests_share_their_encodes() {
    let at = |offset| Address::Buffer { index: 1, offset };
    let reqs = vec![
        (at(0), tiled(64), None),
        (at(4096), tiled(64), Some(Address::Raw(3))),
        (Address::Raw(u64::MAX), tiled(32), Some(at(8))),
        (at(8192), tiled(64), None),
    ];
    let mut job = Job {
        id: 1,
        buffers: vec![],
        tensor_maps: reqs
            .into_iter()
            .map(|(global, encode, store)| TensorMapRequest {
                global,
                encode,
                store,
            })
            .collect(),
        launch: None,
        read_back: vec![],
    };
    let json = serde_json::to_string(&job).unwrap();
    assert_eq!(json.matches("\"tiled\"").count(), 2, "{json}");
    assert_eq!(serde_json::from_str::<Job>(&json).unwrap(), job);
    let wire = super::super::frame::encode("", &job);
    let f = super::super::frame::read(&mut &wire[..]).unwrap().unwrap();
    assert_eq!(
        super::super::frame::decode::<Job>(&f.line, f.blobs).unwrap(),
        job
    );

    // An index past the encodes, a request without a global address: errors that say so.
    job.tensor_maps.truncate(1);
    let mut uses = vec![5u8, 0, 0, 0];
    crate::device::packed::address_codec::put(&mut uses, Some(Address::Raw(0)));
    crate::device::packed::address_codec::put(&mut uses, None);
    let bad = |uses: &[u8]| {
        let json = serde_json::to_string(&job).unwrap();
        let at = json.find("\"uses\":\"").unwrap() + 8;
        let end = at + json[at..].find('"').unwrap();
        let json = format!(
            "{}{}{}",
            &json[..at],
            ptxconform_reference::hex::encode(uses),
            &json[end..]
        );
        serde_json::from_str::<Job>(&json).unwrap_err().to_string()
    };
    assert!(bad(&uses).contains("no encode 5"));
    uses[0] = 0;
    uses[4] = 2;
    assert!(bad(&uses).contains("without a global address"));
    assert!(bad(&uses[..10]).contains("not a whole number"));
}

/// Encoded maps travel in one payload, failures in order among them; a payload that does
/// not add up is an error that says so.
#[test]
fn encoded_tensor_maps_pack_into_one_payload() {
    let mut r = JobResult::bare(3, Outcome::Ok);
    let failed = EncodeOutcome::Err(EncodeError::Driver {
        code: 1,
        name: "CUDA_ERROR_INVALID_VALUE".into(),
    });
    r.tensor_maps = vec![
        EncodeOutcome::Ok(vec![1; 128]),
        failed.clone(),
        EncodeOutcome::Ok(vec![]),
        EncodeOutcome::Ok(vec![2; 128]),
        failed,
    ];
    let wire = FromWorker::Done {
        result: Box::new(r.clone()),
    }
    .to_frame();
    assert!(wire.starts_with(b"PTXC1-BLOBS 276\n"), "one payload");
    let f = super::super::frame::read(&mut &wire[..]).unwrap().unwrap();
    let Some(Ok(FromWorker::Done { result })) = FromWorker::parse_frame(f) else {
        panic!("not a result")
    };
    assert_eq!(*result, r);

    let bad = |maps: &str, errors: &str| {
        let json =
            format!(r#"{{"id":1,"outcome":"ok","tensor_maps":{{"maps":"{maps}"{errors}}}}}"#);
        serde_json::from_str::<JobResult>(&json)
            .unwrap_err()
            .to_string()
    };
    assert!(bad("0100", "").contains("a cut length"));
    assert!(bad("0200000007", "").contains("a cut map"));
    assert!(bad("ffffffff", "").contains("an error missing"));
    let err = r#","errors":[{"unavailable":{"symbol":"x"}}]"#;
    assert!(bad("", err).contains("more errors"));
}

#[test]
fn messages_round_trip_through_lines() {
    let job = Job {
        id: 7,
        buffers: vec![BufferSpec {
            size: 64,
            align: 128,
            fill: 0xee,
            init: vec![1, 2, 3],
            patches: vec![
                Patch {
                    offset: 8,
                    address: Address::Buffer {
                        index: 0,
                        offset: 1 << 40,
                    },
                },
                Patch {
                    offset: 16,
                    address: Address::Raw(u64::MAX),
                },
            ],
            pieces: vec![Piece { at: 40, len: 3 }],
        }],
        tensor_maps: vec![TensorMapRequest {
            global: Address::Buffer {
                index: 0,
                offset: 0,
            },
            encode: tiled(64),
            store: None,
        }],
        launch: Some(KernelLaunch {
            ptx: ".version 9.0\n".into(),
            cubin: vec![0x7f, b'E'],
            kernel: "k".into(),
            module: 0,
            dims: LaunchDims {
                grid: [2, 1, 1],
                block: [32, 1, 1],
                cluster: Some([2, 1, 1]),
                dynamic_smem: 1024,
            },
            params: vec![
                KernelParam::Pointer(Address::Buffer {
                    index: 0,
                    offset: 16,
                }),
                KernelParam::TensorMap(0),
                KernelParam::TensorMapArray {
                    first: 0,
                    count: 1,
                    slots: 4,
                },
            ],
            jit_level: None,
        }),
        read_back: vec![0],
    };
    let run = ToWorker::Run {
        jobs: vec![job],
        modules: vec![ModuleBytes {
            key: 9,
            cubin: vec![0x7f, b'E', b'L', b'F'],
        }],
    };
    let line = serde_json::to_string(&run).unwrap();
    let ToWorker::Run { jobs, modules } = &run else {
        unreachable!()
    };
    let borrowed = RunRef::Run {
        jobs: jobs.iter().collect(),
        modules,
    };
    assert_eq!(serde_json::to_string(&borrowed).unwrap(), line);
    assert!(!line.contains('\n'));
    assert!(line.contains("\"cubin\":\"7f454c46\""), "{line}");
    assert_eq!(serde_json::from_str::<ToWorker>(&line).unwrap(), run);

    let mut r = JobResult::bare(
        7,
        Outcome::Trap {
            kind: TrapKind::MisalignedAddress,
            code: 716,
        },
    );
    r.read_back.push(ReadBack::whole(0, vec![9; 4]));
    let msg = FromWorker::Done {
        result: Box::new(r),
    };
    // Outside a frame the payload is hex; in a frame it travels raw beside the line.
    let line = format!("{LINE_PREFIX}{}", serde_json::to_string(&msg).unwrap());
    assert!(
        line.contains("\"MisalignedAddress\"") && line.contains("\"09090909\""),
        "{line}"
    );
    assert_eq!(FromWorker::parse_line(&line), Some(Ok(msg.clone())));
    let wire = msg.to_frame();
    assert!(wire.starts_with(b"PTXC1-BLOBS 4\n\x09\x09\x09\x09PTXC1 {"));
    let f = super::super::frame::read(&mut &wire[..]).unwrap().unwrap();
    assert_eq!(FromWorker::parse_frame(f), Some(Ok(msg.clone())));
    assert_eq!(FromWorker::parse_line("running 1 test"), None);
    assert_eq!(
        FromWorker::parse_line(&format!("test x ... {line}")),
        Some(Ok(msg.clone()))
    );
    assert!(matches!(
        FromWorker::parse_line("PTXC1 {oops"),
        Some(Err(_))
    ));
}

#[test]
fn buffer_spec_defaults() {
    let b: BufferSpec = serde_json::from_str(r#"{"size":8}"#).unwrap();
    assert_eq!(
        b,
        BufferSpec {
            size: 8,
            align: 256,
            fill: 0,
            init: vec![],
            patches: vec![],
            pieces: vec![],
        }
    );
}

/// A buffer given by pieces: its image holds each piece at its place over the fill, and the
/// changes a worker reads back rebuild exactly what the device held.
#[test]
fn pieces_place_and_changes_rebuild_the_buffer() {
    let spec = BufferSpec {
        size: 300,
        align: 256,
        fill: 0xcd,
        init: vec![1, 2, 3, 4, 5],
        patches: vec![],
        pieces: vec![Piece { at: 10, len: 2 }, Piece { at: 290, len: 3 }],
    };
    let img = spec.image().unwrap();
    assert_eq!(img.len(), 300);
    assert_eq!(
        (&img[10..12], &img[290..293]),
        (&[1, 2][..], &[3, 4, 5][..])
    );
    assert_eq!(img.iter().filter(|&&b| b == 0xcd).count(), 295);
    let mut now = img.clone();
    now[70] = 9; // block 1
    now[130] = 9; // block 2: merged with block 1
    now[299] = 9; // the last, short block
    let (data, pieces) = changes(&img, &now);
    assert_eq!(
        pieces,
        vec![Piece { at: 64, len: 128 }, Piece { at: 256, len: 44 }]
    );
    let rb = ReadBack {
        index: 0,
        data,
        pieces,
    };
    assert_eq!(rb.whole_of(&spec).unwrap()[..], now[..]);
    // Nothing changed: nothing crosses, and the reader still gets the whole buffer.
    let (data, pieces) = changes(&img, &img);
    assert!(data.is_empty() && pieces.is_empty());
    let rb = ReadBack {
        index: 0,
        data,
        pieces,
    };
    assert_eq!(rb.whole_of(&spec).unwrap()[..], img[..]);
}

/// Pieces that do not fit their bytes or their buffer are errors, not panics.
#[test]
fn pieces_out_of_place_are_errors() {
    let spec = |init: Vec<u8>, pieces: Vec<Piece>| BufferSpec {
        size: 16,
        align: 256,
        fill: 0,
        init,
        patches: vec![],
        pieces,
    };
    let cases = [
        spec(vec![1; 4], vec![Piece { at: 14, len: 4 }]),
        spec(
            vec![1; 4],
            vec![Piece {
                at: u64::MAX,
                len: 4,
            }],
        ),
        spec(vec![1; 4], vec![Piece { at: 0, len: 5 }]),
        spec(vec![1; 4], vec![Piece { at: 0, len: 3 }]),
        spec(vec![1; 17], vec![]),
    ];
    for s in cases {
        assert!(s.image().is_err(), "{:?}", s.pieces);
    }
}
