//! One-pass decoding of lines in the exact shape the reference emits (its key order, no
//! whitespace, no unknown fields): each value is read straight into its typed field.
//!
//! Anything else (another key order, extra fields, whitespace, a value that would be an
//! error) gives `None`, and the general decoder takes the line, so results and error
//! reports are the same either way.

use crate::decode::Text;
use crate::frame::*;
use crate::json::{Parser, Val};

/// The known frame types, most frequent first (the order they are tried in).
const BY_FREQUENCY: [&str; 12] = [
    "message_delta",
    "tool_delta",
    "tool_liveness",
    "tool_start",
    "message_start",
    "turn_done",
    "agent_start",
    "compaction_start",
    "compaction_end",
    "turn_error",
    "cancelled",
    "hep_header",
];

/// Decodes `line` if it has the reference's exact shape, with text fields of type `S`
/// (`String`, or `Cow<str>` to borrow what needs no unescaping).
pub(crate) fn decode_shaped<'a, S: Text<'a>>(line: &'a str) -> Option<Frame<S>> {
    let mut p = Parser::new(line);
    if !p.eat(b"{\"type\":\"") {
        return None;
    }
    // The name and its closing quote together: a type that merely starts with a known name
    // (`message_deltaturn_done`) must not leave the cursor past it for the next candidate.
    let frame_type = BY_FREQUENCY.iter().find(|name| p.eat_all(&[name.as_bytes(), b"\""]))?;
    let frame = match *frame_type {
        "hep_header" => Frame::HepHeader(HepHeader {
            hep: text_field(&mut p, b",\"hep\":")?,
            fah: text_field(&mut p, b",\"fah\":")?,
            session: text_field(&mut p, b",\"session\":")?,
        }),
        "agent_start" => Frame::AgentStart(AgentStart { turn_id: turn_id(&mut p)? }),
        "message_start" => {
            Frame::MessageStart(MessageStart { turn_id: turn_id(&mut p)?, role: text_field(&mut p, b",\"role\":")? })
        }
        "message_delta" => {
            Frame::MessageDelta(MessageDelta { turn_id: turn_id(&mut p)?, delta: text_field(&mut p, b",\"delta\":")? })
        }
        "tool_start" => Frame::ToolStart(ToolStart {
            turn_id: turn_id(&mut p)?,
            id: text_field(&mut p, b",\"id\":")?,
            name: text_field(&mut p, b",\"name\":")?,
            args_summary: text_field(&mut p, b",\"args_summary\":")?,
        }),
        "tool_delta" => Frame::ToolDelta(ToolDelta {
            turn_id: turn_id(&mut p)?,
            id: text_field(&mut p, b",\"id\":")?,
            update: text_field(&mut p, b",\"update\":")?,
        }),
        "tool_liveness" => Frame::ToolLiveness(ToolLiveness {
            turn_id: turn_id(&mut p)?,
            id: text_field(&mut p, b",\"id\":")?,
            name: text_field(&mut p, b",\"name\":")?,
            action: text_field(&mut p, b",\"action\":")?,
            elapsed_ms: int_field(&mut p, b",\"elapsed_ms\":")?,
            output_bytes: if p.eat(b",\"output_bytes\":") { Some(int(&mut p)?) } else { None },
            detail: if p.eat(b",\"detail\":") {
                Some(text::<S>(&mut p)?).filter(|d| !d.as_ref().is_empty())
            } else {
                None
            },
        }),
        "turn_done" => Frame::TurnDone(TurnDone {
            turn_id: turn_id(&mut p)?,
            message: text_field(&mut p, b",\"message\":")?,
            tool_results: tool_results(&mut p)?,
            usage: Usage {
                input: int_field(&mut p, b",\"usage\":{\"input\":")?,
                output: int_field(&mut p, b",\"output\":")?,
                cost: float_field(&mut p, b",\"cost\":")?,
            },
            stop_reason: text_field(&mut p, b"},\"stop_reason\":")?,
        }),
        "turn_error" => Frame::TurnError(TurnError {
            turn_id: turn_id(&mut p)?,
            error: text_field(&mut p, b",\"error\":")?,
            fatal: bool_field(&mut p, b",\"fatal\":")?,
        }),
        "cancelled" => Frame::Cancelled(TurnRef { turn_id: turn_id(&mut p)? }),
        "compaction_start" => Frame::CompactionStart(TurnRef { turn_id: turn_id(&mut p)? }),
        "compaction_end" => Frame::CompactionEnd(CompactionEnd {
            turn_id: turn_id(&mut p)?,
            tokens_freed: int_field(&mut p, b",\"tokens_freed\":")?,
        }),
        _ => return None,
    };
    (p.eat(b"}") && p.at_end()).then_some(frame)
}

