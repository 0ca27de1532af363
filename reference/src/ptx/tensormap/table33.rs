//! The immediate `new_val` encodings of the `.field3` fields of `tensormap.replace` (spec/02,
//! Table 33 "Tensormap new_val validity"). Each column is an enum whose discriminant is the PTX
//! encoding, so a value the table marks `x` cannot be represented. These are the PTX encodings,
//! not the driver's `CUtensorMap*` enum values (the table's note says they differ).

/// One column of Table 33: a fieldless enum with the encodings `0..ALL.len()`.
macro_rules! table33_column {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum $name {
            $($(#[$vdoc])* $variant),+
        }

        impl $name {
            /// Every value, in encoding order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The immediate `new_val` that selects this value.
            pub fn code(self) -> u8 {
                self as u8
            }
            /// The value encoded by `code`, if the table defines one.
            pub fn from_code(code: i64) -> Option<$name> {
                usize::try_from(code).ok().and_then(|i| Self::ALL.get(i)).copied()
            }
        }
    };
}

table33_column!(
    /// `.elemtype`: the tensor's element type.
    ElemType {
        U8,
        U16,
        U32,
        S32,
        U64,
        S64,
        F16,
        F32,
        F32Ftz,
        F64,
        Bf16,
        Tf32,
        Tf32Ftz,
        /// 13-15: the sub-byte packed types (PTX 8.7, Blackwell targets only).
        B4x16,
        B4x16P64,
        /// Written `.b6x16_p32` or `.b6p2x16` in the table: one encoding.
        B6x16P32,
    }
);

impl ElemType {
    /// Encodings 13-15 (`.b4x16`, `.b4x16_p64`, `.b6x16_p32`) have their own target/PTX notes.
    pub fn is_sub_byte(self) -> bool {
        self >= ElemType::B4x16
    }
}

table33_column!(
    /// `.interleave_layout`.
    InterleaveLayout { None, B16, B32 }
);

table33_column!(
    /// `.swizzle_mode`.
    SwizzleMode {
        None,
        B32,
        B64,
        B128,
        /// Value 4 (96B swizzling): PTX 8.8, sm_103a only.
        B96,
    }
);

table33_column!(
    /// `.swizzle_atomicity`: 16B, 32B, 32B + 8B flip, 64B.
    SwizzleAtomicity { B16, B32, B32Flip8, B64 }
);

table33_column!(
    /// `.fill_mode`: zero fill or OOB-NaN fill.
    FillMode { Zero, OobNan }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_have_the_table_lengths_and_codes() {
        // Table 33: 16 element types, 3 interleaves, 5 swizzle modes, 4 atomicities, 2 fills.
        assert_eq!(
            [
                ElemType::ALL.len(),
                InterleaveLayout::ALL.len(),
                SwizzleMode::ALL.len(),
                SwizzleAtomicity::ALL.len(),
                FillMode::ALL.len()
            ],
            [16, 3, 5, 4, 2]
        );
        assert_eq!(ElemType::Bf16.code(), 10);
        assert_eq!(SwizzleMode::B96.code(), 4);
        assert_eq!(
            SwizzleAtomicity::from_code(2),
            Some(SwizzleAtomicity::B32Flip8)
        );
        assert_eq!(FillMode::from_code(2), None);
        assert_eq!(ElemType::from_code(-1), None);
        assert!(ElemType::B4x16.is_sub_byte() && !ElemType::Tf32Ftz.is_sub_byte());
    }
}
