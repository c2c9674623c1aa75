import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The supervision policy of one harness, as a state machine without I/O: hep-core's
/// `Supervisor`, the same in every language and in `hep watch`. `HepProcess` runs one for
/// each child; use it directly to write a driver of your own (another way of spawning,
/// another event loop, a simulated clock).
///
/// It is told what happened and when, and answers with what to do and when to wake it:
///
/// - In: the bytes the child writes (`stdout(at:_:)`, `stderr(at:_:)`), its pipes closing
///   (`stdoutClosed(at:)`, `stderrClosed(at:)`), its exit (`exited(at:_:)`, `.unknown` when
///   something else reaped it), cancel requests (`cancel(at:reason:interruptGrace:)`),
///   whether someone takes the events as they come (`setConsumer(at:attached:)`), and the
///   time (`tick(at:)` at `deadline`).
/// - Out: `pollAction()` (signal the child's process group, kill the group once the child
///   has exited, pause or resume reading stdout, close the pipes), `pollEvent()` (the frames,
///   violations, skipped lines and halt of the stdout stream, for the user), `pollStderr()`
///   (stderr lines, a queue of their own, never behind events), `deadline`, and at the end
///   `result`, with `RunResult.supervision`; and, as the run goes, `isPaused`,
///   `isCancelling`, `cancelledBy`, `timedOut`, `isStdoutOpen`.
///
/// Times are `Duration`s since any fixed origin: a driver passes its monotonic clock (e.g.
/// `ContinuousClock.now - start`); a time earlier than one already seen counts as that one.
/// Every call that takes a time first handles the deadlines passed before it, in order. After
/// each call, take the actions: taking an event may resume stdout, so look at the actions
/// after taking events too.
///
/// ```swift
/// let supervisor = Supervisor(options: .init(idleTimeout: .seconds(300)))
/// supervisor.stdout(at: .milliseconds(5), Data(headerLine.utf8))
/// supervisor.cancel(at: .milliseconds(10))
/// supervisor.pollAction()  // .signal(SIGINT to the group, SIGTERM 12 s later if it still runs)
/// ```
///
/// The object is safe to share between threads (the core state machine is locked).
public final class Supervisor: Sendable {
    /// How a run is supervised; every field defaults to the core's policy.
    public struct Options: Sendable, Hashable {
        @usableFromInline static let core = superviseDefaults()

        /// Stop reading stdout at the first error-severity violation or skipped line (a
        /// `.halted` event).
        public var strict: Bool
        /// What the stdout stream keeps at most.
        public var limits: Limits
        /// The longest the run may take; past it, the run is cancelled (`.timeout`).
        public var timeout: Duration?
        /// The longest the child may go without writing a frame; past it, the run is
        /// cancelled (`.idle`). Any frame counts, a tool call's `tool_liveness` heartbeats
        /// included; stderr does not.
        public var idleTimeout: Duration?
        /// After SIGINT, the wait before SIGTERM (12 s).
        public var interruptGrace: Duration
        /// After SIGTERM, the wait before SIGKILL (2 s).
        public var terminateGrace: Duration
        /// After the child exits, how long its pipes are still read (2 s): a process it left
        /// outside its group may hold them open.
        public var drain: Duration
        /// Bytes of stderr kept for `RunResult.stderrTail` (64 KiB).
        public var stderrTailBytes: Int
        /// The longest stderr line handed over; a longer one is cut there (16 KiB).
        public var maxStderrLine: Int
        /// Bytes of waiting events above which stdout is paused (1 MiB) while a consumer is
        /// attached (`setConsumer(at:attached:)`); it is resumed at half of it.
        public var pauseAtBytes: Int

