//! Run a HEP emitter (the reference is `fa --output events -p PROMPT`) as a child process,
//! read it live, cancel it, judge it: the ready blocking driver over hep-core's sans-IO
//! [`Supervisor`](hep_core::supervise::Supervisor), the one `hep watch` and `hep check` use.
//!
//! ```no_run
//! use hep_core::Event;
//! use hep_process::{Canceller, Command, Update};
//! use std::time::Duration;
//!
//! let canceller = Canceller::new()?;
//! canceller.cancel_on_interrupt()?; // Ctrl-C cancels the run; again, escalates at once
//! let result = Command::new("fa")
//!     .args(["--output", "events", "-p", "fix the failing test"])
//!     .idle_timeout(Duration::from_secs(300))
//!     .canceller(&canceller)
//!     .run(|update| match update {
//!         Update::Event(Event::Frame(received)) => println!("{}", received.raw),
//!         Update::Event(report) => eprintln!("{report:?}"),
//!         Update::Stderr(line) => eprintln!("harness: {line}"),
//!         Update::Signal(step) => eprintln!("{} sent ({})", step.signal.name(), step.reason.as_str()),
//!         _ => {}
//!     })?;
//! println!("{}: {}", result.verdict.as_str(), result.reasons.join("; "));
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! # What it does, and what the core does
//!
//! The driver only does the I/O: it spawns the child in a new process group with piped
//! stdout and stderr, waits with poll(2) on both pipes, the [`Canceller`] and the child's
//! exit (a waiter thread reaps the child), hands the bytes and the time to the core, sends
//! the signals the core orders to the group, pauses and closes what it is told to, and
//! wakes the core at its deadline. Every decision is the core's, pinned by the supervision
//! vectors of `conformance/supervise/`: the cancel ladder (SIGINT, then SIGTERM after
//! [`interrupt_grace`](Command::interrupt_grace), SIGKILL after
//! [`terminate_grace`](Command::terminate_grace); a further request takes the next step at
//! once), the [`timeout`](Command::timeout) and [`idle_timeout`](Command::idle_timeout), the
//! drain after the exit (the child's group is killed, its pipes read for 2 s more), the
//! stderr lines and the 64 KiB tail, and the verdict.
//!
//! A cancel keeps reading: the child's stdout and stderr are read until it exits, so a
//! child blocked on a full pipe can still write `cancelled`. The reading is readiness
//! driven, with no polling interval: a frame reaches [`Update::Event`] as soon as its line
//! is complete.
//!
//! # No orphans
//!
//! Dropping a [`Process`] (the end of a scope, or a panic unwinding through it) kills the
//! child's process group and reaps the child; [`Command::run`] drops it when it returns or
//! unwinds. A supervisor that ends without unwinding (`std::process::exit`, an abort,
//! SIGKILL) runs no destructor: on Linux the kernel then kills the child
//! (`PR_SET_PDEATHSIG`, see [`Command::die_with_supervisor`]); elsewhere it is left
//! running. Route SIGINT and SIGTERM to a [`Canceller`]
//! ([`Canceller::cancel_on_interrupt`]) so that they cancel the child gracefully instead of
//! ending the supervisor.

// The driver is made of Unix process groups, signals and poll(2): elsewhere, say so
// once instead of a page of errors from the modules below.
#[cfg(not(unix))]
compile_error!(
    "hep-process supports Unix only (it supervises the child in a process group with Unix signals and poll(2)); \
     elsewhere, read the child's stdout with hep_core::Stream or hep_core::Reader"
);

#[cfg(unix)]
mod canceller;
#[cfg(unix)]
mod command;
#[cfg(unix)]
mod driver;

/// docs/rust.md, whose Rust blocks run as doc tests of this crate.
#[cfg(doctest)]
#[doc = include_str!("../../docs/rust.md")]
pub struct RustGuide;

/// README.md (the crate's page on crates.io), whose Rust blocks run as doc tests too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct Readme;

#[cfg(unix)]
pub use canceller::Canceller;
#[cfg(unix)]
pub use command::Command;
#[cfg(unix)]
pub use driver::Process;
/// The core this crate drives: its types ([`Event`], [`SignalStep`],
/// [`RunResult`](hep_core::RunResult)) are the ones an [`Update`] carries and a run returns.
pub use hep_core;

use hep_core::Event;
use hep_core::supervise::SignalStep;

/// What a supervised run reports while it goes on, each the moment it happens.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Update {
    /// An event of the stdout stream: a frame the moment its line is complete, a violation,
    /// a skipped line, or the halt of a strict stream.
    Event(Event),
    /// A line of the child's stderr (without its line end), the moment it is complete
    /// (cut at 16 KiB). The result keeps the last 64 KiB of stderr too.
    Stderr(String),
    /// A step of the cancel ladder, sent to the child's process group: the signal, why
    /// (the user, the timeout, idleness), and the step that follows unless the child exits.
    Signal(SignalStep),
}
