//! A located view of a YAML text: the node tree with the source position of every node, built
//! from the YAML event stream. serde gives us typed values without positions (and `Spanned` loses
//! them under `flatten`/`untagged`, which the schema uses), so validation looks positions up here
//! by field path after deserializing.

use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, ScanError};

use crate::ptx::lex::{locate, LineIndex, Pos};

/// One YAML node with its source extent (`start..end` in bytes of the text).
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub at: Pos,
    pub end_at: Pos,
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Clone, Debug)]
pub(crate) enum Kind {
    Scalar(String, ScalarStyle),
    Seq(Vec<Node>),
    /// Keys are nodes too (their positions locate unknown-field and duplicate errors).
    Map(Vec<(Node, Node)>),
    /// `*alias`: located where it is used.
    Alias,
}

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Idx(usize),
}

pub(crate) fn key(k: &str) -> Seg {
    Seg::Key(k.to_string())
}

/// `program[2].ptx`, `[1].memory.global[0].name`.
pub(crate) fn path_string(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Idx(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

enum Frame {
    Seq(usize, Vec<Node>),
    Map(usize, Vec<(Node, Node)>, Option<Node>),
}

fn byte_of(text: &str, m: &serde_saphyr::granit_parser::Marker) -> usize {
    let b = match m.byte_offset() {
        Some(b) => b,
        // Only string input is parsed here, which carries byte offsets; fall back to chars.
        None => text
            .char_indices()
            .nth(m.index())
            .map(|(b, _)| b)
            .unwrap_or(text.len()),
    };
    let mut b = b.min(text.len());
    while !text.is_char_boundary(b) {
        b -= 1;
    }
    b
}

fn node(lines: &LineIndex, start: usize, end: usize, kind: Kind) -> Node {
    let end = end.max(start);
    Node {
        at: lines.locate(start),
        end_at: lines.locate(end),
        start,
        end,
        kind,
    }
}

fn attach(stack: &mut [Frame], docs: &mut Vec<Node>, n: Node) {
    match stack.last_mut() {
        None => docs.push(n),
        Some(Frame::Seq(_, items)) => items.push(n),
        Some(Frame::Map(_, pairs, pending)) => match pending.take() {
            None => *pending = Some(n),
            Some(k) => pairs.push((k, n)),
        },
    }
}

/// Parse `text` into its documents' node trees.
pub(crate) fn parse(text: &str) -> Result<Vec<Node>, ScanError> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut docs = Vec::new();
    let lines = LineIndex::new(text);
    for ev in Parser::new_from_str(text) {
        let (ev, span) = ev?;
        let s = byte_of(text, &span.start);
        let e = byte_of(text, &span.end);
        match ev {
            Event::Scalar(v, style, _, _) => attach(
                &mut stack,
                &mut docs,
                node(&lines, s, e, Kind::Scalar(v.into_owned(), style)),
            ),
            Event::Alias(_) => attach(&mut stack, &mut docs, node(&lines, s, e, Kind::Alias)),
            Event::SequenceStart(..) => stack.push(Frame::Seq(s, Vec::new())),
            Event::MappingStart(..) => stack.push(Frame::Map(s, Vec::new(), None)),
            Event::SequenceEnd | Event::MappingEnd => {
                let n = match stack.pop() {
                    Some(Frame::Seq(start, items)) => node(&lines, start, e, Kind::Seq(items)),
                    Some(Frame::Map(start, pairs, _)) => node(&lines, start, e, Kind::Map(pairs)),
                    None => continue,
                };
                attach(&mut stack, &mut docs, n);
            }
            _ => {}
        }
    }
    Ok(docs)
}

impl Node {
    pub fn get(&self, k: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Map(pairs) => pairs
                .iter()
                .find(|(kn, _)| matches!(&kn.kind, Kind::Scalar(s, _) if s == k))
                .map(|(_, v)| v),
            _ => None,
        }
    }
    /// The key `k` in this mapping, or in a mapping one level below it, with its path from here.
    pub fn key_below(&self, k: &str) -> Option<(Vec<Seg>, &Node)> {
        let is_k = |kn: &Node| matches!(&kn.kind, Kind::Scalar(s, _) if s == k);
        let Kind::Map(pairs) = &self.kind else {
            return None;
        };
        if let Some((kn, _)) = pairs.iter().find(|(kn, _)| is_k(kn)) {
            return Some((vec![Seg::Key(k.to_string())], kn));
        }
        for (kn, v) in pairs {
            if let (Kind::Scalar(name, _), Kind::Map(inner)) = (&kn.kind, &v.kind) {
                if let Some((ik, _)) = inner.iter().find(|(ik, _)| is_k(ik)) {
                    return Some((vec![Seg::Key(name.clone()), Seg::Key(k.to_string())], ik));
                }
            }
        }
        None
    }
    pub fn idx(&self, i: usize) -> Option<&Node> {
        match &self.kind {
            Kind::Seq(items) => items.get(i),
            _ => None,
        }
    }
    /// The node at `path`, or the deepest node on the way (a default-filled or merged field has
    /// no node of its own; its nearest ancestor locates it).
    pub fn find(&self, path: &[Seg]) -> &Node {
        let mut n = self;
        for seg in path {
            let next = match seg {
                Seg::Key(k) => n.get(k),
                Seg::Idx(i) => n.idx(*i),
            };
            match next {
                Some(x) => n = x,
                None => break,
            }
        }
        n
    }

    fn contains(&self, p: Pos) -> bool {
        self.at <= p && (p < self.end_at || p == self.at)
    }

    /// The field path of the innermost node at `p`, and whether `p` is on a mapping key.
    pub fn path_at(&self, p: Pos) -> (Vec<Seg>, bool) {
        let mut path = Vec::new();
        let mut n = self;
        'down: loop {
            match &n.kind {
                Kind::Map(pairs) => {
                    for (k, v) in pairs {
                        let name = match &k.kind {
                            Kind::Scalar(s, _) => s.clone(),
                            _ => "?".to_string(),
                        };
                        if k.contains(p) {
                            path.push(Seg::Key(name));
                            return (path, true);
                        }
                        if v.contains(p) {
                            path.push(Seg::Key(name));
                            n = v;
                            continue 'down;
                        }
                    }
                    return (path, false);
                }
                Kind::Seq(items) => {
                    for (i, v) in items.iter().enumerate() {
                        if v.contains(p) {
                            path.push(Seg::Idx(i));
                            n = v;
                            continue 'down;
                        }
                    }
                    return (path, false);
                }
                _ => return (path, false),
            }
        }
    }

    /// Source position of byte `offset` of this scalar's value. Exact for single-line scalars
    /// (plain, single- or double-quoted, escapes included) and for literal blocks (`|`); for
    /// folded blocks and multi-line flow scalars the value's characters are matched in order
    /// against the source (line folds match any whitespace), which lands on the right character
    /// unless the text around it was produced by an escape such as `\t`.
    pub fn inner_pos(&self, text: &str, offset: usize) -> Pos {
        let Kind::Scalar(value, style) = &self.kind else {
            return self.at;
        };
        let mut offset = offset.min(value.len());
        while !value.is_char_boundary(offset) {
            offset -= 1;
        }
        let raw_end = self.end.min(text.len()).max(self.start);
        let raw = &text[self.start..raw_end];
        match style {
            ScalarStyle::Literal => literal_pos(self, value, offset),
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted if !raw.contains('\n') => {
                let q = raw.chars().next().map(|c| c.len_utf8()).unwrap_or(0);
                let map = quoted_map(&raw[q..], *style == ScalarStyle::DoubleQuoted);
                let ci = value[..offset].chars().count();
                let b = map
                    .get(ci)
                    .copied()
                    .unwrap_or(raw.len().saturating_sub(q + 1));
                locate(text, self.start + q + b)
            }
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                let q = raw.chars().next().map(|c| c.len_utf8()).unwrap_or(0);
                greedy_pos(text, self.start + q, &raw[q..], value, offset)
            }
            _ => greedy_pos(text, self.start, raw, value, offset),
        }
    }
}

