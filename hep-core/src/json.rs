//! A small, bounded JSON parser over one line: borrowed strings where no escape needs
//! decoding, positions kept for error reports, `\udxxx` lone surrogates read as U+FFFD.

use crate::error::{Error, ErrorKind, Result};
use crate::scan::{BLOCK, find_special, first_special_in_block};
use std::borrow::Cow;

/// Deepest nesting of arrays and objects accepted in one line.
pub const MAX_DEPTH: usize = 64;

/// A parsed JSON value borrowing from the line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Val<'a> {
    Null,
    Bool(bool),
    /// A number, kept as its text; `int` is true when it has no fraction and no exponent.
    Num {
        text: &'a str,
        int: bool,
    },
    Str(Cow<'a, str>),
    Arr(Vec<(usize, Val<'a>)>),
    Obj(Vec<Member<'a>>),
}

/// One object member: its key, its value and the byte offset where the value starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Member<'a> {
    pub(crate) key: Cow<'a, str>,
    pub(crate) val: Val<'a>,
    pub(crate) pos: usize,
}

impl Val<'_> {
    /// The JSON type name, for error messages.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Val::Null => "null",
            Val::Bool(_) => "a boolean",
            Val::Num { int: true, .. } => "an integer",
            Val::Num { .. } => "a number with a fraction or exponent",
            Val::Str(_) => "a string",
            Val::Arr(_) => "an array",
            Val::Obj(_) => "an object",
        }
    }
}

/// Parses `src` as exactly one JSON value surrounded by optional whitespace.
pub(crate) fn parse(src: &str) -> Result<(usize, Val<'_>)> {
    let mut p = Parser::new(src);
    p.skip_ws();
    let start = p.pos;
    let val = p.value()?;
    p.skip_ws();
    if p.pos < src.len() {
        return Err(p.err(ErrorKind::TrailingCharacters, "unexpected characters after the JSON value"));
    }
    Ok((start, val))
}

/// A 1-based column and a short excerpt of `src` around byte `pos`.
pub(crate) fn locate(src: &str, pos: usize) -> (u64, String) {
    let pos = pos.min(src.len());
    let mut start = pos.saturating_sub(16);
    while !src.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (pos + 24).min(src.len());
    while !src.is_char_boundary(end) {
        end += 1;
    }
    (pos as u64 + 1, src.get(start..end).unwrap_or_default().to_owned())
}

/// Builds an error of `kind` at byte `pos` of `src`.
pub(crate) fn error_at(src: &str, pos: usize, kind: ErrorKind, message: impl Into<String>) -> Error {
    let (column, excerpt) = locate(src, pos);
    Error::new(kind, message).at_column(column, excerpt)
}

