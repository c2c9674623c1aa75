//! The framer: splits a byte stream into lines on `\n` only.
//!
//! U+2028 and a lone `\r` are content; a `\r\n` ending is tolerated (the `\r` is dropped).
//! A line longer than the maximum is skipped without being buffered, and the next line
//! is delivered normally; a partial last line is reported as truncated.

use crate::error::{Error, ErrorKind};
use memchr::{memchr, memrchr};

/// Default maximum line length: 16 MiB.
pub const DEFAULT_MAX_LINE: usize = 16 << 20;

/// What the framer hands over for each line.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A complete line (1-based `number`), without its `\n` (or `\r\n`).
    Complete {
        /// 1-based line number.
        number: u64,
        /// The line's bytes.
        bytes: &'a [u8],
        /// The same line as text, when the framer already knows it is valid UTF-8.
        text: Option<&'a str>,
    },
    /// A line that was skipped: too long, or cut off by the end of the stream.
    Skipped(Error),
}

/// Splits bytes into lines, buffering at most `max_line` bytes of an incomplete line.
#[derive(Debug, Clone)]
pub struct LineSplitter {
    max_line: usize,
    partial: Vec<u8>,
    /// The current line is already too long: bytes dropped so far, and whether the last
    /// of them is a `\r` (not counted if a `\n` follows).
    overflow: Option<(u64, bool)>,
    line: u64,
}

impl Default for LineSplitter {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_LINE)
    }
}

impl LineSplitter {
    /// A splitter refusing lines longer than `max_line` bytes (excluding the line ending).
    pub fn new(max_line: usize) -> Self {
        Self { max_line, partial: Vec::new(), overflow: None, line: 0 }
    }

    /// Number of complete or skipped lines seen so far.
    pub fn lines_seen(&self) -> u64 {
        self.line
    }

    /// Splits `bytes`, calling `on_line` for each line they complete.
    ///
    /// The stretch of `bytes` holding whole lines is checked for UTF-8 once, so that its
    /// lines arrive with their `text` (a line continued from an earlier push arrives
    /// without it).
    pub fn push(&mut self, bytes: &[u8], mut on_line: impl FnMut(Line<'_>)) {
        let pending = !self.partial.is_empty() || self.overflow.is_some();
        let first = if pending { memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1) } else { 0 };
        let last = memrchr(b'\n', bytes).map_or(0, |i| i + 1).max(first);
        let (head, rest) = bytes.split_at(first);
        let (whole, tail) = rest.split_at(last - first);
        self.split(head, None, &mut on_line);
        self.split(whole, simdutf8::basic::from_utf8(whole).ok(), &mut on_line);
        self.split(tail, None, &mut on_line);
    }

