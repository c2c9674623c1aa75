// The reference harness's own paths (conformance/stream/reference/), on real children: small
// /bin/sh emitters printing lines that `Writer` wrote, and `hep simulate`. The reference
// writes `cancelled` only when a signal finds it streaming a round; after its last round
// (persisting, compacting, waiting for background jobs) a signal aborts nothing, and it exits
// 130 all the same. It can also fail after its last round (exit 1, no turn_error), and carry
// on after a request that did not fit the context window. The verdicts are the core's.

import Foundation
import Hep
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The answer of the emitted runs.
let referenceAnswer = "All tests pass."

/// The lines of a complete two-round run, written by `Writer`: a round that runs a tool,
/// then a round that gives the answer. With `overWindow`, a round between them fails for
/// a request over the context window (fatal, as the reference writes every turn_error), and
/// a compaction follows before the answer's round.
func twoRoundRun(overWindow: Bool = false) throws -> [String] {
    var lines: [String] = []
    let w = Writer(fah: "1.2.3") { lines.append(String($0.dropLast())) }
    let usage = Usage(input: 10, output: 5, cost: 0.5)
    try w.header(session: "s-1")
    try w.agentStart()
    try w.messageStart()
    try w.messageDelta("Looking at the tests.")
    try w.toolStart(id: "c1", name: "bash", args: #"{"command":"cargo test"}"#)
    try w.toolDelta(id: "c1", update: "test result: ok\n")
    let result = ToolResult(id: "c1", name: "bash", ok: true, text: "test result: ok")
    try w.turnDone(message: "Looking at the tests.", toolResults: [result], usage: usage, stopReason: "toolUse")
    if overWindow {
        try w.turnError("context window exceeded: 212000 tokens > 200000", fatal: true)
        try w.compactionStart()
        try w.compactionEnd(tokensFreed: 150_000)
    }
    try w.messageStart()
    try w.messageDelta(referenceAnswer)
    try w.turnDone(message: referenceAnswer, usage: usage, stopReason: "stop")
    return lines
}

/// A shell command printing `lines`, one a line.
func printAll(_ lines: [String]) -> String {
    "printf '%s\\n' " + lines.map { "'\($0)'" }.joined(separator: " ")
}

/// A violation as `code severity turn`.
func described(_ v: Violation) -> String {
    "\(v.code) \(v.severity) \(v.turnId.map(String.init) ?? "-")"
}

func isLastDone(_ frame: Frame) -> Bool {
    if case .turnDone(let done) = frame { return done.stopReason == "stop" }
    return false
}

@Suite struct ReferencePaths {
    /// A cancel after the last round: the emitter, like the reference, writes nothing more
    /// and exits 130. After the answer's `turn_done` (`after-last-round`), or during the
    /// post-run compaction, whose `compaction_start` then has no end.
    @Test(arguments: [
        ("after-last-round", ["cancelled_between_rounds warning 2"]),
        ("post-run-compaction", ["unpaired_compaction_start warning 3", "cancelled_between_rounds warning 2"]),
    ])
    func aCancelAfterTheLastRoundIsCancelledWithTheAnswerKept(_ path: String, _ warnings: [String]) async throws {
        var lines = try twoRoundRun()
        if path == "post-run-compaction" {
            lines.append(#"{"type":"compaction_start","turn_id":3}"#)
        }
        let process = try shell(
            "trap 'exit 130' INT TERM; \(printAll(lines)); echo 'waiting for a signal' >&2; while :; do sleep 0.05; done")
        let dog = Watchdog(process.pid)
        let last = path == "post-run-compaction" ? "compaction_start" : "turn_done"
        var ended = false
        let seen = try await frames(of: process) { frame in
            ended = ended || isLastDone(frame)
            return ended && frame.type == last
        }
        let started = ContinuousClock.now
        process.cancel()
        let rest = try await all(process)
        let result = await process.result
        let took = ContinuousClock.now - started
        dog.stop()
        #expect(took < HepProcess.interruptGrace, "SIGINT alone ends the emitter")
        #expect(seen.count == lines.count)
        #expect(rest.isEmpty, "nothing is written after the signal: \(rest.map(\.type))")
        #expect(!seen.contains { $0.type == "cancelled" })
        #expect(result.exitCode == ExitCode.cancelled)
        #expect(result.verdict == .cancelled, "\(result.reasons)")
        // The supervisor names its cancel first, then the core says where it found the emitter.
        #expect(result.reasons.first == "the supervisor cancelled the run: cancelled on request", "\(result.reasons)")
        #expect(result.reasons.dropFirst().first?.contains("between rounds") == true, "\(result.reasons)")
        #expect(result.supervision?.cancelledBy == .user)
        #expect(result.answer == referenceAnswer, "the last turn_done's answer is kept")
        #expect(result.lastTerminal == .done)
        #expect(result.violations.map(described) == warnings)
        #expect(result.conforms, "warnings only")
        try await expectNoProcessLeft(process.pid)
    }

    /// The simulator, as the reference, stops streaming at its last terminal frame: a cancel
    /// during its post-run compaction (1.5 s at speed 1) writes no `cancelled`, exit 130.
    @Test func aCancelDuringTheSimulatorsPostRunCompaction() async throws {
        let process = try simulate("compaction", speed: "1")
        let dog = Watchdog(process.pid)
        var ended = false
        let seen = try await frames(of: process) { frame in
            ended = ended || isLastDone(frame)
            return ended && frame.type == "compaction_start"
        }
        process.cancel()
        let rest = try await all(process)
        let result = await process.result
        dog.stop()
        #expect(rest.isEmpty, "nothing is written after the signal: \(rest.map(\.type))")
        #expect(!seen.contains { $0.type == "cancelled" })
        #expect(result.exitCode == ExitCode.cancelled)
        #expect(result.verdict == .cancelled, "\(result.reasons)")
        guard case .turnDone(let done) = seen.last(where: isLastDone) else {
            Issue.record("no last turn_done in \(seen.map(\.type))")
            return
        }
        #expect(result.answer == done.message)
        #expect(result.violations.map(\.code) == ["unpaired_compaction_start", "cancelled_between_rounds"])
        #expect(result.conforms)
        try await expectNoProcessLeft(process.pid)
    }

    /// A crash after the last round (persisting the session, say): exit 1 with no
    /// turn_error is `failed`, not a protocol error, and the answer is kept.
    @Test func exit1AfterTheLastTurnDoneIsFailedWithTheAnswerKept() async throws {
        let process = try shell("\(printAll(try twoRoundRun())); echo 'failed while saving the session' >&2; exit 1")
        let (seen, result) = try await watched(process)
        #expect(seen.last?.type == "turn_done")
        #expect(!seen.contains { $0.type == "turn_error" })
        #expect(result.exitCode == ExitCode.failed)
        #expect(result.verdict == .failed, "\(result.reasons)")
        #expect(result.reasons.first?.contains("after its last round") == true, "\(result.reasons)")
        #expect(result.answer == referenceAnswer)
        #expect(result.violations.map(described) == ["failed_after_last_round warning 2"])
        #expect(result.conforms)
        #expect(result.stderrTail?.contains("failed while saving the session") == true)
        try await expectNoProcessLeft(process.pid)
    }

    /// A request over the context window: its round ends with a fatal turn_error, the
    /// harness compacts and carries on; the run ends with turn_done and exit 0: `ok`.
    @Test func anOverWindowContinuationIsOk() async throws {
        let process = try shell("\(printAll(try twoRoundRun(overWindow: true))); exit 0")
        let (seen, result) = try await watched(process)
        #expect(seen.dropFirst().map { "\($0.type)(\($0.turnId ?? 0))" } == [
            "agent_start(1)", "message_start(1)", "message_delta(1)", "tool_start(1)", "tool_delta(1)", "turn_done(1)",
            "turn_error(2)", "compaction_start(3)", "compaction_end(3)", "message_start(3)", "message_delta(3)",
            "turn_done(3)",
        ])
        #expect(result.exitCode == ExitCode.ok)
        #expect(result.verdict == .ok, "\(result.reasons)")
        #expect(result.answer == referenceAnswer)
        #expect(result.turns.map(\.end) == [.done, .error, .done])
        #expect(result.violations.map(described) == ["round_after_fatal_error warning 3"])
        #expect(result.conforms)
        try await expectNoProcessLeft(process.pid)
    }
}