fn tool_results<'a, S: Text<'a>>(p: &mut Parser<'a>) -> Option<Vec<ToolResult<S>>> {
    if !p.eat(b",\"tool_results\":[") {
        return None;
    }
    let mut results = Vec::new();
    if p.eat(b"]") {
        return Some(results);
    }
    loop {
        results.push(ToolResult {
            id: text_field(p, b"{\"id\":")?,
            name: text_field(p, b",\"name\":")?,
            ok: bool_field(p, b",\"ok\":")?,
            text: text_field(p, b",\"text\":")?,
        });
        if !p.eat(b"}") {
            return None;
        }
        if p.eat(b"]") {
            return Some(results);
        }
        if !p.eat(b",") {
            return None;
        }
    }
}

fn turn_id(p: &mut Parser<'_>) -> Option<u64> {
    int_field(p, b",\"turn_id\":")
}

fn text<'a, S: Text<'a>>(p: &mut Parser<'a>) -> Option<S> {
    if p.peek() != Some(b'"') {
        return None;
    }
    p.string().ok().map(S::from_cow)
}

fn text_field<'a, S: Text<'a>>(p: &mut Parser<'a>, key: &[u8]) -> Option<S> {
    if p.eat(key) { text(p) } else { None }
}

/// A plain non-negative integer up to [`MAX_INT`] (no sign, no leading zero, no fraction).
fn int(p: &mut Parser<'_>) -> Option<u64> {
    p.plain_uint().filter(|v| *v <= MAX_INT)
}

fn int_field(p: &mut Parser<'_>, key: &[u8]) -> Option<u64> {
    if p.eat(key) { int(p) } else { None }
}

fn float_field(p: &mut Parser<'_>, key: &[u8]) -> Option<f64> {
    if !p.eat(key) {
        return None;
    }
    let Ok(Val::Num { text, .. }) = p.number() else { return None };
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

fn bool_field(p: &mut Parser<'_>, key: &[u8]) -> Option<bool> {
    if !p.eat(key) {
        None
    } else if p.eat(b"true") {
        Some(true)
    } else if p.eat(b"false") {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::decode_general;

    /// A line of every frame type, in the reference's shape.
    const LINES: [&str; 12] = [
        r#"{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"abc"}"#,
        r#"{"type":"agent_start","turn_id":1}"#,
        r#"{"type":"message_start","turn_id":1,"role":"assistant"}"#,
        r#"{"type":"compaction_start","turn_id":2}"#,
        r#"{"type":"message_delta","turn_id":1,"delta":"hel\"lo\n\ud83d\ude00\udc00"}"#,
        r#"{"type":"tool_start","turn_id":1,"id":"c1","name":"read","args_summary":"path=\"notes.txt\""}"#,
        r#"{"type":"tool_liveness","turn_id":2,"id":"c1","name":"bash","action":"heartbeat","elapsed_ms":5000,"output_bytes":12,"detail":"attempt 2"}"#,
        r#"{"type":"turn_done","turn_id":1,"message":"done","tool_results":[{"id":"c1","name":"read","ok":true,"text":"data"},{"id":"c2","name":"x","ok":false,"text":""}],"usage":{"input":12,"output":34,"cost":1.5e-7},"stop_reason":"stop"}"#,
        r#"{"type":"turn_error","turn_id":3,"error":"boom","fatal":true}"#,
        r#"{"type":"compaction_end","turn_id":1,"tokens_freed":4200}"#,
        r#"{"type":"cancelled","turn_id":9007199254740991}"#,
        r#"{"type":"tool_delta","turn_id":1,"id":"c1","update":"x"}"#,
    ];

    /// Every line the fast path accepts, the general decoder accepts with the same frame.
    fn agrees(line: &str) {
        if let Some(fast) = decode_shaped::<String>(line) {
            assert_eq!(decode_general(line).as_ref(), Ok(&fast), "{line}");
        }
    }

    #[test]
    fn reference_lines_take_the_fast_path() {
        for line in LINES {
            assert!(decode_shaped::<String>(line).is_some(), "{line}");
            agrees(line);
        }
    }

    #[test]
    fn a_type_extending_a_known_name_is_not_read_as_the_next_candidate() {
        // Found by the decode_line fuzz target: after trying `message_delta` the cursor stayed
        // past it, and `turn_done` matched what followed, so an unknown frame read as turn_done.
        let line = r#"{"type":"message_deltaturn_done","turn_id":1,"message":"","tool_results":[],"usage":{"input":0,"output":0,"cost":1.25},"stop_reason":"stop"}"#;
        assert_eq!(decode_shaped::<String>(line), None);
        agrees(line);
        let frame = crate::decode(line.as_bytes()).unwrap();
        assert_eq!(frame.frame_type(), "message_deltaturn_done");
    }

    #[test]
    fn mutated_lines_agree_with_the_general_decoder() {
        let inserts = ["", " ", "-", "0", "1", ".5", "e9", "\"", "\\", "}", "{", ",", "\u{1}", "é", "null", "true"];
        for line in LINES {
            for (at, _) in line.char_indices() {
                let (head, tail) = line.split_at(at);
                let mut rest = tail.chars();
                rest.next();
                for insert in inserts {
                    agrees(&format!("{head}{insert}{}", rest.as_str()));
                    agrees(&format!("{head}{insert}{tail}"));
                }
            }
        }
    }
}
