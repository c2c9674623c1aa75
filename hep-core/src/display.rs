//! Making untrusted stream text safe to show on a terminal.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` could drive a terminal or reorder what it shows: C0 controls other than
/// `\n` and `\t`, DEL, C1 controls, and the bidirectional overrides and isolates.
fn is_unsafe(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every terminal-driving character neutralised into a visible escape
/// (`ESC` becomes `\x1b`, U+202E becomes `\u{202e}`); `\n` and `\t` are kept. Borrowed
/// when nothing needed changing.
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !is_unsafe(c) {
            out.push(c);
        } else if (c as u32) < 0x100 {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_become_visible_text() {
        assert_eq!(sanitize("a\u{1b}[31mred\u{7}\r\n\tb\u{9b}\u{202e}"), "a\\x1b[31mred\\x07\\x0d\n\tb\\x9b\\u{202e}");
        assert!(matches!(sanitize("plain é 😀\n"), Cow::Borrowed(_)));
    }
}
