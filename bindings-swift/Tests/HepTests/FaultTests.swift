// Process faults, against real child processes (/bin/sh scripts and `hep simulate`): a child
// killed mid-line, one that closes stdout but goes on running, one that floods stdout, one
// that ignores SIGINT (and SIGTERM), one that leaves grandchildren, one that exits without a
// terminal frame, and the overall timeout. Each checks the verdict (the core's) and that no
// process is left: the child reaped (waitpid finds no such child, kill finds no such process)
// and every grandchild gone.

import Foundation
import Hep
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let turnDone =
    #"{"type":"turn_done","turn_id":1,"message":"m","tool_results":[],"usage":{"input":1,"output":2,"cost":0.5},"stop_reason":"stop"}"#
let cancelledFrame = #"{"type":"cancelled","turn_id":1}"#
/// A shell function `cancel` that writes `cancelled` and exits 130, for a `trap`.
let cancelHandler = "cancel() { \(printLines(cancelledFrame)); exit 130; };"

/// `/bin/sh -c script` with a timeout.
func shell(_ script: String, timeout: Duration?) throws -> HepProcess {
    try HepProcess(executableURL: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script], timeout: timeout)
}

/// A shell command printing each of `lines` on a line of its own.
func printLines(_ lines: String...) -> String {
    "printf '%s\\n' " + lines.map { "'\($0)'" }.joined(separator: " ")
}

/// Whether no process `pid` exists any more (not even a zombie): kill(pid, 0) fails with ESRCH.
func gone(_ pid: Int32) -> Bool {
    kill(pid, 0) == -1 && errno == ESRCH
}

/// Whether the child `pid` has been reaped (by the supervisor): waitpid finds no such child.
func reaped(_ pid: Int32) -> Bool {
    var status: Int32 = 0
    return waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD
}

/// The pids a script wrote to stderr as `NAME PID` lines.
func pids(_ result: RunResult, named name: String) -> [Int32] {
    (result.stderrTail ?? "").split(separator: "\n").compactMap { line in
        let words = line.split(separator: " ")
        return words.count == 2 && words[0] == name ? Int32(words[1]) : nil
    }
}

/// Expects the child reaped and gone, and each of `grandchildren` gone (reaped by whoever
/// inherited them, within a few seconds).
func expectNoProcessLeft(_ child: Int32, grandchildren: [Int32] = [], sourceLocation: SourceLocation = #_sourceLocation) async throws {
    #expect(reaped(child), "the child \(child) was not reaped", sourceLocation: sourceLocation)
    #expect(gone(child), "the child \(child) still exists", sourceLocation: sourceLocation)
    for pid in grandchildren {
        #expect(try await eventually { gone(pid) }, "the grandchild \(pid) survived", sourceLocation: sourceLocation)
    }
}

/// The bound of the frames waiting for their consumer (the core's backpressure), in bytes
/// of events (each line counted plus 64 bytes).
enum Backpressure {
    static let bytes = Supervisor.Options().pauseAtBytes
}

/// A flag set from another task.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false
    var isSet: Bool { lock.withLock { set } }
    func raise() { lock.withLock { set = true } }
}

@Suite struct Faults {
    @Test func aChildKilledMidLineIsIncompleteAndLeavesNothing() async throws {
        let partial = #"{"type":"message_del"#
        let process = try shell(
            "sleep 300 & echo \"sleeper $!\" >&2; \(printLines(header, agentStart)); printf '%s' '\(partial)'; kill -9 $$")
        let (seen, result) = try await watched(process)
        #expect(seen.map(\.type) == ["hep_header", "agent_start"])
        #expect(result.exitCode == 137)
        #expect(result.verdict == .incomplete)
        #expect(result.skipped.map(\.kind) == ["truncated"] && result.skipped.first?.line == 3)
        let sleepers = pids(result, named: "sleeper")
        #expect(sleepers.count == 1)
        try await expectNoProcessLeft(process.pid, grandchildren: sleepers)
    }

    @Test func inStrictModeAChildKilledMidLineThrowsTruncated() async throws {
        let process = try HepProcess(
            executableURL: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", "\(printLines(header, agentStart)); printf '%s' '{\"type\":\"message_del'; kill -9 $$"],
            strict: true)
        let dog = Watchdog(process.pid)
        var seen: [String] = []
        do {
            for try await frame in process.frames { seen.append(frame.type) }
            Issue.record("no error")
        } catch let error as HepError {
            #expect(error.kind == "truncated" && error.line == 3)
        }
        let result = await process.result
        dog.stop()
        #expect(seen == ["hep_header", "agent_start"])
        #expect(result.exitCode == 137)
        #expect(result.halted?.kind == "truncated")
        #expect(!result.conforms)
        try await expectNoProcessLeft(process.pid)
    }

