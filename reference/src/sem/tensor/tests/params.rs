//! The parameter set's names (YAML / JSON) and its mapping to the driver's integer arguments.

use super::{i2c4, wide, with};
use crate::sem::tensor::tensormap::*;

#[test]
fn yaml_round_trip_and_names() {
    let yaml = "encode: tiled\ntensor_data_type: float32\nglobal_dim: [64, 32]\nglobal_strides: [256]\nbox_dim: [16, 8]\nswizzle: 128b_atom_32b\noob_fill: nan_request_zero_fma\nl2_promotion: l2_128b\n";
    let p: TensorMapParams = serde_saphyr::from_str(yaml).unwrap();
    assert_eq!(p.swizzle, Swizzle::B128Atom32B);
    assert_eq!(p.l2_promotion, L2Promotion::L2_128B);
    assert_eq!(p.rank(), 2);
    let back: TensorMapParams = serde_json::from_value(serde_json::to_value(&p).unwrap()).unwrap();
    assert_eq!(back, p);
    let e: Result<TensorMapParams, _> = serde_saphyr::from_str(
        "encode: tiled\ntensor_data_type: float32\nglobal_dim: [4]\nbogus: 1\n",
    );
    assert!(e.is_err());
    for (name, ty) in [
        ("\"16u4_align8b\"", DataType::U4Align8B),
        ("\"tfloat32_ftz\"", DataType::Tfloat32Ftz),
        ("\"bfloat16\"", DataType::Bfloat16),
    ] {
        assert_eq!(serde_json::from_str::<DataType>(name).unwrap(), ty);
    }
}

#[test]
fn driver_enum_values() {
    assert_eq!(DataType::U6Align16B.cu_value(), 15);
    assert_eq!(DataType::Tfloat32Ftz.cu_value(), 12);
    assert_eq!(Swizzle::B128Atom64B.cu_value(), 6);
    assert_eq!(Interleave::B32.cu_value(), 2);
    assert_eq!(L2Promotion::L2_256B.cu_value(), 3);
    assert_eq!(OobFill::NanRequestZeroFma.cu_value(), 1);
    assert_eq!(WideMode::W128.cu_value(), 1);
}

#[test]
fn driver_args_mapping() {
    let a = with(i2c4(), |p| {
        p.swizzle = Swizzle::B32;
        p.oob_fill = OobFill::NanRequestZeroFma;
    })
    .driver_args();
    assert_eq!(a.function, "cuTensorMapEncodeIm2col");
    assert_eq!(
        (a.tensor_data_type, a.tensor_rank, a.swizzle, a.oob_fill),
        (6, 4, 1, 1)
    );
    assert_eq!(a.global_strides, vec![16, 144, 2016]);
    assert_eq!(a.element_strides, vec![1, 1, 1, 1]);
    assert_eq!(
        (
            a.pixel_box_lower_corner.clone(),
            a.channels_per_pixel,
            a.pixels_per_column
        ),
        (vec![-1, -1], 8, 64)
    );
    let w = wide().driver_args();
    assert_eq!(
        (
            w.function.as_str(),
            w.mode,
            w.swizzle,
            w.pixel_box_lower_corner_width
        ),
        ("cuTensorMapEncodeIm2colWide", 0, 3, 0)
    );
}
