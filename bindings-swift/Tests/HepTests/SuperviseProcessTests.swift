// Supervising real child processes with HepProcess: `hep simulate` (the repository's
// target/debug/hep, or $HEP_BIN) and small /bin/sh scripts. Every wait is bounded by a
// watchdog: a supervisor that buffers output or leaks a child makes a test fail, never hang.

import Foundation
import Hep
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `hep` binary: $HEP_BIN, else target/debug/hep of this repository.
let hepBinary: URL = {
    if let path = ProcessInfo.processInfo.environment["HEP_BIN"], !path.isEmpty {
        return URL(fileURLWithPath: path)
    }
    return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("target/debug/hep")
}()

/// `hep simulate --scenario <scenario> --speed <speed> --color never`.
func simulate(_ scenario: String, speed: String = "0") throws -> HepProcess {
    try HepProcess(
        executableURL: hepBinary, arguments: ["simulate", "--scenario", scenario, "--speed", speed, "--color", "never"])
}

/// `/bin/sh -c script`.
func shell(_ script: String, strict: Bool = false) throws -> HepProcess {
    try HepProcess(executableURL: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script], strict: strict)
}

let header = #"{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"abc"}"#
let agentStart = #"{"type":"agent_start","turn_id":1}"#
let delta = #"{"type":"message_delta","turn_id":1,"delta":"hi"}"#

/// Whether `pid` runs (a zombie, dead but not reaped, counts as gone).
func alive(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return false }
    let state = stat[stat.index(close, offsetBy: 2)...].prefix(1)
    return state != "Z" && state != "X"
}

/// Waits up to `seconds` for `condition`.
func eventually(_ seconds: Double = 5, _ condition: () -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        try await Task.sleep(for: .milliseconds(20))
    }
    return true
}

/// Kills the group `pid` if the test still waits after `seconds`; `stop()` records an issue
/// when it did.
final class Watchdog: @unchecked Sendable {
    private let fired: Fired
    private let item: DispatchWorkItem
    private let seconds: Double

