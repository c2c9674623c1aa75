//! Shared strategies: hostile text, 53-bit integers, finite floats, every known frame type,
//! JSON argument objects, and the proptest configuration.

use hep_core::*;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::Config;
use serde_json::{Map, Value};

/// A configuration running `cases` cases (or `PROPTEST_CASES` when set, for deeper runs),
/// without writing regression files next to the sources.
pub(crate) fn config(cases: u32) -> Config {
    let defaults = Config::default();
    let cases = if std::env::var_os("PROPTEST_CASES").is_some() { defaults.cases } else { cases };
    Config { cases, failure_persistence: None, ..defaults }
}

/// Characters that stress the encoder and decoder: every kind of escape, JSON punctuation,
/// the line separators, non-characters, BOM and astral characters (two UTF-16 units).
const SPECIAL: &[char] = &[
    '\0',
    '\u{1}',
    '\u{8}',
    '\t',
    '\n',
    '\u{b}',
    '\u{c}',
    '\r',
    '\u{1b}',
    '\u{1f}',
    ' ',
    '"',
    '\\',
    '/',
    '\u{7f}',
    '\u{80}',
    '\u{a0}',
    'é',
    '…',
    '\u{2028}',
    '\u{2029}',
    '\u{feff}',
    '\u{fffd}',
    '\u{ffff}',
    '\u{d7ff}',
    '\u{e000}',
    '😀',
    '👩',
    '\u{200d}',
    '\u{10000}',
    '\u{10ffff}',
    '{',
    '}',
    '[',
    ']',
    ':',
    ',',
    'u',
    'd',
];

/// One character: special, anything, or plain ASCII.
pub(crate) fn any_char() -> impl Strategy<Value = char> + Clone {
    prop_oneof![
        3 => prop::sample::select(SPECIAL),
        2 => any::<char>(),
        3 => prop::char::range('a', 'z'),
    ]
}

/// A short string of [`any_char`]s.
pub(crate) fn text() -> impl Strategy<Value = String> + Clone {
    vec(any_char(), 0..24).prop_map(String::from_iter)
}

/// A string of [`any_char`]s up to `max` characters.
pub(crate) fn text_up_to(max: usize) -> impl Strategy<Value = String> + Clone {
    vec(any_char(), 0..=max).prop_map(String::from_iter)
}

/// A non-empty short string.
pub(crate) fn nonempty_text() -> impl Strategy<Value = String> + Clone {
    vec(any_char(), 1..24).prop_map(String::from_iter)
}

/// Text that is sometimes longer than the 2000-unit tool result cap.
pub(crate) fn long_text() -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        3 => text(),
        1 => (text(), 0..400usize).prop_map(|(s, n)| s.repeat(n)),
    ]
}

/// An integer field value: 0 to 2^53 - 1, with the edges well represented.
pub(crate) fn int53() -> impl Strategy<Value = u64> + Clone {
    prop_oneof![Just(0u64), Just(1u64), Just(MAX_INT), Just(MAX_INT - 1), 0u64..1000, 0u64..=MAX_INT,]
}

/// Floats at the edges of the encoder's cases.
const FLOAT_EDGES: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    0.300_000_000_000_000_04,
    1e-6,
    9.99e-7,
    1e-7,
    1.5e-7,
    1e20,
    1e21,
    9.99e20,
    1.5e21,
    f64::MAX,
    f64::MIN,
    f64::MIN_POSITIVE,
    5e-324,
    -5e-324,
    f64::EPSILON,
    123_456.789,
    9_007_199_254_740_992.0,
];

/// A finite `f64`: zero of both signs, tiny, huge, negative, subnormal, and the Dart
/// notation switch points.
pub(crate) fn finite_f64() -> impl Strategy<Value = f64> + Clone {
    use prop::num::f64 as f;
    prop_oneof![
        prop::sample::select(FLOAT_EDGES),
        f::POSITIVE | f::NEGATIVE | f::NORMAL | f::SUBNORMAL | f::ZERO,
        -1e6..1e6f64,
        -1.0..1.0f64,
    ]
}

/// A `tool_liveness.action`: a v1 action or any text.
pub(crate) fn action() -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        3 => liveness_action().prop_map(|a| a.as_str().to_owned()),
        1 => text(),
    ]
}

/// One of the five v1 liveness actions.
pub(crate) fn liveness_action() -> impl Strategy<Value = LivenessAction> + Clone {
    prop::sample::select(
        &[
            LivenessAction::Heartbeat,
            LivenessAction::CancelRetry,
            LivenessAction::BackgroundConvert,
            LivenessAction::Escalate,
            LivenessAction::Advisory,
        ][..],
    )
}

