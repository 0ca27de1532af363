//! Framing of protocol messages: JSON for the structure, raw bytes for the payloads.
//!
//! A batched launch moves tens of megabytes each way; as hex inside JSON that costs more than the
//! launch. A message whose byte fields ([`bytes`]) are serialised inside [`encode`] leaves each
//! payload out of the JSON (which holds its index) and sends it raw before the JSON line:
//!
//! ```text
//! PTXC1-BLOBS <len0> <len1> …\n<len0 raw bytes><len1 raw bytes>…<prefix>{json}\n
//! ```
//!
//! A message without payloads is just `<prefix>{json}\n`. Outside a frame (JSON written or read
//! directly, e.g. in a report) the same fields are lowercase hex strings.
//!
//! Where the two processes share an arena ([`super::arena`]) the payloads lie there instead, and
//! the header line says where (byte offset and length in the writer's half):
//!
//! ```text
//! PTXC1-SHARED <offset0>+<len0> <offset1>+<len1> …\n<prefix>{json}\n
//! ```

use super::arena::{Inbox, Outbox};
use serde::{de::DeserializeOwned, Serialize};
use std::cell::RefCell;
use std::io::{self, BufRead};

/// Starts the header line of a frame's payloads.
const BLOBS_PREFIX: &str = "PTXC1-BLOBS ";
/// Starts the header line of payloads that lie in the shared arena.
const SHARED_PREFIX: &str = "PTXC1-SHARED ";

thread_local! {
    /// Payloads of the frame being encoded on this thread.
    static SINK: RefCell<Option<Vec<Vec<u8>>>> = const { RefCell::new(None) };
    /// Payloads of the frame being decoded on this thread (taken as they are used).
    static SOURCE: RefCell<Option<Vec<Option<Vec<u8>>>>> = const { RefCell::new(None) };
}

/// `prefix`, the JSON of `msg`, a newline; payloads first, raw (see the module docs).
pub fn encode<T: Serialize>(prefix: &str, msg: &T) -> Vec<u8> {
    encode_via(prefix, msg, None)
}

/// [`encode`], with the payloads placed in `shared` when they all fit there.
pub fn encode_via<T: Serialize>(prefix: &str, msg: &T, shared: Option<&mut Outbox>) -> Vec<u8> {
    SINK.with(|s| *s.borrow_mut() = Some(Vec::new()));
    // Serialising plain data types cannot fail (no maps with non-string keys).
    let json = serde_json::to_string(msg).unwrap_or_default();
    let blobs = SINK.with(|s| s.borrow_mut().take()).unwrap_or_default();
    let placed = match shared {
        Some(o) if !blobs.is_empty() => o.put(&blobs),
        _ => None,
    };
    let total: usize = blobs.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(if placed.is_some() { 0 } else { total } + json.len() + 64);
    if let Some(places) = placed {
        let at: Vec<String> = places.iter().map(|(o, n)| format!("{o}+{n}")).collect();
        out.extend_from_slice(SHARED_PREFIX.as_bytes());
        out.extend_from_slice(at.join(" ").as_bytes());
        out.push(b'\n');
    } else if !blobs.is_empty() {
        let lens: Vec<String> = blobs.iter().map(|b| b.len().to_string()).collect();
        out.extend_from_slice(BLOBS_PREFIX.as_bytes());
        out.extend_from_slice(lens.join(" ").as_bytes());
        out.push(b'\n');
        for b in &blobs {
            out.extend_from_slice(b);
        }
    }
    out.extend_from_slice(prefix.as_bytes());
    out.extend_from_slice(json.as_bytes());
    out.push(b'\n');
    out
}

/// One line of text with the payloads announced before it. `Ok(None)` at end of input.
pub struct Frame {
    pub line: String,
    pub blobs: Vec<Vec<u8>>,
}

fn read_line(r: &mut impl BufRead) -> io::Result<Option<String>> {
    let mut buf = Vec::new();
    if r.read_until(b'\n', &mut buf)? == 0 {
        return Ok(None);
    }
    while buf.last().is_some_and(|c| *c == b'\n' || *c == b'\r') {
        buf.pop();
    }
    Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
}

/// Read the next frame (a line, with its payloads if a header announces them). Text before a
/// header on its line is ignored, as for protocol lines.
pub fn read(r: &mut impl BufRead) -> io::Result<Option<Frame>> {
    read_via(r, None)
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// [`read`], taking payloads a header places in the shared arena from `shared`.
pub fn read_via(r: &mut impl BufRead, shared: Option<&Inbox>) -> io::Result<Option<Frame>> {
    let Some(line) = read_line(r)? else {
        return Ok(None);
    };
    let blobs = if let Some(at) = line.find(SHARED_PREFIX) {
        let inbox = shared
            .ok_or_else(|| invalid("payloads in a shared arena this reader has none of".into()))?;
        line[at + SHARED_PREFIX.len()..]
            .split_whitespace()
            .map(|place| {
                place
                    .split_once('+')
                    .and_then(|(o, n)| Some((o.parse().ok()?, n.parse().ok()?)))
                    .and_then(|(o, n)| inbox.get(o, n))
                    .ok_or_else(|| invalid(format!("bad shared payload {place:?}")))
            })
            .collect::<io::Result<Vec<_>>>()?
    } else if let Some(at) = line.find(BLOBS_PREFIX) {
        let mut blobs = Vec::new();
        for len in line[at + BLOBS_PREFIX.len()..].split_whitespace() {
            let n: usize = len
                .parse()
                .map_err(|_| invalid(format!("bad payload length {len:?}")))?;
            let mut b = vec![0u8; n];
            r.read_exact(&mut b)?;
            blobs.push(b);
        }
        blobs
    } else {
        return Ok(Some(Frame {
            line,
            blobs: vec![],
        }));
    };
    match read_line(r)? {
        Some(line) => Ok(Some(Frame { line, blobs })),
        None => Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "payloads without their message",
        )),
    }
}

