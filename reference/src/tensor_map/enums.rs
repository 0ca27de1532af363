//! The driver's enumerations of `cuTensorMapEncode*` (cuda.h names and values): element type,
//! interleave, swizzle, L2 promotion, out-of-bounds fill, im2col-wide mode, encode function.

use serde::{Deserialize, Serialize};

/// `CUtensorMapDataType` (enum values = `cu_value`, cuda.h order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DataType {
    Uint8,
    Uint16,
    Uint32,
    Int32,
    Uint64,
    Int64,
    Float16,
    Float32,
    Float64,
    Bfloat16,
    Float32Ftz,
    Tfloat32,
    Tfloat32Ftz,
    /// `.b4x16`: 16 packed U4 in 8 bytes, no padding.
    #[serde(rename = "16u4_align8b")]
    U4Align8B,
    /// `.b4x16_p64`: 16 packed U4 (8 bytes) + 8 bytes of padding in shared memory.
    #[serde(rename = "16u4_align16b")]
    U4Align16B,
    /// `.b6x16_p32` (load) / `.b6p2x16` (store): 16 packed U6 (12 bytes) ↔ 16 bytes in shared memory.
    #[serde(rename = "16u6_align16b")]
    U6Align16B,
}

impl DataType {
    pub const ALL: [DataType; 16] = [
        DataType::Uint8,
        DataType::Uint16,
        DataType::Uint32,
        DataType::Int32,
        DataType::Uint64,
        DataType::Int64,
        DataType::Float16,
        DataType::Float32,
        DataType::Float64,
        DataType::Bfloat16,
        DataType::Float32Ftz,
        DataType::Tfloat32,
        DataType::Tfloat32Ftz,
        DataType::U4Align8B,
        DataType::U4Align16B,
        DataType::U6Align16B,
    ];
    /// The `CU_TENSOR_MAP_DATA_TYPE_*` value (cuda.h: sequential from UINT8 = 0).
    pub fn cu_value(self) -> u32 {
        Self::ALL.iter().position(|&t| t == self).unwrap_or(0) as u32
    }
    /// Bits one value occupies in global memory (spec/09 enum comments).
    pub fn bits(self) -> u64 {
        use DataType::*;
        match self {
            Uint8 => 8,
            Uint16 | Float16 | Bfloat16 => 16,
            Uint32 | Int32 | Float32 | Float32Ftz | Tfloat32 | Tfloat32Ftz => 32,
            Uint64 | Int64 | Float64 => 64,
            U4Align8B | U4Align16B => 4,
            U6Align16B => 6,
        }
    }
    pub fn is_packed(self) -> bool {
        matches!(
            self,
            DataType::U4Align8B | DataType::U4Align16B | DataType::U6Align16B
        )
    }
    /// The two types padded to 16 bytes in shared memory (`.b4x16_p64`, `.b6x16_p32`/`.b6p2x16`).
    pub fn is_packed16(self) -> bool {
        matches!(self, DataType::U4Align16B | DataType::U6Align16B)
    }
    /// spec/09: NAN_REQUEST_ZERO_FMA "only when tensorDataType represents a floating-point data type".
    pub fn is_float(self) -> bool {
        use DataType::*;
        matches!(
            self,
            Float16 | Float32 | Float64 | Bfloat16 | Float32Ftz | Tfloat32 | Tfloat32Ftz
        )
    }
    /// Bytes of `n` values in global memory, if whole.
    pub fn global_bytes(self, n: u64) -> Option<u64> {
        let bits = n.checked_mul(self.bits())?;
        (bits % 8 == 0).then_some(bits / 8)
    }
}

/// `CUtensorMapInterleave`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum Interleave {
    #[default]
    #[serde(rename = "none")]
    None,
    #[serde(rename = "16b")]
    B16,
    #[serde(rename = "32b")]
    B32,
}

impl Interleave {
    pub const ALL: [Interleave; 3] = [Interleave::None, Interleave::B16, Interleave::B32];
    /// Bytes of one interleave granule (the C slice of NC/8HWC8 / NC/16HWC16, §5.5.6).
    pub fn granule(self) -> Option<u64> {
        match self {
            Interleave::None => None,
            Interleave::B16 => Some(16),
            Interleave::B32 => Some(32),
        }
    }
    pub fn cu_value(self) -> u32 {
        self as u32
    }
}