/// A cursor over one line; `pos` is a byte offset into `src`.
pub(crate) struct Parser<'a> {
    src: &'a str,
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    /// A cursor at the start of `src`.
    pub(crate) fn new(src: &'a str) -> Self {
        Self { src, pos: 0, depth: 0 }
    }

    /// True when the cursor is past the last byte.
    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.src.len()
    }

    /// Advances over `expected` if the input continues with exactly those bytes.
    pub(crate) fn eat(&mut self, expected: &[u8]) -> bool {
        let found = self.bytes().get(self.pos..self.pos + expected.len()) == Some(expected);
        if found {
            self.pos += expected.len();
        }
        found
    }

    /// Advances over each of `parts` in turn if the input continues with all of them;
    /// otherwise stays where it was.
    pub(crate) fn eat_all(&mut self, parts: &[&[u8]]) -> bool {
        let start = self.pos;
        let found = parts.iter().all(|part| self.eat(part));
        if !found {
            self.pos = start;
        }
        found
    }

    fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.bytes().get(self.pos).copied()
    }

    fn err(&self, kind: ErrorKind, message: impl Into<String>) -> Error {
        error_at(self.src, self.pos, kind, message)
    }

    fn syntax(&self, what: &str) -> Error {
        match self.peek() {
            None if self.src.trim().is_empty() => self.err(ErrorKind::Syntax, "empty line"),
            None => self.err(ErrorKind::Syntax, format!("line ends early: expected {what}")),
            Some(b) if b.is_ascii_graphic() => {
                self.err(ErrorKind::Syntax, format!("expected {what}, found `{}`", char::from(b)))
            }
            Some(b) => self.err(ErrorKind::Syntax, format!("expected {what}, found byte 0x{b:02x}")),
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn value(&mut self) -> Result<Val<'a>> {
        match self.peek() {
            Some(b'"') => Ok(Val::Str(self.string()?)),
            Some(b'{') => self.nested(Self::object),
            Some(b'[') => self.nested(Self::array),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Val::Bool(true)),
            Some(b'f') => self.literal("false", Val::Bool(false)),
            Some(b'n') => self.literal("null", Val::Null),
            _ => Err(self.syntax("a JSON value")),
        }
    }

    fn nested(&mut self, parse: fn(&mut Self) -> Result<Val<'a>>) -> Result<Val<'a>> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err(ErrorKind::TooDeep, format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        self.depth += 1;
        let val = parse(self);
        self.depth -= 1;
        val
    }

    fn literal(&mut self, word: &'static str, val: Val<'a>) -> Result<Val<'a>> {
        if self.bytes().get(self.pos..self.pos + word.len()) == Some(word.as_bytes()) {
            self.pos += word.len();
            Ok(val)
        } else {
            Err(self.syntax("a JSON value"))
        }
    }

    fn object(&mut self) -> Result<Val<'a>> {
        self.pos += 1;
        let mut members = Vec::with_capacity(8);
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Val::Obj(members));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.syntax("a string key"));
            }
            let key = self.string()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.syntax("`:`"));
            }
            self.pos += 1;
            self.skip_ws();
            let pos = self.pos;
            let val = self.value()?;
            members.push(Member { key, val, pos });
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Val::Obj(members));
                }
                _ => return Err(self.syntax("`,` or `}`")),
            }
        }
    }

    fn array(&mut self) -> Result<Val<'a>> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Val::Arr(items));
        }
        loop {
            self.skip_ws();
            let pos = self.pos;
            items.push((pos, self.value()?));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Val::Arr(items));
                }
                _ => return Err(self.syntax("`,` or `]`")),
            }
        }
    }

    /// Reads a plain non-negative integer: no sign, fraction, exponent or leading zero,
    /// and no overflow of `u64`; `None` otherwise.
    pub(crate) fn plain_uint(&mut self) -> Option<u64> {
        let start = self.pos;
        let count = self.digits();
        let digits = self.bytes().get(start..self.pos).unwrap_or_default();
        let leading_zero = count > 1 && digits.first() == Some(&b'0');
        if count == 0 || leading_zero || matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        digits.iter().try_fold(0u64, |acc, d| acc.checked_mul(10)?.checked_add(u64::from(d - b'0')))
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    pub(crate) fn number(&mut self) -> Result<Val<'a>> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let int_start = self.pos;
        match self.digits() {
            0 => return Err(self.syntax("a digit")),
            n if n > 1 && self.bytes().get(int_start) == Some(&b'0') => {
                self.pos = int_start;
                return Err(self.err(ErrorKind::Syntax, "leading zero in a number"));
            }
            _ => {}
        }
        let mut int = true;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            int = false;
            if self.digits() == 0 {
                return Err(self.syntax("a digit after `.`"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            int = false;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.syntax("a digit in the exponent"));
            }
        }
        let text = self.src.get(start..self.pos).unwrap_or_default();
        Ok(Val::Num { text, int })
    }

    /// Advances over plain string content up to the next `"` or `\\`, refusing control
    /// characters; returns the content skipped.
    fn plain_run(&mut self) -> Result<&'a str> {
        let start = self.pos;
        let rest = self.bytes().get(start..).unwrap_or_default();
        let stop = find_special(rest).unwrap_or(rest.len());
        self.pos = start + stop;
        if self.peek().is_some_and(|b| b < 0x20) {
            return Err(self.err(ErrorKind::Syntax, "control character inside a string"));
        }
        Ok(self.src.get(start..self.pos).unwrap_or_default())
    }

    /// Reads a string starting at its opening quote.
    pub(crate) fn string(&mut self) -> Result<Cow<'a, str>> {
        self.pos += 1;
        let plain = self.plain_run()?;
        if self.peek() == Some(b'"') {
            self.pos += 1;
            return Ok(Cow::Borrowed(plain));
        }
        let escaped = self.pos;
        if let Some(out) = self.unescape_well_formed(plain) {
            return Ok(Cow::Owned(out));
        }
        self.pos = escaped;
        self.unescape_carefully(plain).map(Cow::Owned)
    }

    /// The rest of a string from the first byte that ended its first plain run (`plain`),
    /// one escape and one run at a time: the first error is reported where it is.
    fn unescape_carefully(&mut self, plain: &'a str) -> Result<String> {
        let mut out = String::with_capacity(plain.len() + 16);
        out.push_str(plain);
        loop {
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(_) => self.escape(&mut out)?,
                None => return Err(self.err(ErrorKind::Syntax, "unterminated string")),
            }
            out.push_str(self.plain_run()?);
        }
    }

    /// The rest of a string from its first backslash, when it is well formed (closed, no
    /// control character, only valid escapes); `None` for anything else, which the careful
    /// loop, [`Parser::unescape_carefully`], reads again to report the first error where it is.
    ///
    /// Built for dense escapes (log lines: one every dozen bytes): the output is sized from
    /// the rest of the line once, and plain runs are copied by [`copy_plain_run`].
    fn unescape_well_formed(&mut self, plain: &'a str) -> Option<String> {
        let bytes = self.bytes();
        let mut pos = self.pos;
        let mut out = String::with_capacity(plain.len() + (bytes.len() - pos));
        out.push_str(plain);
        loop {
            match *bytes.get(pos)? {
                b'"' => break,
                b'\\' if bytes.get(pos + 1) == Some(&b'u') => {
                    self.pos = pos + 2;
                    let unit = self.hex4(pos).ok()?;
                    out.push(self.surrogate_aware(unit).ok()?);
                    pos = self.pos;
                }
                b'\\' => {
                    out.push(simple_escape(*bytes.get(pos + 1)?)?);
                    pos += 2;
                }
                _ => return None,
            }
            pos += copy_plain_run(self.src.get(pos..)?, &mut out);
        }
        self.pos = pos + 1;
        if out.capacity() > 2 * out.len() + 64 {
            out.shrink_to_fit();
        }
        Some(out)
    }

    fn escape(&mut self, out: &mut String) -> Result<()> {
        let at = self.pos;
        self.pos += 1;
        let c = match self.peek() {
            Some(b'u') => {
                self.pos += 1;
                let unit = self.hex4(at)?;
                out.push(self.surrogate_aware(unit)?);
                return Ok(());
            }
            b => match b.and_then(simple_escape) {
                Some(c) => c,
                None => {
                    self.pos = at;
                    return Err(self.err(ErrorKind::Syntax, "invalid escape in a string"));
                }
            },
        };
        self.pos += 1;
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self, at: usize) -> Result<u16> {
        let hex = self.bytes().get(self.pos..self.pos + 4).unwrap_or_default();
        let text = std::str::from_utf8(hex).ok().filter(|t| t.len() == 4);
        match text.and_then(|t| u16::from_str_radix(t, 16).ok()) {
            Some(unit) if text.is_some_and(|t| t.bytes().all(|b| b.is_ascii_hexdigit())) => {
                self.pos += 4;
                Ok(unit)
            }
            _ => {
                self.pos = at;
                Err(self.err(ErrorKind::Syntax, "invalid \\u escape: expected four hex digits"))
            }
        }
    }

    /// Turns a `\u` code unit into a char, pairing a high surrogate with a following
    /// `\u` low surrogate; a lone surrogate becomes U+FFFD.
    fn surrogate_aware(&mut self, unit: u16) -> Result<char> {
        if !(0xd800..0xdc00).contains(&unit) {
            return Ok(char::from_u32(u32::from(unit)).unwrap_or('\u{fffd}'));
        }
        let next = self.pos;
        if self.bytes().get(next..next + 2) == Some(b"\\u") {
            self.pos += 2;
            let low = self.hex4(next)?;
            if (0xdc00..0xe000).contains(&low) {
                let code = 0x10000 + ((u32::from(unit) - 0xd800) << 10) + (u32::from(low) - 0xdc00);
                return Ok(char::from_u32(code).unwrap_or('\u{fffd}'));
            }
            self.pos = next;
        }
        Ok('\u{fffd}')
    }
}

