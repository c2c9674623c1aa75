import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The I/O of one supervised child, shared by `HepProcess` and the threads that serve it:
///
/// - a thread reads stdout as it arrives and feeds the core stream, queueing each frame;
/// - a thread reads stderr into the core's bounded `Tail`;
/// - a thread waits for the child to exit, kills what it left in its process group (so that
///   a leftover holding stdout open cannot keep the run going), then reaps it. Then the
///   readers take what the pipes still hold and stop: a process that left the group
///   (`setsid`) and holds them open cannot keep the run going either.
///
/// The run is judged (`CoreStream.finish`) once stdout and stderr have ended and the child
/// has been reaped. An overall timeout, when given, cancels a child still running then.
final class Supervision: @unchecked Sendable {
    let core: CoreStream
    let lines = LineQueue()
    private let tail = CoreTail(cap: nil)
    private let pid: pid_t
    /// The wait after SIGINT before SIGTERM of a cancel by the timeout.
    private let interruptGrace: Duration
    /// The wait after SIGTERM before SIGKILL of every cancel.
    private let terminateGrace: Duration
    /// Readable once the child has exited and its group has been killed: the readers then
    /// stop at the end of what the pipes hold.
    private let exitedPipe: (read: Int32, write: Int32)

    // Every field below is guarded by `lock`.
    private let lock = NSLock()
    private var stdoutEnded = false
    private var stderrEnded = false
    private var reaped = false
    private var exitCode: Int32?
    /// The child has exited: its group is no longer signalled (once reaped, its pid may be
    /// reused).
    private var exited = false
    private var cancelling = false
    private var didTimeOut = false
    private var timer: DispatchWorkItem?
    private var judged: RunResult?
    private var waiters: [CheckedContinuation<RunResult, Never>] = []

    /// Starts serving `child`: its threads begin at once, and the timer of `timeout`.
    /// `exitedPipe` is a pipe of its own, which it closes. A cancel waits `interruptGrace`
    /// (unless `cancel(grace:)` says otherwise) and `terminateGrace` between its signals.
    init(
        _ child: SpawnedChild, exitedPipe: (read: Int32, write: Int32), strict: Bool, limits: Limits, timeout: Duration?,
        interruptGrace: Duration, terminateGrace: Duration
    ) {
        self.exitedPipe = exitedPipe
        self.interruptGrace = interruptGrace
        self.terminateGrace = terminateGrace
        core = CoreStream(strict: strict, maxLineBytes: nil, limits: limits.coreLimits)
        pid = child.pid
        spawnThread("hep stdout \(child.pid)") { [self] in readStdout(child.stdout) }
        spawnThread("hep stderr \(child.pid)") { [self] in readStderr(child.stderr) }
        spawnThread("hep wait \(child.pid)") { [self] in reap() }
        if let timeout {
            let timer = DispatchWorkItem { [weak self] in self?.timeOut() }
            lock.withLock { self.timer = timer }
            after(timeout, timer)
        }
    }

    deinit {
        _ = close(exitedPipe.read)
        _ = close(exitedPipe.write)
    }

    /// Whether the timeout ran out while the child still ran (and so cancelled it).
    var timedOut: Bool {
        lock.withLock { didTimeOut }
    }

    /// The escalation of `HepProcess.cancel`: SIGINT to the group, SIGTERM after `grace`,
    /// SIGKILL after `terminateGrace`, each only while the child still runs. The
    /// child's output is read to its end from then on, whether or not frames are taken.
    func cancel(grace: Duration) {
        lines.unbound()
        let first = lock.withLock {
            defer { cancelling = true }
            return !cancelling
        }
        guard first, signalIfRunning(SIGINT) else { return }
        after(grace) { [self] in
            guard signalIfRunning(SIGTERM) else { return }
            after(terminateGrace) { [self] in _ = signalIfRunning(SIGKILL) }
        }
    }

    /// The run's result, once the child has been reaped and its output has ended. The
    /// child's output is read to its end from then on, whether or not frames are taken.
    func result() async -> RunResult {
        lines.unbound()
        return await withCheckedContinuation { continuation in
            lock.lock()
            if let judged {
                lock.unlock()
                continuation.resume(returning: judged)
            } else {
                waiters.append(continuation)
                lock.unlock()
            }
        }
    }

    // MARK: - The threads