    /// The frames end with stdout; the result waits for the exit (as in Python and Node), so
    /// it is neither early nor lost.
    @Test func aChildThatClosesStdoutButRunsOnHasItsResultAtItsExit() async throws {
        let process = try shell(
            "trap 'exit 0' USR1; \(printLines(header, agentStart, turnDone)); exec >&-; echo closed >&2; "
                + "while :; do sleep 0.05; done")
        let dog = Watchdog(process.pid)
        let seen = try await all(process)
        #expect(seen.map(\.type) == ["hep_header", "agent_start", "turn_done"])
        let arrived = Flag()
        let waiting = Task {
            let result = await process.result
            arrived.raise()
            return result
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(alive(process.pid), "the child waits for SIGUSR1")
        #expect(!arrived.isSet, "the result came before the child exited")
        #expect(kill(process.pid, SIGUSR1) == 0)
        let result = await waiting.value
        dog.stop()
        #expect(result.verdict == .ok)
        #expect(result.exitCode == 0)
        #expect(result.stderrTail == "closed\n")
        try await expectNoProcessLeft(process.pid)
    }

    @Test func aChildThatClosesStdoutAndNeverExitsIsEndedByTheTimeout() async throws {
        let process = try shell("\(printLines(header, agentStart)); exec >&-; exec sleep 300", timeout: .milliseconds(300))
        let (seen, result) = try await watched(process)
        #expect(seen.count == 2)
        #expect(process.timedOut)
        // SIGINT killed it (exit 130) in round 1: cancelled, though the round never settled.
        #expect(result.exitCode == ExitCode.forSignal(SIGINT))
        #expect(result.verdict == .cancelled, "\(result.reasons)")
        #expect(result.violations.map(\.code) == ["cancelled_in_open_round"])
        try await expectNoProcessLeft(process.pid)
    }

    /// 20 MiB of 8 KiB lines, written a MiB at a time, to a consumer that pauses: every frame
    /// arrives, and the child is never further ahead of the consumer than the bound (1 MiB
    /// queued, plus the pipe and one read), which the child's own count of MiB written shows
    /// at every frame. Without the bound, the child writes everything during the pause.
    @Test func aFloodReachesASlowConsumerWholeWithBoundedBuffering() async throws {
        let mib = 1 << 20
        let (lineBytes, chunks) = (8192, 20)
        let text = String(repeating: "x", count: lineBytes - 1 - #"{"type":"message_delta","turn_id":1,"delta":""}"#.utf8.count)
        let line = #"{"type":"message_delta","turn_id":1,"delta":"\#(text)"}"# + "\n"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hep-flood-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (chunk, progress) = (folder.appendingPathComponent("chunk"), folder.appendingPathComponent("progress"))
        try String(repeating: line, count: mib / lineBytes).write(to: chunk, atomically: true, encoding: .utf8)
        let process = try shell(
            "\(printLines(header, agentStart)); i=0; while [ $i -lt \(chunks) ]; do cat '\(chunk.path)'; "
                + "i=$((i + 1)); echo $i > '\(progress.path)'; done; \(printLines(turnDone))")
        let dog = Watchdog(process.pid, seconds: 120)
        var taken = 0
        var furthestAhead = 0
        for try await frame in process.frames {
            guard isDelta(frame) else { continue }
            taken += 1
            if taken == 1 {
                try await Task.sleep(for: .milliseconds(500))  // the child runs ahead, as far as it may
            }
            if let written = try? String(contentsOf: progress, encoding: .utf8),
                let chunksWritten = Int(written.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                furthestAhead = max(furthestAhead, chunksWritten * mib - taken * lineBytes)
            }
        }
        let result = await process.result
        dog.stop()
        let bound = Backpressure.bytes + 4 * (64 << 10)
        #expect(taken == chunks * mib / lineBytes)
        #expect(furthestAhead <= bound, "the child got \(furthestAhead) bytes ahead of the consumer (bound \(bound))")
        #expect(furthestAhead > 0, "the child never got ahead: the check saw nothing")
        #expect(result.verdict == .ok)
        #expect(result.frames == UInt64(taken + 3))
        try await expectNoProcessLeft(process.pid)
    }

    /// While nobody iterates (the result alone is awaited), stdout is read on whether or not
    /// frames are taken: the frames wait for a later iteration up to the core's bound
    /// (`dropAtBytes`: 16 × 1 MiB of events, each counted as its line plus 64 bytes), and
    /// those past it are counted as dropped, never lost silently.
    @Test func aFloodNobodyReadsStillEndsWhenTheResultIsAwaited() async throws {
        let process = try shell(
            "\(printLines(header, agentStart)); yes '\(delta)' | head -n 200000; \(printLines(turnDone))")
        let dog = Watchdog(process.pid, seconds: 120)
        let result = await process.result
        dog.stop()
        #expect(result.verdict == .ok)
        #expect(result.frames == 200_003)
        var taken = 0
        for try await _ in process.frames { taken += 1 }
        let dropped = Int(result.supervision?.noticesDropped ?? 0)
        #expect(taken + dropped == 200_003, "every frame is kept for a later iteration or counted as dropped")
        let bound = Supervisor.Options().dropAtBytes
        #expect(bound == 16 * Supervisor.Options().pauseAtBytes)
        #expect(taken * (delta.utf8.count + 64) <= bound + (delta.utf8.count + 64), "more kept than the core's bound")
        #expect(dropped > 0, "200,000 frames are past the bound")
        try await expectNoProcessLeft(process.pid)
    }

    @Test func cancelEscalatesToSigtermForAChildThatIgnoresSigint() async throws {
        let process = try shell("trap '' INT; \(printLines(header, agentStart, delta)); exec sleep 300")
        let dog = Watchdog(process.pid)
        _ = try await frames(of: process, until: isDelta)
        process.cancel(grace: .milliseconds(200))
        let result = await process.result
        dog.stop()
        #expect(result.exitCode == ExitCode.forSignal(SIGTERM), "SIGTERM ended it, before any SIGKILL")
        #expect(result.verdict == .incomplete, "killed without a terminal frame: \(result.reasons)")
        try await expectNoProcessLeft(process.pid)
    }

    @Test func aChildThatAnswersOnlySigtermIsCancelled() async throws {
        let process = try shell(
            "trap '' INT; \(cancelHandler) trap cancel TERM; \(printLines(header, agentStart, delta)); "
                + "while :; do sleep 1; done")
        let dog = Watchdog(process.pid)
        _ = try await frames(of: process, until: isDelta)
        process.cancel(grace: .milliseconds(200))
        let after = try await all(process)
        let result = await process.result
        dog.stop()
        #expect(after.map(\.type) == ["cancelled"])
        #expect(result.exitCode == ExitCode.cancelled)
        #expect(result.verdict == .cancelled, "\(result.reasons)")
        try await expectNoProcessLeft(process.pid)
    }

    @Test func cancelEscalatesToSigkillForAChildThatIgnoresSigintAndSigterm() async throws {
        let process = try shell(
            "trap '' INT TERM; sleep 300 & echo \"sleeper $!\" >&2; \(printLines(header, agentStart, delta)); exec sleep 300")
        let dog = Watchdog(process.pid)
        _ = try await frames(of: process, until: isDelta)
        process.cancel(grace: .milliseconds(200))
        let result = await process.result
        dog.stop()
        #expect(result.exitCode == ExitCode.forSignal(SIGKILL))
        #expect(result.verdict == .incomplete, "killed without a terminal frame: \(result.reasons)")
        let sleepers = pids(result, named: "sleeper")
        #expect(sleepers.count == 1)
        try await expectNoProcessLeft(process.pid, grandchildren: sleepers)
    }

    /// A harness that answers SIGINT with `cancelled`, leaving a background job and the
    /// background job of a shell that has exited (an orphan, still in the group) behind; both
    /// ignore SIGINT, as background jobs of a shell do: none survives.
    @Test func noGrandchildSurvivesACancel() async throws {
        let process = try shell(
            "\(cancelHandler) trap cancel INT; sleep 300 & echo \"sleeper $!\" >&2; sh -c 'sleep 300 & echo \"sleeper $!\" >&2'; "
                + "\(printLines(header, agentStart, delta)); while :; do sleep 1; done")
        let dog = Watchdog(process.pid)
        _ = try await frames(of: process, until: isDelta)
        process.cancel()
        let result = await process.result
        dog.stop()
        #expect(result.verdict == .cancelled, "\(result.reasons)")
        #expect(result.exitCode == ExitCode.cancelled)
        let sleepers = pids(result, named: "sleeper")
        #expect(sleepers.count == 2)
        try await expectNoProcessLeft(process.pid, grandchildren: sleepers)
    }

    @Test func noGrandchildSurvivesTheChildsEnd() async throws {
        let process = try shell(
            "sleep 300 & echo \"sleeper $!\" >&2; sh -c 'sleep 300 & echo \"sleeper $!\" >&2'; "
                + "\(printLines(header, agentStart, turnDone)); exit 0")
        let dog = Watchdog(process.pid)
        let seen = try await all(process)
        let result = await process.result
        dog.stop("the run ended only when the watchdog killed the sleepers")
        #expect(seen.count == 3)
        #expect(result.verdict == .ok)
        let sleepers = pids(result, named: "sleeper")
        #expect(sleepers.count == 2)
        try await expectNoProcessLeft(process.pid, grandchildren: sleepers)
    }

    /// A grandchild that leaves the group (`setsid`) is out of reach of the group's signals,
    /// the documented limit; it holds the child's stdout and stderr open, and the run must
    /// not wait for it: the run ends when the child does, the grouped grandchild is killed.
    @Test(arguments: ["done", "cancel"])
    func aGrandchildInASessionOfItsOwnDoesNotKeepTheRun(_ end: String) async throws {
        let finish = end == "done" ? "\(printLines(turnDone)); exit 0" : "while :; do sleep 1; done"
        let process = try shell(
            "\(cancelHandler) trap cancel INT; sleep 300 & echo \"sleeper $!\" >&2; "
                + "setsid sleep 300 & e=$!; echo \"escapee $e\" >&2; "
                // Once it has left the group (its group id is its pid), the child goes on.
                + "until [ \"$(cut -d ' ' -f 5 /proc/$e/stat)\" = $e ]; do sleep 0.01; done; "
                + "\(printLines(header, agentStart, delta)); \(finish)")
        let dog = Watchdog(process.pid)
        _ = try await frames(of: process, until: isDelta)
        if end == "cancel" {
            process.cancel()
        }
        let rest = try await all(process)
        let result = await process.result
        dog.stop("the run waited for the escaped grandchild's stdout to close")
        let escapees = pids(result, named: "escapee")
        defer { escapees.forEach { _ = kill($0, SIGKILL) } }
        #expect(escapees.count == 1)
        #expect(escapees.allSatisfy { !gone($0) }, "the escapee still holds stdout: the run did not wait for it")
        #expect(rest.last?.type == (end == "done" ? "turn_done" : "cancelled"))
        #expect(result.verdict == (end == "done" ? .ok : .cancelled), "\(result.reasons)")
        #expect(result.exitCode == (end == "done" ? 0 : ExitCode.cancelled))
        try await expectNoProcessLeft(process.pid, grandchildren: pids(result, named: "sleeper"))
    }

    @Test(arguments: [Int32(0), 1])
    func aChildThatExitsWithoutATerminalFrameIsIncomplete(_ code: Int32) async throws {
        let process = try shell("\(printLines(header, agentStart, delta)); exit \(code)")
        let (seen, result) = try await watched(process)
        #expect(seen.count == 3)
        #expect(result.exitCode == code)
        #expect(result.verdict == .incomplete)
        #expect(result.reasons.contains { $0.contains("terminal") }, "\(result.reasons)")
        #expect(result.violations.map(\.code) == ["unterminated_turn"])
        try await expectNoProcessLeft(process.pid)
    }

    /// Exit 130 is cancelled wherever the signal found the harness (the reference exits 130
    /// after any SIGINT or SIGTERM), here mid-round, before the round settled.
    @Test func aChildThatExits130MidRoundIsCancelled() async throws {
        let process = try shell("\(printLines(header, agentStart, delta)); exit 130")
        let (seen, result) = try await watched(process)
        #expect(seen.count == 3)
        #expect(result.exitCode == ExitCode.cancelled)
        #expect(result.verdict == .cancelled, "\(result.reasons)")
        #expect(result.reasons == ["exit code 130: cancelled in turn 1, before the round settled"])
        #expect(result.violations.map { "\($0.code) \($0.severity)" } == ["cancelled_in_open_round warning"])
        #expect(result.conforms)
        try await expectNoProcessLeft(process.pid)
    }

    @Test func theTimeoutCancelsARunThatTakesTooLong() async throws {
        let process = try HepProcess(
            executableURL: hepBinary, arguments: ["simulate", "--scenario", "cancel-me", "--speed", "1"],
            timeout: .milliseconds(500))
        let (seen, result) = try await watched(process)
        #expect(process.timedOut)
        #expect(seen.last?.type == "cancelled")
        #expect(result.verdict == .cancelled)
        #expect(result.exitCode == ExitCode.cancelled)
        try await expectNoProcessLeft(process.pid)
    }

    @Test func aRunThatEndsInTimeDoesNotTimeOut() async throws {
        let process = try HepProcess(
            executableURL: hepBinary, arguments: ["simulate", "--scenario", "chat", "--speed", "0"], timeout: .seconds(60))
        let dog = Watchdog(process.pid)
        let result = await process.result
        dog.stop()
        #expect(!process.timedOut)
        #expect(result.verdict == .ok)
        try await expectNoProcessLeft(process.pid)
    }
}
