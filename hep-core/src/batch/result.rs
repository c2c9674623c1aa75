//! [`encode_result`]: a judged run ([`RunResult`]) in the batch's layout, so that a foreign
//! caller reads it with the reader it already has for frames, instead of parsing the JSON
//! text of a result that holds every retained turn's text and tool output.
//!
//! # Layout
//!
//! The primitives of the frame batch (see [the module](super)), plus `i32` (4 bytes,
//! two's complement) and enums written as their JSON names (`str`). One record, the
//! `RunResult`, fills the buffer; each record is its fields in this order (the order of
//! the JSON object `hep watch --json` prints):
//!
//! | record        | fields                                                                 |
//! |---------------|------------------------------------------------------------------------|
//! | `RunResult`   | `verdict` str, `reasons` list of str, `exit_code` optional i32, `conforms` bool, `halted` optional Error, `run` Run, `violations` list of Violation, `violation_count` u64, `skipped` list of Error, `skipped_count` u64, `untracked_calls` u64, `lines` u64, `supervision` optional Supervision |
//! | `Error`       | `kind` str, `line` u64, `column` u64, `message` str, `excerpt` str      |
//! | `Run`         | `header` optional (`hep` str, `fah` str, `session` str), `turns` list of Turn, `turns_dropped` u64, `usage` Usage, `compactions` u64, `tokens_freed` u64, `last_terminal` optional (`type` str, `turn_id` u64), `answer` optional str, `frames` u64 |
//! | `Usage`       | `input` u64, `output` u64, `cost` f64                                   |
//! | `Turn`        | `turn_id` u64, `text` str, `text_dropped` u64, `tools` list of ToolCall, `tools_dropped` u64, `end` optional str, `message` optional str, `usage` optional Usage, `stop_reason` optional str, `error` optional str, `compactions` list of u64, `compactions_dropped` u64, `bytes_dropped` u64 |
//! | `ToolCall`    | `id` str, `name` str, `args_summary` str, `status` str, `output` str, `output_dropped` u64, `result` optional str, `last_liveness` optional Liveness, `followups` list of Liveness, `followups_dropped` u64 |
//! | `Liveness`    | `action` str, `elapsed_ms` u64, `output_bytes` optional u64, `detail` optional str |
//! | `Violation`   | `code` str, `severity` str, `line` u64, `turn_id` optional u64, `message` str |
//! | `Supervision` | `timed_out` bool, `cancelled_by` optional str, `signals` list of (`at_ms` u64, `signal` str), `stderr_tail` str, `stderr_dropped` u64, `notices_dropped` u64, `duration_ms` u64 |
//!
//! Every record is destructured field by field: a field added to one of them fails to
//! compile here until it is placed in the layout (and in its readers: Go's
//! `bindings-go/result_decode.go`, checked against the JSON result by its tests).

use super::{FrameBatch, Put};
use crate::error::Error;
use crate::frame::{HepHeader, Terminal};
use crate::run::{Liveness, Run, ToolCall, ToolStatus, Turn};
use crate::supervise::{CancelReason, SentSignal, Signal, Supervision};
use crate::verdict::{RunResult, Verdict};
use crate::violation::{Severity, Violation, ViolationCode};
use std::collections::VecDeque;

/// `result` in the layout above.
pub fn encode_result(result: &RunResult) -> Vec<u8> {
    let mut out = FrameBatch::default();
    out.put(result);
    out.into_bytes()
}

impl Put for i32 {
    fn put(&self, out: &mut FrameBatch) {
        out.0.extend_from_slice(&self.to_le_bytes());
    }
}

impl<T: Put> Put for VecDeque<T> {
    fn put(&self, out: &mut FrameBatch) {
        out.len(self.len());
        for item in self {
            item.put(out);
        }
    }
}

/// Enums are written as their JSON names.
macro_rules! by_name {
    ($($ty:ty => $name:ident),* $(,)?) => {
        $(impl Put for $ty {
            fn put(&self, out: &mut FrameBatch) {
                self.$name().put(out);
            }
        })*
    };
}

by_name!(
    Verdict => as_str,
    ToolStatus => as_str,
    Terminal => as_str,
    Severity => as_str,
    ViolationCode => as_str,
    CancelReason => as_str,
    Signal => name,
);

impl Put for RunResult {
    fn put(&self, out: &mut FrameBatch) {
        let RunResult {
            verdict,
            reasons,
            exit_code,
            conforms,
            halted,
            run,
            violations,
            violation_count,
            skipped,
            skipped_count,
            untracked_calls,
            lines,
            supervision,
        } = self;
        out.put(verdict);
        out.put(reasons);
        out.put(exit_code);
        out.put(conforms);
        out.put(halted);
        out.put(run);
        out.put(violations);
        out.put(violation_count);
        out.put(skipped);
        out.put(skipped_count);
        out.put(untracked_calls);
        out.put(lines);
        out.put(supervision);
    }
}

