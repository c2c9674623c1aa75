import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A supervised HEP v1 harness: a child process whose stdout is read live as a HEP stream.
///
/// ```swift
/// let process = try HepProcess(executableURL: hep, arguments: ["simulate"])
/// for try await frame in process.frames {
///     print(frame.type)
/// }
/// let result = await process.result
/// ```
///
/// The child is started with `posix_spawn`, in a process group of its own (the group id is
/// `pid`, set before the child runs), with stdin `/dev/null`, an empty signal mask and
/// default signal dispositions. Not with `Foundation.Process`: it starts the child in its
/// own group too, but with the signal mask of the calling thread, and Swift concurrency's
/// threads block most signals, so a harness started from a task would never see the SIGINT
/// of a cancel. Its stdout is read as it arrives, and each frame is delivered the moment its
/// line is complete. Its stderr is kept as a bounded tail (the core's `STDERR_TAIL_BYTES`).
///
/// Backpressure: while more than 1 MiB of lines wait in `frames` for the task iterating it,
/// the child's stdout is not read further (a child that writes faster than its frames are
/// taken then waits on its full pipe, and memory stays bounded). Awaiting `result`, or
/// cancelling, lifts that bound: the output is then read to its end and kept until asked for.
///
/// No orphans: when the child exits, whatever it left in its process group is killed
/// (SIGKILL), so a leftover holding its stdout open cannot keep the run going; then its
/// pipes are read as far as they hold what was written, so neither can a process that left
/// the group (`setsid`) and holds them open. `cancel()` signals the whole group. Releasing a
/// `HepProcess` whose child still runs cancels it. A process that moved itself to another
/// group or session is out of reach of the signals, as with any group-based supervisor.
/// The child is reaped by a thread of this library: an application that reaps every child
/// itself (`waitpid(-1)` in a SIGCHLD handler) leaves its exit code unknown.
///
/// All protocol behaviour (parsing, validation, the verdict) is the Rust core's, through
/// the same stream as `HepStream`.
public final class HepProcess: Sendable {
    /// The default wait after SIGINT before a cancel sends SIGTERM: the core's
    /// `INTERRUPT_GRACE`, 12 s. On SIGINT the reference harness aborts a streaming run, waits
    /// up to 10 s for it to settle (the partial transcript saved, `cancelled` written), drains
    /// its stdout and exits 130; a SIGTERM during that wait makes it exit 143 at once, losing
    /// what it had not written. 12 s is that 10 s settle plus 2 s for the drain and the exit.
    public static let interruptGrace: Duration = .milliseconds(policy.interruptGraceMs)
    /// The default wait after SIGTERM before SIGKILL: the core's `TERMINATE_GRACE`, 2 s (a
    /// harness that got this far has already had the whole interrupt grace; SIGTERM is the
    /// last request it can honour, SIGKILL the end no process can refuse).
    public static let terminateGrace: Duration = .milliseconds(policy.terminateGraceMs)
    /// Bytes of the child's stderr kept in `RunResult.stderrTail` (the core's
    /// `STDERR_TAIL_BYTES`, 64 KiB: the most recent ones).
    public static let stderrTailBytes: Int = Int(clamping: policy.stderrTailBytes)

    /// The child's process id, which is also its process group id.
    public let pid: Int32
    /// How long a cancel of this run waits after SIGINT before SIGTERM (`cancel(grace:)` can
    /// override it for one cancel).
    public let interruptGrace: Duration
    /// How long a cancel of this run waits after SIGTERM before SIGKILL.
    public let terminateGrace: Duration
    private let supervision: Supervision