/// For a single-line quoted scalar's body (after the opening quote), the byte offset of the
/// source text that produced each value character (`''` in single quotes; `\x`, `\xNN`,
/// `\uNNNN`, `\UNNNNNNNN` escapes in double quotes).
fn quoted_map(body: &str, double: bool) -> Vec<usize> {
    let b: Vec<(usize, char)> = body.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let (at, c) = b[i];
        if double && c == '\\' {
            let len = match b.get(i + 1).map(|x| x.1) {
                Some('x') => 4,
                Some('u') => 6,
                Some('U') => 10,
                _ => 2,
            };
            out.push(at);
            i += len;
        } else if !double && c == '\'' && b.get(i + 1).map(|x| x.1) == Some('\'') {
            out.push(at);
            i += 2;
        } else if (double && c == '"') || (!double && c == '\'') {
            break;
        } else {
            out.push(at);
            i += 1;
        }
    }
    out
}

/// Literal blocks keep lines one to one: value line k is source line k of the block (whose
/// span starts at its first content character, after the indentation).
fn literal_pos(n: &Node, value: &str, offset: usize) -> Pos {
    let before = &value[..offset];
    let k = before.matches('\n').count();
    let col = before[before.rfind('\n').map(|i| i + 1).unwrap_or(0)..]
        .chars()
        .count();
    Pos {
        line: n.at.line + k,
        col: n.at.col + col,
    }
}