        /// The core's policy, with the given changes. A negative duration counts as zero.
        public init(
            strict: Bool = false, limits: Limits = Limits(), timeout: Duration? = nil, idleTimeout: Duration? = nil,
            interruptGrace: Duration = .nanoseconds(core.interruptGraceNs),
            terminateGrace: Duration = .nanoseconds(core.terminateGraceNs), drain: Duration = .nanoseconds(core.drainNs),
            stderrTailBytes: Int = Int(clamping: core.stderrTailBytes), maxStderrLine: Int = Int(clamping: core.maxStderrLine),
            pauseAtBytes: Int = Int(clamping: core.pauseAtBytes)
        ) {
            self.strict = strict
            self.limits = limits
            self.timeout = timeout
            self.idleTimeout = idleTimeout
            self.interruptGrace = interruptGrace
            self.terminateGrace = terminateGrace
            self.drain = drain
            self.stderrTailBytes = stderrTailBytes
            self.maxStderrLine = maxStderrLine
            self.pauseAtBytes = pauseAtBytes
        }

        /// Bytes of waiting events (or, in their own queue, stderr lines) past which further
        /// ones are counted in `RunResult.supervision.noticesDropped` instead of kept: 16 ×
        /// `pauseAtBytes`, and at least `Supervisor.minDropAtBytes` (16 MiB by default).
        public var dropAtBytes: Int {
            Int(clamping: superviseDropAtBytes(options: coreOptions))
        }

        var coreOptions: CoreSuperviseOptions {
            let size = { (n: Int) in UInt64(max(n, 0)) }
            return CoreSuperviseOptions(
                strict: strict, limits: limits.coreLimits, timeoutNs: timeout?.nanos, idleTimeoutNs: idleTimeout?.nanos,
                interruptGraceNs: interruptGrace.nanos, terminateGraceNs: terminateGrace.nanos, drainNs: drain.nanos,
                stderrTailBytes: size(stderrTailBytes), maxStderrLine: size(maxStderrLine), pauseAtBytes: size(pauseAtBytes))
        }
    }

    /// What the driver must do.
    public enum Action: Sendable, Hashable {
        /// Send `step.signal` to the child's process group (a step of a cancel).
        case signal(SignalStep)
        /// The child exited: send SIGKILL to its process group, so that nothing it left there
        /// outlives it (before reaping it, while its pid cannot be reused).
        case killGroup
        /// Stop reading stdout: the consumer is behind (the child will block on a full pipe).
        case pauseStdout
        /// Read stdout again.
        case resumeStdout
        /// Stop reading and close both pipes: the drain after the child's exit is over.
        case closePipes
    }

    /// A step of the cancel ladder.
    public struct SignalStep: Sendable, Hashable {
        /// The signal to send to the child's process group.
        public let signal: CancelSignal
        /// Why the run is being cancelled.
        public let reason: CancelReason
        /// The step that follows if the child still runs by then (`nil` after SIGKILL).
        public let next: Next?

        /// The next step of a cancel and the wait before it.
        public struct Next: Sendable, Hashable {
            /// The signal.
            public let signal: CancelSignal
            /// The wait before it.
            public let after: Duration

            /// `signal` after `after`.
            public init(signal: CancelSignal, after: Duration) {
                self.signal = signal
                self.after = after
            }
        }

        /// A step sending `signal` for `reason`, then `next`.
        public init(signal: CancelSignal, reason: CancelReason, next: Next?) {
            self.signal = signal
            self.reason = reason
            self.next = next
        }
    }

    /// An event of the child's stdout stream.
    public enum Event: Sendable, Hashable {
        /// A frame, with its line number and line, as soon as its line is complete.
        case frame(Received)
        /// A breach of a consumer guarantee (after the frame that caused it).
        case violation(Violation)
        /// A line that could not be read (malformed, too long, truncated); reading goes on.
        case skipped(HepError)
        /// The stream stopped (strict mode, or a refused protocol version): the last event.
        case halted(HepError)
    }

