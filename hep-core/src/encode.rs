//! Frame to the exact bytes the reference emitter writes: its key order, Dart string
//! escaping and Dart `double.toString` number format.

use crate::error::{Error, ErrorKind, Result};
use crate::frame::{Frame, MAX_INT, ToolResult, Usage};
use crate::scan::find_special;
use serde_json::{Map, Value};

/// Encodes `frame` as one line of HEP, without the trailing `\n`.
///
/// Unknown frames are written back verbatim. Fails (`Unencodable`) for a non-finite
/// `cost` (the reference cannot write one either) and for an integer field above
/// [`MAX_INT`] (the decoder would refuse the line).
pub fn encode(frame: &Frame) -> Result<String> {
    let mut out = String::with_capacity(size_hint(frame));
    encode_into(frame, &mut out)?;
    Ok(out)
}

/// A close upper estimate of the encoded length of `frame` when nothing needs escaping.
fn size_hint(frame: &Frame) -> usize {
    let text = match frame {
        Frame::HepHeader(f) => f.hep.len() + f.fah.len() + f.session.len(),
        Frame::MessageStart(f) => f.role.len(),
        Frame::MessageDelta(f) => f.delta.len(),
        Frame::ToolStart(f) => f.id.len() + f.name.len() + f.args_summary.len(),
        Frame::ToolDelta(f) => f.id.len() + f.update.len(),
        Frame::ToolLiveness(f) => {
            f.id.len() + f.name.len() + f.action.len() + f.detail.as_ref().map_or(0, String::len) + 40
        }
        Frame::TurnDone(f) => {
            let results: usize = f.tool_results.iter().map(|r| r.id.len() + r.name.len() + r.text.len() + 40).sum();
            f.message.len() + results + f.stop_reason.len() + 80
        }
        Frame::TurnError(f) => f.error.len(),
        Frame::Unknown(u) => u.raw.len(),
        Frame::AgentStart(_) | Frame::Cancelled(_) | Frame::CompactionStart(_) | Frame::CompactionEnd(_) => 16,
    };
    text + 64
}

/// `,"<key>":`, the separator and key before every field but `type`.
macro_rules! key {
    ($name:literal) => {
        concat!(",\"", $name, "\":")
    };
}

/// Appends the encoding of `frame` to `out` (see [`encode`]).
pub fn encode_into(frame: &Frame, out: &mut String) -> Result<()> {
    if let Frame::Unknown(u) = frame {
        out.push_str(&u.raw);
        return Ok(());
    }
    out.push_str("{\"type\":\"");
    out.push_str(frame.frame_type());
    out.push('"');
    let o = &mut Obj(out, None);
    match frame {
        Frame::HepHeader(f) => {
            o.str(key!("hep"), &f.hep).str(key!("fah"), &f.fah).str(key!("session"), &f.session);
        }
        Frame::AgentStart(f) => {
            o.int(key!("turn_id"), f.turn_id);
        }
        Frame::MessageStart(f) => {
            o.int(key!("turn_id"), f.turn_id).str(key!("role"), &f.role);
        }
        Frame::MessageDelta(f) => {
            o.int(key!("turn_id"), f.turn_id).str(key!("delta"), &f.delta);
        }
        Frame::ToolStart(f) => {
            o.int(key!("turn_id"), f.turn_id).str(key!("id"), &f.id).str(key!("name"), &f.name);
            o.str(key!("args_summary"), &f.args_summary);
        }
        Frame::ToolDelta(f) => {
            o.int(key!("turn_id"), f.turn_id).str(key!("id"), &f.id).str(key!("update"), &f.update);
        }
        Frame::ToolLiveness(f) => {
            o.int(key!("turn_id"), f.turn_id).str(key!("id"), &f.id).str(key!("name"), &f.name);
            o.str(key!("action"), &f.action).int(key!("elapsed_ms"), f.elapsed_ms);
            if let Some(bytes) = f.output_bytes {
                o.int(key!("output_bytes"), bytes);
            }
            if let Some(detail) = f.detail.as_deref().filter(|d| !d.is_empty()) {
                o.str(key!("detail"), detail);
            }
        }
        Frame::TurnDone(f) => {
            o.int(key!("turn_id"), f.turn_id).str(key!("message"), &f.message);
            o.0.push_str(key!("tool_results"));
            write_tool_results(o.0, &f.tool_results);
            o.0.push_str(key!("usage"));
            write_usage(o.0, &f.usage)?;
            o.str(key!("stop_reason"), &f.stop_reason);
        }
        Frame::TurnError(f) => {
            o.int(key!("turn_id"), f.turn_id).str(key!("error"), &f.error).bool(key!("fatal"), f.fatal);
        }
        Frame::Cancelled(f) | Frame::CompactionStart(f) => {
            o.int(key!("turn_id"), f.turn_id);
        }
        Frame::CompactionEnd(f) => {
            o.int(key!("turn_id"), f.turn_id).int(key!("tokens_freed"), f.tokens_freed);
        }
        Frame::Unknown(_) => {}
    }
    o.0.push('}');
    o.1.take().map_or(Ok(()), Err)
}

