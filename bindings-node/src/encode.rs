//! `encode`: a frame object (as `lib/frames.js` builds them) to its exact line.
//!
//! The object's fields are read into the core's [`Frame`] and the core encodes it. A field
//! that is missing or of the wrong JavaScript type fails as the decoder would fail on such a
//! line (`missing_field`, `wrong_type`, `out_of_range` for a negative integer); a value the
//! protocol cannot carry (an integer above 2^53 - 1, a non-finite cost) fails in the core's
//! encoder (`unencodable`).

use crate::failure::{Outcome, boundary};
use hep_core::{
    AgentStart, CompactionEnd, Error, ErrorKind, Frame, HepHeader, MessageDelta, MessageStart, ToolDelta, ToolLiveness,
    ToolResult, ToolStart, TurnDone, TurnError, TurnRef, Usage,
};
use napi::ValueType;
use napi::bindgen_prelude::{Array, Env, FromNapiValue, JsObjectValue, Object, Unknown};
use napi_derive::napi;

/// The exact line of `frame` (no newline). Unknown frames go through [`encode_unknown`].
#[napi(catch_unwind)]
pub fn encode(env: Env, frame: Object) -> napi::Result<String> {
    boundary(&env, || {
        let frame_type = Fields { object: frame, name: "frame" }.string("type")?;
        Ok(hep_core::encode(&Fields { object: frame, name: &frame_type }.frame()?)?)
    })
}

/// The exact line of an unknown frame given as its line (`raw`) or its object's JSON text:
/// the text itself once the core has read it as a frame of a type v1 does not know.
#[napi(catch_unwind)]
pub fn encode_unknown(env: Env, text: String) -> napi::Result<String> {
    boundary(&env, || match hep_core::decode(text.as_bytes())? {
        frame @ Frame::Unknown(_) => Ok(hep_core::encode(&frame)?),
        known => Err(Error::new(
            ErrorKind::WrongType,
            format!("an unknown frame holds a `{}` frame, which v1 knows: give it as that frame", known.frame_type()),
        )
        .into()),
    })
}

/// The fields of one JavaScript object being read into a core value named `name`.
struct Fields<'env, 'n> {
    object: Object<'env>,
    name: &'n str,
}

