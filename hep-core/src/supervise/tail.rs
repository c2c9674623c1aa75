//! The bounded end of a byte stream (the child's stderr).

use super::STDERR_TAIL_BYTES;
use std::collections::VecDeque;

/// The last [`STDERR_TAIL_BYTES`] (or another cap) of a byte stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tail {
    cap: usize,
    bytes: VecDeque<u8>,
    dropped: u64,
}

impl Default for Tail {
    fn default() -> Self {
        Self::new(STDERR_TAIL_BYTES)
    }
}

impl Tail {
    /// An empty tail keeping at most `cap` bytes.
    pub fn new(cap: usize) -> Self {
        Self { cap, bytes: VecDeque::new(), dropped: 0 }
    }

    /// Appends `chunk`, forgetting the oldest bytes beyond the cap.
    pub fn push(&mut self, chunk: &[u8]) {
        let keep = chunk.len().min(self.cap);
        let skip = chunk.len() - keep;
        self.bytes.extend(chunk.get(skip..).unwrap_or_default());
        let over = self.bytes.len().saturating_sub(self.cap);
        self.bytes.drain(..over);
        self.dropped = self.dropped.saturating_add((skip + over) as u64);
    }

    /// Bytes forgotten so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The kept bytes as text (invalid UTF-8, such as a character cut at the start, as U+FFFD).
    pub fn text(&self) -> String {
        let (a, b) = self.bytes.as_slices();
        String::from_utf8_lossy(&[a, b].concat()).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_most_recent_bytes() {
        let mut tail = Tail::new(5);
        tail.push(b"abc");
        tail.push(b"defg");
        assert_eq!((tail.text().as_str(), tail.dropped()), ("cdefg", 2));
        tail.push(b"0123456789");
        assert_eq!((tail.text().as_str(), tail.dropped()), ("56789", 12));
    }
}