    /// Splits `bytes` (whose text is `text`, when known) on `\n`, holding what follows the
    /// last one.
    fn split(&mut self, mut bytes: &[u8], text: Option<&str>, on_line: &mut impl FnMut(Line<'_>)) {
        let mut offset = 0;
        while let Some(nl) = memchr(b'\n', bytes) {
            let (head, rest) = bytes.split_at(nl);
            let head_text = text.and_then(|t| t.get(offset..offset + nl));
            bytes = rest.get(1..).unwrap_or_default();
            offset += nl + 1;
            self.line += 1;
            if let Some((dropped, cr)) = self.overflow.take() {
                let cr = head.last().map_or(cr, |b| *b == b'\r');
                on_line(Line::Skipped(self.too_long(dropped + head.len() as u64 - u64::from(cr))));
                continue;
            }
            if self.partial.is_empty() {
                self.deliver(head, head_text, on_line);
            } else {
                let mut whole = std::mem::take(&mut self.partial);
                whole.extend_from_slice(head);
                self.deliver(&whole, None, on_line);
                whole.clear();
                self.partial = whole;
            }
        }
        self.hold(bytes);
    }

    /// Ends the stream: a pending partial line is reported as truncated.
    pub fn finish(&mut self, mut on_line: impl FnMut(Line<'_>)) {
        let pending = self.partial.len() as u64;
        let skipped = match self.overflow.take() {
            Some((dropped, _)) => Some(self.too_long(dropped)),
            // Held whole, a partial line may be one byte over (room for a `\r` of a `\r\n`);
            // with no `\n` coming, that byte is content and the line is too long.
            None if pending > self.max_line as u64 => Some(self.too_long(pending)),
            None if pending > 0 => Some(self.truncated(pending)),
            None => None,
        };
        self.partial.clear();
        if let Some(err) = skipped {
            self.line += 1;
            on_line(Line::Skipped(err.at_line(self.line)));
        }
    }

    fn deliver(&self, line: &[u8], text: Option<&str>, on_line: &mut impl FnMut(Line<'_>)) {
        let bytes = line.strip_suffix(b"\r").unwrap_or(line);
        if bytes.len() > self.max_line {
            on_line(Line::Skipped(self.too_long(bytes.len() as u64)));
        } else {
            let text = text.map(|t| t.strip_suffix('\r').unwrap_or(t));
            on_line(Line::Complete { number: self.line, bytes, text });
        }
    }

    fn hold(&mut self, tail: &[u8]) {
        let cr = tail.last().map(|b| *b == b'\r');
        if let Some((dropped, last_cr)) = self.overflow.as_mut() {
            *dropped += tail.len() as u64;
            *last_cr = cr.unwrap_or(*last_cr);
        } else if self.partial.len() + tail.len() > self.max_line.saturating_add(1) {
            self.overflow = Some(((self.partial.len() + tail.len()) as u64, cr.unwrap_or(false)));
            self.partial = Vec::new();
        } else {
            self.partial.extend_from_slice(tail);
        }
    }

    fn too_long(&self, len: u64) -> Error {
        let message = format!("line of {len} bytes exceeds the maximum of {} bytes; skipped", self.max_line);
        Error::new(ErrorKind::LineTooLong, message).at_line(self.line)
    }

    fn truncated(&self, len: u64) -> Error {
        let message = format!("stream ended inside a line ({len} bytes without a newline)");
        Error::new(ErrorKind::Truncated, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]], max: usize) -> Vec<String> {
        let mut s = LineSplitter::new(max);
        let mut out = Vec::new();
        let mut record = |l: Line<'_>| {
            out.push(match l {
                Line::Complete { number, bytes, .. } => format!("{number}:{}", String::from_utf8_lossy(bytes)),
                Line::Skipped(e) => format!("{}:{}", e.line(), e.kind()),
            })
        };
        for c in chunks {
            s.push(c, &mut record);
        }
        s.finish(&mut record);
        out
    }

    #[test]
    fn splits_on_newline_only() {
        let text = "a\u{2028}b\rc\r\nd\n".as_bytes();
        assert_eq!(split(&[text], 100), ["1:a\u{2028}b\rc", "2:d"]);
    }

    #[test]
    fn joins_lines_across_chunks() {
        assert_eq!(split(&[b"ab", b"c\nd", b"e\n"], 100), ["1:abc", "2:de"]);
    }

    #[test]
    fn skips_long_lines_and_recovers() {
        assert_eq!(split(&[b"123456\nok\n"], 5), ["1:line_too_long", "2:ok"]);
        assert_eq!(split(&[b"1234", b"56", b"78\nok\n"], 5), ["1:line_too_long", "2:ok"]);
        assert_eq!(split(&[b"12345\r\n"], 5), ["1:12345"]);
    }

    #[test]
    fn reports_truncated_tail() {
        assert_eq!(split(&[b"a\nbc"], 100), ["1:a", "2:truncated"]);
        assert_eq!(split(&[b"a\n123456789"], 5), ["1:a", "2:line_too_long"]);
    }

    #[test]
    fn a_last_line_one_byte_over_is_too_long_not_truncated() {
        assert_eq!(split(&[b"a\n123456"], 5), ["1:a", "2:line_too_long"]);
        assert_eq!(split(&[b"a\n12345\r"], 5), ["1:a", "2:line_too_long"]);
        assert_eq!(split(&[b"a\n", b"123", b"456"], 5), ["1:a", "2:line_too_long"]);
        assert_eq!(split(&[b"a\n12345"], 5), ["1:a", "2:truncated"]);
    }
}