    /// The least number of waiting bytes past which events and stderr lines are counted
    /// instead of kept, whatever `pauseAtBytes` (the core's `MIN_DROP_AT_BYTES`, 1 MiB; see
    /// `Options.dropAtBytes`).
    public static let minDropAtBytes: Int = Int(clamping: policy.minDropAtBytes)

    /// The options the run is supervised with.
    public let options: Options
    private let core: CoreSupervisor

    /// A supervisor for a child started at `start`.
    public init(options: Options = Options(), at start: Duration = .zero) {
        self.options = options
        core = CoreSupervisor(options: options.coreOptions, nowNs: start.nanos)
    }

    /// Bytes the child wrote on stdout.
    public func stdout(at now: Duration, _ data: Data) {
        core.stdout(nowNs: now.nanos, data: data)
    }

    /// Bytes the child wrote on stderr.
    public func stderr(at now: Duration, _ data: Data) {
        core.stderr(nowNs: now.nanos, data: data)
    }

    /// The child's stdout reached its end.
    public func stdoutClosed(at now: Duration) {
        core.stdoutClosed(nowNs: now.nanos)
    }

    /// The child's stderr reached its end.
    public func stderrClosed(at now: Duration) {
        core.stderrClosed(nowNs: now.nanos)
    }

    /// The child exited (the driver saw it; reap it after the `.killGroup` this orders).
    /// `.unknown` when how it ended cannot be learnt (something else reaped it): the run is
    /// then judged without an exit code.
    public func exited(at now: Duration, _ status: ExitStatus) {
        core.exited(nowNs: now.nanos, status: status)
    }

    /// Asks for the run to be cancelled. The first request orders SIGINT, then SIGTERM and
    /// SIGKILL after their graces while the child runs (`interruptGrace` replaces the first
    /// wait for this cancel); a later request by the user takes the next step at once (a
    /// timeout or idleness never hurries a cancel under way). Does nothing once the child
    /// has exited.
    public func cancel(at now: Duration, reason: CancelReason = .user, interruptGrace: Duration? = nil) {
        core.cancel(nowNs: now.nanos, reason: reason, interruptGraceNs: interruptGrace?.nanos)
    }

    /// Says whether someone takes the events as they come (`true`, the default). Detach the
    /// consumer while nobody does (your user only awaits `result`): stdout is then never
    /// paused for events nobody will take (detaching resumes it), and they wait, up to
    /// `Options.dropAtBytes`, for a later taker. Attaching again lets backpressure apply from
    /// the next read.
    public func setConsumer(at now: Duration, attached: Bool) {
        core.setConsumer(nowNs: now.nanos, attached: attached)
    }

    /// Handles every deadline up to `now` (call it when `deadline` is reached, with the
    /// current time).
    public func tick(at now: Duration) {
        core.tick(nowNs: now.nanos)
    }

    /// When to call `tick(at:)` next, if anything waits for a time. A deadline at or before
    /// the latest time told means: tick now, with the current time (it is the case after
    /// taking events resumed stdout: the idle clock, stopped while stdout was paused, runs
    /// again from the next time told).
    public var deadline: Duration? {
        core.deadlineNs().map { .nanoseconds($0) }
    }

    /// The next thing the driver must do.
    public func pollAction() -> Action? {
        core.pollAction().map { action in
            switch action {
            case let .signal(signal, reason, next, after):
                .signal(SignalStep(signal: signal, reason: reason, next: next.map { .init(signal: $0, after: .nanoseconds(after)) }))
            case .killGroup: .killGroup
            case .pauseStdout: .pauseStdout
            case .resumeStdout: .resumeStdout
            case .closePipes: .closePipes
            }
        }
    }

    /// The next event of the stdout stream (taking it may resume stdout: look at the actions
    /// after).
    public func pollEvent() -> Event? {
        pollEvents(max: 1).first
    }

    /// The next events of the stdout stream, up to `max`, in one call (as a driver takes
    /// them: each call crosses into the core once).
    public func pollEvents(max: Int = .max) -> [Event] {
        pollEvents(max: max, maxBytes: .max)
    }

