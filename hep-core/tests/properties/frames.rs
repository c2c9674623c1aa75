//! Frames round-trip: `decode(encode(f)) == f`, encoding is stable, and an encoded line is
//! one line of valid JSON with no raw control character.

use crate::strategies::*;
use hep_core::*;
use proptest::prelude::*;
use serde_json::Value;

/// No byte below 0x20 (so no raw `\n`, `\r` or other control character) in an encoded line.
fn assert_single_clean_line(line: &str) -> Result<(), TestCaseError> {
    let bad = line.bytes().position(|b| b < 0x20);
    prop_assert!(bad.is_none(), "raw control byte at {:?} in {:?}", bad, line);
    Ok(())
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn every_known_frame_round_trips(frame in known_frame()) {
        let line = encode(&frame)?;
        assert_single_clean_line(&line)?;
        let back = decode(line.as_bytes())?;
        prop_assert_eq!(&back, &frame);
        prop_assert_eq!(encode(&back)?, line.clone());
        // `type` comes first, as the spec requires.
        let type_prefix = format!("{{\"type\":\"{}\"", frame.frame_type());
        prop_assert!(line.starts_with(&type_prefix), "{}", line);
        // An independent JSON parser reads the same object.
        let json: Value = serde_json::from_str(&line).map_err(|e| TestCaseError::fail(format!("{e}: {line}")))?;
        prop_assert_eq!(json.get("type").and_then(Value::as_str), Some(frame.frame_type()));
        prop_assert_eq!(json.get("turn_id").and_then(Value::as_u64), frame.turn_id());
    }

    #[test]
    fn any_string_round_trips_through_message_delta(delta in prop_oneof![any::<String>(), text_up_to(200)], turn_id in int53()) {
        let frame = Frame::MessageDelta(MessageDelta { turn_id, delta: delta.clone() });
        let line = encode(&frame)?;
        assert_single_clean_line(&line)?;
        match decode(line.as_bytes())? {
            Frame::MessageDelta(m) => {
                prop_assert_eq!(&m.delta, &delta);
                prop_assert_eq!(m.turn_id, turn_id);
            }
            other => prop_assert!(false, "decoded to {:?}", other),
        }
        let json: Value = serde_json::from_str(&line).map_err(|e| TestCaseError::fail(format!("{e}: {line}")))?;
        prop_assert_eq!(json.get("delta").and_then(Value::as_str), Some(delta.as_str()));
    }

    #[test]
    fn costs_round_trip_exactly(cost in finite_f64()) {
        let frame = Frame::TurnDone(TurnDone {
            turn_id: 1,
            message: String::new(),
            tool_results: Vec::new(),
            usage: Usage { input: 0, output: 0, cost },
            stop_reason: "stop".into(),
        });
        let line = encode(&frame)?;
        let Frame::TurnDone(back) = decode(line.as_bytes())? else {
            return Err(TestCaseError::fail(format!("not a turn_done: {line}")));
        };
        // Bit-exact, so -0.0 stays -0.0.
        prop_assert_eq!(back.usage.cost.to_bits(), cost.to_bits(), "{}", line);
        // Always a float literal (`0.0`, never `0`), as Dart's double.toString writes it.
        let text = line.split("\"cost\":").nth(1).and_then(|t| t.split('}').next()).unwrap_or_default();
        prop_assert!(text.contains('.') || text.contains('e'), "cost written as {}", text);
        let reparsed: f64 = text.parse().map_err(|e| TestCaseError::fail(format!("{e}: {text}")))?;
        prop_assert_eq!(reparsed.to_bits(), cost.to_bits());
    }

    #[test]
    fn unknown_frame_types_round_trip_verbatim(
        frame_type in text().prop_filter("unknown type", |t| !Frame::KNOWN_TYPES.contains(&t.as_str())),
        turn_id in prop::option::of(int53()),
        extra in text(),
    ) {
        let mut line = String::from("{\"type\":");
        hep_core::encode::write_str(&mut line, &frame_type);
        if let Some(id) = turn_id {
            line.push_str(&format!(",\"turn_id\":{id}"));
        }
        line.push_str(",\"x\":");
        hep_core::encode::write_str(&mut line, &extra);
        line.push('}');
        let frame = decode(line.as_bytes())?;
        let Frame::Unknown(unknown) = &frame else {
            return Err(TestCaseError::fail(format!("not unknown: {frame:?}")));
        };
        prop_assert_eq!(&unknown.frame_type, &frame_type);
        prop_assert_eq!(unknown.turn_id, turn_id);
        prop_assert_eq!(&unknown.raw, &line);
        prop_assert_eq!(encode(&frame)?, line.clone());
        prop_assert_eq!(decode(line.as_bytes())?, frame);
    }

    #[test]
    fn empty_liveness_detail_is_omitted(
        turn_id in int53(), id in text(), name in text(), action in action(), elapsed_ms in int53(),
        output_bytes in prop::option::of(int53()),
    ) {
        let with_empty = ToolLiveness { turn_id, id, name, action, elapsed_ms, output_bytes, detail: Some(String::new()) };
        let without = ToolLiveness { detail: None, ..with_empty.clone() };
        let line = encode(&Frame::ToolLiveness(with_empty))?;
        prop_assert_eq!(&line, &encode(&Frame::ToolLiveness(without.clone()))?);
        prop_assert!(!line.contains("\"detail\""));
        prop_assert_eq!(line.contains("\"output_bytes\""), output_bytes.is_some());
        prop_assert_eq!(decode(line.as_bytes())?, Frame::ToolLiveness(without));
    }
}
