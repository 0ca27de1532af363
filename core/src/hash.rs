//! Content hashes that are stable across builds and platforms (unlike `DefaultHasher`): shape
//! keys, module keys, compile-cache keys, signature file names.

const FNV64_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV64_PRIME: u64 = 0x0000_0100_0000_01b3;
pub const FNV128_OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
const FNV128_PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

/// FNV-1a, 64-bit.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV64_OFFSET, |h, &b| {
        (h ^ b as u64).wrapping_mul(FNV64_PRIME)
    })
}

/// FNV-1a, 128-bit, continuing from `h` (start from [`FNV128_OFFSET`]).
pub fn fnv1a128(h: u128, bytes: &[u8]) -> u128 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ b as u128).wrapping_mul(FNV128_PRIME))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vectors() {
        // Published FNV-1a test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(
            fnv1a128(FNV128_OFFSET, b"a"),
            0xd228_cb69_6f1a_8caf_7891_2b70_4e4a_8964
        );
    }
}