    /// Up to `max` events, fewer once the frames taken hold `maxBytes` bytes of lines.
    func pollEvents(max: Int, maxBytes: Int) -> [Event] {
        guard max > 0 else { return [] }
        let batch = core.pollEvents(maxEvents: UInt64(max), maxBytes: UInt64(Swift.max(maxBytes, 0)))
        let frames = batch.frames.received()
        guard !batch.notices.isEmpty else { return frames.map(Event.frame) }
        var events: [Event] = []
        events.reserveCapacity(frames.count + batch.notices.count)
        var next = 0
        for placed in batch.notices {
            while next < Int(placed.afterFrames) && next < frames.count {
                events.append(.frame(frames[next]))
                next += 1
            }
            switch placed.notice {
            case .violation(let violation): events.append(.violation(violation))
            case .skipped(let error): events.append(.skipped(error))
            case .halted(let error): events.append(.halted(error))
            }
        }
        events.append(contentsOf: frames[next...].map(Event.frame))
        return events
    }

    /// The next line of the child's stderr (without its line end), as soon as it is complete.
    public func pollStderr() -> String? {
        core.pollStderr(max: 1).first
    }

    /// The next lines of the child's stderr, up to `max`, oldest first.
    public func pollStderr(max: Int) -> [String] {
        max > 0 ? core.pollStderr(max: UInt64(max)) : []
    }

    /// Whether stdout is paused for the consumer (the idle clock stops meanwhile: the child
    /// is held up, not idle).
    public var isPaused: Bool {
        core.isPaused()
    }

    /// Who cancelled the run, once a cancel has started.
    public var cancelledBy: CancelReason? {
        core.cancelledBy()
    }

    /// Whether a cancel has started and the child has not exited yet (a further user cancel
    /// would hurry it).
    public var isCancelling: Bool {
        core.isCancelling()
    }

    /// Whether the timeout ran out and cancelled the run.
    public var timedOut: Bool {
        core.timedOut()
    }

    /// Whether stdout is still open: once it is not (its end reached, or the drain closed
    /// it), no event comes after the ones waiting.
    public var isStdoutOpen: Bool {
        core.isStdoutOpen()
    }

    /// Whether the result is known (events may still wait).
    public var isFinished: Bool {
        core.isFinished()
    }

    /// The run's result, once the child has exited and its pipes are closed or drained,
    /// with `supervision` set (and its stderr tail as `stderrTail`).
    public var result: RunResult? {
        core.result()
    }
}

extension CancelSignal {
    /// The POSIX signal number: `SIGINT`, `SIGTERM` or `SIGKILL`.
    public var number: Int32 {
        switch self {
        case .interrupt: SIGINT
        case .terminate: SIGTERM
        case .kill: SIGKILL
        }
    }

    /// `"SIGINT"`, `"SIGTERM"` or `"SIGKILL"`.
    public var name: String {
        switch self {
        case .interrupt: "SIGINT"
        case .terminate: "SIGTERM"
        case .kill: "SIGKILL"
        }
    }
}

extension CancelReason {
    /// `"user"`, `"timeout"` or `"idle"`.
    public var name: String {
        switch self {
        case .user: "user"
        case .timeout: "timeout"
        case .idle: "idle"
        }
    }
}

extension ExitStatus {
    /// The exit code a shell reports: the code, or 128 + the signal number; `nil` when
    /// unknown (something else reaped the child).
    public var code: Int32? {
        switch self {
        case .code(let code): code
        case .signal(let signal): ExitCode.forSignal(signal)
        case .unknown: nil
        }
    }
}

extension Duration {
    /// Nanoseconds, a negative duration as zero (saturating).
    var nanos: UInt64 {
        guard self > .zero else { return 0 }
        let (seconds, attoseconds) = components
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .max }
        let (sum, over) = whole.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return over ? .max : sum
    }
}