/// How an error message names the JavaScript type of `value`.
fn type_name(value: &Unknown<'_>) -> Outcome<&'static str> {
    Ok(match value.get_type()? {
        ValueType::Undefined => "undefined",
        ValueType::Null => "null",
        ValueType::Boolean => "a boolean",
        ValueType::Number => "a number",
        ValueType::String => "a string",
        ValueType::Symbol => "a symbol",
        ValueType::Object => "an object",
        ValueType::Function => "a function",
        ValueType::BigInt => "a bigint",
        _ => "a value of another type",
    })
}

impl<'env> Fields<'env, '_> {
    /// The frame these fields make (their `name` is the frame's type).
    fn frame(&self) -> Outcome<Frame> {
        Ok(match self.name {
            "hep_header" => Frame::HepHeader(HepHeader {
                hep: self.string("hep")?,
                fah: self.string("fah")?,
                session: self.string("session")?,
            }),
            "agent_start" => Frame::AgentStart(AgentStart { turn_id: self.int("turn_id")? }),
            "message_start" => {
                Frame::MessageStart(MessageStart { turn_id: self.int("turn_id")?, role: self.string("role")? })
            }
            "message_delta" => {
                Frame::MessageDelta(MessageDelta { turn_id: self.int("turn_id")?, delta: self.string("delta")? })
            }
            "tool_start" => Frame::ToolStart(ToolStart {
                turn_id: self.int("turn_id")?,
                id: self.string("id")?,
                name: self.string("name")?,
                args_summary: self.string("args_summary")?,
            }),
            "tool_delta" => Frame::ToolDelta(ToolDelta {
                turn_id: self.int("turn_id")?,
                id: self.string("id")?,
                update: self.string("update")?,
            }),
            "tool_liveness" => Frame::ToolLiveness(ToolLiveness {
                turn_id: self.int("turn_id")?,
                id: self.string("id")?,
                name: self.string("name")?,
                action: self.string("action")?,
                elapsed_ms: self.int("elapsed_ms")?,
                output_bytes: self.optional("output_bytes", Self::int)?,
                detail: self.optional("detail", Self::string)?,
            }),
            "turn_done" => Frame::TurnDone(TurnDone {
                turn_id: self.int("turn_id")?,
                message: self.string("message")?,
                tool_results: self.tool_results()?,
                usage: self.usage()?,
                stop_reason: self.string("stop_reason")?,
            }),
            "turn_error" => Frame::TurnError(TurnError {
                turn_id: self.int("turn_id")?,
                error: self.string("error")?,
                fatal: self.bool("fatal")?,
            }),
            "cancelled" => Frame::Cancelled(TurnRef { turn_id: self.int("turn_id")? }),
            "compaction_start" => Frame::CompactionStart(TurnRef { turn_id: self.int("turn_id")? }),
            "compaction_end" => Frame::CompactionEnd(CompactionEnd {
                turn_id: self.int("turn_id")?,
                tokens_freed: self.int("tokens_freed")?,
            }),
            other => {
                let message =
                    format!("`{other}` is no frame type of v1; a frame of another type is {{type: 'unknown', frame}}");
                return Err(Error::new(ErrorKind::WrongType, message).into());
            }
        })
    }

    /// Field `key`, which must be present (not `undefined`).
    fn required(&self, key: &str) -> Outcome<Unknown<'env>> {
        let value: Unknown<'env> = self.object.get_named_property(key)?;
        if value.get_type()? == ValueType::Undefined {
            let message = format!("`{}` is missing required field `{key}`", self.name);
            return Err(Error::new(ErrorKind::MissingField, message).into());
        }
        Ok(value)
    }

    /// Field `key` read by `read`, or `None` when it is `undefined` or `null`.
    fn optional<T>(&self, key: &str, read: fn(&Self, &str) -> Outcome<T>) -> Outcome<Option<T>> {
        let value: Unknown<'env> = self.object.get_named_property(key)?;
        match value.get_type()? {
            ValueType::Undefined | ValueType::Null => Ok(None),
            _ => read(self, key).map(Some),
        }
    }

    /// Field `key`, which must hold a value of type `want` (named `what` in the error).
    fn typed(&self, key: &str, want: ValueType, what: &str) -> Outcome<Unknown<'env>> {
        let value = self.required(key)?;
        if value.get_type()? != want {
            let message = format!("field `{key}` of `{}` must be {what}, found {}", self.name, type_name(&value)?);
            return Err(Error::new(ErrorKind::WrongType, message).into());
        }
        Ok(value)
    }

    fn string(&self, key: &str) -> Outcome<String> {
        Ok(String::from_unknown(self.typed(key, ValueType::String, "a string")?)?)
    }

    fn bool(&self, key: &str) -> Outcome<bool> {
        Ok(bool::from_unknown(self.typed(key, ValueType::Boolean, "a boolean")?)?)
    }

    fn float(&self, key: &str) -> Outcome<f64> {
        Ok(f64::from_unknown(self.typed(key, ValueType::Number, "a number")?)?)
    }

    /// An integer field: a whole number; negative ones are out of range (as on a line), and
    /// ones above 2^53 - 1 are refused by the core's encoder.
    fn int(&self, key: &str) -> Outcome<u64> {
        let value = self.float(key)?;
        if !value.is_finite() || value.fract() != 0.0 {
            let message = format!("field `{key}` of `{}` must be an integer, found {value}", self.name);
            return Err(Error::new(ErrorKind::WrongType, message).into());
        }
        if value < 0.0 {
            let message = format!("field `{key}` of `{}` must be an integer from 0, found {value}", self.name);
            return Err(Error::new(ErrorKind::OutOfRange, message).into());
        }
        // A whole non-negative number; `as` saturates past u64::MAX, which the encoder refuses.
        Ok(value as u64)
    }

    /// Field `key` as the fields of an object named `name`.
    fn object(&self, key: &str, name: &'static str) -> Outcome<Fields<'env, 'static>> {
        let value = self.typed(key, ValueType::Object, "an object")?;
        Ok(Fields { object: Object::from_unknown(value)?, name })
    }

    fn usage(&self) -> Outcome<Usage> {
        let usage = self.object("usage", "usage")?;
        Ok(Usage { input: usage.int("input")?, output: usage.int("output")?, cost: usage.float("cost")? })
    }

    fn tool_results(&self) -> Outcome<Vec<ToolResult>> {
        let value = self.typed("tool_results", ValueType::Object, "an array")?;
        let Ok(items) = Array::from_unknown(value) else {
            let message = format!("field `tool_results` of `{}` must be an array, found an object", self.name);
            return Err(Error::new(ErrorKind::WrongType, message).into());
        };
        let mut results = Vec::with_capacity(items.len() as usize);
        for index in 0..items.len() {
            let item: Option<Unknown<'env>> = items.get(index)?;
            let Some(item) = item.filter(|item| item.get_type().ok() == Some(ValueType::Object)) else {
                let message = format!("`tool_results[{index}]` of `{}` must be an object", self.name);
                return Err(Error::new(ErrorKind::WrongType, message).into());
            };
            let r = Fields { object: Object::from_unknown(item)?, name: "tool_results[]" };
            results.push(ToolResult {
                id: r.string("id")?,
                name: r.string("name")?,
                ok: r.bool("ok")?,
                text: r.string("text")?,
            });
        }
        Ok(results)
    }
}
