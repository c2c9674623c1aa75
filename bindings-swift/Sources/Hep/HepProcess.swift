import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A supervised HEP v1 harness: a child process whose stdout is read live as a HEP stream.
///
/// ```swift
/// let process = try HepProcess(executable: "fa", arguments: ["--output", "events", "-p", prompt])
/// for try await frame in process.frames {
///     print(frame.type)
/// }
/// let result = await process.result
/// ```
///
/// The child is started with `posix_spawn`, in a process group of its own (the group id is
/// `pid`, set before the child runs), with stdin `/dev/null` (or as `standardInput` says), an
/// empty signal mask and default signal dispositions. Not with `Foundation.Process`: it
/// starts the child in its own group too, but with the signal mask of the calling thread,
/// and Swift concurrency's threads block most signals, so a harness started from a task
/// would never see the SIGINT of a cancel. Its stdout is read as it arrives, and each frame
/// is delivered the moment its line is complete; its stderr is handed over line by line
/// (`stderrLines`) and kept as a bounded tail (`RunResult.stderrTail`).
///
/// The policy is hep-core's `Supervisor` (the same in every language and in `hep watch`):
/// the cancel ladder, the timeouts, the drain after the exit, backpressure and the verdict.
/// This class only runs it: it spawns, reads, signals, reaps and hands over.
///
/// Backpressure: while someone iterates `frames` (or `received`) and more than 1 MiB of
/// events wait for that task, the child's stdout is not read further (a child that writes
/// faster than its frames are taken then waits on its full pipe, and memory stays bounded;
/// the idle timeout does not run meanwhile: the child is held up, not idle). While nobody
/// iterates (before the first `frames`, once an iteration has ended, or when only `result` is
/// awaited), stdout is read on whether or not frames are taken: those that wait stay for a
/// later iteration, up to `Supervisor.Options.dropAtBytes` (16 MiB); past that they are
/// counted in `RunResult.supervision.noticesDropped`. A cancel or the child's exit lifts the
/// pause for good.
///
/// No orphans: when the child exits, whatever it left in its process group is killed
/// (SIGKILL), and its pipes are read for at most 2 s more, so neither a leftover in the group
/// nor a process that left it (`setsid`) and holds them open can keep the run going.
/// `cancel()` signals the whole group. Releasing a `HepProcess` whose child still runs
/// cancels it, and so does the exit of this program (`exit`, or returning from `main`): the
/// first signal of the cancel is sent to every child still running. A crash or SIGKILL of
/// this program sends nothing; and `posix_spawn` runs no code between fork and exec, so the
/// child cannot be given `PR_SET_PDEATHSIG` (Linux) to follow it. A process that moved
/// itself to another group or session is out of reach of the signals, as with any
/// group-based supervisor. The child is reaped by a thread of this library: an application
/// that reaps every child itself (`waitpid(-1)` in a SIGCHLD handler) leaves its exit
/// unknown (`ExitStatus.unknown`): the run is judged without an exit code (`exitCode` nil).
public final class HepProcess: Sendable {
    /// What the child reads on its stdin.
    public enum Input: Sendable {
        /// `/dev/null`: the child reads end of file at once (the default).
        case nullDevice
        /// This process's own stdin.
        case inherit
        /// The file, pipe or socket `handle` is open on (the child gets its own copy; close
        /// yours when you no longer need it).
        case fileHandle(FileHandle)
        /// A pipe: write the child's input to `HepProcess.standardInput` and close it to end
        /// the input. As with any pipe, writing after the child has closed its end raises
        /// SIGPIPE (ignore it, `signal(SIGPIPE, SIG_IGN)`, to get `EPIPE` instead).
        case pipe
    }

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
    /// Lines of `stderrLines` kept while nobody takes them (the most recent ones).
    public static let stderrLinesKept = 1024

    /// The child's process id, which is also its process group id.
    public let pid: Int32
    /// How long a cancel of this run waits after SIGINT before SIGTERM (`cancel(grace:)` can
    /// override it for one cancel).
    public let interruptGrace: Duration
    /// How long a cancel of this run waits after SIGTERM before SIGKILL.
    public let terminateGrace: Duration
    /// The write end of the child's stdin, when it was started with `standardInput: .pipe`.
    public let standardInput: FileHandle?
    fileprivate let driver: Driver

