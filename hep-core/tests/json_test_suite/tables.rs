//! The cases pinned by name: the documents holding raw line ends, `y_` values read unlike
//! serde_json, those that cannot run as a line, `n_` documents refused with a kind other than a syntax one, and the answer hep
//! gives to each `i_` document. A change in the corpus or in hep's answers fails a test.

use hep_core::ErrorKind;

/// What hep answers to an `i_` document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// Accepted as the value of an unknown frame.
    Accept,
    /// Accepted, and its string, as a `message_delta`'s `delta`, decodes to this text.
    AcceptDelta(&'static str),
    /// Refused with this kind, as a frame's value and (a string) as a `delta`.
    Refuse(ErrorKind),
}

/// The documents holding a raw `\n` or `\r`. Each is JSON whitespace outside any string,
/// so it becomes a space in the line, except in the one [`NEWLINE_IS_THE_ERROR`] lists.
pub(crate) const LINE_ENDS: [&str; 10] = [
    "n_array_newlines_unclosed",
    "n_array_unclosed_with_new_lines",
    "n_number_invalid-utf-8-in-int",
    "n_object_bracket_key",
    "n_string_unescaped_newline",
    "n_structure_open_array_object",
    "y_array_with_1_and_newline",
    "y_number_double_close_to_zero",
    "y_object_with_newlines",
    "y_structure_trailing_newline",
];

/// `y_` documents hep's JSON parser reads as another value than serde_json does, with the
/// value it reads: `-0` is the integer 0, as the reference's decoder (Dart's `jsonDecode`,
/// whose integers have no negative zero) reads it; serde_json reads the float -0.0.
pub(crate) const READ_AS_DART_READS: [(&str, &str); 2] =
    [("y_number_minus_zero", "[0]"), ("y_number_negative_zero", "[0]")];

/// `n_` documents that cannot be run as one line, with the reason.
pub(crate) const NEWLINE_IS_THE_ERROR: [(&str, &str); 1] = [(
    "n_string_unescaped_newline",
    "the raw newline inside the string is the error: in a line it would end the line, and a space would make it valid",
)];

/// `n_` documents serde_json accepts once wrapped (the wrapping changed their meaning),
/// with the reason: none, but a corpus change could add one.
pub(crate) const SERDE_ACCEPTS_WRAPPED: [(&str, &str); 0] = [];

/// `n_` documents refused with a kind other than `syntax` or `invalid_utf8`.
pub(crate) const N_KINDS: [(&str, ErrorKind); 3] = [
    // 100,000 `[`: refused at the 64th level by the core's depth bound, before the line ends.
    ("n_structure_100000_opening_arrays", ErrorKind::TooDeep),
    // `{}}`: the extra `}` closes the frame's object, so the wrapper's own `}` trails it.
    ("n_structure_object_followed_by_closing_object", ErrorKind::TrailingCharacters),
    // 50,000 `[{"":` levels: refused at the 64th level, like the 100,000 arrays.
    ("n_structure_open_array_object", ErrorKind::TooDeep),
];

