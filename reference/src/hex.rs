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

/// Bytes of hex text (either case; ASCII whitespace, e.g. a folded YAML line, is skipped). One
/// pass without copies: large regions are written in hex (megabytes of text).
pub fn decode(s: &str) -> Result<Vec<u8>, String> {
    let nib = |at: usize, c: u8| match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        b'A'..=b'F' => Ok(c - b'A' + 10),
        _ => Err(format!("bad hex at {at}: {:?}", c as char)),
    };
    let mut out = Vec::with_capacity(s.len() / 2);
    let mut high = None;
    for (at, c) in s.bytes().enumerate() {
        if c.is_ascii_whitespace() {
            continue;
        }
        let n = nib(at, c)?;
        match high.take() {
            None => high = Some(n),
            Some(h) => out.push(h << 4 | n),
        }
    }
    match high {
        Some(_) => Err("odd number of hex digits".into()),
        None => Ok(out),
    }
}

/// Serde adapter: one byte string, written as hex.
pub mod bytes {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::encode(b))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        super::decode(&text).map_err(serde::de::Error::custom)
    }
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

/// Expected bytes with don't-cares, as a case's `expect: { bytes: .. }` writes them: two hex
/// digits per byte, `??` for a byte that may hold anything, and an optional `..` at the end for
/// "the rest of the region may hold anything" (without it the pattern covers the whole region).
/// Whitespace between bytes is skipped, so long patterns can be grouped or folded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// One entry per byte from the region's start; `None` is a don't-care.
    pub bytes: Vec<Option<u8>>,
    /// Ends in `..`: bytes past the pattern are not compared.
    pub open: bool,
}

impl std::str::FromStr for Pattern {
    type Err = String;
    fn from_str(s: &str) -> Result<Pattern, String> {
        let text: Vec<(usize, u8)> = s
            .bytes()
            .enumerate()
            .filter(|(_, c)| !c.is_ascii_whitespace())
            .collect();
        let (body, open) = match text.len().checked_sub(2).map(|n| (n, &text[n..])) {
            Some((n, [(_, b'.'), (_, b'.')])) => (&text[..n], true),
            _ => (&text[..], false),
        };
        let byte = |p: &[(usize, u8)]| -> Result<Option<u8>, String> {
            let [(at, hi), (_, lo)] = p else {
                return Err("odd number of hex digits".into());
            };
            if (*hi, *lo) == (b'?', b'?') {
                return Ok(None);
            }
            let pair = [*hi, *lo];
            match std::str::from_utf8(&pair)
                .ok()
                .map(|t| u8::from_str_radix(t, 16))
            {
                Some(Ok(v)) if pair.iter().all(u8::is_ascii_hexdigit) => Ok(Some(v)),
                _ => Err(format!(
                    "bad byte at {at}: {:?} (two hex digits, `??`, or a final `..`)",
                    String::from_utf8_lossy(&pair)
                )),
            }
        };
        let bytes = body.chunks(2).map(byte).collect::<Result<_, _>>()?;
        Ok(Pattern { bytes, open })
    }
}

impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for b in &self.bytes {
            match b {
                Some(v) => write!(f, "{v:02x}")?,
                None => f.write_str("??")?,
            }
        }
        if self.open {
            f.write_str("..")?;
        }
        Ok(())
    }
}

impl serde::Serialize for Pattern {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Pattern {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// The JSON-Schema side of the hex forms (the serde adapters above change the type's shape).
pub mod schema {
    use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
    use std::borrow::Cow;

    /// Bytes as hex text (whitespace allowed between digits).
    pub struct Hex;

    impl JsonSchema for Hex {
        fn schema_name() -> Cow<'static, str> {
            "Hex".into()
        }
        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "type": "string",
                "pattern": r"^\s*([0-9a-fA-F]\s*[0-9a-fA-F]\s*)*$",
                "description": "Bytes as hex, two digits a byte, e.g. `0102aaff` (whitespace is skipped)."
            })
        }
    }

    impl JsonSchema for super::Pattern {
        fn schema_name() -> Cow<'static, str> {
            "BytePattern".into()
        }
        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "type": "string",
                "pattern": r"^\s*(([0-9a-fA-F]{2}|\?\?)\s*)*(\.\.)?\s*$",
                "description": "Expected bytes from the region's start: two hex digits a byte, `??` for a byte that may hold anything, a final `..` when the rest of the region may hold anything (without it the pattern covers the whole region), e.g. `0102??04..`."
            })
        }
    }
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

    #[test]
    fn patterns_parse_print_and_reject() {
        let p: Pattern = "01 ?? ff ..".parse().unwrap();
        assert_eq!(p.bytes, vec![Some(1), None, Some(0xff)]);
        assert!(p.open);
        assert_eq!(p.to_string(), "01??ff..");
        let closed: Pattern = "0a0B".parse().unwrap();
        assert_eq!(
            (closed.bytes, closed.open),
            (vec![Some(10), Some(11)], false)
        );
        assert_eq!("..".parse::<Pattern>().unwrap().bytes, vec![]);
        assert!("012".parse::<Pattern>().unwrap_err().contains("odd"));
        assert!("0g"
            .parse::<Pattern>()
            .unwrap_err()
            .contains("bad byte at 0"));
        assert!("..01".parse::<Pattern>().is_err(), "`..` only at the end");
        assert!("0?".parse::<Pattern>().is_err());
    }
}
