//! Strings inside a line: plain runs borrowed, escapes decoded (one pass for well-formed
//! strings, a careful loop that reports the first error where it is for the rest).

use super::Parser;
use crate::error::{ErrorKind, Result};
use crate::scan::{BLOCK, find_special, first_special_in_block};
use std::borrow::Cow;

impl<'a> Parser<'a> {
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
    #[inline]
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
    use super::super::{Val, parse};
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
}