/// Every `i_` document, in name order, with hep's answer. Numbers in a field hep does not
/// read (an unknown frame's value) are checked for syntax only, never converted; strings
/// are UTF-8 and lone `\u` surrogate escapes decode to U+FFFD (the reference writes them,
/// the spec says a reader accepts them).
pub(crate) const EITHER: [(&str, Answer); 35] = [
    // Huge or tiny magnitudes: valid number syntax, never converted.
    ("i_number_double_huge_neg_exp", Answer::Accept),
    ("i_number_huge_exp", Answer::Accept),
    ("i_number_neg_int_huge_exp", Answer::Accept),
    ("i_number_pos_double_huge_exp", Answer::Accept),
    ("i_number_real_neg_overflow", Answer::Accept),
    ("i_number_real_pos_overflow", Answer::Accept),
    ("i_number_real_underflow", Answer::Accept),
    // Integers past 2^64: only an integer field (2^53 - 1 at most) would refuse them.
    ("i_number_too_big_neg_int", Answer::Accept),
    ("i_number_too_big_pos_int", Answer::Accept),
    ("i_number_very_big_negative_int", Answer::Accept),
    // A lone low surrogate escape in a key: U+FFFD, like in a value.
    ("i_object_key_lone_2nd_surrogate", Answer::Accept),
    // `\uDADA` alone: U+FFFD.
    ("i_string_1st_surrogate_but_2nd_missing", Answer::AcceptDelta("\u{fffd}")),
    // `\uD888\u1234`: the high surrogate is lone (U+FFFD); `\u1234` stands on its own.
    ("i_string_1st_valid_surrogate_2nd_invalid", Answer::AcceptDelta("\u{fffd}\u{1234}")),
    // UTF-16 with a BOM: bytes FF FE are not UTF-8.
    ("i_string_UTF-16LE_with_BOM", Answer::Refuse(ErrorKind::InvalidUtf8)),
    // A byte sequence that is not UTF-8 after valid characters.
    ("i_string_UTF-8_invalid_sequence", Answer::Refuse(ErrorKind::InvalidUtf8)),
    // U+D800 encoded in UTF-8 (ED A0 80): surrogates are not UTF-8.
    ("i_string_UTF8_surrogate_U+D800", Answer::Refuse(ErrorKind::InvalidUtf8)),
    // `\uD800\n`: U+FFFD, then the newline escape.
    ("i_string_incomplete_surrogate_and_escape_valid", Answer::AcceptDelta("\u{fffd}\n")),
    // `\uDd1ea`: a lone high surrogate escape, then `a`.
    ("i_string_incomplete_surrogate_pair", Answer::AcceptDelta("\u{fffd}a")),
    // `\uD800\uD800\n`: two lone high surrogates, each U+FFFD.
    ("i_string_incomplete_surrogates_escape_valid", Answer::AcceptDelta("\u{fffd}\u{fffd}\n")),
    // `\ud800`: U+FFFD.
    ("i_string_invalid_lonely_surrogate", Answer::AcceptDelta("\u{fffd}")),
    // `\ud800abc`: U+FFFD, then `abc`.
    ("i_string_invalid_surrogate", Answer::AcceptDelta("\u{fffd}abc")),
    // Byte FF: never UTF-8.
    ("i_string_invalid_utf-8", Answer::Refuse(ErrorKind::InvalidUtf8)),
    // `\uDd1e\uD834`: a low then a high surrogate, no pair: two U+FFFD.
    ("i_string_inverted_surrogates_U+1D11E", Answer::AcceptDelta("\u{fffd}\u{fffd}")),
    // `é` in ISO-8859-1 (byte E9 alone): not UTF-8.
    ("i_string_iso_latin_1", Answer::Refuse(ErrorKind::InvalidUtf8)),
    // `\uDFAA`: a lone low surrogate, U+FFFD.
    ("i_string_lone_second_surrogate", Answer::AcceptDelta("\u{fffd}")),
    // Byte 81 alone: a continuation byte without a lead is not UTF-8.
    ("i_string_lone_utf8_continuation_byte", Answer::Refuse(ErrorKind::InvalidUtf8)),
    // F4 BF BF BF: past U+10FFFF, not UTF-8.
    ("i_string_not_in_unicode_range", Answer::Refuse(ErrorKind::InvalidUtf8)),
    // C0 AF: an overlong encoding of `/`, not UTF-8.
    ("i_string_overlong_sequence_2_bytes", Answer::Refuse(ErrorKind::InvalidUtf8)),
    // FC 83 BF BF BF BF: six-byte forms are not UTF-8.
    ("i_string_overlong_sequence_6_bytes", Answer::Refuse(ErrorKind::InvalidUtf8)),
    // FC 80 80 80 80 80: an overlong NUL, not UTF-8.
    ("i_string_overlong_sequence_6_bytes_null", Answer::Refuse(ErrorKind::InvalidUtf8)),
    // E0 FF: a lead byte cut short, not UTF-8.
    ("i_string_truncated-utf-8", Answer::Refuse(ErrorKind::InvalidUtf8)),
    // UTF-16 without a BOM: E9 followed by NUL is not UTF-8.
    ("i_string_utf16BE_no_BOM", Answer::Refuse(ErrorKind::InvalidUtf8)),
    ("i_string_utf16LE_no_BOM", Answer::Refuse(ErrorKind::InvalidUtf8)),
    // 500 nested arrays: refused at the 64th level by the core's depth bound.
    ("i_structure_500_nested_arrays", Answer::Refuse(ErrorKind::TooDeep)),
    // A BOM before the value: not JSON whitespace, so a syntax error inside a line.
    ("i_structure_UTF-8_BOM_empty_object", Answer::Refuse(ErrorKind::Syntax)),
];
