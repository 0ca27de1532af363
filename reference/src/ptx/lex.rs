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

/// What a statement of a PTX module is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `.version 8.0`, `.reg .b32 %r<4>;`, `.visible .entry k(…)`, `.section … { … }`.
    Directive,
    /// `L1:` (the text keeps the colon).
    Label,
    /// `{` opening a function body or a scoped block.
    Open,
    /// `}` closing one.
    Close,
    /// An instruction, guard included, without its `;`.
    Instruction,
    /// Nothing readable: an unterminated `/*` (its `error` says so).
    Malformed,
}

/// One statement of a PTX source text (comments removed, kept in place as spaces so offsets still
/// map back to the original text).
#[derive(Clone, Debug)]
pub struct SourceStatement<'a> {
    pub kind: Kind,
    /// Statement text without the terminating `;`.
    pub text: String,
    /// Byte offset of `text` in the original source.
    pub start: usize,
    /// A structural problem found while splitting (a missing `;`, an unmatched brace, an
    /// unterminated comment); its offset is into `text`, as a parser's would be.
    pub error: Option<SyntaxError>,
    source: &'a str,
}

impl SourceStatement<'_> {
    /// Line and column (1-based, columns in characters) of a byte offset inside `text`.
    pub fn locate(&self, offset: usize) -> Pos {
        locate(self.source, self.start + offset.min(self.text.len()))
    }
    /// Was the statement terminated by a `;` (directives may not be)?
    pub fn has_semicolon(&self) -> bool {
        self.source.as_bytes().get(self.start + self.text.len()) == Some(&b';')
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

/// Blank out `//` and `/* */` comments (same length, newlines kept). String literals are skipped
/// over (the `//` of a path in `.file 1 "//a.cu"` is not a comment). Also returns where an
/// unterminated `/*` starts.
fn blank_comments(src: &str) -> (String, Option<usize>) {
    let mut b = src.as_bytes().to_vec();
    let mut unterminated = None;
    let mut i = 0;
    // Every byte of a comment but newlines becomes a space: the length stays, and so does UTF-8
    // validity (a multibyte character becomes as many spaces as it had bytes).
    let blank = |b: &mut [u8], from: usize, to: usize| {
        for x in &mut b[from..to] {
            if *x != b'\n' {
                *x = b' ';
            }
        }
    };
    while i < b.len() {
        match (b[i], b.get(i + 1)) {
            (b'/', Some(b'/')) => {
                let end = src[i..].find('\n').map_or(b.len(), |e| i + e);
                blank(&mut b, i, end);
                i = end;
            }
            (b'/', Some(b'*')) => {
                let end = match src[i + 2..].find("*/") {
                    Some(e) => i + 2 + e + 2,
                    None => {
                        unterminated = Some(i);
                        b.len()
                    }
                };
                blank(&mut b, i, end);
                i = end;
            }
            (b'"', _) => i = string_end(src.as_bytes(), i),
            _ => i += 1,
        }
    }
    (
        String::from_utf8(b).expect("only ASCII bytes were replaced"),
        unterminated,
    )
}

/// Blank out `//` and `/* */` comments (same length, newlines kept).
pub fn strip_comments(src: &str) -> String {
    blank_comments(src).0
}

/// Past the closing quote of the string literal opening at `i` (or at the end of its line: a
/// PTX string does not span lines).
fn string_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() && b[j] != b'\n' {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
    j.min(b.len())
}

/// Directives that end at the end of their line: module header and debug directives, and the
/// performance directives between a kernel's parameters and its body.
const LINE_DIRECTIVES: &[&str] = &[
    "version",
    "target",
    "address_size",
    "file",
    "loc",
    "pragma",
    "maxntid",
    "reqntid",
    "minnctapersm",
    "maxnctapersm",
    "maxnreg",
    "maxclusterrank",
    "reqnctapercluster",
    "explicitcluster",
    "blocksareclusters",
    "noreturn",
];

/// Linkage words that may precede the directive proper (`.visible .entry`).
const LINKAGE: &[&str] = &["visible", "extern", "weak", "common"];

/// Where a statement ends: `end` excludes its terminator, `next` is where the next one may start.
struct End {
    end: usize,
    next: usize,
    /// Absolute offset and message of a structural problem.
    error: Option<(usize, SyntaxError)>,
}

impl End {
    fn at(end: usize, next: usize) -> End {
        End {
            end,
            next,
            error: None,
        }
    }
    /// The statement runs into the next one (which starts on a later line) without a `;`.
    fn missing_semicolon(s: &str, end: usize) -> End {
        let text_end = s[..end].trim_end().len();
        let next_at = s.len() - s[end..].trim_start().len();
        let err = SyntaxError::new(
            0,
            "`;` at the end of the statement",
            format!("a new statement on line {}", locate(s, next_at).line),
        );
        End {
            end,
            next: end,
            error: Some((text_end, err)),
        }
    }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// `name:` (not `name::`) at `i`, possibly with blanks before the colon: past the colon.
fn label_end(b: &[u8], i: usize) -> Option<usize> {
    if !b.get(i).copied().is_some_and(is_ident_start) {
        return None;
    }
    let mut j = i + 1;
    while j < b.len() && is_ident(b[j]) {
        j += 1;
    }
    while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
        j += 1;
    }
    (b.get(j) == Some(&b':') && b.get(j + 1) != Some(&b':')).then_some(j + 1)
}

/// Does a new statement start at the first non-blank at or after `i`? Only forms no operand or
/// directive continuation can take: a guard, a `}`, a label, a dotted mnemonic (PTX names contain
/// no dot; `%tid.x` starts with `%`), and inside an instruction a directive.
fn starts_statement(b: &[u8], mut i: usize, in_directive: bool) -> bool {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    let Some(&c) = b.get(i) else { return false };
    match c {
        b'@' | b'}' => true,
        b'.' => !in_directive,
        _ if label_end(b, i).is_some() => true,
        _ if c.is_ascii_alphabetic() => {
            let mut j = i;
            while j < b.len() && is_ident(b[j]) {
                j += 1;
            }
            b.get(j) == Some(&b'.')
        }
        _ => false,
    }
}

/// Scan from `i` for the `;` that ends a statement, tracking brackets; at each line break at
/// bracket depth 0 ask whether the next line starts a new statement (a missing `;`). A stray `}`
/// on the statement's own line stays in it, for the parser to report.
fn scan_to_semicolon(s: &str, mut i: usize, in_directive: bool) -> End {
    let b = s.as_bytes();
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            // No operand or initializer holds a `;`: it ends the statement even inside an
            // unclosed bracket, so a typo like `[a, 16;` stays in its own statement.
            b';' => return End::at(i, i + 1),
            b'"' => {
                i = string_end(b, i);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' if depth == 0 && starts_statement(b, i + 1, in_directive) => {
                return End::missing_semicolon(s, i + 1)
            }
            _ => {}
        }
        i += 1;
    }
    End::at(b.len(), b.len())
}