    /// Starts the program at `executableURL` with `arguments` and begins reading its output.
    ///
    /// - Parameters:
    ///   - environment: the child's environment (default: this process's).
    ///   - currentDirectoryURL: the child's working directory (default: this process's).
    ///   - standardInput: what the child reads on stdin (default: `/dev/null`).
    ///   - strict: stop reading at the first error-severity violation or skipped line;
    ///     `frames` then throws it (a refused protocol version halts in any mode).
    ///   - limits: what the stream keeps at most (default: the core's caps); what a cap
    ///     leaves out is counted in the `RunResult`.
    ///   - timeout: the longest the run may take: a child still running after it is
    ///     cancelled as by `cancel()` (`timedOut` then says so). Default: no limit.
    ///   - idleTimeout: the longest the child may go without writing a frame (a tool call's
    ///     heartbeats count; stderr does not): then it is cancelled as by `cancel()`, and the
    ///     result's first reason says `idle for N s`. Default: no limit.
    ///   - interruptGrace: how long a cancel (by `cancel()`, a timeout, a cancelled task
    ///     awaiting `result`, or releasing the process) waits after SIGINT before SIGTERM.
    ///     Default: `HepProcess.interruptGrace` (12 s, enough for the reference harness to
    ///     settle and write `cancelled`); shorten it for a harness known to exit sooner.
    ///   - terminateGrace: how long a cancel waits after SIGTERM before SIGKILL. Default:
    ///     `HepProcess.terminateGrace` (2 s).
    ///
    ///   A negative grace or timeout counts as zero.
    /// - Throws: `POSIXError` when the child cannot be started (`.ENOENT`, `.EACCES`, ...).
    public convenience init(
        executableURL: URL, arguments: [String] = [], environment: [String: String]? = nil,
        currentDirectoryURL: URL? = nil, standardInput: Input = .nullDevice, strict: Bool = false,
        limits: Limits = Limits(), timeout: Duration? = nil, idleTimeout: Duration? = nil,
        interruptGrace: Duration = HepProcess.interruptGrace, terminateGrace: Duration = HepProcess.terminateGrace
    ) throws {
        try self.init(
            path: executableURL.path, arguments, environment, currentDirectoryURL, standardInput,
            Supervisor.Options(
                strict: strict, limits: limits, timeout: timeout, idleTimeout: idleTimeout,
                interruptGrace: max(interruptGrace, .zero), terminateGrace: max(terminateGrace, .zero)))
    }

    /// Starts the program `executable` with `arguments`: a bare name (`"fa"`, `"sh"`) is
    /// looked up in the directories of `PATH` (of `environment` when it sets one, else of
    /// this process), as a shell does; a name with a `/` is a path. The other parameters are
    /// those of `init(executableURL:...)`.
    ///
    /// - Throws: `POSIXError(.ENOENT)` when no such program is found, or as
    ///   `init(executableURL:...)`.
    public convenience init(
        executable: String, arguments: [String] = [], environment: [String: String]? = nil,
        currentDirectoryURL: URL? = nil, standardInput: Input = .nullDevice, strict: Bool = false,
        limits: Limits = Limits(), timeout: Duration? = nil, idleTimeout: Duration? = nil,
        interruptGrace: Duration = HepProcess.interruptGrace, terminateGrace: Duration = HepProcess.terminateGrace
    ) throws {
        try self.init(
            path: lookUp(executable, environment: environment), arguments, environment, currentDirectoryURL,
            standardInput,
            Supervisor.Options(
                strict: strict, limits: limits, timeout: timeout, idleTimeout: idleTimeout,
                interruptGrace: max(interruptGrace, .zero), terminateGrace: max(terminateGrace, .zero)))
    }

    private init(
        path: String, _ arguments: [String], _ environment: [String: String]?, _ directory: URL?, _ input: Input,
        _ options: Supervisor.Options
    ) throws {
        let wake = try makePipe()
        let child: SpawnedChild
        do {
            child = try spawnChild(
                executable: path, arguments: arguments, environment: environment, directory: directory?.path, input: input)
        } catch {
            _ = close(wake.read)
            _ = close(wake.write)
            throw error
        }
        pid = child.pid
        interruptGrace = options.interruptGrace
        terminateGrace = options.terminateGrace
        standardInput = child.stdin.map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        driver = Driver(child, wake: wake, options: options, stderrLinesKept: Self.stderrLinesKept)
    }

