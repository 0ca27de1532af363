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

/// A 64-bit identity of `v`'s JSON text: equal texts give equal values in every run of one
/// build, and values that differ give different ones but for 64-bit collisions. The text is
/// written into a buffer its thread keeps and hashed whole with foldhash (fixed seed): a
/// generated case's 2.3 KB of JSON took 12 µs hashed byte by byte with FNV-1a as it was
/// written, two thirds of it the multiplications. Not one of this module's stable hashes
/// (foldhash may change between its releases): an identity within a run and its reports, e.g.
/// a fuzz program's.
pub fn json_identity<T: serde::Serialize + ?Sized>(v: &T) -> Result<u64, serde_json::Error> {
    use std::hash::BuildHasher;
    TEXT.with_borrow_mut(|text| {
        text.clear();
        let written = serde_json::to_writer(&mut *text, v);
        let id =
            foldhash::fast::FixedState::with_seed(JSON_IDENTITY_SEED).hash_one(text.as_slice());
        // A thread keeps a buffer as large as a fuzz program's text, not the largest it wrote.
        if text.capacity() > KEPT_TEXT_BYTES {
            *text = Vec::new();
        }
        written.map(|()| id)
    })
}

thread_local! {
    /// [`json_identity`]'s buffer on this thread.
    static TEXT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The most of its buffer [`json_identity`] keeps on a thread between calls.
const KEPT_TEXT_BYTES: usize = 1 << 16;

/// [`json_identity`]'s seed.
const JSON_IDENTITY_SEED: u64 = 0x7074_7863_6f6e_666f;

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

    /// The identity is that of the JSON text, whatever the buffer held before, and tells values
    /// apart.
    #[test]
    fn json_identity_is_of_the_text() {
        use std::hash::BuildHasher;
        let v = serde_json::json!({"a": [1, 2, 3], "b": "x"});
        let text = serde_json::to_vec(&v).unwrap();
        let of_text = foldhash::fast::FixedState::with_seed(JSON_IDENTITY_SEED).hash_one(&text[..]);
        assert_eq!(json_identity(&v).unwrap(), of_text);
        let w = serde_json::json!({"a": [1, 2, 4], "b": "x"});
        assert_ne!(json_identity(&v).unwrap(), json_identity(&w).unwrap());
        let long = serde_json::json!({"a": "y".repeat(10_000)});
        json_identity(&long).unwrap();
        assert_eq!(json_identity(&v).unwrap(), of_text, "after a longer text");
        let huge = serde_json::json!({"a": "y".repeat(2 * KEPT_TEXT_BYTES)});
        json_identity(&huge).unwrap();
        assert!(
            TEXT.with_borrow(|t| t.capacity()) <= KEPT_TEXT_BYTES,
            "not kept"
        );
        assert_eq!(
            json_identity(&v).unwrap(),
            of_text,
            "after a text past the kept size"
        );
    }
}
