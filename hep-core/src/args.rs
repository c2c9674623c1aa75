//! Tool-call arguments as a harness holds them: named values in arrival order, where a
//! value may be one that JSON cannot write.
//!
//! The reference keeps arguments in a Dart map decoded from the provider's JSON; a number
//! past the double range (`1e400`) becomes infinity there, and its safe encoder
//! (`safeJsonEncode` in `text_format.dart`) writes `[unserializable]` for any value that
//! `jsonEncode` refuses. [`Args`] keeps such a value as *unserializable*, so that
//! [`bounds::render_args`](crate::bounds::render_args) writes the reference's bytes.

use crate::error::{ErrorKind, Result};
use crate::json::{self, Val};
use serde_json::{Map, Number, Value};
use std::collections::HashSet;

/// Tool-call arguments: named values in arrival order. A repeated name keeps its first
/// position and takes the last value, as a Dart map does.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    values: Map<String, Value>,
    /// Names whose value JSON cannot write (their entry in `values` holds `null`).
    unserializable: HashSet<String>,
}

impl Args {
    /// No arguments.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `name` to a JSON value.
    pub fn insert(&mut self, name: String, value: Value) {
        self.unserializable.remove(&name);
        self.values.insert(name, value);
    }

    /// Sets `name` to a value JSON cannot write (a non-finite number, anywhere inside it).
    pub fn insert_unserializable(&mut self, name: String) {
        self.values.insert(name.clone(), Value::Null);
        self.unserializable.insert(name);
    }

    /// The arguments in arrival order; `None` stands for a value JSON cannot write.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Option<&Value>)> {
        self.values.iter().map(|(k, v)| (k.as_str(), (!self.unserializable.contains(k)).then_some(v)))
    }

    /// Number of arguments.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when there are no arguments.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// True when JSON can write every value.
    pub fn is_serializable(&self) -> bool {
        self.unserializable.is_empty()
    }

    /// The arguments as a JSON object, when JSON can write every value.
    pub fn as_json(&self) -> Option<&Map<String, Value>> {
        self.is_serializable().then_some(&self.values)
    }
}

impl From<Map<String, Value>> for Args {
    fn from(values: Map<String, Value>) -> Self {
        Self { values, unserializable: HashSet::new() }
    }
}

/// Parses JSON text holding a tool call's argument object, keeping its key order (for
/// [`bounds::render_args`](crate::bounds::render_args)). Numbers are read as Dart's JSON
/// decoder reads them: integers in the 64-bit signed range stay integers, others become
/// doubles, and a value holding a number past the double range is unserializable.
pub fn parse_args(text: &str) -> Result<Args> {
    let (start, val) = json::parse(text)?;
    let Val::Obj(members) = val else {
        let found = match val {
            Val::Arr(_) => "an array",
            Val::Str(_) => "a string",
            Val::Num { .. } => "a number",
            Val::Bool(_) => "a boolean",
            _ => "null",
        };
        let message = format!("tool arguments must be a JSON object, found {found}");
        return Err(json::error_at(text, start, ErrorKind::NotAnObject, message));
    };
    let mut args = Args::new();
    for member in members {
        let name = member.key.into_owned();
        match to_value(member.val) {
            Some(value) => args.insert(name, value),
            None => args.insert_unserializable(name),
        }
    }
    Ok(args)
}

/// `val` as a JSON value, or `None` when it holds a number past the double range.
fn to_value(val: Val<'_>) -> Option<Value> {
    Some(match val {
        Val::Null => Value::Null,
        Val::Bool(b) => Value::Bool(b),
        Val::Num { text, int } => {
            let int = int.then(|| text.parse::<i64>().ok().map(Number::from)).flatten();
            Value::Number(int.or_else(|| text.parse::<f64>().ok().and_then(Number::from_f64))?)
        }
        Val::Str(s) => Value::String(s.into_owned()),
        Val::Arr(items) => Value::Array(items.into_iter().map(|(_, v)| to_value(v)).collect::<Option<_>>()?),
        Val::Obj(members) => Value::Object(
            members.into_iter().map(|m| Some((m.key.into_owned(), to_value(m.val)?))).collect::<Option<_>>()?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_name_keeps_its_place_and_takes_the_last_value() {
        let args = parse_args(r#"{"a":1,"b":1e400,"a":2,"b":3}"#).unwrap();
        let got: Vec<_> = args.iter().map(|(k, v)| (k, v.cloned())).collect();
        assert_eq!(got, [("a", Some(Value::from(2))), ("b", Some(Value::from(3)))]);
        assert!(args.is_serializable());
    }

    #[test]
    fn numbers_past_the_double_range_are_unserializable() {
        let args = parse_args(r#"{"x":[1,{"y":-1e400}],"z":0}"#).unwrap();
        let got: Vec<_> = args.iter().map(|(k, v)| (k, v.is_some())).collect();
        assert_eq!(got, [("x", false), ("z", true)]);
        assert!(!args.is_serializable());
    }
}