/// `CUtensorMapSwizzle`. The PTX-only 96B mode (tensormap field value 4, sm_103a) has no
/// driver enumerator in spec/09 (cuda.h 13.x mentions `CU_TENSOR_MAP_SWIZZLE_96B` in prose but
/// does not define it), so it is not encodable here; [`crate::sem::tensor::swizzle::Pattern`]
/// models it.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum Swizzle {
    #[default]
    #[serde(rename = "none")]
    None,
    #[serde(rename = "32b")]
    B32,
    #[serde(rename = "64b")]
    B64,
    #[serde(rename = "128b")]
    B128,
    #[serde(rename = "128b_atom_32b")]
    B128Atom32B,
    #[serde(rename = "128b_atom_32b_flip_8b")]
    B128Atom32BFlip8B,
    #[serde(rename = "128b_atom_64b")]
    B128Atom64B,
}

impl Swizzle {
    pub const ALL: [Swizzle; 7] = [
        Swizzle::None,
        Swizzle::B32,
        Swizzle::B64,
        Swizzle::B128,
        Swizzle::B128Atom32B,
        Swizzle::B128Atom32BFlip8B,
        Swizzle::B128Atom64B,
    ];
    pub fn cu_value(self) -> u32 {
        self as u32
    }
    /// Span in bytes the inner box dimension must fit in (spec/09: 32, 64, 128 for 128B*).
    pub fn span(self) -> Option<u64> {
        match self {
            Swizzle::None => None,
            Swizzle::B32 => Some(32),
            Swizzle::B64 => Some(64),
            _ => Some(128),
        }
    }
    /// The 128B sub-modes with an atomicity other than 16B (PTX `.swizzle_atomicity` ≠ 0).
    pub fn has_atomicity(self) -> bool {
        matches!(
            self,
            Swizzle::B128Atom32B | Swizzle::B128Atom32BFlip8B | Swizzle::B128Atom64B
        )
    }
}

/// `CUtensorMapL2promotion`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum L2Promotion {
    #[default]
    #[serde(rename = "none")]
    None,
    #[serde(rename = "l2_64b", alias = "64b")]
    L2_64B,
    #[serde(rename = "l2_128b", alias = "128b")]
    L2_128B,
    #[serde(rename = "l2_256b", alias = "256b")]
    L2_256B,
}

impl L2Promotion {
    pub const ALL: [L2Promotion; 4] = [
        L2Promotion::None,
        L2Promotion::L2_64B,
        L2Promotion::L2_128B,
        L2Promotion::L2_256B,
    ];
    pub fn cu_value(self) -> u32 {
        self as u32
    }
}

/// `CUtensorMapFloatOOBfill`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OobFill {
    #[default]
    None,
    NanRequestZeroFma,
}

impl OobFill {
    pub fn cu_value(self) -> u32 {
        self as u32
    }
}

/// `CUtensorMapIm2ColWideMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WideMode {
    W,
    W128,
}

impl WideMode {
    pub fn cu_value(self) -> u32 {
        self as u32
    }
}

/// Which encode function builds the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EncodeKind {
    /// `cuTensorMapEncodeTiled`
    Tiled,
    /// `cuTensorMapEncodeIm2col`
    Im2col,
    /// `cuTensorMapEncodeIm2colWide`
    Im2colWide,
}

/// Every place that names a tensor-map setting (result details, reports, pictures, the console)
/// spells it as a case file does (`128b`, not the Rust name `B128`): `Display` is the serde name.
macro_rules! display_as_yaml {
    ($($t:ty),*) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                // A unit variant serializes to its name: a string, never an error.
                match serde_json::to_value(self) {
                    Ok(serde_json::Value::String(s)) => f.write_str(&s),
                    _ => write!(f, "{self:?}"),
                }
            }
        }
    )*};
}

display_as_yaml!(
    DataType,
    Interleave,
    Swizzle,
    L2Promotion,
    OobFill,
    WideMode,
    EncodeKind
);

#[cfg(test)]
mod display_tests {
    use super::*;

    /// The displayed name of every setting is the one a case file writes, and reads back.
    #[test]
    fn settings_display_as_case_files_write_them() {
        assert_eq!(Swizzle::B128.to_string(), "128b");
        assert_eq!(
            Swizzle::B128Atom32BFlip8B.to_string(),
            "128b_atom_32b_flip_8b"
        );
        assert_eq!(Interleave::B16.to_string(), "16b");
        assert_eq!(DataType::Float32.to_string(), "float32");
        for s in Swizzle::ALL {
            let back: Swizzle = serde_json::from_value(serde_json::json!(s.to_string())).unwrap();
            assert_eq!(back, s);
        }
        for t in DataType::ALL {
            let back: DataType = serde_json::from_value(serde_json::json!(t.to_string())).unwrap();
            assert_eq!(back, t);
        }
    }
}