impl Put for Error {
    fn put(&self, out: &mut FrameBatch) {
        out.put(self.kind().as_str());
        out.put(&self.line());
        out.put(&self.column());
        out.put(self.message());
        out.put(self.excerpt());
    }
}

impl Put for Run {
    fn put(&self, out: &mut FrameBatch) {
        let Run {
            header,
            turns,
            turns_dropped,
            usage,
            compactions,
            tokens_freed,
            last_terminal,
            answer,
            frames,
            limits: _,
            retained: _,
        } = self;
        out.put(header);
        out.put(turns);
        out.put(turns_dropped);
        out.put(usage);
        out.put(compactions);
        out.put(tokens_freed);
        out.put(last_terminal);
        out.put(answer);
        out.put(frames);
    }
}

impl Put for HepHeader {
    fn put(&self, out: &mut FrameBatch) {
        let HepHeader { hep, fah, session } = self;
        out.put(hep);
        out.put(fah);
        out.put(session);
    }
}

impl Put for (Terminal, u64) {
    fn put(&self, out: &mut FrameBatch) {
        out.put(&self.0);
        out.put(&self.1);
    }
}

impl Put for Turn {
    fn put(&self, out: &mut FrameBatch) {
        let Turn {
            turn_id,
            text,
            text_dropped,
            tools,
            tools_dropped,
            end,
            message,
            usage,
            stop_reason,
            error,
            compactions,
            compactions_dropped,
            bytes_dropped,
            retained: _,
        } = self;
        out.put(turn_id);
        out.put(text);
        out.put(text_dropped);
        out.put(tools);
        out.put(tools_dropped);
        out.put(end);
        out.put(message);
        out.put(usage);
        out.put(stop_reason);
        out.put(error);
        out.put(compactions);
        out.put(compactions_dropped);
        out.put(bytes_dropped);
    }
}

impl Put for ToolCall {
    fn put(&self, out: &mut FrameBatch) {
        let ToolCall {
            id,
            name,
            args_summary,
            status,
            output,
            output_dropped,
            result,
            last_liveness,
            followups,
            followups_dropped,
        } = self;
        out.put(id);
        out.put(name);
        out.put(args_summary);
        out.put(status);
        out.put(output);
        out.put(output_dropped);
        out.put(result);
        out.put(last_liveness);
        out.put(followups);
        out.put(followups_dropped);
    }
}

impl Put for Liveness {
    fn put(&self, out: &mut FrameBatch) {
        let Liveness { action, elapsed_ms, output_bytes, detail } = self;
        out.put(action);
        out.put(elapsed_ms);
        out.put(output_bytes);
        out.put(detail);
    }
}

impl Put for Violation {
    fn put(&self, out: &mut FrameBatch) {
        let Violation { code, severity, line, turn_id, message } = self;
        out.put(code);
        out.put(severity);
        out.put(line);
        out.put(turn_id);
        out.put(message);
    }
}

impl Put for Supervision {
    fn put(&self, out: &mut FrameBatch) {
        let Supervision { timed_out, cancelled_by, signals, stderr_tail, stderr_dropped, notices_dropped, duration_ms } =
            self;
        out.put(timed_out);
        out.put(cancelled_by);
        out.put(signals);
        out.put(stderr_tail);
        out.put(stderr_dropped);
        out.put(notices_dropped);
        out.put(duration_ms);
    }
}

