//! The spec's bounds: caps counted in UTF-16 code units with the `…(+N chars)` suffix,
//! and the two renderings of tool arguments for `tool_start.args_summary`.
//!
//! One deliberate deviation from the reference: where a cut would fall between the two
//! halves of a surrogate pair, the cut is made before the pair, so the output never holds
//! a lone surrogate; the units cut are counted in `N`.

use crate::args::Args;
use crate::encode::{write_object, write_value};

/// Cap on `turn_done.tool_results[].text`, in UTF-16 code units.
pub const TOOL_RESULT_CAP: usize = 2000;
/// Cap on full-mode (`events=full`) `args_summary`, in UTF-16 code units.
pub const ARGS_FULL_CAP: usize = 4000;
/// Cap on summary-mode `args_summary`, in UTF-16 code units (before the `...`).
pub const ARGS_SUMMARY_CAP: usize = 100;

/// How `tool_start.args_summary` renders the arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ArgsMode {
    /// `key=<json>` pairs joined with `", "`, cut at 100 units plus `...` (the default).
    #[default]
    Summary,
    /// The argument object's JSON, cut at 4000 units plus `…(+N chars)` (`events=full`).
    Full,
}

/// Length of `s` in UTF-16 code units (the reference's "characters").
pub fn utf16_len(s: &str) -> usize {
    // Every UTF-8 lead byte starts one code unit; 4-byte sequences (outside the BMP) make two.
    s.bytes().filter(|&b| (b & 0xc0) != 0x80).count() + s.bytes().filter(|&b| b >= 0xf0).count()
}

/// Byte index of the longest prefix of `s` with at most `units` UTF-16 code units, never
/// splitting a character (so never splitting a surrogate pair), and that prefix's length in units.
fn prefix_within(s: &str, units: usize) -> (usize, usize) {
    let bytes = s.as_bytes();
    let (mut at, mut used) = (0, 0);
    while at < bytes.len() {
        // Eight ASCII bytes at a time while they fit: one unit each.
        if let Some(word) = bytes.get(at..at + 8)
            && used + 8 <= units
            && word.iter().all(u8::is_ascii)
        {
            at += 8;
            used += 8;
            continue;
        }
        let lead = bytes.get(at).copied().unwrap_or_default();
        // A character's bytes and UTF-16 units, from its lead byte.
        let (len, width) = match lead {
            0..0x80 => (1, 1),
            0x80..0xe0 => (2, 1),
            0xe0..0xf0 => (3, 1),
            _ => (4, 2),
        };
        if used + width > units {
            break;
        }
        at += len;
        used += width;
    }
    (at.min(bytes.len()), used)
}

/// Caps `text` at `limit` UTF-16 code units: longer text keeps its first `limit` units
/// (or one fewer, rather than split a surrogate pair) followed by `…(+N chars)`, N being
/// the number of units cut.
pub fn cap(text: &str, limit: usize) -> String {
    cap_head(text, utf16_len(text), limit)
}

/// [`cap`] of a text the caller holds only the start of, for a host that can read a prefix
/// of its strings without converting all of a long one (JavaScript, Python): `head` is at
/// least the text's first `limit + 1` UTF-16 code units (its first `limit + 1` characters
/// are enough; all of it when shorter) as UTF-8, a lone surrogate as U+FFFD as any
/// conversion of the whole text makes it, and `units` the whole text's length in UTF-16 code
/// units. The result is what [`cap`] gives for the whole text.
pub fn cap_head(head: &str, units: usize, limit: usize) -> String {
    if units <= limit {
        return head.to_owned();
    }
    let (end, kept) = prefix_within(head, limit);
    let mut out = String::with_capacity(end + 16);
    out.push_str(head.get(..end).unwrap_or_default());
    out.push_str("…(+");
    out.push_str(&units.saturating_sub(kept).to_string());
    out.push_str(" chars)");
    out
}

/// What the reference's safe encoder (`safeJsonEncode`) writes for a value JSON cannot write.
pub const UNSERIALIZABLE: &str = "[unserializable]";

/// Summary-mode rendering (the reference's `formatArgs`): `key=<JSON of value>` for each
/// argument in arrival order, joined with `", "`, a value JSON cannot write as
/// `[unserializable]`; longer than 100 units, it is cut to 100 and `...` is appended.
pub fn args_summary(args: &Args) -> String {
    let mut out = String::new();
    for (i, (key, value)) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(key);
        out.push('=');
        match value {
            Some(value) => write_value(&mut out, value),
            None => out.push_str(UNSERIALIZABLE),
        }
    }
    if utf16_len(&out) <= ARGS_SUMMARY_CAP {
        return out;
    }
    let (end, _) = prefix_within(&out, ARGS_SUMMARY_CAP);
    out.truncate(end);
    out.push_str("...");
    out
}