/// The end of the directive starting at `i` (a `.`). Line directives (`.version 8.0`) end at their
/// line's end; a function header (`.entry`, `.func`) at its `;` (a declaration), before its body's
/// `{`, or before a performance directive on the next line; `.section` after its `{ … }`; every
/// other directive (`.reg`, `.shared`, `.global`, …) at its `;`.
fn directive_end(s: &str, i: usize) -> End {
    let b = s.as_bytes();
    let mut j = i;
    let word = loop {
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        if b.get(j) != Some(&b'.') {
            break "";
        }
        let w0 = j + 1;
        j = w0;
        while j < b.len() && is_ident(b[j]) {
            j += 1;
        }
        let w = &s[w0..j];
        if !LINKAGE.contains(&w) {
            break w;
        }
    };
    if LINE_DIRECTIVES.contains(&word) {
        let mut k = i;
        while k < b.len() {
            match b[k] {
                b';' => return End::at(k, k + 1),
                b'"' => {
                    k = string_end(b, k);
                    continue;
                }
                // A trailing comma continues the list on the next line (`.maxntid 128,\n 1, 1`).
                b'\n' if !s[i..k].trim_end().ends_with(',') => return End::at(k, k),
                _ => {}
            }
            k += 1;
        }
        return End::at(b.len(), b.len());
    }
    match word {
        "entry" | "func" => {
            let mut depth = 0usize;
            let mut k = j;
            while k < b.len() {
                match b[k] {
                    b'(' => depth += 1,
                    b')' => depth = depth.saturating_sub(1),
                    b';' if depth == 0 => return End::at(k, k + 1),
                    b'{' if depth == 0 => return End::at(k, k),
                    b'\n' if depth == 0 && starts_statement(b, k + 1, false) => {
                        return End::at(k, k)
                    }
                    _ => {}
                }
                k += 1;
            }
            End::at(b.len(), b.len())
        }
        "section" => {
            let Some(open) = s[j..].find(['{', ';']).map(|o| j + o) else {
                return End::at(b.len(), b.len());
            };
            if b[open] == b';' {
                return End::at(open, open + 1);
            }
            let mut depth = 0usize;
            for (k, &c) in b.iter().enumerate().skip(open) {
                match c {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return End::at(k + 1, k + 1);
                        }
                    }
                    _ => {}
                }
            }
            End {
                end: b.len(),
                next: b.len(),
                error: Some((
                    open,
                    SyntaxError::new(0, "a `}` closing the section", "end of input"),
                )),
            }
        }
        _ => scan_to_semicolon(s, j, true),
    }
}

