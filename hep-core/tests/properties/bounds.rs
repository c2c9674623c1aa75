//! The UTF-16 bounds: `cap` and both `args_summary` renderings keep a prefix of the text,
//! within the limit, never splitting a surrogate pair, and count what they cut.

use crate::strategies::*;
use hep_core::bounds::{self, ARGS_FULL_CAP, ARGS_SUMMARY_CAP, args_full, args_summary, cap, utf16_len};
use hep_core::encode::{write_str, write_value};
use hep_core::parse_args;
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Splits a capped text into the kept prefix and N of its `…(+N chars)` suffix.
fn split_capped(out: &str) -> Option<(&str, usize)> {
    let (kept, rest) = out.rsplit_once("…(+")?;
    let n = rest.strip_suffix(" chars)")?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((kept, n.parse().ok()?))
}

/// `cap(text, limit)` is `text` when it fits, else its longest whole-character prefix within
/// `limit` UTF-16 units (one unit short only before a surrogate pair) plus the count of cut units.
fn check_cap(text: &str, limit: usize) -> Result<(), TestCaseError> {
    let out = cap(text, limit);
    let total = utf16_len(text);
    if total <= limit {
        prop_assert_eq!(&out, text);
        return Ok(());
    }
    let Some((kept, n)) = split_capped(&out) else {
        return Err(TestCaseError::fail(format!("no `…(+N chars)` suffix in {out:?}")));
    };
    prop_assert!(text.starts_with(kept), "{:?} is not a prefix of {:?}", kept, text);
    let kept_units = utf16_len(kept);
    prop_assert!(kept_units <= limit, "kept {} units over a limit of {}", kept_units, limit);
    let next = text.get(kept.len()..).and_then(|rest| rest.chars().next());
    let next_width = next.map_or(0, char::len_utf16);
    prop_assert!(
        kept_units + next_width > limit,
        "cut too early: kept {} of limit {}, next {:?}",
        kept_units,
        limit,
        next
    );
    prop_assert!(kept_units + 1 >= limit, "kept {} units, limit {}", kept_units, limit);
    prop_assert_eq!(n, total - kept_units, "N must count the cut units");
    let suffix = format!("…(+{n} chars)");
    prop_assert!(utf16_len(&out) <= limit + utf16_len(&suffix));
    prop_assert_eq!(utf16_len(&out), kept_units + utf16_len(&suffix));
    Ok(())
}

/// The uncapped summary rendering, built independently of `args_summary`.
fn summary_of(args: &Map<String, Value>) -> String {
    let parts: Vec<String> = args
        .iter()
        .map(|(k, v)| {
            let mut s = format!("{k}=");
            write_value(&mut s, v);
            s
        })
        .collect();
    parts.join(", ")
}

/// `args` as a Dart JSON decoder reads them back (and so `parse_args`): integers beyond the
/// 64-bit signed range become doubles.
fn as_dart_reads(args: &Map<String, Value>) -> Map<String, Value> {
    fn value(v: &Value) -> Value {
        match v {
            Value::Number(n) if n.is_u64() && n.as_i64().is_none() => {
                n.as_u64().map(|u| u as f64).map_or(Value::Null, Value::from)
            }
            Value::Array(items) => Value::Array(items.iter().map(value).collect()),
            Value::Object(map) => Value::Object(as_dart_reads(map)),
            other => other.clone(),
        }
    }
    args.iter().map(|(k, v)| (k.clone(), value(v))).collect()
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn utf16_len_counts_code_units(text in prop_oneof![any::<String>(), text_up_to(64)]) {
        prop_assert_eq!(utf16_len(&text), text.encode_utf16().count());
    }

    #[test]
    fn cap_keeps_a_prefix_and_counts_the_cut(text in prop_oneof![any::<String>(), text_up_to(80)], limit in 0usize..90) {
        check_cap(&text, limit)?;
    }

    #[test]
    fn cap_at_the_tool_result_limit(text in long_text()) {
        check_cap(&text, bounds::TOOL_RESULT_CAP)?;
    }

    #[test]
    fn summary_args_are_cut_at_100_units(args in args(), filler in text_up_to(60)) {
        let mut args = args;
        args.insert(filler.clone(), Value::String(filler.repeat(3)));
        let out = args_summary(&args.clone().into());
        let full = summary_of(&args);
        if utf16_len(&full) <= ARGS_SUMMARY_CAP {
            prop_assert_eq!(out, full);
        } else {
            let Some(kept) = out.strip_suffix("...") else {
                return Err(TestCaseError::fail(format!("no `...` in {out:?}")));
            };
            prop_assert!(full.starts_with(kept), "{:?} is not a prefix of {:?}", kept, full);
            let units = utf16_len(kept);
            prop_assert!(units <= ARGS_SUMMARY_CAP && units + 1 >= ARGS_SUMMARY_CAP, "kept {} units", units);
            let next = full.get(kept.len()..).and_then(|rest| rest.chars().next()).map_or(0, char::len_utf16);
            prop_assert!(units + next > ARGS_SUMMARY_CAP);
        }
    }

    #[test]
    fn full_args_are_json_capped_at_4000_units(args in args(), big in prop::option::of(long_text())) {
        let mut args = args;
        if let Some(big) = big {
            args.insert("big".into(), Value::String(big.repeat(2)));
        }
        let out = args_full(&args.clone().into());
        let mut json = String::from("{");
        for (i, (k, v)) in args.iter().enumerate() {
            if i > 0 {
                json.push(',');
            }
            write_str(&mut json, k);
            json.push(':');
            write_value(&mut json, v);
        }
        json.push('}');
        prop_assert_eq!(&out, &cap(&json, ARGS_FULL_CAP));
        check_cap(&json, ARGS_FULL_CAP)?;
        if utf16_len(&json) <= ARGS_FULL_CAP {
            // Uncut, it is the argument object itself, keys in arrival order.
            let back = parse_args(&out)?;
            prop_assert_eq!(back.as_json(), Some(&as_dart_reads(&args)));
            prop_assert_eq!(back.iter().map(|(k, _)| k).collect::<Vec<_>>(), args.keys().map(String::as_str).collect::<Vec<_>>());
            // Valid JSON for a standard parser too (compared by keys only: serde_json's default
            // float parser is not correctly rounded, so its numbers are no oracle).
            let via_serde: Map<String, Value> = serde_json::from_str(&out).map_err(|e| TestCaseError::fail(format!("{e}: {out}")))?;
            prop_assert_eq!(via_serde.keys().collect::<Vec<_>>(), args.keys().collect::<Vec<_>>());
        }
    }

    #[test]
    fn parse_args_keeps_arrival_order(args in args()) {
        let text = serde_json::to_string(&args).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let back = parse_args(&text)?;
        prop_assert_eq!(back.iter().map(|(k, _)| k).collect::<Vec<_>>(), args.keys().map(String::as_str).collect::<Vec<_>>());
        prop_assert_eq!(back.as_json(), Some(&as_dart_reads(&args)));
    }

    #[test]
    fn parse_args_never_panics(text in prop_oneof![any::<String>(), text_up_to(80)]) {
        if let Ok(map) = parse_args(&text) {
            let _ = args_summary(&map);
            let _ = args_full(&map);
        }
    }
}