    private func readStdout(_ fd: Int32) {
        var halted = false
        let failure = readAll(fd) { chunk in
            guard !halted else { return }
            do {
                lines.push(try rethrowingHepError { try core.feed(data: chunk) }.received())
            } catch {
                halted = true
                lines.push(core.receivedBeforeHalt().received())
                lines.finish(throwing: error)
            }
        }
        if let failure {
            lines.finish(throwing: failure)
        } else if !halted {
            do {
                lines.push(try rethrowingHepError { try core.endInput() }.received())
                lines.finish()
            } catch {
                lines.finish(throwing: error)
            }
        }
        lock.withLock { stdoutEnded = true }
        judgeIfDone()
    }

    private func readStderr(_ fd: Int32) {
        _ = readAll(fd) { chunk in tail.push(chunk: chunk) }
        lock.withLock { stderrEnded = true }
        judgeIfDone()
    }

    /// Waits for the child to exit. While it is a zombie, its pid (and so its process group
    /// id) cannot be reused: that is when what it left in its group is killed. Then it is
    /// reaped; its exit code is 128 + N if signal N killed it.
    private func reap() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        lock.withLock { exited = true }
        killGroup(SIGKILL)
        _ = write(exitedPipe.write, [UInt8(1)], 1)
        var status: Int32 = 0
        var code: Int32?
        while true {
            if waitpid(pid, &status, 0) == pid {
                let signal = status & 0x7f
                code = signal == 0 ? (status >> 8) & 0xff : ExitCode.forSignal(signal)
                break
            }
            // ECHILD: reaped elsewhere (by a SIGCHLD handler of the application); the exit
            // code is unknown.
            if errno != EINTR { break }
        }
        lock.withLock {
            exitCode = code
            reaped = true
        }
        judgeIfDone()
    }

    /// Reads `fd` in chunks of up to 64 KiB until its end, or, once the child has exited
    /// (and its group been killed), until what the pipe holds is read; hands each chunk to
    /// `take`; closes `fd`. Returns the read error that ended it early, if any.
    private func readAll(_ fd: Int32, _ take: (Data) -> Void) -> HepError? {
        defer { _ = close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: exitedPipe.read, events: Int16(POLLIN), revents: 0)]
        var draining = false
        while true {
            if !draining {
                fds[0].revents = 0
                fds[1].revents = 0
                if poll(&fds, 2, -1) < 0 {
                    if errno == EINTR { continue }
                    return readError()
                }
                if fds[0].revents == 0 {
                    guard fds[1].revents != 0 else { continue }
                    // The child has exited and its group is killed: the pipe holds all that
                    // will come, unless a process outside the group holds it open.
                    guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else { return readError() }
                    draining = true
                }
            }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                take(Data(buffer[..<count]))
            } else if count == 0 || (draining && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                return nil
            } else if errno != EINTR {
                return readError()
            }
        }
    }

    private func readError() -> HepError {
        let reason = String(cString: strerror(errno))
        return .io(line: 0, column: 0, message: "io: reading the child's output: \(reason)", excerpt: "")
    }

    // MARK: - Helpers

    /// Judges the run once stdout and stderr have ended and the child has been reaped.
    private func judgeIfDone() {
        lock.lock()
        guard judged == nil, stdoutEnded, stderrEnded, reaped else {
            lock.unlock()
            return
        }
        let result = core.finish(exitCode: exitCode, stderr: tail)
        judged = result
        timer?.cancel()
        timer = nil
        let ready = waiters
        waiters = []
        lock.unlock()
        for waiter in ready {
            waiter.resume(returning: result)
        }
    }

    /// Sends `signal` to the child's group unless the child has exited; whether it did. The
    /// lock is held while sending, so the child cannot be reaped (and its pid reused) meanwhile.
    private func signalIfRunning(_ signal: Int32) -> Bool {
        lock.withLock {
            if !exited {
                killGroup(signal)
            }
            return !exited
        }
    }

    /// The timeout ran out: a child still running is cancelled as by `HepProcess.cancel()`.
    private func timeOut() {
        let running = lock.withLock {
            didTimeOut = !exited
            return !exited
        }
        if running {
            cancel(grace: interruptGrace)
        }
    }

    private func killGroup(_ signal: Int32) {
        _ = killpg(pid, signal)
    }

    private func after(_ delay: Duration, _ work: @escaping @Sendable () -> Void) {
        after(delay, DispatchWorkItem(block: work))
    }

    private func after(_ delay: Duration, _ work: DispatchWorkItem) {
        let (seconds, attoseconds) = max(delay, .zero).components
        // At most 68 years: DispatchTime counts nanoseconds in 64 bits.
        let deadline = DispatchTime.now() + .seconds(Int(min(seconds, Int64(Int32.max)))) + .nanoseconds(Int(attoseconds / 1_000_000_000))
        DispatchQueue.global().asyncAfter(deadline: deadline, execute: work)
    }

    private func spawnThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}