/// Full-mode rendering (the reference's `hepArgsSummary`): the argument object's JSON in
/// arrival order, capped at 4000 units with the `…(+N chars)` suffix; `[unserializable]`
/// when any value is one JSON cannot write (the whole object fails to encode).
pub fn args_full(args: &Args) -> String {
    let Some(values) = args.as_json() else {
        return UNSERIALIZABLE.to_owned();
    };
    let mut out = String::new();
    write_object(&mut out, values);
    cap(&out, ARGS_FULL_CAP)
}

/// Renders `args` in `mode` (see [`args_summary`] and [`args_full`]).
pub fn render_args(args: &Args, mode: ArgsMode) -> String {
    match mode {
        ArgsMode::Summary => args_summary(args),
        ArgsMode::Full => args_full(args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_counts_astral_as_two() {
        assert_eq!(utf16_len("aé€😀"), 5);
    }

    #[test]
    fn cap_leaves_short_text() {
        assert_eq!(cap("abc", 3), "abc");
    }

    #[test]
    fn cap_counts_cut_units() {
        assert_eq!(cap("abcdef", 4), "abcd…(+2 chars)");
    }

    #[test]
    fn cap_never_splits_a_pair() {
        assert_eq!(cap("ab😀cd", 3), "ab…(+4 chars)");
    }

    #[test]
    fn cap_head_cuts_before_a_pair_and_keeps_a_lone_surrogate() {
        assert_eq!(cap_head("ab😀", 6, 3), "ab…(+4 chars)");
        assert_eq!(cap_head("ab😀cd", 6, 6), "ab😀cd");
        assert_eq!(cap_head("a\u{fffd}b", 4, 2), "a\u{fffd}…(+2 chars)");
    }

    proptest::proptest! {
        /// The byte-wise `prefix_within` agrees with counting each character's UTF-16 units.
        #[test]
        fn prefix_within_counts_characters(
            text in "[a-z\u{e9}\u{4e2d}\u{1f600}]{0,30}",
            units in 0usize..40,
        ) {
            let mut used = 0;
            let mut end = text.len();
            for (i, c) in text.char_indices() {
                if used + c.len_utf16() > units {
                    end = i;
                    break;
                }
                used += c.len_utf16();
            }
            proptest::prop_assert_eq!(prefix_within(&text, units), (end, used));
        }

        /// `cap_head` of a text's first units and its length is `cap` of the whole text,
        /// both converted to UTF-8 as a UTF-16 host converts them.
        #[test]
        fn cap_head_of_utf16_units_is_cap_of_the_whole_text(
            units in proptest::collection::vec(
                proptest::prop_oneof![0x20u16..0x80, 0xd800u16..0xdc00, 0xdc00u16..0xe000, 0x4e00u16..0x4e10],
                0..40,
            ),
            limit in 0usize..40,
        ) {
            let head = String::from_utf16_lossy(units.get(..units.len().min(limit + 1)).unwrap_or_default());
            let whole = String::from_utf16_lossy(&units);
            proptest::prop_assert_eq!(cap_head(&head, units.len(), limit), cap(&whole, limit));
        }
    }

    #[test]
    fn cap_head_of_characters_is_cap_of_the_whole_text() {
        let texts =
            ["", "abc", "abcd", "abcdef", "ab😀cd", "a😀😀😀😀", "é€😀x".repeat(9).as_str(), "😀"].map(str::to_owned);
        for text in texts {
            for limit in [0, 1, 2, 3, 4, 5, 8] {
                let head: String = text.chars().take(limit + 1).collect();
                assert_eq!(cap_head(&head, utf16_len(&text), limit), cap(&text, limit), "{text:?} at {limit}");
            }
        }
    }

    #[test]
    fn summary_keeps_arrival_order() {
        let args = crate::parse_args(r#"{"z":1,"a":"x\"y","f":1.0}"#).unwrap();
        assert_eq!(args_summary(&args), r#"z=1, a="x\"y", f=1.0"#);
    }

    #[test]
    fn unserializable_values_render_as_the_reference_does() {
        let args = crate::parse_args(r#"{"n":1e400,"s":"x"}"#).unwrap();
        assert_eq!(args_summary(&args), r#"n=[unserializable], s="x""#);
        assert_eq!(args_full(&args), "[unserializable]");
    }
}
