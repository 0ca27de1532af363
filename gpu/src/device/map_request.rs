//! The driver's encode request of a modelled tensor map: what the worker passes to
//! `cuTensorMapEncode*` for [`TensorMapParams`].

use super::{Address, Encode, EncodeCommon, TensorMapRequest};
use ptxconform_reference::sem::tensor::tensormap::{EncodeKind, TensorMapParams};

/// The encode request of one map (global address = offset into buffer 0).
pub fn request(p: &TensorMapParams) -> TensorMapRequest {
    request_at(
        p,
        Address::Buffer {
            index: 0,
            offset: p.driver_args().global_address,
        },
    )
}

/// The encode request of one map whose tensor starts at `global`.
pub fn request_at(p: &TensorMapParams, global: Address) -> TensorMapRequest {
    let a = p.driver_args();
    let common = EncodeCommon {
        data_type: a.tensor_data_type,
        rank: a.tensor_rank,
        global_dim: a.global_dim,
        global_strides: a.global_strides,
        element_strides: a.element_strides,
        interleave: a.interleave,
        swizzle: a.swizzle,
        l2_promotion: a.l2_promotion,
        oob_fill: a.oob_fill,
    };
    let encode = match p.encode {
        EncodeKind::Tiled => Encode::Tiled {
            common,
            box_dim: a.box_dim,
        },
        EncodeKind::Im2col => Encode::Im2col {
            common,
            lower_corner: a.pixel_box_lower_corner,
            upper_corner: a.pixel_box_upper_corner,
            channels_per_pixel: a.channels_per_pixel,
            pixels_per_column: a.pixels_per_column,
        },
        EncodeKind::Im2colWide => Encode::Im2colWide {
            common,
            lower_corner_width: a.pixel_box_lower_corner_width,
            upper_corner_width: a.pixel_box_upper_corner_width,
            channels_per_pixel: a.channels_per_pixel,
            pixels_per_column: a.pixels_per_column,
            mode: a.mode,
        },
    };
    TensorMapRequest {
        global,
        encode,
        store: None,
    }
}