fn write_tool_results(out: &mut String, results: &[ToolResult]) {
    out.push('[');
    for (i, r) in results.iter().enumerate() {
        out.push_str(if i > 0 { ",{\"id\":" } else { "{\"id\":" });
        write_str(out, &r.id);
        out.push_str(key!("name"));
        write_str(out, &r.name);
        out.push_str(if r.ok { ",\"ok\":true,\"text\":" } else { ",\"ok\":false,\"text\":" });
        write_str(out, &r.text);
        out.push('}');
    }
    out.push(']');
}

fn write_usage(out: &mut String, usage: &Usage) -> Result<()> {
    out.push_str("{\"input\":");
    write_field_int(out, usage.input)?;
    out.push_str(key!("output"));
    write_field_int(out, usage.output)?;
    out.push_str(key!("cost"));
    write_f64(out, usage.cost)?;
    out.push('}');
    Ok(())
}

/// Writes the fields of one frame object, each given with its `key!` prefix; remembers
/// the first value that cannot be encoded.
struct Obj<'a>(&'a mut String, Option<Error>);

impl Obj<'_> {
    fn str(&mut self, key: &str, value: &str) -> &mut Self {
        self.0.push_str(key);
        write_str(self.0, value);
        self
    }

    fn int(&mut self, key: &str, value: u64) -> &mut Self {
        self.0.push_str(key);
        if let Err(e) = write_field_int(self.0, value) {
            self.1.get_or_insert(e);
        }
        self
    }

    fn bool(&mut self, key: &str, value: bool) -> &mut Self {
        self.0.push_str(key);
        self.0.push_str(if value { "true" } else { "false" });
        self
    }
}

/// An integer field of a frame: at most [`MAX_INT`], so that every line written decodes back.
fn write_field_int(out: &mut String, value: u64) -> Result<()> {
    if value > MAX_INT {
        return Err(Error::new(
            ErrorKind::Unencodable,
            format!("{value} is above the largest integer field value {MAX_INT}"),
        ));
    }
    write_int(out, value);
    Ok(())
}

fn write_int(out: &mut String, value: u64) {
    out.push_str(itoa::Buffer::new().format(value));
}

/// Writes `s` as a JSON string with the reference's escaping: `"` and `\` escaped,
/// `\b \t \n \f \r` for those controls, `\u00xx` (lowercase) for the other controls,
/// everything else raw.
pub fn write_str(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut rest = s;
    while let Some(at) = find_special(rest.as_bytes()) {
        let (plain, tail) = rest.split_at(at);
        out.push_str(plain);
        let mut chars = tail.chars();
        if let Some(c) = chars.next() {
            write_escape(out, c);
        }
        rest = chars.as_str();
    }
    out.push_str(rest);
    out.push('"');
}

