//! A supervisor that itself ignores SIGINT (started from `nohup`, or as a background job
//! of a script) still cancels its child with SIGINT: the child starts with every signal's
//! default action, so it can trap SIGINT, write `cancelled` and exit 130. Without that a
//! shell child could not even set its trap (a signal ignored on entry cannot be trapped)
//! and would end by SIGTERM, judged `incomplete`.
//!
//! A test binary of its own: it changes the disposition of SIGINT for its whole process.

#![allow(unsafe_code, clippy::unwrap_used)]

use hep_core::supervise::{CancelReason, Signal};
use hep_process::{Command, Update};
use nix::sys::signal::{self, SigHandler};
use std::time::Duration;

#[test]
fn a_child_of_a_supervisor_that_ignores_sigint_can_trap_the_cancel() {
    // SAFETY: SIG_IGN installs no handler; no other test runs in this process.
    unsafe { signal::signal(signal::Signal::SIGINT, SigHandler::SigIgn) }.unwrap();
    let script = concat!(
        r#"trap 'printf "%s\n" '"'"'{"type":"cancelled","turn_id":1}'"'"'; exit 130' INT; "#,
        r#"printf '%s\n' '{"type":"hep_header","hep":"v1","fah":"9.9.9","session":"t"}' '{"type":"agent_start","turn_id":1}'; "#,
        "i=0; while [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done; exit 3"
    );
    let mut steps = Vec::new();
    let result = Command::new("sh")
        .args(["-c", script])
        .idle_timeout(Duration::from_millis(300))
        .interrupt_grace(Duration::from_secs(5))
        .run(|update| {
            if let Update::Signal(step) = update {
                steps.push((step.signal, step.reason));
            }
        })
        .unwrap();
    assert_eq!(steps, [(Signal::Interrupt, CancelReason::Idle)], "SIGINT was enough");
    assert_eq!((result.verdict.as_str(), result.exit_code), ("cancelled", Some(130)), "{:?}", result.reasons);
}
