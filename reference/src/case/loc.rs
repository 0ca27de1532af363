//! A located view of a YAML text: the node tree with the source extent of every node, built
//! from the YAML event stream. serde gives us typed values without positions (and `Spanned` loses
//! them under `flatten`/`untagged`, which the schema uses), so validation looks positions up here
//! by field path after deserializing.
//!
//! Nodes keep byte offsets only; [`Lines`] turns an offset into a line and column on demand, in
//! time independent of the line's length, so a case file whose megabytes of data sit on one line
//! locates as fast as one spread over many lines.

use std::borrow::Cow;

use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, ScanError};

use crate::ptx::lex::Pos;

/// Bytes per block of [`Lines`]' character-count checkpoints: the most a lookup scans.
const BLOCK: usize = 4096;

/// Line and column of byte offsets in one text: the line starts, and the number of characters
/// before every `BLOCK`-th byte, both found in one pass. A lookup is a binary search plus a count
/// of at most `BLOCK` bytes, however long the line (a column counts characters, so a line of
/// non-ASCII text cannot be measured in bytes).
pub(crate) struct Lines<'a> {
    text: &'a str,
    /// Byte offset of the start of every line (the first is 0).
    starts: Vec<usize>,
    /// Characters in `text[..k * BLOCK]`, for every block `k`.
    chars_at_block: Vec<usize>,
    /// Bytes counted by lookups so far (tests assert a lookup's work is bounded).
    #[cfg(test)]
    scanned: std::cell::Cell<usize>,
}

/// Characters in UTF-8 `bytes` that may start or end mid-character: the bytes that begin one.
fn char_starts(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let starts = std::iter::once(0)
            .chain(
                bytes
                    .iter()
                    .enumerate()
                    .filter(|(_, &b)| b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        let mut chars_at_block = vec![0];
        let mut total = 0;
        for block in bytes.chunks(BLOCK) {
            total += char_starts(block);
            chars_at_block.push(total);
        }
        Lines {
            text,
            starts,
            chars_at_block,
            #[cfg(test)]
            scanned: std::cell::Cell::new(0),
        }
    }

    pub fn text(&self) -> &'a str {
        self.text
    }

    /// Characters in `text[..offset]` (`offset` on a character boundary).
    fn chars_before(&self, offset: usize) -> usize {
        let block = offset / BLOCK;
        let tail = &self.text.as_bytes()[block * BLOCK..offset];
        #[cfg(test)]
        self.scanned.set(self.scanned.get() + tail.len());
        self.chars_at_block[block] + char_starts(tail)
    }

    fn boundary_at_or_before(&self, offset: usize) -> usize {
        let mut b = offset.min(self.text.len());
        while !self.text.is_char_boundary(b) {
            b -= 1;
        }
        b
    }

    /// 1-based line and column (in characters) of byte `offset`.
    pub fn pos(&self, offset: usize) -> Pos {
        let offset = self.boundary_at_or_before(offset);
        let line = self.starts.partition_point(|&s| s <= offset);
        let line_start = self.starts[line - 1];
        Pos {
            line,
            col: self.chars_before(offset) - self.chars_before(line_start) + 1,
        }
    }

    /// The byte offset of `p` ([`Lines::pos`] inverted), clamped to the text and to the end of
    /// its line.
    pub fn offset(&self, p: Pos) -> usize {
        let line = p.line.clamp(1, self.starts.len());
        let line_start = self.starts[line - 1];
        let line_end = self
            .starts
            .get(line)
            .map(|&s| s - 1)
            .unwrap_or(self.text.len());
        let target = self.chars_before(line_start) + p.col.max(1) - 1;
        // The last block starting at or before the target character, but not before the line.
        let block = self.chars_at_block.partition_point(|&c| c <= target) - 1;
        let mut from = (block * BLOCK).clamp(line_start, line_end);
        while !self.text.is_char_boundary(from) {
            from += 1;
        }
        let skip = target.saturating_sub(self.chars_before(from));
        self.text[from..line_end]
            .char_indices()
            .nth(skip)
            .map(|(i, _)| from + i)
            .unwrap_or(line_end)
    }
}

/// One YAML node with its source extent (`start..end` in bytes of the text). Scalars borrow
/// their value from the text where the parser could (plain scalars): a file of millions of
/// numbers keeps no copy of them.
#[derive(Clone, Debug)]
pub(crate) struct Node<'a> {
    pub start: usize,
    pub end: usize,
    pub kind: Kind<'a>,
}