    deinit {
        driver.cancelUnlessCancelling()
    }

    /// The frames the child writes, each delivered as soon as its line is complete; the
    /// sequence ends with the child's stdout. It throws the `HepError` that halts the stream
    /// (strict mode, or a refused protocol version), after the frames before it.
    ///
    /// `frames` and `received` are two views of one sequence of lines: each line goes to
    /// whichever is iterated, so iterate one of them, from one task at a time. Frames not
    /// asked for wait until they are: from the moment a sequence is made until its iteration
    /// ends (or the sequence, never iterated, is released), the child is held up when 1 MiB
    /// of them wait (see Backpressure above). A task that is cancelled while it iterates
    /// stops iterating; the frames stay for a later iteration.
    public var frames: AsyncThrowingStream<Frame, any Error> {
        let consumer = Consumer(self)
        return AsyncThrowingStream { try await consumer.next()?.frame }
    }

    /// `frames` with each frame's 1-based line number and its line exactly as read (the
    /// frame's original text): the supervisor's twin of `HepStream.feedReceived(_:)`.
    public var received: AsyncThrowingStream<Received, any Error> {
        let consumer = Consumer(self)
        return AsyncThrowingStream { try await consumer.next() }
    }

    /// The child's stderr, line by line (without line ends, a line cut at 16 KiB), each as
    /// soon as it is complete; the sequence ends when the run does. Lines not taken wait, the
    /// most recent `HepProcess.stderrLinesKept` at most; `RunResult.stderrTail` keeps the end
    /// of stderr whether or not this is read. Iterate it from one task at a time.
    public var stderrLines: AsyncStream<String> {
        driver.stderrLines
    }

    /// Whether `timeout` ran out while the child still ran, and so cancelled the run.
    public var timedOut: Bool {
        driver.supervisor.timedOut
    }

    /// Cancels the run: SIGINT to the child's process group; SIGTERM after `grace` (default:
    /// this run's `interruptGrace`) if the child still runs, then SIGKILL after its
    /// `terminateGrace`. Returns at once, the SIGINT sent; the frames the child writes
    /// meanwhile (such as `cancelled`) still arrive, stdout is read on whether or not they
    /// are taken, and `result` gives the outcome. A second call takes the next step at once
    /// (SIGTERM, then SIGKILL). Does nothing once the child has exited.
    ///
    /// Whether the harness writes `cancelled` depends on where the signal finds it: the
    /// reference writes it only while it streams a round, and exits 130 in every case. The
    /// verdict of exit 130 is `cancelled` either way (with the warning
    /// `cancelled_between_rounds` when no `cancelled` frame was written).
    public func cancel(grace: Duration? = nil) {
        driver.cancel(grace: grace.map { max($0, .zero) })
    }

    /// The run's result, once the child has exited and its stdout and stderr have ended (or
    /// been drained): the verdict for its exit code (128 + N when killed by signal N), the
    /// reduced run, the violations, `stderrTail`, and `supervision` (who cancelled, the
    /// signals sent, how long it took). Reading it does not need `frames` to be consumed
    /// (the frames not taken stay for a later iteration), but a `frames` sequence made and
    /// not iterated holds the child up once 1 MiB of them wait (see Backpressure above): end
    /// or release it before awaiting the result alone. A child that closes its stdout but
    /// goes on running has no result until it exits: `frames` ends, `result` waits (bound it
    /// with `timeout` or `idleTimeout`, or `cancel()`).
    ///
    /// If the waiting task is cancelled, the child is cancelled (as `cancel()`), and the
    /// result still comes once it has ended.
    public var result: RunResult {
        get async {
            await withTaskCancellationHandler {
                await driver.result()
            } onCancel: {
                cancel()
            }
        }
    }
}

/// The consumer of one `frames` or `received` sequence: the supervisor's consumer is attached
/// while one lives (the stream keeps it until its iteration ends, or until it is released).
private final class Consumer: Sendable {
    let process: HepProcess

    init(_ process: HepProcess) {
        self.process = process
        process.driver.attach()
    }

    deinit {
        process.driver.detach()
    }

    func next() async throws -> Received? {
        while let event = try await process.driver.nextEvent() {
            switch event {
            case .frame(let received): return received
            case .halted(let error): throw error
            case .violation, .skipped: continue
            }
        }
        return nil
    }
}
