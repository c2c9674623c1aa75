//! The supervision state machine under any order of events and times: it never panics,
//! it never asks to be woken before the latest time it was told, a cancel sends at most
//! three signals, and once the child has exited and time passes, the run always ends with a
//! result.

use hep_core::supervise::{Action, CancelReason, ExitStatus, SuperviseOptions, Supervisor};
use proptest::prelude::*;
use std::time::Duration;

use crate::strategies::config;

/// One thing that happens to a supervised child, after `gap` milliseconds.
#[derive(Debug, Clone)]
enum Happening {
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
    StdoutClosed,
    StderrClosed,
    Exited(i32, bool),
    Cancel(u8, Option<u16>),
    Tick,
    Consume(u8),
}

fn happening() -> impl Strategy<Value = Happening> {
    let frames = prop::sample::select(vec![
        &b"{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1\",\"session\":\"s\"}\n"[..],
        b"{\"type\":\"agent_start\",\"turn_id\":1}\n",
        b"{\"type\":\"message_delta\",\"turn_id\":1,\"delta\":\"hi\"}\n",
        b"{\"type\":\"cancelled\",\"turn_id\":1}\n",
        b"not json\n",
        b"{\"type\":\"turn_d",
    ]);
    prop_oneof![
        4 => prop_oneof![frames.prop_map(<[u8]>::to_vec), prop::collection::vec(any::<u8>(), 0..300)].prop_map(Happening::Stdout),
        2 => prop::collection::vec(any::<u8>(), 0..300).prop_map(Happening::Stderr),
        1 => Just(Happening::StdoutClosed),
        1 => Just(Happening::StderrClosed),
        1 => (any::<i32>(), any::<bool>()).prop_map(|(code, signal)| Happening::Exited(code, signal)),
        1 => (any::<u8>(), prop::option::of(any::<u16>())).prop_map(|(r, g)| Happening::Cancel(r, g)),
        2 => Just(Happening::Tick),
        2 => any::<u8>().prop_map(Happening::Consume),
    ]
}

fn options() -> impl Strategy<Value = SuperviseOptions> {
    let ms = || prop::option::of(0u64..20_000).prop_map(|o| o.map(Duration::from_millis));
    (ms(), ms(), 0u64..20_000, 0u64..5_000, 0u64..5_000, 0usize..200, 0usize..2_000, 0usize..4_000).prop_map(
        |(timeout, idle_timeout, interrupt, terminate, drain, tail, line, pause)| SuperviseOptions {
            timeout,
            idle_timeout,
            interrupt_grace: Duration::from_millis(interrupt),
            terminate_grace: Duration::from_millis(terminate),
            drain: Duration::from_millis(drain),
            stderr_tail_bytes: tail,
            max_stderr_line: line,
            pause_at_bytes: pause,
            ..SuperviseOptions::default()
        },
    )
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn any_order_of_events_ends_in_a_result(
        options in options(),
        steps in prop::collection::vec((0u64..3_000, happening()), 0..60),
    ) {
        let mut sup = Supervisor::new(options, Duration::ZERO);
        let mut now = Duration::ZERO;
        let mut latest = Duration::ZERO;
        let mut signals = 0;
        let mut exited = false;
        for (gap, happening) in steps {
            // Time may also seem to go back: the supervisor holds to the latest time seen.
            now = if gap == 0 { now.saturating_sub(Duration::from_millis(5)) } else { now + Duration::from_millis(gap) };
            match happening {
                Happening::Stdout(bytes) => sup.stdout(now, &bytes),
                Happening::Stderr(bytes) => sup.stderr(now, &bytes),
                Happening::StdoutClosed => sup.stdout_closed(now),
                Happening::StderrClosed => sup.stderr_closed(now),
                Happening::Exited(code, signal) => {
                    exited = true;
                    sup.exited(now, if signal { ExitStatus::Signal(code) } else { ExitStatus::Code(code) });
                }
                Happening::Cancel(r, grace) => {
                    let reason = [CancelReason::User, CancelReason::Timeout, CancelReason::Idle][usize::from(r % 3)];
                    sup.cancel_within(now, reason, grace.map(|g| Duration::from_millis(g.into())));
                }
                Happening::Tick => sup.tick(now),
                Happening::Consume(n) => {
                    for _ in 0..n {
                        sup.poll_event();
                        sup.poll_stderr();
                    }
                    // Taking events tells the supervisor no time: `now` is not seen.
                    now = latest;
                }
            }
            while let Some(action) = sup.poll_action() {
                if let Action::Signal(_) = action {
                    signals += 1;
                }
            }
            latest = latest.max(now);
            if let Some(deadline) = sup.deadline() {
                prop_assert!(deadline >= latest, "woken at {:?}, before {:?}", deadline, latest);
            }
        }
        prop_assert!(signals <= 3, "{} signals: a cancel has three steps", signals);
        // The child exits (if it has not), its pipes stay open: time alone ends the run.
        if !exited {
            sup.exited(now, ExitStatus::Code(0));
        }
        let mut guard = 0;
        while let Some(deadline) = sup.deadline() {
            sup.tick(deadline);
            guard += 1;
            prop_assert!(guard < 10, "the deadlines never end");
        }
        prop_assert!(sup.is_finished(), "no result after the exit and the drain");
        let result = sup.result().cloned();
        let supervision = result.and_then(|r| r.supervision);
        prop_assert!(supervision.is_some_and(|s| s.stderr_tail.len() <= options.stderr_tail_bytes.max(1) * 3));
    }
}
