//! Splitting PTX text into statements and locating errors by line and column.

use std::fmt;

/// A syntax error inside one statement. `offset` is a byte offset into the statement's text; the
/// front door turns it into a file line and column with [`Statement::locate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub offset: usize,
    pub expected: String,
    pub found: String,
}

impl SyntaxError {
    pub fn new(offset: usize, expected: impl Into<String>, found: impl Into<String>) -> Self {
        SyntaxError {
            offset,
            expected: expected.into(),
            found: found.into(),
        }
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.found.is_empty() {
            write!(f, "expected {}", self.expected)
        } else {
            write!(f, "expected {}, found {}", self.expected, self.found)
        }
    }
}

impl std::error::Error for SyntaxError {}

/// A 1-based line and column in a source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// One `;`-terminated statement of a PTX source text (comments removed, kept in place as spaces so
/// offsets still map back to the original text).
#[derive(Clone, Debug)]
pub struct SourceStatement<'a> {
    /// Statement text without the terminating `;`.
    pub text: String,
    /// Byte offset of `text` in the original source.
    pub start: usize,
    source: &'a str,
}

impl SourceStatement<'_> {
    /// Line and column (1-based, columns in characters) of a byte offset inside `text`.
    pub fn locate(&self, offset: usize) -> Pos {
        locate(self.source, self.start + offset.min(self.text.len()))
    }
    /// Position of the first non-blank character.
    pub fn first_pos(&self) -> Pos {
        let lead = self.text.len() - self.text.trim_start().len();
        self.locate(lead)
    }
}

