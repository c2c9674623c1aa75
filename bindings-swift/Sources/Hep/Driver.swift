import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The I/O of one supervised child around its `Supervisor`, which decides everything else
/// (the cancel ladder, the timeouts, the drain after the exit, backpressure, the verdict).
///
/// One thread runs the loop: it waits in `poll` for stdout, stderr, a wake-up or the
/// supervisor's deadline, feeds what came, and carries out the supervisor's actions.
/// Another thread waits for the child's exit (`waitid` with `WNOWAIT`: the child stays a
/// zombie, so its pid, the group's id, cannot be reused) and wakes the loop, which tells the
/// supervisor, kills the group as told, and then reaps the child. The events wait in the
/// supervisor until the consumer takes them (`nextEvent`); the supervisor's consumer is
/// attached while a sequence of them exists (`attach`, `detach`), so that stdout is paused
/// only for someone who will take them. Stderr lines go to `stderrLines`.
final class Driver: @unchecked Sendable {
    let supervisor: Supervisor
    let pid: pid_t
    let stderrLines: AsyncStream<String>
    private let stderrSink: AsyncStream<String>.Continuation
    private let start = ContinuousClock.now
    /// Written to wake the loop (non-blocking); closed with the driver.
    private let wake: (read: Int32, write: Int32)

    // Every field below is guarded by `lock`.
    private let lock = NSLock()
    private var exit: ExitStatus?
    private var reaped = false
    private var paused = false
    private var closeRequested = false
    private var readFailure: HepError?
    /// The sequences of events that exist (`HepProcess.frames`, `received`).
    private var consumers = 0
    private var taken: [Supervisor.Event] = []
    private var head = 0
    private var waiter: CheckedContinuation<Supervisor.Event?, any Error>?
    private var finished: RunResult?
    private var resultWaiters: [CheckedContinuation<RunResult, Never>] = []