impl Put for SentSignal {
    fn put(&self, out: &mut FrameBatch) {
        let SentSignal { at_ms, signal } = self;
        out.put(at_ms);
        out.put(signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supervise::CancelReason;
    use crate::{ErrorKind, Stream};

    /// The expected bytes, built value by value.
    #[derive(Default)]
    struct Want(Vec<u8>);

    impl Want {
        fn u8(mut self, v: u8) -> Self {
            self.0.push(v);
            self
        }
        fn u32(mut self, v: u32) -> Self {
            self.0.extend_from_slice(&v.to_le_bytes());
            self
        }
        fn u64(mut self, v: u64) -> Self {
            self.0.extend_from_slice(&v.to_le_bytes());
            self
        }
        fn s(self, v: &str) -> Self {
            let mut w = self.u32(u32::try_from(v.len()).unwrap());
            w.0.extend_from_slice(v.as_bytes());
            w
        }
    }

    const RUN: &str = "{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1\",\"session\":\"s\"}\n\
        {\"type\":\"agent_start\",\"turn_id\":1}\n\
        {\"type\":\"message_delta\",\"turn_id\":1,\"delta\":\"hé\"}\n\
        {\"type\":\"turn_done\",\"turn_id\":1,\"message\":\"m\",\"tool_results\":[],\
        \"usage\":{\"input\":3,\"output\":4,\"cost\":0.5},\"stop_reason\":\"end\"}\n";

    #[test]
    fn a_judged_run_is_written_record_by_record() {
        let mut stream = Stream::new(Default::default());
        stream.feed(RUN.as_bytes());
        let result = stream.finish(Some(0));
        let usage = |w: Want| w.u64(3).u64(4).u64(0.5f64.to_bits());
        let mut want = Want::default().s("ok").u32(1).s("turn 1 finished with turn_done");
        want = want.u8(1).u32(0).u8(1).u8(0); // exit_code Some(0), conforms, no halt
        want = want.u8(1).s("v1").s("1").s("s").u32(1); // header, one turn:
        want = want.u64(1).s("hé").u64(0).u32(0).u64(0).u8(1).s("turn_done").u8(1).s("m").u8(1);
        want = usage(want).u8(1).s("end").u8(0).u32(0).u64(0).u64(0);
        want = usage(want.u64(0)).u64(0).u64(0).u8(1).s("turn_done").u64(1).u8(1).s("m").u64(4);
        want = want.u32(0).u64(0).u32(0).u64(0).u64(0).u64(4).u8(0);
        assert_eq!(encode_result(&result), want.0);
    }

    #[test]
    fn tool_calls_are_written_with_their_liveness() {
        let run = "{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1\",\"session\":\"s\"}\n\
            {\"type\":\"agent_start\",\"turn_id\":1}\n\
            {\"type\":\"tool_start\",\"turn_id\":1,\"id\":\"c\",\"name\":\"n\",\"args_summary\":\"a\"}\n\
            {\"type\":\"tool_delta\",\"turn_id\":1,\"id\":\"c\",\"update\":\"o\"}\n\
            {\"type\":\"tool_liveness\",\"turn_id\":1,\"id\":\"c\",\"name\":\"n\",\"action\":\"escalate\",\
            \"elapsed_ms\":5,\"output_bytes\":3,\"detail\":\"d\"}\n\
            {\"type\":\"turn_done\",\"turn_id\":1,\"message\":\"\",\"tool_results\":\
            [{\"id\":\"c\",\"name\":\"n\",\"ok\":true,\"text\":\"r\"}],\
            \"usage\":{\"input\":0,\"output\":0,\"cost\":0.0},\"stop_reason\":\"s\"}\n";
        let mut stream = Stream::new(Default::default());
        stream.feed(run.as_bytes());
        let bytes = encode_result(&stream.finish(Some(0)));
        let liveness = |w: Want| w.s("escalate").u64(5).u8(1).u64(3).u8(1).s("d");
        let mut call = Want::default().u32(1).s("c").s("n").s("a").s("ok").s("o").u64(0).u8(1).s("r").u8(1);
        call = liveness(liveness(call).u32(1)).u64(0).u64(0); // one follow-up; tools_dropped
        assert!(bytes.windows(call.0.len()).any(|w| w == call.0));
    }

    #[test]
    fn violations_skipped_lines_and_supervision_are_written() {
        let mut stream = Stream::new(Default::default());
        stream.feed(b"{\"type\":\"agent_start\",\"turn_id\":1}\n{\n");
        let mut result = stream.finish(None);
        result.supervision = Some(Supervision {
            timed_out: true,
            cancelled_by: Some(CancelReason::Timeout),
            signals: vec![SentSignal { at_ms: 7, signal: Signal::Interrupt }],
            stderr_tail: "t".to_owned(),
            stderr_dropped: 1,
            notices_dropped: 2,
            duration_ms: 9,
        });
        let bytes = encode_result(&result);
        let skipped = &result.skipped[0];
        assert_eq!(skipped.kind(), ErrorKind::Syntax);
        let error = Want::default().s("syntax").u64(2).u64(skipped.column()).s(skipped.message()).s(skipped.excerpt());
        assert!(bytes.windows(error.0.len()).any(|w| w == error.0));
        let v = &result.violations[0];
        let violation = Want::default().s(v.code.as_str()).s("error").u64(v.line);
        assert!(bytes.windows(violation.0.len()).any(|w| w == violation.0));
        let tail = Want::default().u8(1).u8(1).u8(1).s("timeout").u32(1).u64(7).s("SIGINT").s("t").u64(1).u64(2).u64(9);
        assert!(bytes.ends_with(&tail.0));
        let lines = Want::default().u64(result.untracked_calls).u64(2).0;
        assert!(bytes[..bytes.len() - tail.0.len()].ends_with(&lines));
    }
}