/// Line/column of a byte offset in `source`.
pub fn locate(source: &str, offset: usize) -> Pos {
    let before = &source[..offset.min(source.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    Pos {
        line,
        col: before[line_start..].chars().count() + 1,
    }
}

/// [`locate`] for many offsets into one text: the line starts are found once, so each lookup is
/// a binary search plus a column count (the YAML locator places every node of a case file).
pub struct LineIndex<'a> {
    source: &'a str,
    /// Byte offset of the start of every line (the first is 0).
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(source: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { source, starts }
    }
    /// Same as `locate(source, offset)`.
    pub fn locate(&self, offset: usize) -> Pos {
        let offset = offset.min(self.source.len());
        // Lines starting at or before `offset` (a line starts just past each newline before it).
        let line = self.starts.partition_point(|&s| s <= offset);
        let line_start = self.starts[line - 1];
        Pos {
            line,
            col: self.source[line_start..offset].chars().count() + 1,
        }
    }
}

/// Blank out `//` and `/* */` comments (same length, newlines kept).
pub fn strip_comments(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                out.push(' ');
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            let end = src[i + 2..]
                .find("*/")
                .map(|e| i + 2 + e + 2)
                .unwrap_or(b.len());
            for c in src[i..end].chars() {
                out.push(if c == '\n' { '\n' } else { ' ' });
                // keep byte length equal for multibyte chars
                for _ in 1..c.len_utf8() {
                    out.push(' ');
                }
            }
            i = end;
        } else {
            let c = src[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Split PTX text into `;`-terminated statements. A trailing statement without `;` is returned
/// too (the parser accepts a missing final semicolon on the syntax front door).
pub fn statements(source: &str) -> Vec<SourceStatement<'_>> {
    let clean = strip_comments(source);
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in clean.char_indices() {
        if c == ';' {
            push_stmt(&mut out, source, &clean[start..i], start);
            start = i + 1;
        }
    }
    push_stmt(&mut out, source, &clean[start..], start);
    out
}

fn push_stmt<'a>(out: &mut Vec<SourceStatement<'a>>, source: &'a str, text: &str, start: usize) {
    if !text.trim().is_empty() {
        out.push(SourceStatement {
            text: text.to_string(),
            start,
            source,
        });
    }
}

/// A character cursor over one statement.
#[derive(Clone)]
pub struct Cursor<'a> {
    pub text: &'a str,
    pub pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a str) -> Self {
        Cursor { text, pos: 0 }
    }
    pub fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
    }
    pub fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }
    pub fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos >= self.text.len()
    }
    pub fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }
    pub fn expect(&mut self, c: char, what: &str) -> Result<(), SyntaxError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(what))
        }
    }
    /// Describe what stands at the cursor, for error messages.
    pub fn found(&self) -> String {
        let rest = self.text[self.pos..].trim_start();
        if rest.is_empty() {
            "end of instruction".into()
        } else {
            let tok: String = rest
                .chars()
                .take_while(|c| !c.is_whitespace())
                .take(24)
                .collect();
            format!("`{tok}`")
        }
    }
    pub fn error(&mut self, expected: &str) -> SyntaxError {
        self.skip_ws();
        SyntaxError::new(self.pos, expected, self.found())
    }
    /// An identifier: `%r1`, `ctaMask`, `$x`, and the documentation's hyphenated placeholders
    /// (`cache-policy`, `src-size`), where `-` directly followed by a letter continues the name.
    pub fn ident(&mut self) -> Option<(usize, &'a str)> {
        self.skip_ws();
        let start = self.pos;
        let b = self.text.as_bytes();
        let first = *b.get(start)?;
        if !(first.is_ascii_alphabetic() || first == b'_' || first == b'%' || first == b'$') {
            return None;
        }
        let mut i = start + 1;
        while i < b.len() {
            let c = b[i];
            // A `-` continues an identifier only between letters (`-` as in `no-ftz`).
            let word = c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
            let dash = c == b'-'
                && b.get(i + 1).is_some_and(|n| n.is_ascii_alphabetic())
                && b[i - 1] != b' ';
            if !(word || dash) {
                break;
            }
            i += 1;
        }
        self.pos = i;
        Some((start, &self.text[start..i]))
    }
    /// An integer literal: decimal, `0x` hex, with an optional leading `-`, and PTX's optional
    /// `U` suffix.
    pub fn integer(&mut self) -> Option<(usize, i64)> {
        self.skip_ws();
        let start = self.pos;
        let rest = &self.text[start..];
        let (neg, body) = match rest.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, rest),
        };
        let (radix, digits_start) = if body.starts_with("0x") || body.starts_with("0X") {
            (16, 2)
        } else {
            (10, 0)
        };
        let digits: String = body[digits_start..]
            .chars()
            .take_while(|c| c.is_digit(radix))
            .collect();
        if digits.is_empty() {
            return None;
        }
        let v = i128::from_str_radix(&digits, radix).ok()?;
        let mut len = (rest.len() - body.len()) + digits_start + digits.len();
        if rest[len..].starts_with('U') {
            len += 1;
        }
        let v = if neg { -v } else { v };
        let v = i64::try_from(v)
            .ok()
            .or_else(|| (v as u64 as i128 == v).then_some(v as u64 as i64))?;
        self.pos = start + len;
        Some((start, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_and_locate() {
        let src = "// c\nfoo a, b;\n  bar [x],\n   y; /* z; */ baz";
        let st = statements(src);
        assert_eq!(st.len(), 3);
        assert_eq!(st[1].first_pos(), Pos { line: 3, col: 3 });
        assert_eq!(st[2].text.trim(), "baz");
        let y = st[1].text.find('y').unwrap();
        assert_eq!(st[1].locate(y), Pos { line: 4, col: 4 });
    }

    #[test]
    fn line_index_agrees_with_locate() {
        for src in [
            "",
            "a",
            "\n",
            "ab\n\ncé\nd\n",
            "x\ny",
            "\u{e9}\u{e9}\n\u{e9}",
        ] {
            let ix = LineIndex::new(src);
            for off in (0..=src.len() + 2).filter(|&o| o > src.len() || src.is_char_boundary(o)) {
                assert_eq!(ix.locate(off), locate(src, off), "{src:?} at {off}");
            }
        }
    }

    #[test]
    fn idents_and_ints() {
        let mut c = Cursor::new(" cache-policy, %r1 -0x10 12U");
        assert_eq!(c.ident().unwrap().1, "cache-policy");
        assert!(c.eat(','));
        assert_eq!(c.ident().unwrap().1, "%r1");
        assert_eq!(c.integer().unwrap().1, -16);
        assert_eq!(c.integer().unwrap().1, 12);
        assert!(c.at_end());
    }
}