/// Parse `json` (the JSON of a frame's line) with the frame's payloads.
pub fn decode<T: DeserializeOwned>(json: &str, blobs: Vec<Vec<u8>>) -> serde_json::Result<T> {
    SOURCE.with(|s| *s.borrow_mut() = Some(blobs.into_iter().map(Some).collect()));
    let r = serde_json::from_str(json);
    SOURCE.with(|s| *s.borrow_mut() = None);
    r
}

/// Serde adapter for byte payloads: raw inside a frame, hex outside.
pub mod bytes {
    use super::{SINK, SOURCE};
    use ptxconform_reference::hex;
    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
        let index = SINK.with(|k| {
            k.borrow_mut().as_mut().map(|v| {
                v.push(b.to_vec());
                v.len() as u64 - 1
            })
        });
        match index {
            Some(i) => s.serialize_u64(i),
            None => s.serialize_str(&hex::encode(b)),
        }
    }

    struct V;

    impl Visitor<'_> for V {
        type Value = Vec<u8>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a hex string or a payload index")
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<Vec<u8>, E> {
            hex::decode(s).map_err(E::custom)
        }
        fn visit_u64<E: de::Error>(self, i: u64) -> Result<Vec<u8>, E> {
            SOURCE
                .with(|k| {
                    k.borrow_mut()
                        .as_mut()
                        .and_then(|v| v.get_mut(i as usize))
                        .and_then(Option::take)
                })
                .ok_or_else(|| E::custom(format!("no payload {i} in this frame")))
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct M {
        #[serde(with = "bytes")]
        a: Vec<u8>,
        #[serde(with = "bytes")]
        b: Vec<u8>,
        n: u32,
    }

    #[test]
    fn payloads_travel_raw_inside_a_frame_and_as_hex_outside() {
        let m = M {
            a: vec![0, 10, 13, 255],
            b: b"\n\n{}".to_vec(),
            n: 7,
        };
        let wire = encode("P ", &m);
        assert!(wire.starts_with(b"PTXC1-BLOBS 4 4\n\x00\x0a\x0d\xff\n\n{}P {"));
        let mut r = io::BufReader::new(&wire[..]);
        let f = read(&mut r).unwrap().unwrap();
        assert_eq!(f.line, r#"P {"a":0,"b":1,"n":7}"#);
        let back: M = decode(&f.line[2..], f.blobs).unwrap();
        assert_eq!(back, m);
        assert!(read(&mut r).unwrap().is_none());

        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(json, r#"{"a":"000a0dff","b":"0a0a7b7d","n":7}"#);
        assert_eq!(serde_json::from_str::<M>(&json).unwrap(), m);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn payloads_lie_in_the_arena_when_they_fit() {
        use crate::device::arena::{Arena, Way};
        let a = Arena::create().unwrap();
        let (mut out, inbox) = (
            a.outbox(Way::ToWorker).unwrap(),
            a.inbox(Way::ToWorker).unwrap(),
        );
        let m = M {
            a: vec![7; 1000],
            b: vec![],
            n: 3,
        };
        let wire = encode_via("P ", &m, Some(&mut out));
        assert!(
            wire.starts_with(b"PTXC1-SHARED 0+1000 1024+0\nP {"),
            "{wire:?}"
        );
        assert!(wire.len() < 100, "the payload is not in the frame");
        let f = read_via(&mut &wire[..], Some(&inbox)).unwrap().unwrap();
        assert_eq!(decode::<M>(&f.line[2..], f.blobs).unwrap(), m);
        // A reader without the arena, or a place outside it, is an error, not a panic.
        assert!(read(&mut &wire[..]).is_err());
        let bad = b"PTXC1-SHARED 1073741800+100\nP {}\n";
        assert!(read_via(&mut &bad[..], Some(&inbox)).is_err());
        let bad = b"PTXC1-SHARED 5\nP {}\n";
        assert!(read_via(&mut &bad[..], Some(&inbox)).is_err());
    }

    #[test]
    fn truncated_or_inconsistent_frames_are_errors() {
        let wire = encode(
            "",
            &M {
                a: vec![1; 8],
                b: vec![],
                n: 0,
            },
        );
        let mut r = io::BufReader::new(&wire[..20]);
        assert!(read(&mut r).is_err());
        let f = read(&mut io::BufReader::new(&wire[..])).unwrap().unwrap();
        assert!(
            decode::<M>(&f.line, vec![]).is_err(),
            "payload index without payload"
        );
        let mut bad = io::BufReader::new(&b"PTXC1-BLOBS x\n{}\n"[..]);
        assert!(read(&mut bad).is_err());
    }
}