    init(_ pid: Int32, seconds: Double = 15) {
        self.seconds = seconds
        // The work item holds only the flag, not the watchdog: no reference cycle to leak.
        let fired = Fired()
        self.fired = fired
        item = DispatchWorkItem {
            fired.set()
            _ = killpg(pid, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
    }

    /// Stops the watchdog, recording an issue if it had to kill the child.
    func stop(_ why: Comment = "the child was killed by the watchdog: output is buffered or a process leaked") {
        item.cancel()
        if fired.isSet {
            Issue.record("after \(seconds) s, \(why)")
        }
    }
}

/// Whether a watchdog fired, shared by the watchdog and its work item.
private final class Fired: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// Frames until (and including) the first one matching `stop`.
func frames(of process: HepProcess, until stop: (Frame) -> Bool) async throws -> [Frame] {
    var seen: [Frame] = []
    for try await frame in process.frames {
        seen.append(frame)
        if stop(frame) { break }
    }
    return seen
}

func all(_ process: HepProcess) async throws -> [Frame] {
    var seen: [Frame] = []
    for try await frame in process.frames { seen.append(frame) }
    return seen
}

/// Every frame of `process`, then its result, read under a `Watchdog`.
func watched(_ process: HepProcess) async throws -> (frames: [Frame], result: RunResult) {
    let dog = Watchdog(process.pid)
    defer { dog.stop() }
    let seen = try await all(process)
    return (seen, await process.result)
}

func isDelta(_ frame: Frame) -> Bool {
    if case .messageDelta = frame { return true }
    if case .toolDelta = frame { return true }
    return false
}

@Suite struct Supervising {
    @Test func aFrameArrivesWhileTheChildIsStillRunning() async throws {
        // cancel-me runs until it is signalled, so what arrives before the cancel came from a
        // running child.
        let process = try simulate("cancel-me", speed: "1")
        let dog = Watchdog(process.pid)
        let seen = try await frames(of: process, until: isDelta)
        #expect(alive(process.pid), "the child should still be running")
        #expect(getpgid(process.pid) == process.pid, "the child leads a process group of its own")
        #expect(seen.first?.type == "hep_header")
        #expect(seen.last.map(isDelta) == true)
        process.cancel()
        let result = await process.result
        dog.stop()
        #expect(result.verdict == .cancelled)
    }

    @Test func cancelGivesVerdictCancelledAndExit130() async throws {
        let process = try simulate("cancel-me", speed: "1")
        let dog = Watchdog(process.pid)
        _ = try await frames(of: process, until: isDelta)
        let started = ContinuousClock.now
        process.cancel()
        let after = try await all(process)
        let result = await process.result
        let took = ContinuousClock.now - started
        dog.stop()
        #expect(took < HepProcess.interruptGrace, "SIGINT alone ends the simulator")
        guard case .cancelled = after.last else {
            Issue.record("the last frame is not `cancelled`: \(after.map(\.type))")
            return
        }
        #expect(result.verdict == .cancelled)
        #expect(result.exitCode == ExitCode.cancelled)
        #expect(result.exitCode == 130)
        #expect(result.conforms, "\(result.reasons)")
        #expect(result.turns.last?.end == .cancelled)
    }

    @Test func aChildKilledMidLineIsIncomplete() async throws {
        let partial = #"{"type":"message_del"#
        let process = try shell("printf '%s\\n' '\(header)' '\(agentStart)'; printf '%s' '\(partial)'; kill -9 $$")
        let (seen, result) = try await watched(process)
        #expect(seen.map(\.type) == ["hep_header", "agent_start"])
        #expect(result.exitCode == ExitCode.forSignal(SIGKILL))
        #expect(result.exitCode == 137)
        #expect(result.verdict == .incomplete)
        #expect(!result.conforms)
        #expect(result.skipped.map(\.kind) == ["truncated"])
        #expect(result.skipped.first?.line == 3)
        #expect(result.halted == nil)
    }

    /// Each scenario, its verdict and exit code, and the warnings (code, turn id) of the
    /// reference's own paths it takes (conformance/stream/reference/).
    @Test(arguments: [
        ("chat", Verdict.ok, Int32(0), [String]()), ("tools", .ok, 0, []), ("error", .failed, 1, []),
        ("compaction", .ok, 0, []), ("stuck", .ok, 0, []), ("big-output", .ok, 0, []), ("future", .ok, 0, []),
        ("over-window", .ok, 0, ["round_after_fatal_error 3"]),
        ("skipped-compaction", .ok, 0, ["unpaired_compaction_start 1"]),
    ])
    func simulatorScenarios(_ scenario: String, _ verdict: Verdict, _ code: Int32, _ warnings: [String]) async throws {
        let process = try simulate(scenario)
        let (seen, result) = try await watched(process)
        #expect(result.verdict == verdict)
        #expect(result.exitCode == code)
        #expect(result.conforms, "\(result.reasons)")
        #expect(result.violations.map { "\($0.code) \($0.turnId.map(String.init) ?? "-")" } == warnings)
        #expect(result.violations.allSatisfy { $0.severity == .warning })
        #expect(result.skipped.isEmpty)
        #expect(result.frames == UInt64(seen.count) && result.lines == UInt64(seen.count))
        guard case .hepHeader(let first) = seen.first else {
            Issue.record("no header first")
            return
        }
        #expect(first.hep == protocolVersion)
        if scenario == "future" {
            #expect(seen.contains { if case .unknown = $0 { true } else { false } })
        }
        if scenario == "error" {
            #expect(seen.last?.type == "turn_error")
        }
        if scenario == "over-window" {
            #expect(seen.contains { if case .turnError(let e) = $0 { e.fatal } else { false } })
            #expect(result.lastTerminal == .done)
        }
    }

    @Test func receivedGivesEachFramesLineNumberAndLine() async throws {
        let process = try simulate("tools")
        let dog = Watchdog(process.pid)
        var received: [Received] = []
        for try await r in process.received { received.append(r) }
        let result = await process.result
        dog.stop()
        #expect(result.verdict == .ok)
        #expect(received.map(\.line) == Array(1...UInt64(received.count)))
        for r in received {
            #expect(try encode(r.frame) == r.raw)
            #expect(try parseLine(r.raw) == r.frame)
        }
    }

    @Test func theResultNeedsNoFramesToBeRead() async throws {
        let process = try simulate("chat")
        let dog = Watchdog(process.pid)
        let result = await process.result
        dog.stop()
        #expect(result.verdict == .ok)
        #expect(result.answer?.isEmpty == false)
        // The frames were kept for whoever asks later.
        let seen = try await all(process)
        #expect(UInt64(seen.count) == result.frames)
    }

    @Test func cancelEscalatesToSigkillForAChildThatIgnoresSignals() async throws {
        let process = try shell("trap '' INT TERM; printf '%s\\n' '\(header)' '\(agentStart)' '\(delta)'; exec sleep 30")
        let dog = Watchdog(process.pid)
        _ = try await frames(of: process, until: isDelta)
        let started = ContinuousClock.now
        process.cancel(grace: .milliseconds(200))
        let result = await process.result
        let took = ContinuousClock.now - started
        dog.stop()
        #expect(took >= HepProcess.terminateGrace + .milliseconds(200))
        #expect(took < HepProcess.terminateGrace + .seconds(3))
        #expect(result.exitCode == ExitCode.forSignal(SIGKILL))
        #expect(result.verdict == .incomplete)
    }

    @Test func leftoversInTheGroupAreKilledWhenTheChildExits() async throws {
        // The background sleep holds the child's stdout and stderr open: without the kill, the
        // output would never end.
        let process = try shell(
            "sleep 300 & echo \"sleeper $!\" >&2; printf '%s\\n' '\(header)' '\(agentStart)' "
                + "'{\"type\":\"turn_done\",\"turn_id\":1,\"message\":\"m\",\"tool_results\":[],"
                + "\"usage\":{\"input\":1,\"output\":2,\"cost\":0.5},\"stop_reason\":\"stop\"}'; exit 0")
        let dog = Watchdog(process.pid)
        let seen = try await all(process)
        let result = await process.result
        dog.stop("the run ended only when the watchdog killed the sleeper")
        #expect(seen.count == 3)
        #expect(result.verdict == .ok)
        #expect(result.exitCode == 0)
        let pid = try #require(pids(result, named: "sleeper").first, "no sleeper pid in \(String(describing: result.stderrTail))")
        #expect(try await eventually { !alive(pid) }, "the sleeper \(pid) outlived the run")
    }

    @Test func theStderrTailIsCapturedAndBounded() async throws {
        let size = 3 * HepProcess.stderrTailBytes
        let process = try shell(
            "head -c \(size) /dev/zero | tr '\\0' x >&2; echo >&2 LAST; printf '%s\\n' '\(header)'")
        let dog = Watchdog(process.pid)
        let result = await process.result
        dog.stop()
        let tail = try #require(result.stderrTail)
        #expect(tail.utf8.count == HepProcess.stderrTailBytes)
        #expect(tail.hasSuffix("xxxLAST\n"), "ends with \(tail.suffix(20).debugDescription)")
        #expect(tail.hasPrefix("xxx"), "starts with \(tail.prefix(20).debugDescription)")
        // A header alone, then exit 0: ended before agent_start, and exit 0 needs a turn_done.
        #expect(result.verdict == .protocolError)
        #expect(result.violations.map(\.code) == ["ended_before_agent_start", "exit_code_mismatch"])
    }

    @Test func strictModeThrowsTheFirstErrorFromFrames() async throws {
        let process = try shell("printf '%s\\n' '\(header)' '{oops' '\(agentStart)'", strict: true)
        let dog = Watchdog(process.pid)
        var seen: [String] = []
        do {
            for try await frame in process.frames { seen.append(frame.type) }
            Issue.record("no error")
        } catch let error as HepError {
            #expect(error.kind == "syntax")
            #expect(error.line == 2)
        }
        let result = await process.result
        dog.stop()
        #expect(seen == ["hep_header"])
        #expect(result.verdict == .protocolError)
        #expect(result.halted?.kind == "syntax")
    }

    @Test func cancellingTheWaitingTaskCancelsTheChild() async throws {
        let process = try simulate("cancel-me", speed: "1")
        let dog = Watchdog(process.pid)
        _ = try await frames(of: process, until: isDelta)
        let waiting = Task { await process.result }
        waiting.cancel()
        let result = await waiting.value
        dog.stop()
        #expect(result.verdict == .cancelled)
        #expect(result.exitCode == 130)
    }

    @Test func releasingARunningProcessCancelsIt() async throws {
        var process: HepProcess? = try simulate("cancel-me", speed: "1")
        let pid = try #require(process?.pid)
        let dog = Watchdog(pid)
        #expect(alive(pid))
        process = nil
        #expect(try await eventually { !alive(pid) }, "the released child \(pid) still runs")
        dog.stop()
    }

    @Test func aChildThatCannotStartThrows() {
        #expect(throws: POSIXError(.ENOENT)) {
            try HepProcess(executableURL: URL(fileURLWithPath: "/nonexistent/harness"))
        }
    }
}