#[derive(Clone, Debug)]
pub(crate) enum Kind<'a> {
    Scalar(Cow<'a, str>, ScalarStyle),
    Seq(Vec<Node<'a>>),
    /// Keys are nodes too (their positions locate unknown-field and duplicate errors).
    Map(Vec<(Node<'a>, Node<'a>)>),
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

/// A parsed text: its documents' node trees and the index that locates their offsets.
pub(crate) struct Located<'a> {
    pub lines: Lines<'a>,
    pub docs: Vec<Node<'a>>,
}

/// Why a text has no located tree.
#[derive(Debug)]
pub(crate) enum ParseError {
    Syntax(ScanError),
    /// More than the allowed number of nodes; `at` is the byte offset of the first one too many.
    TooManyNodes {
        at: usize,
    },
}

enum Frame<'a> {
    Seq(usize, Vec<Node<'a>>),
    Map(usize, Vec<(Node<'a>, Node<'a>)>, Option<Node<'a>>),
}

fn byte_of(text: &str, m: &serde_saphyr::granit_parser::Marker) -> usize {
    // String input carries byte offsets; without one, the end of the text is as good as any.
    let mut b = m.byte_offset().unwrap_or(text.len()).min(text.len());
    while !text.is_char_boundary(b) {
        b -= 1;
    }
    b
}

fn attach<'a>(stack: &mut [Frame<'a>], docs: &mut Vec<Node<'a>>, n: Node<'a>) {
    match stack.last_mut() {
        None => docs.push(n),
        Some(Frame::Seq(_, items)) => items.push(n),
        Some(Frame::Map(_, pairs, pending)) => match pending.take() {
            None => *pending = Some(n),
            Some(k) => pairs.push((k, n)),
        },
    }
}

/// Parse `text` into its documents' node trees, refusing more than `max_nodes` nodes (scalars,
/// sequences and mappings, as serde-saphyr counts them).
pub(crate) fn parse(text: &str, max_nodes: usize) -> Result<Located<'_>, ParseError> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut docs = Vec::new();
    let mut nodes = 0usize;
    for ev in Parser::new_from_str(text) {
        let (ev, span) = ev.map_err(ParseError::Syntax)?;
        let s = byte_of(text, &span.start);
        let e = byte_of(text, &span.end).max(s);
        if matches!(
            ev,
            Event::Scalar(..) | Event::SequenceStart(..) | Event::MappingStart(..)
        ) {
            nodes += 1;
            if nodes > max_nodes {
                return Err(ParseError::TooManyNodes { at: s });
            }
        }
        match ev {
            Event::Scalar(v, style, _, _) => {
                let n = Node {
                    start: s,
                    end: e,
                    kind: Kind::Scalar(v, style),
                };
                attach(&mut stack, &mut docs, n)
            }
            Event::Alias(_) => {
                let n = Node {
                    start: s,
                    end: e,
                    kind: Kind::Alias,
                };
                attach(&mut stack, &mut docs, n)
            }
            Event::SequenceStart(..) => stack.push(Frame::Seq(s, Vec::new())),
            Event::MappingStart(..) => stack.push(Frame::Map(s, Vec::new(), None)),
            Event::SequenceEnd | Event::MappingEnd => {
                let (start, kind) = match stack.pop() {
                    Some(Frame::Seq(start, mut items)) => {
                        items.shrink_to_fit();
                        (start, Kind::Seq(items))
                    }
                    Some(Frame::Map(start, mut pairs, _)) => {
                        pairs.shrink_to_fit();
                        (start, Kind::Map(pairs))
                    }
                    None => continue,
                };
                let n = Node {
                    start,
                    end: e.max(start),
                    kind,
                };
                attach(&mut stack, &mut docs, n);
            }
            _ => {}
        }
    }
    Ok(Located {
        lines: Lines::new(text),
        docs,
    })
}