/// The character a one-letter escape (`\n`, `\"`, ...) stands for; `None` for `u` and
/// anything invalid.
fn simple_escape(letter: u8) -> Option<char> {
    let byte = ESCAPED.get(usize::from(letter)).copied().unwrap_or(0);
    (byte != 0).then_some(char::from(byte))
}

/// What each one-letter escape stands for, indexed by the letter; 0 for the rest (a table,
/// not a `match`: one load instead of a jump per escape).
// One row per 16 letters: `"` at 0x22, `/` at 0x2f, `\\` at 0x5c, then `b f n r t`.
#[rustfmt::skip]
const ESCAPED: [u8; 128] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, b'"', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, b'/',
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, b'\\', 0, 0, 0,
    0, 0, 0x08, 0, 0, 0, 0x0c, 0, 0, 0, 0, 0, 0, 0, b'\n', 0,
    0, 0, b'\r', 0, b'\t', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

/// Appends the plain run at the start of `rest` (up to its first `"`, `\\` or control
/// byte) to `out`; returns its length.
///
/// A 16-byte block that ends on a character boundary is copied as one fixed-size piece and
/// cut back at its first special byte (ASCII, so the cut is a boundary too): a short run
/// between escapes then costs no `memcpy` call. Elsewhere the run is found, then copied.
fn copy_plain_run(rest: &str, out: &mut String) -> usize {
    let mut pos = 0;
    while let Some(tail) = rest.get(pos..) {
        match (tail.as_bytes().first_chunk::<BLOCK>(), tail.get(..BLOCK)) {
            (Some(block), Some(head)) => {
                let found = first_special_in_block(block);
                out.push_str(head);
                match found {
                    Some(i) => {
                        out.truncate(out.len() - (BLOCK - i));
                        return pos + i;
                    }
                    None => pos += BLOCK,
                }
            }
            _ => {
                let run = find_special(tail.as_bytes()).unwrap_or(tail.len());
                out.push_str(tail.get(..run).unwrap_or_default());
                return pos + run;
            }
        }
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(src: &str) -> String {
        match parse(src).unwrap().1 {
            Val::Str(s) => s.into_owned(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn strings_decode_escapes_and_surrogates() {
        assert_eq!(s(r#""a\"b\\\/\n\u00e9""#), "a\"b\\/\né");
        assert_eq!(s(r#""\ud83d\ude00""#), "😀");
        assert_eq!(s(r#""x\udc00y""#), "x\u{fffd}y");
        assert_eq!(s(r#""\ud83dz""#), "\u{fffd}z");
        assert_eq!(s(r#""\ud83d\u0041""#), "\u{fffd}A");
    }

    #[test]
    fn dense_escapes_decode_like_serde_at_every_alignment() {
        let pieces = [
            "a",
            "é",
            "😀",
            "日本語",
            "\\n",
            "\\\"",
            "\\\\",
            "\\u00e9",
            "\\ud83d\\ude00",
            "\\/",
            "\\t",
            "0123456789abcdef",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..3000 {
            let mut content = String::new();
            while content.len() < 60 {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                content.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
                let line = format!("\"{content}\"");
                let want: String = serde_json::from_str(&line).unwrap();
                assert_eq!(s(&line), want, "{line}");
                // The same string inside a line, followed by more members.
                let object = format!("{{\"k\":{line},\"n\":1}}");
                let (_, val) = parse(&object).unwrap();
                let Val::Obj(members) = val else { panic!("{val:?}") };
                assert_eq!(members[0].val, Val::Str(want.into()), "{line}");
            }
        }
    }

    #[test]
    fn the_fast_unescape_agrees_with_the_careful_loop_on_random_strings() {
        let pieces = [
            "a",
            "é",
            "😀",
            "日本",
            "\\n",
            "\\\"",
            "\\\\",
            "\\u00e9",
            "\\ud83d",
            "\\ude00",
            "\\u12",
            "\\x",
            "\\",
            "\u{1}",
            "\t",
            "\"",
            "\\/",
            "0123456789abcdef",
            "}",
        ];
        let mut seed = 0x0123_4567_89ab_cdefu64;
        let (mut fast, mut careful_ok) = (0, 0);
        for _ in 0..20_000 {
            let mut src = String::from("\"");
            for _ in 0..(seed >> 60) + 1 {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                src.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            src.push_str(if seed & 1 == 0 { "\"}" } else { "" });
            let mut p = Parser::new(&src);
            p.pos = 1;
            let Ok(plain) = p.plain_run() else { continue };
            if p.peek() != Some(b'\\') {
                continue;
            }
            let mut q = Parser { src: p.src, pos: p.pos, depth: 0 };
            let careful = q.unescape_carefully(plain);
            careful_ok += usize::from(careful.is_ok());
            if let Some(out) = p.unescape_well_formed(plain) {
                fast += 1;
                assert_eq!(careful.as_ref(), Ok(&out), "{src:?}");
                assert_eq!(p.pos, q.pos, "{src:?}");
            }
        }
        // Every string the careful loop accepts, the fast one reads too.
        assert_eq!(fast, careful_ok);
        assert!(fast > 1000, "{fast}");
    }

    #[test]
    fn the_escape_table_holds_exactly_the_eight_one_letter_escapes() {
        let want = [
            (b'"', '"'),
            (b'\\', '\\'),
            (b'/', '/'),
            (b'b', '\u{8}'),
            (b'f', '\u{c}'),
            (b'n', '\n'),
            (b'r', '\r'),
            (b't', '\t'),
        ];
        for letter in 0..=255u8 {
            let expected = want.iter().find(|(l, _)| *l == letter).map(|(_, c)| *c);
            assert_eq!(simple_escape(letter), expected, "letter {letter:#x}");
        }
    }

    #[test]
    fn a_bad_byte_after_many_escapes_is_reported_where_it_is() {
        let escapes = "x\\n".repeat(20);
        let table = [
            (format!("\"{escapes}\\q\""), ErrorKind::Syntax, 62),
            (format!("\"{escapes}\u{1}\""), ErrorKind::Syntax, 62),
            (format!("\"{escapes}\\u12\""), ErrorKind::Syntax, 62),
            (format!("\"{escapes}"), ErrorKind::Syntax, 62),
            (format!("\"{escapes}\\"), ErrorKind::Syntax, 62),
        ];
        for (src, kind, column) in table {
            let err = parse(&src).unwrap_err();
            assert_eq!((err.kind(), err.column()), (kind, column), "{src:?}: {err}");
        }
    }

    #[test]
    fn errors_name_kind_and_column() {
        let table = [
            ("", ErrorKind::Syntax, 1),
            ("{\"a\":}", ErrorKind::Syntax, 6),
            ("{} x", ErrorKind::TrailingCharacters, 4),
            ("\"a\u{1}\"", ErrorKind::Syntax, 3),
            ("01", ErrorKind::Syntax, 1),
            (r#""\x""#, ErrorKind::Syntax, 2),
            (r#""\u12g4""#, ErrorKind::Syntax, 2),
        ];
        for (src, kind, column) in table {
            let err = parse(src).unwrap_err();
            assert_eq!((err.kind(), err.column()), (kind, column), "{src:?}: {err}");
        }
    }

    #[test]
    fn depth_is_bounded() {
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert_eq!(parse(&deep).unwrap_err().kind(), ErrorKind::TooDeep);
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(&ok).is_ok());
    }
}
