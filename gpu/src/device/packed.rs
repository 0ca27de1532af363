//! Serde adapters that pack a job's and a result's bulk fields into one byte payload each
//! (carried beside the JSON, through the shared arena when there is one) instead of JSON arrays
//! of objects: a batched launch has one of each per instance.

/// Pieces packed as two little-endian u64 each (offset, length).
pub(super) mod pieces {
    use crate::device::protocol::Piece;
    use serde::{de::Error, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(ps: &[Piece], s: S) -> Result<S::Ok, S::Error> {
        let mut b = Vec::with_capacity(ps.len() * 16);
        for p in ps {
            b.extend_from_slice(&p.at.to_le_bytes());
            b.extend_from_slice(&p.len.to_le_bytes());
        }
        crate::device::frame::bytes::serialize(&b, s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Piece>, D::Error> {
        let b = crate::device::frame::bytes::deserialize(d)?;
        if b.len() % 16 != 0 {
            return Err(D::Error::custom(format!(
                "pieces: {} bytes is not a whole number of 16-byte pieces",
                b.len()
            )));
        }
        Ok(b.chunks_exact(16)
            .map(|c| Piece {
                at: super::address_codec::u64_at(c, 0),
                len: super::address_codec::u64_at(c, 8),
            })
            .collect())
    }
}

/// Packing of an optional [`Address`](crate::device::protocol::Address) into [`address_codec::LEN`] bytes: a tag (0: a buffer's
/// address, 1: a raw one, 2: none), then the buffer index and offset, or 0 and the raw value, or
/// zeros; numbers little-endian u64.
pub(super) mod address_codec {
    use crate::device::protocol::Address;

    pub const LEN: usize = 17;

    pub fn put(b: &mut Vec<u8>, a: Option<Address>) {
        let (tag, x, y) = match a {
            Some(Address::Buffer { index, offset }) => (0u8, index as u64, offset),
            Some(Address::Raw(v)) => (1, 0, v),
            None => (2, 0, 0),
        };
        b.push(tag);
        b.extend_from_slice(&x.to_le_bytes());
        b.extend_from_slice(&y.to_le_bytes());
    }

    pub fn u64_at(c: &[u8], at: usize) -> u64 {
        let mut w = [0u8; 8];
        w.copy_from_slice(&c[at..at + 8]);
        u64::from_le_bytes(w)
    }

    /// The address packed at the start of `c` (at least [`LEN`] bytes).
    pub fn get(c: &[u8]) -> Result<Option<Address>, String> {
        let (x, y) = (u64_at(c, 1), u64_at(c, 9));
        match c[0] {
            0 => Ok(Some(Address::Buffer {
                index: usize::try_from(x).map_err(|e| e.to_string())?,
                offset: y,
            })),
            1 => Ok(Some(Address::Raw(y))),
            2 => Ok(None),
            t => Err(format!("unknown tag {t}")),
        }
    }
}

/// Serde adapter for a buffer's patches: packed into one byte payload ([`super::frame::bytes`]),
/// [`packed_patches::LEN`] bytes each, because a batched launch carries thousands and as JSON
/// objects they made up most of a request's text.
pub(super) mod patches {
    use super::address_codec;
    use crate::device::protocol::Patch;
    use serde::{de::Error, Deserializer, Serializer};

    /// The patch's offset (little-endian u64), then its address ([`address_codec`]).
    pub const LEN: usize = 8 + address_codec::LEN;

    pub fn serialize<S: Serializer>(ps: &[Patch], s: S) -> Result<S::Ok, S::Error> {
        let mut b = Vec::with_capacity(ps.len() * LEN);
        for p in ps {
            b.extend_from_slice(&p.offset.to_le_bytes());
            address_codec::put(&mut b, Some(p.address));
        }
        crate::device::frame::bytes::serialize(&b, s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Patch>, D::Error> {
        let b = crate::device::frame::bytes::deserialize(d)?;
        if b.len() % LEN != 0 {
            return Err(D::Error::custom(format!(
                "patches: {} bytes is not a whole number of {LEN}-byte patches",
                b.len()
            )));
        }
        b.chunks_exact(LEN)
            .map(|c| match address_codec::get(&c[8..]) {
                Ok(Some(address)) => Ok(Patch {
                    offset: address_codec::u64_at(c, 0),
                    address,
                }),
                Ok(None) => Err(D::Error::custom("patches: a patch without an address")),
                Err(e) => Err(D::Error::custom(format!("patches: {e}"))),
            })
            .collect()
    }
}

/// Serde adapter for a job's tensor-map requests: each distinct [`Encode`](crate::device::protocol::Encode) once (as JSON), and
/// per request its encode's index and two addresses packed into one byte payload
/// ([`tensor_maps::LEN`] bytes each). A batched tensor launch asks for one map per
/// instance, all with the same parameters but the address; as JSON objects they took most of
/// the time a launch spent in transport.
pub(super) mod tensor_maps {
    use super::address_codec;
    use crate::device::protocol::{Encode, TensorMapRequest};
    use serde::{de::Error, Deserialize, Deserializer, Serialize, Serializer};
    use std::collections::HashMap;

    /// The encode's index (little-endian u32), then `global` and `store` ([`address_codec`]).
    pub const LEN: usize = 4 + 2 * address_codec::LEN;

    #[derive(Serialize)]
    struct Out<'a> {
        encodes: Vec<&'a Encode>,
        #[serde(with = "crate::device::frame::bytes")]
        uses: Vec<u8>,
    }

    #[derive(Deserialize)]
    struct In {
        encodes: Vec<Encode>,
        #[serde(with = "crate::device::frame::bytes")]
        uses: Vec<u8>,
    }

    pub fn serialize<S: Serializer>(rs: &[TensorMapRequest], s: S) -> Result<S::Ok, S::Error> {
        let mut index: HashMap<&Encode, u32> = HashMap::new();
        let mut out = Out {
            encodes: Vec::new(),
            uses: Vec::with_capacity(rs.len() * LEN),
        };
        for r in rs {
            let i = *index.entry(&r.encode).or_insert_with(|| {
                out.encodes.push(&r.encode);
                out.encodes.len() as u32 - 1
            });
            out.uses.extend_from_slice(&i.to_le_bytes());
            address_codec::put(&mut out.uses, Some(r.global));
            address_codec::put(&mut out.uses, r.store);
        }
        out.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<TensorMapRequest>, D::Error> {
        let In { encodes, uses } = In::deserialize(d)?;
        if uses.len() % LEN != 0 {
            return Err(D::Error::custom(format!(
                "tensor maps: {} bytes is not a whole number of {LEN}-byte requests",
                uses.len()
            )));
        }
        let fail = |e: String| D::Error::custom(format!("tensor maps: {e}"));
        uses.chunks_exact(LEN)
            .map(|c| {
                let i = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize;
                let encode = encodes
                    .get(i)
                    .ok_or_else(|| fail(format!("no encode {i}")))?
                    .clone();
                let global = address_codec::get(&c[4..])
                    .map_err(fail)?
                    .ok_or_else(|| fail("a request without a global address".into()))?;
                let store = address_codec::get(&c[4 + address_codec::LEN..]).map_err(fail)?;
                Ok(TensorMapRequest {
                    global,
                    encode,
                    store,
                })
            })
            .collect()
    }
}

/// Serde adapter for a job's encoded tensor maps: every map's bytes in one payload, each after
/// its length (little-endian u32; `u32::MAX` for a failed encode, whose error is next in
/// `errors`), instead of one payload and one JSON value per map of a batched launch.
pub(super) mod encode_outcomes {
    use crate::device::protocol::{EncodeError, EncodeOutcome};
    use serde::{de::Error, Deserialize, Deserializer, Serialize, Serializer};

    const FAILED: u32 = u32::MAX;

    #[derive(Serialize, Deserialize)]
    struct Packed {
        #[serde(with = "crate::device::frame::bytes")]
        maps: Vec<u8>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        errors: Vec<EncodeError>,
    }

    pub fn serialize<S: Serializer>(os: &[EncodeOutcome], s: S) -> Result<S::Ok, S::Error> {
        let mut p = Packed {
            maps: Vec::with_capacity(os.len() * (4 + 128)),
            errors: Vec::new(),
        };
        for o in os {
            match o {
                EncodeOutcome::Ok(b) => {
                    let n = u32::try_from(b.len())
                        .ok()
                        .filter(|&n| n != FAILED)
                        .ok_or_else(|| serde::ser::Error::custom("tensor map too large"))?;
                    p.maps.extend_from_slice(&n.to_le_bytes());
                    p.maps.extend_from_slice(b);
                }
                EncodeOutcome::Err(e) => {
                    p.maps.extend_from_slice(&FAILED.to_le_bytes());
                    p.errors.push(e.clone());
                }
            }
        }
        p.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<EncodeOutcome>, D::Error> {
        let Packed { maps, errors } = Packed::deserialize(d)?;
        let mut errors = errors.into_iter();
        let mut out = Vec::new();
        let mut rest = &maps[..];
        while !rest.is_empty() {
            let (len, tail) = rest
                .split_first_chunk::<4>()
                .ok_or_else(|| D::Error::custom("encoded tensor maps: a cut length"))?;
            let n = u32::from_le_bytes(*len);
            if n == FAILED {
                let e = errors
                    .next()
                    .ok_or_else(|| D::Error::custom("encoded tensor maps: an error missing"))?;
                out.push(EncodeOutcome::Err(e));
                rest = tail;
                continue;
            }
            let (map, tail) = tail
                .split_at_checked(n as usize)
                .ok_or_else(|| D::Error::custom("encoded tensor maps: a cut map"))?;
            out.push(EncodeOutcome::Ok(map.to_vec()));
            rest = tail;
        }
        if errors.next().is_some() {
            return Err(D::Error::custom(
                "encoded tensor maps: more errors than failures",
            ));
        }
        Ok(out)
    }
}
