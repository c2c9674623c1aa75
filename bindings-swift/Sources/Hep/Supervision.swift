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
///   a leftover holding stdout open cannot keep the run going), then reaps it.
///
/// The run is judged (`CoreStream.finish`) once stdout and stderr have ended and the child
/// has been reaped.
final class Supervision: @unchecked Sendable {
    let core: CoreStream
    let lines = LineQueue()
    private let tail = CoreTail(cap: nil)
    private let pid: pid_t

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
    private var judged: RunResult?
    private var waiters: [CheckedContinuation<RunResult, Never>] = []

    /// Starts serving `child`: its threads begin at once.
    init(_ child: SpawnedChild, strict: Bool) {
        core = CoreStream(strict: strict, maxLineBytes: nil)
        pid = child.pid
        spawnThread("hep stdout \(child.pid)") { [self] in readStdout(child.stdout) }
        spawnThread("hep stderr \(child.pid)") { [self] in readStderr(child.stderr) }
        spawnThread("hep wait \(child.pid)") { [self] in reap() }
    }

    /// The escalation of `HepProcess.cancel`: SIGINT to the group, SIGTERM after `grace`,
    /// SIGKILL after the core's terminate grace, each only while the child still runs.
    func cancel(grace: Duration) {
        let first = lock.withLock {
            defer { cancelling = true }
            return !cancelling
        }
        guard first, signalIfRunning(SIGINT) else { return }
        after(grace) { [self] in
            guard signalIfRunning(SIGTERM) else { return }
            after(HepProcess.terminateGrace) { [self] in _ = signalIfRunning(SIGKILL) }
        }
    }

    /// The run's result, once the child has been reaped and its output has ended.
    func result() async -> RunResult {
        await withCheckedContinuation { continuation in
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

    /// Reads `fd` in chunks of up to 64 KiB until its end, handing each chunk to `take`;
    /// closes it. Returns the read error that ended it early, if any.
    private func readAll(_ fd: Int32, _ take: (Data) -> Void) -> HepError? {
        defer { _ = close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                take(Data(buffer[..<count]))
            } else if count == 0 {
                return nil
            } else if errno != EINTR {
                let reason = String(cString: strerror(errno))
                return .io(line: 0, column: 0, message: "io: reading the child's output: \(reason)", excerpt: "")
            }
        }
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

    private func killGroup(_ signal: Int32) {
        _ = killpg(pid, signal)
    }

    private func after(_ delay: Duration, _ work: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = max(delay, .zero).components
        let deadline = DispatchTime.now() + .seconds(Int(clamping: seconds)) + .nanoseconds(Int(attoseconds / 1_000_000_000))
        DispatchQueue.global().asyncAfter(deadline: deadline, execute: work)
    }

    private func spawnThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}
