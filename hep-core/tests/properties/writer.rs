//! Everything the writer emits for a well-formed call script passes the validator, and the
//! run reducer mirrors exactly what was written.

use crate::script::{Played, play, script};
use crate::strategies::config;
use hep_core::validate::Validator;
use hep_core::*;
use proptest::prelude::*;
use std::io::Cursor;

/// Checks the reduced run against what the script wrote.
fn check_run(played: &Played, result: &RunResult) -> Result<(), TestCaseError> {
    let run = &result.run;
    prop_assert_eq!(run.answer.as_ref(), played.answer.as_ref());
    prop_assert_eq!(run.usage.input, played.usage.input);
    prop_assert_eq!(run.usage.output, played.usage.output);
    prop_assert_eq!(
        run.usage.cost.to_bits(),
        played.usage.cost.to_bits(),
        "{} vs {}",
        run.usage.cost,
        played.usage.cost
    );
    prop_assert_eq!(run.turns_dropped, 0);
    prop_assert_eq!(run.turns.len(), played.turns.len());
    prop_assert_eq!(run.frames, played.lines.len() as u64);
    let compactions: Vec<u64> = played.turns.iter().flat_map(|t| t.compactions.iter().copied()).collect();
    prop_assert_eq!(run.compactions, compactions.len() as u64);
    prop_assert_eq!(run.tokens_freed, compactions.iter().sum::<u64>());
    for (got, want) in run.turns.iter().zip(&played.turns) {
        prop_assert_eq!(got.turn_id, want.turn_id);
        prop_assert_eq!(&got.text, &want.text, "turn {}", want.turn_id);
        prop_assert_eq!(got.end, want.end, "turn {}", want.turn_id);
        prop_assert_eq!(&got.message, &want.message, "turn {}", want.turn_id);
        prop_assert_eq!(&got.error, &want.error, "turn {}", want.turn_id);
        prop_assert_eq!(
            got.usage.map(|u| (u.input, u.output, u.cost.to_bits())),
            want.usage.map(|u| (u.input, u.output, u.cost.to_bits()))
        );
        prop_assert_eq!(&got.compactions, &want.compactions, "turn {}", want.turn_id);
        prop_assert_eq!(got.tools.len(), want.tools.len(), "turn {}", want.turn_id);
        for (call, tool) in got.tools.iter().zip(&want.tools) {
            prop_assert_eq!(&call.id, &tool.id);
            prop_assert_eq!(&call.name, &tool.name);
            prop_assert_eq!(&call.args_summary, &tool.args_summary);
            prop_assert_eq!(call.status, tool.status);
            prop_assert_eq!(&call.output, &tool.output);
            prop_assert_eq!(&call.result, &tool.result);
            let followups: Vec<&str> = call.followups.iter().map(|l| l.action.as_str()).collect();
            prop_assert_eq!(followups, tool.followups.iter().map(String::as_str).collect::<Vec<_>>());
            prop_assert_eq!(call.last_liveness.as_ref().map(|l| l.action.as_str()), tool.last_action.as_deref());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(200))]

    #[test]
    fn writer_output_validates_and_reduces(script in script()) {
        let played = play(&script)?;

        // The sink holds exactly the returned lines, each `\n`-terminated, each one clean line.
        let mut joined = played.lines.join("\n").into_bytes();
        joined.push(b'\n');
        prop_assert_eq!(&played.bytes, &joined);
        for line in &played.lines {
            prop_assert!(line.bytes().all(|b| b >= 0x20), "control byte in {:?}", line);
        }
        prop_assert_eq!(played.current_turn_id, played.turns.last().map_or(0, |t| t.turn_id));

        // The validator alone, frame by frame.
        let mut validator = Validator::new();
        let mut found = Vec::new();
        for (i, line) in played.lines.iter().enumerate() {
            validator.check(i as u64 + 1, &decode(line.as_bytes())?, &mut found);
        }
        validator.finish(Some(played.exit_code), &mut found);
        prop_assert!(found.is_empty(), "validator: {:?}\n{}", found, played.lines.join("\n"));

        // The whole stream.
        let mut stream = Stream::default();
        let events = stream.feed(&played.bytes);
        prop_assert_eq!(stream.end_input(), Vec::new());
        let result = stream.finish(Some(played.exit_code));
        prop_assert!(result.violations.is_empty(), "violations: {:?}\n{}", result.violations, played.lines.join("\n"));
        prop_assert_eq!(result.violation_count, 0);
        prop_assert!(result.skipped.is_empty(), "skipped: {:?}", result.skipped);
        prop_assert_eq!(result.skipped_count, 0);
        prop_assert!(result.conforms);
        prop_assert_eq!(result.verdict, played.verdict, "reasons: {:?}", result.reasons);
        prop_assert_eq!(result.lines, played.lines.len() as u64);
        prop_assert_eq!(events.len(), played.lines.len());
        for (i, (event, line)) in events.iter().zip(&played.lines).enumerate() {
            let Event::Frame(received) = event else {
                return Err(TestCaseError::fail(format!("event {i} is not a frame: {event:?}")));
            };
            prop_assert_eq!(received.line, i as u64 + 1);
            prop_assert_eq!(&received.raw, line);
            prop_assert_eq!(&encode(&received.frame)?, line);
        }
        check_run(&played, &result)?;

        // Strict mode finds nothing to stop at either.
        let mut strict = Stream::new(StreamOptions { strict: true, ..StreamOptions::default() });
        let strict_events = strict.feed(&played.bytes);
        prop_assert_eq!(&strict_events, &events);
        prop_assert_eq!(strict.finish(Some(played.exit_code)).verdict, played.verdict);

        // The blocking reader hands over the same events.
        let mut reader = Reader::new(Cursor::new(played.bytes.clone()));
        let read: Vec<Event> = reader.by_ref().collect::<Result<_, _>>()?;
        prop_assert_eq!(&read, &events);
        prop_assert_eq!(reader.finish(Some(played.exit_code)), result);
    }
}
