//! `hep simulate`: a realistic HEP v1 emitter with real timing, built on the core's
//! [`Emitter`]. Signals are handled as the reference does (`_gracefulHeadlessExit` in
//! `bin/fah.dart`, see `hep_core::supervise`): SIGINT or a first SIGTERM aborts the run only
//! while the agent is streaming (from `agent_start` to the run's last terminal frame), which
//! then ends with `cancelled`; a signal at any other time (a compaction outside the agent
//! run, after the last round) aborts nothing and writes nothing more. Either way the
//! simulator lets the run settle and exits 130; a second SIGTERM exits 143 at once.

use crate::args::Simulate;
use crate::scenarios;
use crate::simulator::{Ending, Sim, Stop};
use hep_core::ArgsMode;
use hep_core::supervise::{EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, exit_code_for_signal};
use hep_core::writer::Emitter;
use std::io;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Installs the signal handlers: SIGINT and SIGTERM set the returned flag; a SIGTERM after
/// a first one exits 143 at once, from the handler (the reference's second SIGTERM). A
/// SIGTERM after SIGINT is a first SIGTERM; a second SIGINT changes nothing.
fn watch_signals() -> io::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    use signal_hook::flag;
    let interrupted = Arc::new(AtomicBool::new(false));
    let terminated = Arc::new(AtomicBool::new(false));
    // Registered first, so it sees the flag as the previous SIGTERM left it.
    flag::register_conditional_shutdown(SIGTERM, exit_code_for_signal(SIGTERM), Arc::clone(&terminated))?;
    flag::register(SIGTERM, terminated)?;
    flag::register(SIGTERM, Arc::clone(&interrupted))?;
    flag::register(SIGINT, Arc::clone(&interrupted))?;
    Ok(interrupted)
}

/// Runs the chosen scenario; returns the process exit code.
pub(crate) fn run(opts: &Simulate) -> i32 {
    let interrupted = match watch_signals() {
        Ok(flag) => flag,
        Err(e) => {
            eprintln!("hep simulate: cannot watch for signals: {e}");
            return EXIT_FAILED;
        }
    };
    let mode = if opts.full_args { ArgsMode::Full } else { ArgsMode::Summary };
    let mut sim = Sim::new(Emitter::new(env!("CARGO_PKG_VERSION"), mode), opts.seed, opts.speed, interrupted);
    let session = opts.session.clone().unwrap_or_else(|| format!("sim-{:04x}", opts.seed % 0x10000));
    let outcome = sim.em().header(&session).map_err(Stop::from).and_then(|line| sim.put(line));
    // A signal that came after the last check still makes the exit code 130, as in the
    // reference, which exits 130 after any SIGINT or first SIGTERM.
    let outcome = outcome.and_then(|()| scenarios::play(&mut sim, opts.scenario)).and_then(|ending| {
        sim.check()?;
        Ok(ending)
    });
    match outcome {
        Ok(Ending::Done) => EXIT_OK,
        Ok(Ending::Failed) => EXIT_FAILED,
        Err(Stop::Interrupted) => match sim.settle_after_signal() {
            Ok(()) => EXIT_CANCELLED,
            Err(_) => EXIT_FAILED,
        },
        Err(Stop::Failed(e)) => {
            eprintln!("hep simulate: {e}");
            EXIT_FAILED
        }
    }
}