    /// Starts serving `child`; `wake` is a pipe of its own (made before the child, so that
    /// nothing can fail once the child runs), which it closes.
    init(_ child: SpawnedChild, wake: (read: Int32, write: Int32), options: Supervisor.Options, stderrLinesKept: Int) {
        self.wake = wake
        _ = fcntl(wake.write, F_SETFL, fcntl(wake.write, F_GETFL) | O_NONBLOCK)
        pid = child.pid
        supervisor = Supervisor(options: options)
        supervisor.setConsumer(at: .zero, attached: false)  // until someone asks for the frames
        (stderrLines, stderrSink) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(stderrLinesKept))
        running.add(self)
        spawnThread("hep wait \(pid)") { [self] in awaitExit() }
        spawnThread("hep \(pid)") { [self] in loop(stdout: child.stdout, stderr: child.stderr) }
    }

    deinit {
        _ = close(wake.read)
        _ = close(wake.write)
    }

    private var now: Duration { ContinuousClock.now - start }

    /// Asks the supervisor to cancel (the signal it orders is sent at once, from here).
    func cancel(grace: Duration?) {
        supervisor.cancel(at: now, reason: .user, interruptGrace: grace)
        act()
        wakeLoop()
    }

    /// Cancels the run unless a cancel is under way, which a second request would hurry
    /// (for the release of the process and the exit of this program).
    func cancelUnlessCancelling() {
        if !supervisor.isCancelling { cancel(grace: nil) }
    }

    /// A sequence of the events was made: someone takes them as they come (stdout may be
    /// paused for them).
    func attach() {
        lock.withLock {
            consumers += 1
            if consumers == 1 { supervisor.setConsumer(at: now, attached: true) }
        }
        act()  // telling the time may have passed a deadline
    }

    /// A sequence of the events ended: without one, stdout is never paused (the events wait
    /// in the supervisor for a later sequence, those past its bound counted as dropped).
    func detach() {
        lock.withLock {
            consumers -= 1
            if consumers == 0 { supervisor.setConsumer(at: now, attached: false) }
        }
        act()
        wakeLoop()
    }

    /// The result, once the run is over.
    func result() async -> RunResult {
        await withCheckedContinuation { continuation in
            lock.lock()
            guard let finished else {
                resultWaiters.append(continuation)
                lock.unlock()
                return
            }
            lock.unlock()
            continuation.resume(returning: finished)
        }
    }

    /// The next event of the stdout stream; `nil` at its end or when the task is cancelled.
    func nextEvent() async throws -> Supervisor.Event? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                lock.lock()
                let (outcome, tookFromCore) = nextLocked()
                let wasPaused = paused
                if outcome == nil {
                    precondition(waiter == nil, "a HepProcess's frames are read by one task at a time")
                    waiter = continuation
                }
                lock.unlock()
                if tookFromCore && wasPaused { wakeLoop() }  // taking events may have resumed stdout
                if let outcome { continuation.resume(with: outcome) }
                if Task.isCancelled { endWait() }
            }
        } onCancel: {
            endWait()
        }
    }

    /// The waiting consumer's task was cancelled: its wait ends with `nil`.
    private func endWait() {
        let continuation = lock.withLock {
            defer { waiter = nil }
            return waiter
        }
        continuation?.resume(returning: nil)
    }

    /// What the waiting consumer gets now (`nil`: nothing yet), and whether the supervisor
    /// was asked for events (the lock held).
    private func nextLocked() -> (Result<Supervisor.Event?, any Error>?, Bool) {
        if head == taken.count {
            let open = supervisor.isStdoutOpen  // before the poll: closed, no event comes after
            taken = supervisor.pollEvents(max: 256, maxBytes: 64 << 10)
            head = 0
            if taken.isEmpty {
                guard !open else { return (nil, true) }
                defer { readFailure = nil }
                return (readFailure.map { .failure($0) } ?? .success(nil), true)
            }
            head = 1
            return (.success(taken[0]), true)
        }
        head += 1
        return (.success(taken[head - 1]), false)
    }

    /// Carries out the supervisor's actions (from any thread: the lock keeps the child from
    /// being reaped, its pid reused, between a check and a signal).
    private func act() {
        lock.withLock {
            while let action = supervisor.pollAction() {
                switch action {
                case .signal(let step):
                    if !reaped { _ = killpg(pid, step.signal.number) }
                case .killGroup:
                    if !reaped { _ = killpg(pid, SIGKILL) }
                case .pauseStdout: paused = true
                case .resumeStdout: paused = false
                case .closePipes: closeRequested = true
                }
            }
        }
    }

    private func loop(stdout: Int32, stderr: Int32) {
        var (out, err) = (stdout, stderr)
        var told = false
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            act()
            let (closing, readOut) = lock.withLock { (closeRequested, !paused) }
            if closing {
                closeFD(&out)
                closeFD(&err)
            }
            if told { lock.withLock { if !reaped { reap() } } }
            handOver()
            if told && supervisor.isFinished { return finish(&out, &err) }

            var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            if out >= 0 && readOut { fds.append(pollfd(fd: out, events: Int16(POLLIN), revents: 0)) }
            if err >= 0 { fds.append(pollfd(fd: err, events: Int16(POLLIN), revents: 0)) }
            _ = poll(&fds, nfds_t(fds.count), milliseconds(until: supervisor.deadline))
            let now = self.now
            for ready in fds where ready.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(ready.fd, $0.baseAddress, $0.count) }
                if ready.fd == wake.read || (count < 0 && (errno == EINTR || errno == EAGAIN)) { continue }
                let isOut = ready.fd == out
                if count > 0 {
                    let data = Data(buffer[..<count])
                    isOut ? supervisor.stdout(at: now, data) : supervisor.stderr(at: now, data)
                    continue
                }
                if count < 0 && isOut {
                    let reason = String(cString: strerror(errno))
                    lock.withLock { readFailure = .io(line: 0, column: 0, message: "io: reading the child's output: \(reason)", excerpt: "") }
                }
                isOut ? supervisor.stdoutClosed(at: now) : supervisor.stderrClosed(at: now)
                isOut ? closeFD(&out) : closeFD(&err)
            }
            if !told, let status = lock.withLock({ exit }) {
                supervisor.exited(at: now, status)
                told = true
            }
            supervisor.tick(at: now)
        }
    }

    /// Hands the stderr lines and, to a waiting consumer, the next event over.
    private func handOver() {
        while case let lines = supervisor.pollStderr(max: 256), !lines.isEmpty {
            lines.forEach { stderrSink.yield($0) }
        }
        lock.lock()
        var handed: (CheckedContinuation<Supervisor.Event?, any Error>, Result<Supervisor.Event?, any Error>)?
        if let waiting = waiter, case (let outcome?, _) = nextLocked() {
            waiter = nil
            handed = (waiting, outcome)
        }
        lock.unlock()
        if let (continuation, outcome) = handed { continuation.resume(with: outcome) }
    }

    private func finish(_ out: inout Int32, _ err: inout Int32) {
        closeFD(&out)
        closeFD(&err)
        handOver()
        stderrSink.finish()
        let result = supervisor.result!
        let waiting = lock.withLock {
            finished = result
            defer { resultWaiters = [] }
            return resultWaiters
        }
        waiting.forEach { $0.resume(returning: result) }
        running.remove(self)
    }

    /// Reaps the child, which has exited (the lock held).
    private func reap() {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        reaped = true
    }

    /// Waits for the child's exit without reaping it, and reports it to the loop.
    private func awaitExit() {
        var info = siginfo_t()
        var status = ExitStatus.unknown  // reaped elsewhere (ECHILD): judged without an exit code
        while true {
            if waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == 0 {
                status = exitStatus(info)
                break
            }
            if errno != EINTR { break }
        }
        lock.withLock { exit = status }
        wakeLoop()
    }

    private func closeFD(_ fd: inout Int32) {
        guard fd >= 0 else { return }
        _ = close(fd)
        fd = -1
    }

    private func wakeLoop() {
        _ = write(wake.write, [UInt8(1)], 1)
    }

    /// The wait of `poll` until `deadline` (rounded up: never early), `-1` for none.
    private func milliseconds(until deadline: Duration?) -> Int32 {
        guard let deadline else { return -1 }
        let (seconds, attoseconds) = (deadline - now).components
        guard seconds >= 0 && attoseconds >= 0 else { return 0 }
        let millis = seconds.multipliedReportingOverflow(by: 1000).partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: millis)
    }

    private func spawnThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}

/// How a child ended, from what `waitid` saw.
private func exitStatus(_ info: siginfo_t) -> ExitStatus {
    #if canImport(Glibc)
    let status = info._sifields._sigchld.si_status
    #else
    let status = info.si_status
    #endif
    return Int(info.si_code) == Int(CLD_EXITED) ? .code(status) : .signal(status)
}

/// The drivers whose child may still run: at the exit of this process, each is cancelled
/// (not at the exit of a copy of it that `fork` made, whose drivers are not its own).
final class Running: @unchecked Sendable {
    private let lock = NSLock()
    private var drivers: [ObjectIdentifier: Driver] = [:]
    private let owner = getpid()

    init() {
        atexit { if getpid() == running.owner { running.cancelAll() } }
    }

    func add(_ driver: Driver) { lock.withLock { drivers[ObjectIdentifier(driver)] = driver } }
    func remove(_ driver: Driver) { lock.withLock { drivers[ObjectIdentifier(driver)] = nil } }

    /// Cancels every run not being cancelled already (its first signal is sent before this
    /// returns).
    func cancelAll() {
        lock.withLock { Array(drivers.values) }.forEach { $0.cancelUnlessCancelling() }
    }
}

let running = Running()