fn write_escape(out: &mut String, c: char) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        _ => {
            out.push_str("\\u00");
            let b = c as u32;
            for nibble in [(b >> 4) & 0xf, b & 0xf] {
                out.push(char::from(HEX.get(nibble as usize).copied().unwrap_or(b'0')));
            }
        }
    }
}

/// Writes `value` the way Dart's `double.toString()` does: shortest round-trip digits,
/// `.0` on integral values, decimal notation for magnitudes in [1e-6, 1e21), exponent
/// notation (`1e-7`, `1.5e+21`) outside. Fails for NaN and infinities.
pub fn write_f64(out: &mut String, value: f64) -> Result<()> {
    if !value.is_finite() {
        return Err(Error::new(ErrorKind::Unencodable, format!("{value} is not a finite number")));
    }
    if value == 0.0 {
        out.push_str(if value.is_sign_negative() { "-0.0" } else { "0.0" });
        return Ok(());
    }
    let mut buf = ryu::Buffer::new();
    let (digits, exp) = split_shortest(buf.format_finite(value.abs()));
    if value < 0.0 {
        out.push('-');
    }
    // value = 0.d1d2...dk × 10^exp, i.e. the decimal point sits after `exp` digits.
    let k = digits.len() as i32;
    if (-5..=21).contains(&exp) {
        if exp <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exp) as usize));
            out.push_str(&digits);
        } else if exp >= k {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', (exp - k) as usize));
            out.push_str(".0");
        } else {
            let (int, frac) = digits.split_at(exp as usize);
            out.push_str(int);
            out.push('.');
            out.push_str(frac);
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let e = exp - 1;
        out.push('e');
        out.push(if e < 0 { '-' } else { '+' });
        write_int(out, u64::from(e.unsigned_abs()));
    }
    Ok(())
}

/// Splits ryu's shortest representation of a positive finite number into its significant
/// digits (no leading or trailing zeros) and the position of the decimal point relative to them.
fn split_shortest(text: &str) -> (String, i32) {
    let (mantissa, exp10) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits: String = int.chars().chain(frac.chars()).collect();
    let mut point = int.len() as i32 + exp10;
    let leading = digits.len() - digits.trim_start_matches('0').len();
    digits.drain(..leading);
    point -= leading as i32;
    let trimmed = digits.trim_end_matches('0').len();
    digits.truncate(trimmed);
    (digits, point)
}

/// Writes a JSON value the way Dart's `jsonEncode` does (objects in their order, Dart
/// string escaping, integers plainly, floats as Dart doubles).
pub fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                write_int(out, u);
            } else if let Some(i) = n.as_i64() {
                out.push('-');
                write_int(out, i.unsigned_abs());
            } else if let Some(f) = n.as_f64() {
                // serde_json numbers are always finite, so this cannot fail.
                let _ = write_f64(out, f);
            }
        }
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => write_object(out, map),
    }
}