impl<'a> Node<'a> {
    fn is_key(&self, k: &str) -> bool {
        matches!(&self.kind, Kind::Scalar(s, _) if s == k)
    }
    pub fn get(&self, k: &str) -> Option<&Node<'a>> {
        match &self.kind {
            Kind::Map(pairs) => pairs.iter().find(|(kn, _)| kn.is_key(k)).map(|(_, v)| v),
            _ => None,
        }
    }
    /// The key `k` in this mapping, or in a mapping one level below it, with its path from here.
    pub fn key_below(&self, k: &str) -> Option<(Vec<Seg>, &Node<'a>)> {
        let Kind::Map(pairs) = &self.kind else {
            return None;
        };
        if let Some((kn, _)) = pairs.iter().find(|(kn, _)| kn.is_key(k)) {
            return Some((vec![Seg::Key(k.to_string())], kn));
        }
        for (kn, v) in pairs {
            if let (Kind::Scalar(name, _), Kind::Map(inner)) = (&kn.kind, &v.kind) {
                if let Some((ik, _)) = inner.iter().find(|(ik, _)| ik.is_key(k)) {
                    return Some((
                        vec![Seg::Key(name.to_string()), Seg::Key(k.to_string())],
                        ik,
                    ));
                }
            }
        }
        None
    }
    pub fn idx(&self, i: usize) -> Option<&Node<'a>> {
        match &self.kind {
            Kind::Seq(items) => items.get(i),
            _ => None,
        }
    }
    /// The node at `path`, or the deepest node on the way (a default-filled or merged field has
    /// no node of its own; its nearest ancestor locates it).
    pub fn find(&self, path: &[Seg]) -> &Node<'a> {
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

    fn contains(&self, offset: usize) -> bool {
        self.start <= offset && (offset < self.end || offset == self.start)
    }

    /// The field path of the innermost node at byte `offset`, and whether it is on a mapping key.
    pub fn path_at(&self, offset: usize) -> (Vec<Seg>, bool) {
        let mut path = Vec::new();
        let mut n = self;
        'down: loop {
            match &n.kind {
                Kind::Map(pairs) => {
                    for (k, v) in pairs {
                        let name = match &k.kind {
                            Kind::Scalar(s, _) => s.to_string(),
                            _ => "?".to_string(),
                        };
                        if k.contains(offset) {
                            path.push(Seg::Key(name));
                            return (path, true);
                        }
                        if v.contains(offset) {
                            path.push(Seg::Key(name));
                            n = v;
                            continue 'down;
                        }
                    }
                    return (path, false);
                }
                Kind::Seq(items) => {
                    // Items are in source order: the last one starting at or before `offset`
                    // is the only candidate (a linear scan would make locating in a long
                    // sequence quadratic over its errors).
                    let i = items.partition_point(|v| v.start <= offset);
                    match i.checked_sub(1).filter(|&i| items[i].contains(offset)) {
                        Some(i) => {
                            path.push(Seg::Idx(i));
                            n = &items[i];
                            continue 'down;
                        }
                        None => return (path, false),
                    }
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
    pub fn inner_pos(&self, lines: &Lines, offset: usize) -> Pos {
        let Kind::Scalar(value, style) = &self.kind else {
            return lines.pos(self.start);
        };
        let text = lines.text();
        let mut offset = offset.min(value.len());
        while !value.is_char_boundary(offset) {
            offset -= 1;
        }
        let raw_end = self.end.min(text.len()).max(self.start);
        let raw = &text[self.start..raw_end];
        match style {
            ScalarStyle::Literal => literal_pos(lines.pos(self.start), value, offset),
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted if !raw.contains('\n') => {
                let q = raw.chars().next().map(|c| c.len_utf8()).unwrap_or(0);
                let map = quoted_map(&raw[q..], *style == ScalarStyle::DoubleQuoted);
                let ci = value[..offset].chars().count();
                let b = map
                    .get(ci)
                    .copied()
                    .unwrap_or(raw.len().saturating_sub(q + 1));
                lines.pos(self.start + q + b)
            }
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                let q = raw.chars().next().map(|c| c.len_utf8()).unwrap_or(0);
                greedy_pos(lines, self.start + q, &raw[q..], value, offset)
            }
            _ => greedy_pos(lines, self.start, raw, value, offset),
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
fn literal_pos(at: Pos, value: &str, offset: usize) -> Pos {
    let before = &value[..offset];
    let k = before.matches('\n').count();
    let col = before[before.rfind('\n').map(|i| i + 1).unwrap_or(0)..]
        .chars()
        .count();
    Pos {
        line: at.line + k,
        col: at.col + col,
    }
}

/// Match the value's characters in order against the source text `raw` (which begins at byte
/// `base` of the text; line folds match any whitespace) and return where the character at
/// `offset` came from.
fn greedy_pos(lines: &Lines, base: usize, raw: &str, value: &str, offset: usize) -> Pos {
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
            return lines.pos(base + raw.len());
        };
        if vi >= offset {
            return lines.pos(base + src[j].0);
        }
        si = j + 1;
    }
    // Offset at the end of the value: just past the last matched character.
    let b = src.get(si).map(|x| x.0).unwrap_or(raw.len());
    lines.pos(base + b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(t: &str) -> Located<'_> {
        super::parse(t, usize::MAX).unwrap()
    }

    #[test]
    fn positions_and_paths() {
        let t = "a: 1\nb:\n  - x\n  - { c: hello }\n";
        let l = parse(t);
        let docs = &l.docs;
        assert_eq!(docs.len(), 1);
        let c = docs[0].find(&[key("b"), Seg::Idx(1), key("c")]);
        assert_eq!(l.lines.pos(c.start), Pos { line: 4, col: 10 });
        let at = |line, col| l.lines.offset(Pos { line, col });
        let (p, on_key) = docs[0].path_at(at(4, 12));
        assert_eq!(path_string(&p), "b[1].c");
        assert!(!on_key);
        let (p, on_key) = docs[0].path_at(at(4, 7));
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
            let l = parse(t);
            let n = l.docs[0].get("k").unwrap();
            let Kind::Scalar(v, _) = &n.kind else {
                panic!()
            };
            let off = v.find('X').unwrap();
            assert_eq!(n.inner_pos(&l.lines, off), Pos { line: 1, col }, "{t:?}");
        }
    }

    #[test]
    fn inner_positions_multiline() {
        let t = "k: |\n  first\n    second X\n";
        let l = parse(t);
        let n = l.docs[0].get("k").unwrap();
        let Kind::Scalar(v, _) = &n.kind else {
            panic!()
        };
        assert_eq!(
            n.inner_pos(&l.lines, v.find('X').unwrap()),
            Pos { line: 3, col: 12 }
        );
        let t = "k: >\n  first\n  second X\n";
        let l = parse(t);
        let n = l.docs[0].get("k").unwrap();
        let Kind::Scalar(v, _) = &n.kind else {
            panic!()
        };
        assert_eq!(
            n.inner_pos(&l.lines, v.find('X').unwrap()),
            Pos { line: 3, col: 10 }
        );
        let t = "k: first\n  second X\n";
        let l = parse(t);
        let n = l.docs[0].get("k").unwrap();
        let Kind::Scalar(v, _) = &n.kind else {
            panic!()
        };
        assert_eq!(v, "first second X");
        assert_eq!(
            n.inner_pos(&l.lines, v.find('X').unwrap()),
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
            let l = parse(&t);
            let n = l.docs[0].get("k").unwrap();
            let mut col = 5;
            for ((off, _), e) in v.char_indices().zip(&enc) {
                proptest::prop_assert_eq!(n.inner_pos(&l.lines, off), Pos { line: 1, col }, "{:?}", t);
                col += e.chars().count();
            }
        }
    }

    proptest::proptest! {
        /// `Lines` agrees with the one-off `lex::locate` everywhere, across block boundaries and
        /// multi-byte characters, and `offset` inverts `pos`.
        #[test]
        fn lines_agree_with_locate(
            parts in proptest::collection::vec(("[a\u{e9}\u{20ac}\u{1f600}]{0,3000}", proptest::bool::ANY), 1..6),
            picks in proptest::collection::vec(0usize..1_000_000, 1..40),
        ) {
            let t: String = parts.iter().map(|(s, nl)| format!("{s}{}", if *nl { "\n" } else { "" })).collect();
            let lines = Lines::new(&t);
            let bounds: Vec<usize> = t.char_indices().map(|(i, _)| i).chain([t.len()]).collect();
            for k in picks {
                let off = bounds[k % bounds.len()];
                let p = lines.pos(off);
                proptest::prop_assert_eq!(p, crate::ptx::lex::locate(&t, off));
                proptest::prop_assert_eq!(lines.offset(p), off);
            }
        }
    }

    /// A lookup scans at most two blocks, wherever on however long a line: locating every node
    /// of a file is linear in the file, not quadratic in the length of its lines.
    #[test]
    fn lookups_do_bounded_work_on_long_lines() {
        let n = 300_000;
        let t = format!(
            "k: [{}]\n",
            (0..n)
                .map(|i| (i % 256).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let l = parse(&t);
        let Kind::Seq(items) = &l.docs[0].get("k").unwrap().kind else {
            panic!()
        };
        assert_eq!(items.len(), n);
        assert_eq!(
            l.lines.scanned.get(),
            0,
            "building the tree locates nothing"
        );
        let last = &items[n - 1];
        let col = t.rfind(", ").unwrap() + 3;
        assert_eq!(l.lines.pos(last.start), Pos { line: 1, col });
        assert_eq!(
            l.docs[0].path_at(last.start).0,
            vec![key("k"), Seg::Idx(n - 1)]
        );
        let before = l.lines.scanned.get();
        assert!(
            before <= 2 * BLOCK,
            "{before} bytes scanned for one position"
        );
        for item in items.iter().step_by(1000) {
            let p = l.lines.pos(item.start);
            assert_eq!(l.lines.offset(p), item.start);
        }
        let per_lookup = (l.lines.scanned.get() - before) / (2 * n.div_ceil(1000));
        assert!(per_lookup <= 2 * BLOCK, "{per_lookup} bytes per lookup");
    }

    #[test]
    fn node_limit_stops_the_parse() {
        let t = "a: [1, 2, 3]\n";
        // The mapping, the key, the sequence and its three items.
        assert!(super::parse(t, 6).is_ok());
        match super::parse(t, 5) {
            Err(ParseError::TooManyNodes { at }) => assert_eq!(&t[at..at + 1], "3"),
            other => panic!("{:?}", other.map(|l| l.docs.len())),
        }
    }
}
