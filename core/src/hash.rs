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

/// FNV-1a, 64-bit, of `v`'s JSON, hashed as it is written (no text is kept): a cheap identity
/// of a value that serialises, e.g. a case.
pub fn fnv1a64_json<T: serde::Serialize + ?Sized>(v: &T) -> Result<u64, serde_json::Error> {
    struct Fnv(u64);
    impl std::io::Write for Fnv {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 = bytes
                .iter()
                .fold(self.0, |h, &b| (h ^ b as u64).wrapping_mul(FNV64_PRIME));
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut w = Fnv(FNV64_OFFSET);
    serde_json::to_writer(&mut w, v)?;
    Ok(w.0)
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

    /// The streamed hash is the hash of the JSON text, and tells values apart.
    #[test]
    fn json_hash_is_the_hash_of_the_text() {
        let v = serde_json::json!({"a": [1, 2, 3], "b": "x"});
        let text = serde_json::to_vec(&v).unwrap();
        assert_eq!(fnv1a64_json(&v).unwrap(), fnv1a64(&text));
        let w = serde_json::json!({"a": [1, 2, 4], "b": "x"});
        assert_ne!(fnv1a64_json(&v).unwrap(), fnv1a64_json(&w).unwrap());
    }
}
