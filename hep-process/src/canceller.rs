//! [`Canceller`]: cancel a run from another thread or a signal handler.

use std::io::{self, Read};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::raw::c_int;
use std::os::unix::net::UnixStream;
use std::sync::Arc;

/// Asks a run to be cancelled, from any thread or from a signal handler.
///
/// Each [`cancel`](Canceller::cancel) is one request, handed to the core's
/// [`Supervisor`](hep_core::supervise::Supervisor): the first starts the cancel ladder
/// (SIGINT, then SIGTERM and SIGKILL after their graces), each further one takes the next
/// step at once. The run carries a request out as soon as its driver runs: at once while
/// [`Command::run`](crate::Command::run) or [`Process::next_update`](crate::Process::next_update)
/// waits for the child, or when the callback or the caller gets back to it.
///
/// Clones share the requests. A canceller serves one run at a time (give it to
/// [`Command::canceller`](crate::Command::canceller) for the runs one after another); a
/// request made while no run is going is taken by the next run, and the requests left
/// when a run finishes are dropped.
///
/// ```
/// use hep_process::{Canceller, Command};
/// use std::time::Duration;
///
/// let canceller = Canceller::new()?;
/// let later = canceller.clone();
/// std::thread::spawn(move || {
///     std::thread::sleep(Duration::from_millis(100));
///     later.cancel();
/// });
/// // A child that writes its header, runs until it is told to stop, and exits 130 then.
/// let script = r#"trap 'exit 130' INT
/// echo '{"type":"hep_header","hep":"v1","fah":"1","session":"s"}'
/// while :; do sleep 0.01; done"#;
/// let result = Command::new("sh")
///     .args(["-c", script])
///     .canceller(&canceller)
///     .run(|_| {})?;
/// assert_eq!(result.verdict.as_str(), "cancelled");
/// assert_eq!(result.reasons[0], "the supervisor cancelled the run: cancelled on request");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Canceller {
    wake: Arc<Wake>,
}

/// A socket pair: each byte written is one request; the driver waits on the read end.
#[derive(Debug)]
struct Wake {
    read: UnixStream,
    write: UnixStream,
}

impl Canceller {
    /// A new canceller, with no request made.
    pub fn new() -> io::Result<Self> {
        let (read, write) = UnixStream::pair()?;
        read.set_nonblocking(true)?;
        write.set_nonblocking(true)?;
        Ok(Self { wake: Arc::new(Wake { read, write }) })
    }

    /// Asks for the run to be cancelled (the first request), or for the next step of the
    /// cancel at once (each further one). Never blocks, never fails, and is
    /// async-signal-safe: it only writes one byte to a socket (`write(2)`), so a signal
    /// handler may call it.
    pub fn cancel(&self) {
        // A full socket holds thousands of requests already; the ladder has three steps.
        let _ = nix::unistd::write(&self.wake.write, &[1]);
    }

    /// Routes SIGINT (Ctrl-C) and SIGTERM to this canceller for the rest of the process's
    /// life: [`cancel_on_signals`](Canceller::cancel_on_signals) with both. A first Ctrl-C
    /// cancels the run, each further one escalates at once, as a terminal user expects.
    ///
    /// ```no_run
    /// use hep_process::{Canceller, Command};
    ///
    /// let canceller = Canceller::new()?;
    /// canceller.cancel_on_interrupt()?;
    /// let result = Command::new("fa").args(["--output", "events", "-p", "hi"]).canceller(&canceller).run(|_| {})?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn cancel_on_interrupt(&self) -> io::Result<()> {
        self.cancel_on_signals(&[signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM])
    }

    /// Routes `signals` (numbers such as `signal_hook::consts::SIGUSR1`) to this canceller
    /// for the rest of the process's life: each delivery is one
    /// [`cancel`](Canceller::cancel) request. The process no longer ends on these signals
    /// (a signal-hook handler writes to the canceller's socket instead).
    ///
    /// ```
    /// use hep_process::Canceller;
    ///
    /// let canceller = Canceller::new()?;
    /// canceller.cancel_on_signals(&[signal_hook::consts::SIGUSR1])?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn cancel_on_signals(&self, signals: &[c_int]) -> io::Result<()> {
        for &signal in signals {
            signal_hook::low_level::pipe::register(signal, self.wake.write.try_clone()?)?;
        }
        Ok(())
    }

    /// What the driver waits on.
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.wake.read.as_fd()
    }

    /// Takes the requests made since the last call: how many.
    pub(crate) fn take_requests(&self) -> usize {
        let mut buf = [0u8; 64];
        let mut count = 0;
        loop {
            match (&self.wake.read).read(&mut buf) {
                Ok(0) => return count,
                Ok(n) => count += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return count,
            }
        }
    }
}
