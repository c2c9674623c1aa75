//! A small, bounded JSON parser over one line: borrowed strings where no escape needs
//! decoding, positions kept for error reports, `\udxxx` lone surrogates read as U+FFFD.

use crate::error::{Error, ErrorKind, Result};
use std::borrow::Cow;

mod string;

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
    #[inline]
    pub(crate) fn new(src: &'a str) -> Self {
        Self { src, pos: 0, depth: 0 }
    }

    /// True when the cursor is past the last byte.
    #[inline]
    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.src.len()
    }

    /// Advances over `expected` if the input continues with exactly those bytes.
    #[inline]
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

    #[inline]
    fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }

    #[inline]
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
    /// and no overflow of `u64`; `None` otherwise (the cursor then anywhere in the number).
    /// The digits are scanned and summed in one pass.
    pub(crate) fn plain_uint(&mut self) -> Option<u64> {
        let start = self.pos;
        let mut value = 0u64;
        while let Some(digit @ b'0'..=b'9') = self.peek() {
            value = value.checked_mul(10)?.checked_add(u64::from(digit - b'0'))?;
            self.pos += 1;
        }
        let count = self.pos - start;
        let leading_zero = count > 1 && self.bytes().get(start) == Some(&b'0');
        if count == 0 || leading_zero || matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        Some(value)
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