fn usage() -> impl Strategy<Value = Usage> {
    (int53(), int53(), finite_f64()).prop_map(|(input, output, cost)| Usage { input, output, cost })
}

fn tool_result() -> impl Strategy<Value = ToolResult> {
    (text(), text(), any::<bool>(), text()).prop_map(|(id, name, ok, text)| ToolResult { id, name, ok, text })
}

/// A frame of any of the twelve known types, with arbitrary field values.
///
/// `tool_liveness.detail` is never `Some("")`: the encoder omits an empty detail (the spec's
/// "omitted when empty"), so that value is not representable on the wire.
pub(crate) fn known_frame() -> impl Strategy<Value = Frame> {
    let hep = prop_oneof![Just("v1".to_owned()), text()];
    Union::new(vec![
        (hep, text(), text()).prop_map(|(hep, fah, session)| Frame::HepHeader(HepHeader { hep, fah, session })).boxed(),
        int53().prop_map(|turn_id| Frame::AgentStart(AgentStart { turn_id })).boxed(),
        (int53(), prop_oneof![Just("assistant".to_owned()), text()])
            .prop_map(|(turn_id, role)| Frame::MessageStart(MessageStart { turn_id, role }))
            .boxed(),
        (int53(), text()).prop_map(|(turn_id, delta)| Frame::MessageDelta(MessageDelta { turn_id, delta })).boxed(),
        (int53(), text(), text(), text())
            .prop_map(|(turn_id, id, name, args_summary)| {
                Frame::ToolStart(ToolStart { turn_id, id, name, args_summary })
            })
            .boxed(),
        (int53(), text(), text())
            .prop_map(|(turn_id, id, update)| Frame::ToolDelta(ToolDelta { turn_id, id, update }))
            .boxed(),
        (int53(), text(), text(), action(), int53(), prop::option::of(int53()), prop::option::of(nonempty_text()))
            .prop_map(|(turn_id, id, name, action, elapsed_ms, output_bytes, detail)| {
                Frame::ToolLiveness(ToolLiveness { turn_id, id, name, action, elapsed_ms, output_bytes, detail })
            })
            .boxed(),
        (int53(), text(), vec(tool_result(), 0..4), usage(), text())
            .prop_map(|(turn_id, message, tool_results, usage, stop_reason)| {
                Frame::TurnDone(TurnDone { turn_id, message, tool_results, usage, stop_reason })
            })
            .boxed(),
        (int53(), text(), any::<bool>())
            .prop_map(|(turn_id, error, fatal)| Frame::TurnError(TurnError { turn_id, error, fatal }))
            .boxed(),
        int53().prop_map(|turn_id| Frame::Cancelled(TurnRef { turn_id })).boxed(),
        int53().prop_map(|turn_id| Frame::CompactionStart(TurnRef { turn_id })).boxed(),
        (int53(), int53())
            .prop_map(|(turn_id, tokens_freed)| Frame::CompactionEnd(CompactionEnd { turn_id, tokens_freed }))
            .boxed(),
    ])
}

/// A JSON value as a tool argument: scalars of every kind, small nested arrays and objects.
pub(crate) fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        finite_f64().prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            vec((text(), inner), 0..4).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A tool call's argument object (keys in generation order).
pub(crate) fn args() -> impl Strategy<Value = Map<String, Value>> {
    vec((text(), json_value()), 0..5).prop_map(|kv| kv.into_iter().collect())
}

/// An exit code: the three meaningful ones, unknown, and a few others.
pub(crate) fn exit_code() -> impl Strategy<Value = Option<i32>> {
    prop::sample::select(&[None, Some(0), Some(1), Some(130), Some(2), Some(137), Some(-1)][..])
}

/// Cuts `bytes` at the given split points (any order, duplicates allowed).
pub(crate) fn chunks<'a>(bytes: &'a [u8], splits: &[prop::sample::Index]) -> Vec<&'a [u8]> {
    let mut cuts: Vec<usize> = splits.iter().map(|i| i.index(bytes.len() + 1)).collect();
    cuts.push(0);
    cuts.push(bytes.len());
    cuts.sort_unstable();
    cuts.windows(2).filter_map(|w| if let [a, b] = w { bytes.get(*a..*b) } else { None }).collect()
}

/// Bytes that print as an escaped byte string in failure reports.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Bytes(pub(crate) Vec<u8>);

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}
