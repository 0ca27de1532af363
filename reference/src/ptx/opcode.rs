//! The dotted opcode (`cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes`) split into
//! its head (the mnemonic a family claims) and the qualifiers that follow.
//!
//! PTX writes most qualifiers in a fixed order in the syntax blocks, but real code and the manual's
//! own examples reorder some of them (`cp.async.bulk.tensor.3d.im2col.shared::cluster.global...`).
//! Families therefore take qualifiers from [`Quals`] by *set membership*, except where order
//! carries meaning (`.dst.src` state spaces), which [`Quals::take_ordered`] preserves.

use super::lex::{Cursor, SyntaxError};

/// One qualifier token (without its leading dot) and its offset in the statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tok {
    pub at: usize,
    pub text: String,
}

/// The opcode of an instruction, split at dots.
#[derive(Clone, Debug)]
pub struct Opcode {
    pub toks: Vec<Tok>,
    pub at: usize,
}

impl Opcode {
    /// Read an opcode at the cursor: segments of `[A-Za-z0-9_:]` separated by `.`.
    pub fn parse(c: &mut Cursor<'_>) -> Result<Opcode, SyntaxError> {
        c.skip_ws();
        let at = c.pos;
        let mut toks = Vec::new();
        let b = c.text.as_bytes();
        loop {
            let start = c.pos;
            while c.pos < b.len()
                && (b[c.pos].is_ascii_alphanumeric() || b[c.pos] == b'_' || b[c.pos] == b':')
            {
                c.pos += 1;
            }
            if c.pos == start {
                return Err(c.error(if toks.is_empty() {
                    "an instruction mnemonic"
                } else {
                    "a qualifier after `.`"
                }));
            }
            toks.push(Tok {
                at: start,
                text: c.text[start..c.pos].to_string(),
            });
            if c.pos < b.len() && b[c.pos] == b'.' {
                c.pos += 1;
            } else {
                break;
            }
        }
        Ok(Opcode { toks, at })
    }

    /// The opcode as written, dot-joined.
    pub fn text(&self) -> String {
        self.toks
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(".")
    }

    /// Does the opcode start with these dotted segments?
    pub fn has_head(&self, head: &str) -> bool {
        // Without collecting: the parser tries every family's heads for every instruction.
        let mut toks = self.toks.iter();
        head.split('.')
            .all(|p| toks.next().is_some_and(|t| p == t.text))
    }

    /// The qualifiers after `head` (which must match, see [`Opcode::has_head`]).
    pub fn quals(&self, head: &str) -> Quals {
        let n = head.split('.').count();
        Quals {
            toks: self.toks[n..].to_vec(),
            end: self
                .toks
                .last()
                .map(|t| t.at + t.text.len())
                .unwrap_or(self.at),
        }
    }
}

/// The qualifiers not yet consumed by a family's parser.
#[derive(Clone, Debug)]
pub struct Quals {
    pub toks: Vec<Tok>,
    pub end: usize,
}

impl Quals {
    /// Take the (single) qualifier that is one of `choices`; two of them is an error.
    pub fn take<T: Copy>(
        &mut self,
        choices: &[(&str, T)],
        what: &str,
    ) -> Result<Option<T>, SyntaxError> {
        let mut found: Option<(usize, T)> = None;
        let mut i = 0;
        while i < self.toks.len() {
            if let Some((_, v)) = choices.iter().find(|(s, _)| *s == self.toks[i].text) {
                if found.is_some() {
                    return Err(SyntaxError::new(
                        self.toks[i].at,
                        format!("at most one {what}"),
                        format!("a second one, `.{}`", self.toks[i].text),
                    ));
                }
                found = Some((self.toks[i].at, *v));
                self.toks.remove(i);
            } else {
                i += 1;
            }
        }
        Ok(found.map(|(_, v)| v))
    }

    /// Like [`Quals::take`] but the qualifier is mandatory.
    pub fn need<T: Copy>(&mut self, choices: &[(&str, T)], what: &str) -> Result<T, SyntaxError> {
        match self.take(choices, what)? {
            Some(v) => Ok(v),
            None => Err(SyntaxError::new(
                self.end,
                format!("{what}: one of {}", list(choices.iter().map(|c| c.0))),
                "none",
            )),
        }
    }

    /// Take a bare flag qualifier such as `.multicast::cluster`.
    pub fn flag(&mut self, name: &str) -> Result<bool, SyntaxError> {
        Ok(self.take(&[(name, ())], &format!("`.{name}`"))?.is_some())
    }

    /// Take every qualifier that is one of `choices`, in the order written (for `.dst.src`).
    pub fn take_ordered<T: Copy>(&mut self, choices: &[(&str, T)]) -> Vec<(usize, T)> {
        let mut out = Vec::new();
        self.toks
            .retain(|t| match choices.iter().find(|(s, _)| *s == t.text) {
                Some((_, v)) => {
                    out.push((t.at, *v));
                    false
                }
                None => true,
            });
        out
    }

    /// Error if any qualifier was not consumed; `known` lists what the family accepts.
    pub fn finish(&self, family: &str) -> Result<(), SyntaxError> {
        match self.toks.first() {
            None => Ok(()),
            Some(t) => Err(SyntaxError::new(
                t.at,
                format!("a qualifier of {family}"),
                format!("`.{}`", t.text),
            )),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.toks.is_empty()
    }
}

fn list<'a>(it: impl Iterator<Item = &'a str>) -> String {
    it.map(|s| format!("`.{s}`")).collect::<Vec<_>>().join(", ")
}

/// Build an opcode string from the head and the present qualifiers, in canonical order.
pub fn join(head: &str, quals: &[&str]) -> String {
    let mut s = head.to_string();
    for q in quals {
        if !q.is_empty() {
            s.push('.');
            s.push_str(q.trim_start_matches('.'));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quals_any_order() {
        let mut c = Cursor::new("cp.async.bulk.tensor.3d.im2col.shared::cluster.global");
        let op = Opcode::parse(&mut c).unwrap();
        assert!(op.has_head("cp.async.bulk.tensor"));
        assert!(!op.has_head("cp.async.bulk.prefetch"));
        let mut q = op.quals("cp.async.bulk.tensor");
        let spaces = q.take_ordered(&[("shared::cluster", 1), ("global", 2)]);
        assert_eq!(spaces.iter().map(|s| s.1).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(q.need(&[("im2col", 7)], "load mode").unwrap(), 7);
        assert!(q.finish("x").is_err());
        assert_eq!(q.need(&[("3d", 3)], "dim").unwrap(), 3);
        assert!(q.finish("x").is_ok());
    }
}
