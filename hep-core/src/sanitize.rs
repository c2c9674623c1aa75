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

/// `json`, a JSON text, with every terminal-driving character written as a `\u` escape
/// (U+202E becomes `\u202e`): the same JSON value, safe to print. JSON writers escape the
/// C0 controls inside strings already; DEL, the C1 controls and the bidi controls are
/// valid raw in a JSON string, and this escapes them too. `\n` and `\t` are kept (outside
/// strings they are whitespace). Borrowed when nothing needed changing.
pub fn sanitize_json(json: &str) -> Cow<'_, str> {
    if !json.chars().any(is_unsafe) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if is_unsafe(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
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

    #[test]
    fn every_unsafe_class_is_escaped_and_its_neighbours_are_kept() {
        let unsafe_chars = [
            '\u{0}', '\u{8}', '\u{b}', '\u{c}', '\r', '\u{1b}', '\u{1f}', '\u{7f}', '\u{80}', '\u{9b}', '\u{9d}',
            '\u{9f}',
        ];
        for c in unsafe_chars {
            assert_eq!(sanitize(&c.to_string()), format!("\\x{:02x}", c as u32));
        }
        for c in ['\u{202a}', '\u{202e}', '\u{2066}', '\u{2069}'] {
            assert_eq!(sanitize(&c.to_string()), format!("\\u{{{:x}}}", c as u32));
        }
        let kept = "\t\n ~\u{a0}\u{2029}\u{202f}\u{2065}\u{206a}";
        assert!(matches!(sanitize(kept), Cow::Borrowed(_)));
    }

    #[test]
    fn json_keeps_its_value_and_loses_its_raw_controls() -> Result<(), serde_json::Error> {
        let value =
            serde_json::json!({"text": "\u{1b}[2J\u{7}\u{0}\r\u{7f}\u{9b}\u{9d}\u{202e}\u{2066}\u{2069} é 😀\n"});
        let pretty = serde_json::to_string_pretty(&value)?;
        let safe = sanitize_json(&pretty);
        assert!(!safe.chars().any(is_unsafe), "{safe}");
        assert!(safe.contains(r"\u001b[2J\u0007\u0000\r\u007f\u009b\u009d\u202e\u2066\u2069 é 😀\n"), "{safe}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&safe)?, value);
        assert!(matches!(sanitize_json("{\n\t\"a\": \"é\"\n}"), Cow::Borrowed(_)));
        Ok(())
    }
}
