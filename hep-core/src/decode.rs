//! One line to one [`Frame`], or a typed [`Error`] with kind, column and excerpt.
//!
//! Accepts everything the reference emits (including `\udxxx` lone-surrogate escapes,
//! read as U+FFFD), tolerates unknown fields and unknown frame types, and rejects
//! non-object lines, wrong types, missing or duplicated fields and out-of-range integers.

use crate::borrowed::FrameRef;
use crate::error::{Error, ErrorKind, Result, clip};
use crate::fast_decode::decode_shaped;
use crate::frame::*;
use crate::json::{self, Member, Val};
use std::borrow::Cow;

/// Decodes one line (without its `\n`) into a frame. Errors carry the column; the caller
/// places them on a line with [`Error::at_line`].
pub fn decode(line: &[u8]) -> Result<Frame> {
    decode_owned(utf8(line)?)
}

/// The string types a line decodes into: `String` (an owned frame) and `Cow<'a, str>` (a
/// frame borrowing from the line). Each decodes through its own function, compiled in this
/// crate: code generic over the string type (the stream, instantiated in the caller's crate)
/// still runs the decoder as this crate optimized it.
pub(crate) trait Text<'a>: AsRef<str> + Sized {
    /// Decodes one line already known to be UTF-8 (see [`decode`]).
    fn decode(text: &'a str) -> Result<Frame<Self>>;

    /// A string read from the line: borrowed from it, or owned when it was unescaped.
    fn from_cow(text: Cow<'a, str>) -> Self;
}

impl<'a> Text<'a> for String {
    fn decode(text: &'a str) -> Result<Frame> {
        decode_owned(text)
    }

    #[inline]
    fn from_cow(text: Cow<'a, str>) -> Self {
        text.into_owned()
    }
}

impl<'a> Text<'a> for Cow<'a, str> {
    fn decode(text: &'a str) -> Result<FrameRef<'a>> {
        decode_borrowed(text)
    }

    #[inline]
    fn from_cow(text: Cow<'a, str>) -> Self {
        text
    }
}

/// Decodes one UTF-8 line into an owned frame.
fn decode_owned(text: &str) -> Result<Frame> {
    decode_str(text)
}

/// Decodes one UTF-8 line into a frame borrowing from it.
fn decode_borrowed(text: &str) -> Result<FrameRef<'_>> {
    decode_str(text)
}

/// Decodes one line already known to be UTF-8, with text fields of type `S`: the one-pass
/// decoder for the reference's shape, else the general one.
fn decode_str<'a, S: Text<'a>>(text: &'a str) -> Result<Frame<S>> {
    decode_shaped(text).map_or_else(|| decode_general(text), Ok)
}

/// Decodes any JSON object line: fields in any order, whitespace, unknown fields.
pub(crate) fn decode_general<'a, S: Text<'a>>(text: &'a str) -> Result<Frame<S>> {
    let (start, val) = json::parse(text)?;
    let Val::Obj(members) = val else {
        return Err(json::error_at(
            text,
            start,
            ErrorKind::NotAnObject,
            format!("expected a JSON object, found {}", val.type_name()),
        ));
    };
    let mut fields = Fields { src: text, pos: start, frame: "frame", members };
    let frame_type = fields.req_str("type")?;
    fields.build(frame_type)
}

/// `line` as UTF-8, or an `invalid_utf8` error at the first bad byte.
pub(crate) fn utf8(line: &[u8]) -> Result<&str> {
    if let Ok(text) = simdutf8::basic::from_utf8(line) {
        return Ok(text);
    }
    let pos = std::str::from_utf8(line).err().map_or(0, |e| e.valid_up_to());
    let valid = std::str::from_utf8(line.get(..pos).unwrap_or_default()).unwrap_or_default();
    let (column, excerpt) = json::locate(valid, pos);
    Err(Error::new(ErrorKind::InvalidUtf8, format!("invalid UTF-8 at byte {}", pos + 1)).at_column(column, excerpt))
}

/// The members of one object being turned into a typed value.
struct Fields<'a> {
    src: &'a str,
    pos: usize,
    frame: &'static str,
    members: Vec<Member<'a>>,
}

