//! proptest strategies for the case schema: structurally arbitrary cases (not necessarily
//! valid ones) for round-trip tests and for fuzzers that start from the schema.

use super::model::*;
use crate::target::Target;
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use std::collections::BTreeMap;

pub fn ident() -> impl Strategy<Value = String> {
    "[a-z_][a-z0-9_]{0,8}"
}
/// Any text, including YAML-significant characters, to exercise the writer's quoting.
pub fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,24}",
        Just("true".to_string()),
        Just("~".to_string()),
        Just("0x10".to_string()),
        Just("- a: b".to_string()),
        "\\PC{0,12}",
    ]
}
/// Finite floats only: NaN never compares equal, so it cannot round-trip under `PartialEq`.
pub fn finite() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("finite", |x| x.is_finite())
}
pub fn init() -> impl Strategy<Value = Init> {
    prop_oneof![
        any::<u8>().prop_map(Init::Fill),
        any::<u64>().prop_map(Init::Pattern),
        vec(any::<u8>(), 0..8).prop_map(Init::Bytes),
        vec(any::<u8>(), 0..8).prop_map(Init::Hex),
        any::<u64>().prop_map(Init::Hash),
        (
            prop_oneof![Just("f32"), Just("bf16"), Just("u8")],
            vec(finite(), 0..4)
        )
            .prop_map(|(ty, data)| Init::Values(TypedValues {
                ty: ty.into(),
                data
            })),
    ]
}
pub fn region() -> impl Strategy<Value = Region> {
    (ident(), any::<u64>(), any::<u64>(), any::<u64>(), init()).prop_map(
        |(name, size, align, misalign, init)| Region {
            name,
            size,
            align,
            misalign,
            init,
        },
    )
}
pub fn json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(serde_json::Value::from),
        any::<bool>().prop_map(serde_json::Value::from),
        text().prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        vec(inner, 0..3).prop_map(serde_json::Value::Array)
    })
}
pub fn memory() -> impl Strategy<Value = Memory> {
    (
        vec(region(), 0..3),
        vec(region(), 0..3),
        vec(ident().prop_map(|name| MbarrierDecl { name }), 0..2),
        vec(
            (
                ident(),
                ident(),
                1..64u64,
                prop_oneof![Just(16u32), Just(32)],
            )
                .prop_map(|(name, global, d, b)| {
                    let map = crate::tensor_map::TensorMapParams::tiled(
                        crate::tensor_map::DataType::Uint8,
                        vec![d * 16],
                        vec![b],
                    );
                    TensorMapDecl { name, global, map }
                }),
            0..2,
        ),
        vec(
            (ident(), any::<u32>()).prop_map(|(name, columns)| TmemDecl { name, columns }),
            0..2,
        ),
    )
        .prop_map(|(global, shared, mbarriers, tensor_maps, tmem)| Memory {
            shared_allocation: None,
            global,
            shared,
            mbarriers,
            tensor_maps,
            tmem,
        })
}
pub fn step() -> impl Strategy<Value = Step> {
    let cta = prop_oneof![
        any::<u32>().prop_map(Ctas::One),
        Just(Ctas::Named(AllCtas::All)),
        vec(any::<u32>(), 0..3).prop_map(Ctas::List),
    ];
    let op = prop_oneof![
        text().prop_map(StepOp::Ptx),
        (ident(), any::<u32>()).prop_map(|(mbar, parity)| StepOp::WaitParity { mbar, parity }),
        (ident(), vec(any::<u8>(), 0..5)).prop_map(|(at, bytes)| StepOp::Store { at, bytes }),
    ];
    (cta, any::<u32>(), proptest::option::of(ident()), op).prop_map(
        |(cta, thread, concurrent, op)| Step {
            cta,
            thread,
            concurrent,
            op,
        },
    )
}
pub fn expect() -> impl Strategy<Value = Option<Expect>> {
    proptest::option::of(prop_oneof![
        Just(Expect::Pass),
        Just(Expect::Trap),
        Just(Expect::Timeout),
        Just(Expect::DriverRejects),
        text().prop_map(Expect::Undefined),
        text().prop_map(Expect::Illegal)
    ])
}
pub fn partial_bytes() -> impl Strategy<Value = PartialBytes> {
    (any::<u64>(), vec(any::<u8>(), 0..8))
        .prop_map(|(offset, bytes)| PartialBytes { offset, bytes })
}
pub fn observation() -> impl Strategy<Value = Observation> {
    let ending = prop_oneof![
        Just(Ending::Completed),
        vec(0usize..64, 0..3).prop_map(Ending::Timeout),
        any::<i32>().prop_map(Ending::trap),
        any::<u64>().prop_map(Ending::Watchdog),
        text().prop_map(Ending::Rejected),
    ];
    let parity = (any::<bool>(), any::<bool>()).prop_map(|(a, b)| Parity {
        parity0_done: a,
        parity1_done: b,
    });
    (
        (text(), text(), text(), ending),
        (
            btree_map(ident(), vec(any::<u8>(), 0..8), 0..2),
            btree_map(ident(), partial_bytes(), 0..2),
        ),
        btree_map(ident(), parity, 0..2),
        btree_map(ident(), vec(any::<u32>(), 0..4), 0..2),
        (
            vec(ident(), 0..2),
            vec(any::<u32>(), 0..2),
            proptest::option::of(prop_oneof![
                Just(crate::build::Codegen::Jit { level: 0 }),
                Just(crate::build::Codegen::Ptxas {
                    release: "13.0".into(),
                    level: 3
                }),
            ]),
        ),
    )
        .prop_map(
            |(
                (device, driver, date, outcome),
                (regions, partial),
                mbarriers,
                tmem,
                (canaries_broken, not_reached, build),
            )| Observation {
                device,
                driver,
                date,
                build,
                outcome,
                regions,
                partial,
                mbarriers,
                tmem,
                canaries_broken,
                not_reached,
            },
        )
}
pub fn param() -> impl Strategy<Value = Param> {
    prop_oneof![
        any::<i64>().prop_map(Param::Int),
        (any::<i64>(), prop_oneof![Just("b64"), Just("pred")]).prop_map(|(value, ty)| {
            Param::Typed {
                value,
                ty: ty.into(),
            }
        })
    ]
}
pub fn case() -> impl Strategy<Value = Case> {
    let head = (
        text(),
        text(),
        proptest::sample::select(Target::all_known()),
        proptest::option::of("[0-9]\\.[0-9]"),
    );
    let launch = (any::<[u32; 3]>(), any::<[u32; 3]>(), any::<u32>()).prop_map(
        |(grid, cluster, threads)| Launch {
            grid,
            cluster,
            threads,
        },
    );
    let params: BoxedStrategy<BTreeMap<String, Param>> = btree_map(ident(), param(), 0..3).boxed();
    (
        head,
        launch,
        memory(),
        params,
        vec(step(), 0..4),
        vec(ident(), 0..3),
        expect(),
        vec(observation(), 0..2),
    )
        .prop_map(
            |(
                (name, description, target, ptx_version),
                launch,
                memory,
                params,
                program,
                check,
                expect,
                observed,
            )| Case {
                name,
                description,
                target,
                ptx_version,
                launch,
                memory,
                params,
                program,
                check,
                expect,
                observed,
                parsed: Default::default(),
            },
        )
}