/// The end of the instruction starting at `i`: its `;`. A line break is a missing `;` only once
/// the mnemonic has been read (`@p` may stand on a line of its own, before it).
fn instruction_end(s: &str, i: usize) -> End {
    let b = s.as_bytes();
    let mut j = i;
    if b[j] == b'@' {
        j += 1;
        while j < b.len() && (b[j] == b'!' || b[j] == b'%' || is_ident(b[j])) {
            j += 1;
        }
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
    }
    while j < b.len() && (is_ident(b[j]) || b[j] == b'.' || b[j] == b':') {
        j += 1;
    }
    scan_to_semicolon(s, j, false)
}

/// Split a PTX module into statements: directives (with or without `;`), labels, braces of
/// function bodies and scoped blocks, and `;`-terminated instructions that may span lines. A
/// trailing instruction without `;` is returned too (the front door accepts a missing final
/// semicolon). Nothing is dropped: a structural problem is recorded on the statement it concerns.
pub fn statements(source: &str) -> Vec<SourceStatement<'_>> {
    let (clean, unterminated) = blank_comments(source);
    let b = clean.as_bytes();
    let mut out: Vec<SourceStatement<'_>> = Vec::new();
    let mut open_blocks: Vec<usize> = Vec::new();
    let mut i = 0;
    loop {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b';') {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let (kind, end) = match b[i] {
            b'{' => (Kind::Open, End::at(i + 1, i + 1)),
            b'}' => (Kind::Close, End::at(i + 1, i + 1)),
            b'.' => (Kind::Directive, directive_end(&clean, i)),
            _ => match label_end(b, i) {
                Some(e) => (Kind::Label, End::at(e, e)),
                None => (Kind::Instruction, instruction_end(&clean, i)),
            },
        };
        let mut st = SourceStatement {
            kind,
            text: clean[i..end.end].to_string(),
            start: i,
            error: end.error.map(|(at, mut e)| {
                e.offset = at - i;
                e
            }),
            source,
        };
        match kind {
            Kind::Open => open_blocks.push(out.len()),
            Kind::Close if open_blocks.pop().is_none() => {
                st.error = Some(SyntaxError::new(0, "an open `{` before this `}`", "none"));
            }
            _ => {}
        }
        out.push(st);
        i = end.next;
    }
    for k in open_blocks {
        out[k].error = Some(SyntaxError::new(
            0,
            "a `}` closing this `{`",
            "end of input",
        ));
    }
    if let Some(at) = unterminated {
        out.push(SourceStatement {
            kind: Kind::Malformed,
            text: String::new(),
            start: at,
            error: Some(SyntaxError::new(
                0,
                "`*/` closing the comment",
                "end of input",
            )),
            source,
        });
    }
    out
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

    proptest::proptest! {
        /// Splitting never panics and drops nothing: every byte outside comments is inside a
        /// statement's text, or is blank, or is the `;` that ended one.
        #[test]
        fn statements_cover_every_byte(src in r#"([ \n\t;{}()\[\]@!.:/*"a-z0-9%_,$é-]|\.reg |\.version |cp\.async |L1:){0,60}"#) {
            let _ = crate::ptx::read_source(&src); // nor does reading what it splits
            let clean = strip_comments(&src);
            let mut covered = vec![false; src.len()];
            for st in statements(&src) {
                covered[st.start..st.start + st.text.len()].fill(true);
                let _ = (st.first_pos(), st.has_semicolon());
            }
            for (i, c) in clean.bytes().enumerate() {
                proptest::prop_assert!(
                    covered[i] || c.is_ascii_whitespace() || c == b';',
                    "byte {i} ({:?}) of {src:?} is in no statement", c as char
                );
            }
        }
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
