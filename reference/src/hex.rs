//! The workspace's hex codec (recorded observations in case files, payloads outside protocol
//! frames, reports).

/// Lowercase hex of `b`.
pub fn encode(b: &[u8]) -> String {
    const D: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for &x in b {
        s.push(D[(x >> 4) as usize] as char);
        s.push(D[(x & 15) as usize] as char);
    }
    s
}

/// Bytes of hex text (either case; ASCII whitespace, e.g. a folded YAML line, is skipped).
pub fn decode(s: &str) -> Result<Vec<u8>, String> {
    let nib = |at: usize, c: u8| match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        b'A'..=b'F' => Ok(c - b'A' + 10),
        _ => Err(format!("bad hex at {at}: {:?}", c as char)),
    };
    let digits: Vec<(usize, u8)> = s
        .bytes()
        .enumerate()
        .filter(|(_, c)| !c.is_ascii_whitespace())
        .collect();
    if digits.len() % 2 == 1 {
        return Err("odd number of hex digits".into());
    }
    digits
        .chunks(2)
        .map(|p| Ok(nib(p[0].0, p[0].1)? << 4 | nib(p[1].0, p[1].1)?))
        .collect()
}

/// Serde adapter: a map of byte strings, written as hex.
pub mod bytes_map {
    use serde::{Deserializer, Serializer};
    use std::collections::BTreeMap;

    pub fn serialize<S: Serializer>(
        m: &BTreeMap<String, Vec<u8>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        super::map_to_hex(m, s, |v| v.clone())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, Vec<u8>>, D::Error> {
        super::map_from_hex(d, Ok)
    }
}

/// Serde adapter: a map of 32-bit word strings (Tensor Memory cells), written as the hex of their
/// little-endian bytes.
pub mod words_map {
    use serde::{Deserializer, Serializer};
    use std::collections::BTreeMap;

    pub fn serialize<S: Serializer>(
        m: &BTreeMap<String, Vec<u32>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        super::map_to_hex(m, s, |v| v.iter().flat_map(|w| w.to_le_bytes()).collect())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, Vec<u32>>, D::Error> {
        super::map_from_hex(d, |b| {
            if b.len() % 4 != 0 {
                return Err("not whole 32-bit words".into());
            }
            Ok(b.chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect())
        })
    }
}

/// A map serialized with each value's bytes (`bytes`) as hex.
fn map_to_hex<T, S: serde::Serializer>(
    m: &std::collections::BTreeMap<String, T>,
    s: S,
    bytes: impl Fn(&T) -> Vec<u8>,
) -> Result<S::Ok, S::Error> {
    use serde::Serialize;
    let hex: std::collections::BTreeMap<&str, String> = m
        .iter()
        .map(|(k, v)| (k.as_str(), encode(&bytes(v))))
        .collect();
    hex.serialize(s)
}

/// A map of hex strings deserialized, each value's bytes made a `T` by `value`; an error names
/// its key.
fn map_from_hex<'de, T, D: serde::Deserializer<'de>>(
    d: D,
    value: impl Fn(Vec<u8>) -> Result<T, String>,
) -> Result<std::collections::BTreeMap<String, T>, D::Error> {
    use serde::de::Error;
    use serde::Deserialize;
    std::collections::BTreeMap::<String, String>::deserialize(d)?
        .into_iter()
        .map(|(k, v)| {
            decode(&v)
                .and_then(&value)
                .map(|t| (k.clone(), t))
                .map_err(|e| D::Error::custom(format!("`{k}`: {e}")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_case_and_whitespace() {
        assert_eq!(encode(&[0x0f, 0xa0, 0]), "0fa000");
        assert_eq!(decode("0fA0 00\n").unwrap(), vec![0x0f, 0xa0, 0]);
        assert!(decode("abc").unwrap_err().contains("odd"));
        assert!(decode("zz").unwrap_err().contains("at 0"));
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(&encode(&all)).unwrap(), all);
    }
}