    /// Starts `executableURL` with `arguments` and begins reading its output.
    ///
    /// - Parameters:
    ///   - environment: the child's environment (default: this process's).
    ///   - currentDirectoryURL: the child's working directory (default: this process's).
    ///   - strict: stop reading at the first error-severity violation or skipped line;
    ///     `frames` then throws it (a refused protocol version halts in any mode).
    ///   - limits: what the stream keeps at most (default: the core's caps); what a cap
    ///     leaves out is counted in the `RunResult`.
    ///   - timeout: the longest the run may take: a child still running after it is
    ///     cancelled as by `cancel()` (`timedOut` then says so). Default: no limit.
    ///   - interruptGrace: how long a cancel (by `cancel()`, the timeout, a cancelled task
    ///     awaiting `result`, or releasing the process) waits after SIGINT before SIGTERM.
    ///     Default: `HepProcess.interruptGrace` (12 s, enough for the reference harness to
    ///     settle and write `cancelled`); shorten it for a harness known to exit sooner.
    ///   - terminateGrace: how long a cancel waits after SIGTERM before SIGKILL. Default:
    ///     `HepProcess.terminateGrace` (2 s).
    ///
    ///   A negative grace counts as zero.
    /// - Throws: `POSIXError` when the child cannot be started (`.ENOENT`, `.EACCES`, ...).
    public init(
        executableURL: URL, arguments: [String] = [], environment: [String: String]? = nil,
        currentDirectoryURL: URL? = nil, strict: Bool = false, limits: Limits = Limits(), timeout: Duration? = nil,
        interruptGrace: Duration = HepProcess.interruptGrace, terminateGrace: Duration = HepProcess.terminateGrace
    ) throws {
        let exitedPipe = try makePipe()
        let child: SpawnedChild
        do {
            child = try spawnChild(
                executable: executableURL.path, arguments: arguments, environment: environment,
                directory: currentDirectoryURL?.path)
        } catch {
            _ = close(exitedPipe.read)
            _ = close(exitedPipe.write)
            throw error
        }
        pid = child.pid
        self.interruptGrace = max(interruptGrace, .zero)
        self.terminateGrace = max(terminateGrace, .zero)
        supervision = Supervision(
            child, exitedPipe: exitedPipe, strict: strict, limits: limits, timeout: timeout,
            interruptGrace: self.interruptGrace, terminateGrace: self.terminateGrace)
    }

    deinit {
        supervision.cancel(grace: interruptGrace)
    }

    /// The frames the child writes, each delivered as soon as its line is complete; the
    /// sequence ends with the child's stdout. It throws the `HepError` that halts the stream
    /// (strict mode, or a refused protocol version), after the frames before it.
    ///
    /// `frames` and `received` are two views of one sequence of lines: each line goes to
    /// whichever is iterated, so iterate one of them, from one task at a time. Frames not
    /// asked for wait, buffered, until they are (up to 1 MiB of lines, then the child waits:
    /// see Backpressure above).
    public var frames: AsyncThrowingStream<Frame, any Error> {
        AsyncThrowingStream { [self] in try await supervision.lines.next()?.frame }
    }

    /// `frames` with each frame's 1-based line number and its line exactly as read (the
    /// frame's original text): the supervisor's twin of `HepStream.feedReceived(_:)`.
    public var received: AsyncThrowingStream<Received, any Error> {
        AsyncThrowingStream { [self] in try await supervision.lines.next() }
    }

    /// Whether `timeout` ran out while the child still ran, and so cancelled the run.
    public var timedOut: Bool {
        supervision.timedOut
    }

    /// Cancels the run: SIGINT to the child's process group; SIGTERM after `grace` (default:
    /// this run's `interruptGrace`) if the child still runs, then SIGKILL after its
    /// `terminateGrace`. Returns at once; the frames the child writes meanwhile (such as
    /// `cancelled`) still arrive, and `result` gives the outcome. Does nothing once the child
    /// has exited, or when a cancel is already under way.
    ///
    /// Whether the harness writes `cancelled` depends on where the signal finds it: the
    /// reference writes it only while it streams a round, and exits 130 in every case. The
    /// verdict of exit 130 is `cancelled` either way (with the warning
    /// `cancelled_between_rounds` when no `cancelled` frame was written).
    public func cancel(grace: Duration? = nil) {
        supervision.cancel(grace: max(grace ?? interruptGrace, .zero))
    }

    /// The run's result, once the child has exited and its stdout and stderr have ended:
    /// the verdict for its exit code (128 + N when killed by signal N), the reduced run, the
    /// violations, and `stderrTail`. Reading it does not need `frames` to be consumed (the
    /// frames not taken stay for a later iteration). A child that closes its stdout but goes
    /// on running has no result until it exits: `frames` ends, `result` waits (bound it with
    /// `timeout`, or `cancel()`).
    ///
    /// If the waiting task is cancelled, the child is cancelled (as `cancel()`), and the
    /// result still comes once it has ended.
    public var result: RunResult {
        get async {
            await withTaskCancellationHandler {
                await supervision.result()
            } onCancel: {
                cancel()
            }
        }
    }
}
