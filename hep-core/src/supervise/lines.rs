//! The child's stderr as lines, for showing live.

/// Splits a byte stream into lines on `\n` (a `\r` before it is dropped), as text (invalid
/// UTF-8 as U+FFFD). A line longer than the cap is handed over cut at the cap, with the
/// count of bytes left out; what is kept stays bounded whatever the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StderrLines {
    cap: usize,
    partial: Vec<u8>,
    /// Bytes of the current line past the cap.
    cut: u64,
}

impl StderrLines {
    /// A splitter handing over at most `cap` bytes of each line.
    pub fn new(cap: usize) -> Self {
        Self { cap, partial: Vec::new(), cut: 0 }
    }

    /// Feeds `bytes`, handing each line they complete to `on_line`.
    pub fn push(&mut self, bytes: &[u8], mut on_line: impl FnMut(String)) {
        let mut rest = bytes;
        while let Some(at) = memchr::memchr(b'\n', rest) {
            let (line, after) = rest.split_at(at);
            self.take(line);
            on_line(self.line());
            rest = after.get(1..).unwrap_or_default();
        }
        self.take(rest);
    }

    /// The last line, when the stream ended without a `\n` after it.
    pub fn finish(&mut self) -> Option<String> {
        (!self.partial.is_empty() || self.cut > 0).then(|| self.line())
    }

    fn take(&mut self, bytes: &[u8]) {
        let room = self.cap.saturating_sub(self.partial.len()).min(bytes.len());
        self.partial.extend_from_slice(bytes.get(..room).unwrap_or_default());
        self.cut = self.cut.saturating_add((bytes.len() - room) as u64);
    }

    fn line(&mut self) -> String {
        let mut bytes = std::mem::take(&mut self.partial);
        if self.cut == 0 && bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        let mut line = String::from_utf8_lossy(&bytes).into_owned();
        if self.cut > 0 {
            line.push_str(&format!("…(+{} bytes)", self.cut));
            self.cut = 0;
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(cap: usize, chunks: &[&[u8]]) -> Vec<String> {
        let mut split = StderrLines::new(cap);
        let mut out = Vec::new();
        for chunk in chunks {
            split.push(chunk, |line| out.push(line));
        }
        out.extend(split.finish());
        out
    }

    #[test]
    fn splits_on_newlines_across_chunks() {
        assert_eq!(lines(100, &[b"warn", b"ing: x\r\nnext\n\nla", b"st"]), ["warning: x", "next", "", "last"]);
    }

    #[test]
    fn long_lines_are_cut_and_counted() {
        assert_eq!(lines(4, &[b"abcdefgh\nxy\n", b"123456"]), ["abcd…(+4 bytes)", "xy", "1234…(+2 bytes)"]);
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(lines(100, &[b"a\xffb\n"]), ["a\u{fffd}b"]);
    }
}