/// Match the value's characters in order against the source text `raw` (which begins at byte
/// `base` of `text`; line folds match any whitespace) and return where the character at
/// `offset` came from.
fn greedy_pos(text: &str, base: usize, raw: &str, value: &str, offset: usize) -> Pos {
    let src: Vec<(usize, char)> = raw.char_indices().collect();
    let mut si = 0;
    for (vi, vc) in value.char_indices() {
        let found = (si..src.len()).find(|&j| {
            if vc.is_whitespace() {
                src[j].1.is_whitespace()
            } else {
                src[j].1 == vc
            }
        });
        let Some(j) = found else {
            return locate(text, base + raw.len());
        };
        if vi >= offset {
            return locate(text, base + src[j].0);
        }
        si = j + 1;
    }
    // Offset at the end of the value: just past the last matched character.
    let b = src.get(si).map(|x| x.0).unwrap_or(raw.len());
    locate(text, base + b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar_at<'a>(root: &'a Node, path: &[Seg]) -> &'a Node {
        root.find(path)
    }

    #[test]
    fn positions_and_paths() {
        let t = "a: 1\nb:\n  - x\n  - { c: hello }\n";
        let docs = parse(t).unwrap();
        assert_eq!(docs.len(), 1);
        let c = scalar_at(&docs[0], &[key("b"), Seg::Idx(1), key("c")]);
        assert_eq!(c.at, Pos { line: 4, col: 10 });
        let (p, on_key) = docs[0].path_at(Pos { line: 4, col: 12 });
        assert_eq!(path_string(&p), "b[1].c");
        assert!(!on_key);
        let (p, on_key) = docs[0].path_at(Pos { line: 4, col: 7 });
        assert_eq!(path_string(&p), "b[1].c");
        assert!(on_key);
    }

    #[test]
    fn inner_positions_by_style() {
        // The `X` in each value: its column in the source.
        let cases = [
            ("k: ab X\n", 7),
            ("k: 'ab X'\n", 8),
            ("k: 'a''b X'\n", 10),
            ("k: \"a\\\"b X\"\n", 10),
            ("k: \"a\\tb X\"\n", 10),
            ("k: \"a\\x41b X\"\n", 12),
        ];
        for (t, col) in cases {
            let docs = parse(t).unwrap();
            let n = docs[0].get("k").unwrap();
            let Kind::Scalar(v, _) = &n.kind else {
                panic!()
            };
            let off = v.find('X').unwrap();
            assert_eq!(n.inner_pos(t, off), Pos { line: 1, col }, "{t:?}");
        }
    }

    #[test]
    fn inner_positions_multiline() {
        let t = "k: |\n  first\n    second X\n";
        let docs = parse(t).unwrap();
        let n = docs[0].get("k").unwrap();
        let Kind::Scalar(v, _) = &n.kind else {
            panic!()
        };
        assert_eq!(
            n.inner_pos(t, v.find('X').unwrap()),
            Pos { line: 3, col: 12 }
        );
        let t = "k: >\n  first\n  second X\n";
        let docs = parse(t).unwrap();
        let n = docs[0].get("k").unwrap();
        let Kind::Scalar(v, _) = &n.kind else {
            panic!()
        };
        assert_eq!(
            n.inner_pos(t, v.find('X').unwrap()),
            Pos { line: 3, col: 10 }
        );
        let t = "k: first\n  second X\n";
        let docs = parse(t).unwrap();
        let n = docs[0].get("k").unwrap();
        let Kind::Scalar(v, _) = &n.kind else {
            panic!()
        };
        assert_eq!(v, "first second X");
        assert_eq!(
            n.inner_pos(t, v.find('X').unwrap()),
            Pos { line: 2, col: 10 }
        );
    }

    proptest::proptest! {
        /// Every character of a one-line quoted scalar is located at the source text that wrote it.
        #[test]
        fn quoted_scalars_locate_every_char(v in "[a-z0-9 .,\\[\\]+'\"\\\\\t]{1,30}", double in proptest::bool::ANY) {
            let enc: Vec<String> = v.chars().map(|c| match (double, c) {
                (true, '"') => "\\\"".to_string(),
                (true, '\\') => "\\\\".to_string(),
                (true, '\t') => "\\t".to_string(),
                (false, '\'') => "''".to_string(),
                (_, c) => c.to_string(),
            }).collect();
            let q = if double { '"' } else { '\'' };
            let t = format!("k: {q}{}{q}\n", enc.concat());
            let docs = parse(&t).unwrap();
            let n = docs[0].get("k").unwrap();
            let mut col = 5;
            for ((off, _), e) in v.char_indices().zip(&enc) {
                proptest::prop_assert_eq!(n.inner_pos(&t, off), Pos { line: 1, col }, "{:?}", t);
                col += e.chars().count();
            }
        }
    }
}