/// Writes a JSON object the way Dart's `jsonEncode` does, keys in their order.
pub fn write_object(out: &mut String, map: &Map<String, Value>) {
    out.push('{');
    for (i, (k, v)) in map.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(out, k);
        out.push(':');
        write_value(out, v);
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: f64) -> String {
        let mut s = String::new();
        write_f64(&mut s, v).unwrap();
        s
    }

    #[test]
    fn dart_doubles() {
        let table = [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (2.0, "2.0"),
            (0.5, "0.5"),
            (0.000003, "0.000003"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (1e20, "100000000000000000000.0"),
            (123.456, "123.456"),
            (-42.25, "-42.25"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
        ];
        for (v, want) in table {
            assert_eq!(f(v), want, "{v:e}");
        }
    }

    #[test]
    fn integers_past_the_decodable_range_are_refused() {
        use crate::frame::{AgentStart, TurnDone};
        let big = Frame::AgentStart(AgentStart { turn_id: MAX_INT + 1 });
        assert_eq!(encode(&big).unwrap_err().kind(), ErrorKind::Unencodable);
        let usage = Usage { input: MAX_INT + 1, output: 0, cost: 0.0 };
        let done =
            TurnDone { turn_id: 1, message: String::new(), tool_results: vec![], usage, stop_reason: "stop".into() };
        assert_eq!(encode(&Frame::TurnDone(done)).unwrap_err().kind(), ErrorKind::Unencodable);
        assert!(encode(&Frame::AgentStart(AgentStart { turn_id: MAX_INT })).is_ok());
    }

    #[test]
    fn non_finite_is_refused() {
        let err = write_f64(&mut String::new(), f64::NAN).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Unencodable);
    }

    #[test]
    fn every_control_is_escaped_as_the_reference_does() {
        for b in 0..0x20u8 {
            let mut s = String::new();
            write_str(&mut s, &format!("a{}b", char::from(b)));
            let want = match b {
                8 => "\\b".to_owned(),
                9 => "\\t".to_owned(),
                10 => "\\n".to_owned(),
                12 => "\\f".to_owned(),
                13 => "\\r".to_owned(),
                _ => format!("\\u{b:04x}"),
            };
            assert_eq!(s, format!("\"a{want}b\""), "byte {b:#x}");
        }
    }

    #[test]
    fn escapes_are_written_at_every_alignment_as_serde_reads_them_back() {
        let pieces = ["a", "é", "😀", "\n", "\"", "\\", "\u{1}", "\t", "0123456789abcdef", "日本語"];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..3000 {
            let mut text = String::new();
            while text.len() < 70 {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                text.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
                let mut line = String::new();
                write_str(&mut line, &text);
                assert_eq!(serde_json::from_str::<String>(&line).unwrap(), text, "{line}");
                // serde_json escapes exactly as the reference does for these pieces.
                assert_eq!(line, serde_json::to_string(&text).unwrap(), "{text:?}");
            }
        }
    }

    #[test]
    fn every_frame_type_round_trips_with_its_own_name() {
        let lines = [
            r#"{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"abc"}"#,
            r#"{"type":"agent_start","turn_id":0}"#,
            r#"{"type":"message_start","turn_id":9,"role":"assistant"}"#,
            r#"{"type":"message_delta","turn_id":10,"delta":"hi"}"#,
            r#"{"type":"tool_start","turn_id":99,"id":"c1","name":"read","args_summary":"x"}"#,
            r#"{"type":"tool_delta","turn_id":100,"id":"c1","update":"x"}"#,
            r#"{"type":"tool_liveness","turn_id":255,"id":"c1","name":"bash","action":"heartbeat","elapsed_ms":256,"output_bytes":12,"detail":"d"}"#,
            r#"{"type":"turn_done","turn_id":1,"message":"m","tool_results":[{"id":"c1","name":"read","ok":true,"text":"t"}],"usage":{"input":12,"output":34,"cost":1.5},"stop_reason":"stop"}"#,
            r#"{"type":"turn_error","turn_id":3,"error":"e","fatal":false}"#,
            r#"{"type":"cancelled","turn_id":9007199254740991}"#,
            r#"{"type":"compaction_start","turn_id":2}"#,
            r#"{"type":"compaction_end","turn_id":2,"tokens_freed":4200}"#,
            r#"{"type":"some_future_frame","turn_id":2}"#,
        ];
        for line in lines {
            let frame = crate::decode(line.as_bytes()).unwrap();
            assert!(encode(&frame).unwrap().starts_with(&format!("{{\"type\":\"{}\"", frame.frame_type())));
            assert_eq!(encode(&frame).unwrap(), line);
        }
    }

    #[test]
    fn dart_strings() {
        let mut s = String::new();
        write_str(&mut s, "a\"b\\c\n\u{1}\u{7f}/é\u{2028}\u{8}\u{c}");
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u0001\u{7f}/é\u{2028}\\b\\f\"");
    }
}