impl<'a> Fields<'a> {
    fn build<S: Text<'a>>(mut self, frame_type: Cow<'a, str>) -> Result<Frame<S>> {
        if let Some(known) = Frame::KNOWN_TYPES.iter().find(|t| **t == frame_type) {
            self.frame = known;
        }
        Ok(match self.frame {
            "hep_header" => Frame::HepHeader(HepHeader {
                hep: self.req_string("hep")?,
                fah: self.req_string("fah")?,
                session: self.req_string("session")?,
            }),
            "agent_start" => Frame::AgentStart(AgentStart { turn_id: self.turn_id()? }),
            "message_start" => {
                Frame::MessageStart(MessageStart { turn_id: self.turn_id()?, role: self.req_string("role")? })
            }
            "message_delta" => {
                Frame::MessageDelta(MessageDelta { turn_id: self.turn_id()?, delta: self.req_string("delta")? })
            }
            "tool_start" => Frame::ToolStart(ToolStart {
                turn_id: self.turn_id()?,
                id: self.req_string("id")?,
                name: self.req_string("name")?,
                args_summary: self.req_string("args_summary")?,
            }),
            "tool_delta" => Frame::ToolDelta(ToolDelta {
                turn_id: self.turn_id()?,
                id: self.req_string("id")?,
                update: self.req_string("update")?,
            }),
            "tool_liveness" => Frame::ToolLiveness(ToolLiveness {
                turn_id: self.turn_id()?,
                id: self.req_string("id")?,
                name: self.req_string("name")?,
                action: self.req_string("action")?,
                elapsed_ms: self.req_int("elapsed_ms")?,
                output_bytes: self.opt_int("output_bytes")?,
                detail: self.opt_str("detail")?.filter(|d| !d.is_empty()).map(S::from_cow),
            }),
            "turn_done" => Frame::TurnDone(TurnDone {
                turn_id: self.turn_id()?,
                message: self.req_string("message")?,
                tool_results: self.tool_results()?,
                usage: self.usage()?,
                stop_reason: self.req_string("stop_reason")?,
            }),
            "turn_error" => Frame::TurnError(TurnError {
                turn_id: self.turn_id()?,
                error: self.req_string("error")?,
                fatal: self.req_bool("fatal")?,
            }),
            "cancelled" => Frame::Cancelled(TurnRef { turn_id: self.turn_id()? }),
            "compaction_start" => Frame::CompactionStart(TurnRef { turn_id: self.turn_id()? }),
            "compaction_end" => Frame::CompactionEnd(CompactionEnd {
                turn_id: self.turn_id()?,
                tokens_freed: self.req_int("tokens_freed")?,
            }),
            _ => Frame::Unknown(self.unknown(frame_type)),
        })
    }

    fn unknown<S: Text<'a>>(mut self, frame_type: Cow<'a, str>) -> UnknownFrame<S> {
        let turn_id = self.take("turn_id").ok().flatten().and_then(|(pos, v)| self.int(pos, "turn_id", v).ok());
        UnknownFrame { frame_type: S::from_cow(frame_type), turn_id, raw: S::from_cow(Cow::Borrowed(self.src)) }
    }

    fn err(&self, pos: usize, kind: ErrorKind, message: String) -> Error {
        json::error_at(self.src, pos, kind, message)
    }

    /// Removes the member `name`, refusing a second one.
    fn take(&mut self, name: &str) -> Result<Option<(usize, Val<'a>)>> {
        let mut found = None;
        for m in self.members.iter_mut() {
            if m.key == name {
                if found.is_some() {
                    let message = format!("`{}` has field `{name}` twice", self.frame);
                    return Err(json::error_at(self.src, m.pos, ErrorKind::DuplicateField, message));
                }
                found = Some((m.pos, std::mem::replace(&mut m.val, Val::Null)));
            }
        }
        Ok(found)
    }

    fn req(&mut self, name: &str) -> Result<(usize, Val<'a>)> {
        match self.take(name)? {
            Some(found) => Ok(found),
            None => Err(self.err(
                self.pos,
                ErrorKind::MissingField,
                format!("`{}` is missing required field `{name}`", self.frame),
            )),
        }
    }

    fn wrong(&self, pos: usize, name: &str, want: &str, got: &Val<'_>) -> Error {
        self.err(
            pos,
            ErrorKind::WrongType,
            format!("field `{name}` of `{}` must be {want}, found {}", self.frame, got.type_name()),
        )
    }

    fn string(&self, pos: usize, name: &str, val: Val<'a>) -> Result<Cow<'a, str>> {
        match val {
            Val::Str(s) => Ok(s),
            other => Err(self.wrong(pos, name, "a string", &other)),
        }
    }

    fn int(&self, pos: usize, name: &str, val: Val<'a>) -> Result<u64> {
        let text = match val {
            Val::Num { text, int: true } => text,
            other => return Err(self.wrong(pos, name, "an integer", &other)),
        };
        let digits = text.strip_prefix('-').unwrap_or(text);
        let value = digits.parse::<u64>().ok().filter(|v| *v <= MAX_INT);
        match value {
            Some(0) => Ok(0),
            Some(v) if !text.starts_with('-') => Ok(v),
            _ => Err(self.err(
                pos,
                ErrorKind::OutOfRange,
                format!(
                    "field `{name}` of `{}` must be an integer from 0 to {MAX_INT}, found {}",
                    self.frame,
                    clip(text)
                ),
            )),
        }
    }

    fn req_str(&mut self, name: &str) -> Result<Cow<'a, str>> {
        let (pos, val) = self.req(name)?;
        self.string(pos, name, val)
    }

    fn req_string<S: Text<'a>>(&mut self, name: &str) -> Result<S> {
        self.req_str(name).map(S::from_cow)
    }

    fn opt_str(&mut self, name: &str) -> Result<Option<Cow<'a, str>>> {
        match self.take(name)? {
            None | Some((_, Val::Null)) => Ok(None),
            Some((pos, val)) => self.string(pos, name, val).map(Some),
        }
    }

    fn req_int(&mut self, name: &str) -> Result<u64> {
        let (pos, val) = self.req(name)?;
        self.int(pos, name, val)
    }

    fn opt_int(&mut self, name: &str) -> Result<Option<u64>> {
        match self.take(name)? {
            None | Some((_, Val::Null)) => Ok(None),
            Some((pos, val)) => self.int(pos, name, val).map(Some),
        }
    }

    fn turn_id(&mut self) -> Result<u64> {
        self.req_int("turn_id")
    }

    fn req_bool(&mut self, name: &str) -> Result<bool> {
        match self.req(name)? {
            (_, Val::Bool(b)) => Ok(b),
            (pos, other) => Err(self.wrong(pos, name, "a boolean", &other)),
        }
    }

    fn req_f64(&mut self, name: &str) -> Result<f64> {
        let (pos, val) = self.req(name)?;
        let Val::Num { text, .. } = val else {
            return Err(self.wrong(pos, name, "a number", &val));
        };
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(self.err(
                pos,
                ErrorKind::OutOfRange,
                format!("field `{name}` of `{}` does not fit a 64-bit float: {}", self.frame, clip(text)),
            )),
        }
    }

    /// The members of the object in field `name`, as a nested `Fields` named `label`.
    fn object(&self, pos: usize, name: &str, label: &'static str, val: Val<'a>) -> Result<Fields<'a>> {
        match val {
            Val::Obj(members) => Ok(Fields { src: self.src, pos, frame: label, members }),
            other => Err(self.wrong(pos, name, "an object", &other)),
        }
    }

    fn usage(&mut self) -> Result<Usage> {
        let (pos, val) = self.req("usage")?;
        let mut u = self.object(pos, "usage", "usage", val)?;
        Ok(Usage { input: u.req_int("input")?, output: u.req_int("output")?, cost: u.req_f64("cost")? })
    }

    fn tool_results<S: Text<'a>>(&mut self) -> Result<Vec<ToolResult<S>>> {
        let (pos, val) = self.req("tool_results")?;
        let items = match val {
            Val::Arr(items) => items,
            other => return Err(self.wrong(pos, "tool_results", "an array", &other)),
        };
        let mut results = Vec::with_capacity(items.len());
        for (item_pos, item) in items {
            let mut r = self.object(item_pos, "tool_results[]", "tool_results[]", item)?;
            results.push(ToolResult {
                id: r.req_string("id")?,
                name: r.req_string("name")?,
                ok: r.req_bool("ok")?,
                text: r.req_string("text")?,
            });
        }
        Ok(results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_number_makes_a_short_message() {
        for field in ["\"turn_id\":", "\"turn_id\":-", "\"turn_id\":1,\"x\":0,\"turn_id\":"] {
            let line = format!("{{\"type\":\"agent_start\",{field}{}}}", "9".repeat(1 << 20));
            let err = decode(line.as_bytes()).err();
            let message = err.as_ref().map(Error::message).unwrap_or_default();
            assert!(message.len() < 200, "{} bytes: {err:?}", message.len());
        }
        let cost = format!(
            r#"{{"type":"turn_done","turn_id":1,"message":"","tool_results":[],"usage":{{"input":1,"output":1,"cost":1{}}},"stop_reason":"stop"}}"#,
            "0".repeat(1 << 20)
        );
        let err = decode(cost.as_bytes()).err();
        assert_eq!(err.as_ref().map(Error::kind), Some(ErrorKind::OutOfRange));
        assert!(err.as_ref().map_or(0, |e| e.message().len()) < 200, "{err:?}");
    }
}
