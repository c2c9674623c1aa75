// The cancel ladder's waits, set per process: SIGINT, SIGTERM after `interruptGrace`, SIGKILL
// after `terminateGrace` (by default the core's 12 s and 2 s). The children answer each
// signal with a `message_delta` naming it, so the test sees when each one arrived.

import Foundation
import Hep
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child that writes a `message_delta` naming each SIGINT and SIGTERM it gets and goes on
/// running: only SIGKILL ends it.
let stubbornReporter =
    "said() { printf '%s\\n' \"{\\\"type\\\":\\\"message_delta\\\",\\\"turn_id\\\":1,\\\"delta\\\":\\\"$1\\\"}\"; }; "
    + "trap 'said SIGINT' INT; trap 'said SIGTERM' TERM; \(printLines(header, agentStart, delta)); "
    + "while :; do sleep 0.05; done"

/// The delta text of `frame`, if it is a `message_delta`.
func deltaText(_ frame: Frame) -> String? {
    if case .messageDelta(let d) = frame { return d.delta }
    return nil
}

@Suite struct Graces {
    @Test func theGracesDefaultToTheCores() async throws {
        let process = try shell("exit 0")
        #expect(process.interruptGrace == HepProcess.interruptGrace)
        #expect(process.terminateGrace == HepProcess.terminateGrace)
        // The reference settles for up to 10 s after SIGINT, then drains stdout and exits.
        #expect(HepProcess.interruptGrace == .seconds(12) && HepProcess.terminateGrace == .seconds(2))
        let negative = try HepProcess(
            executableURL: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "exit 0"],
            interruptGrace: .milliseconds(-5), terminateGrace: .seconds(-1))
        #expect(negative.interruptGrace == .zero && negative.terminateGrace == .zero, "a negative grace counts as zero")
        _ = await (process.result, negative.result)
    }

    /// SIGINT at once, SIGTERM `interruptGrace` later, SIGKILL `terminateGrace` after that:
    /// the process's graces, not the defaults (12 s and 2 s, beyond these bounds; each bound
    /// allows a second for the scheduling of a loaded machine).
    @Test func sigtermAfterTheInterruptGraceAndSigkillAfterTheTerminateGrace() async throws {
        let (interrupt, terminate) = (Duration.milliseconds(300), Duration.milliseconds(400))
        let process = try HepProcess(
            executableURL: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", stubbornReporter],
            interruptGrace: interrupt, terminateGrace: terminate)
        #expect(process.interruptGrace == interrupt && process.terminateGrace == terminate)
        let dog = Watchdog(process.pid)
        _ = try await frames(of: process, until: isDelta)
        let cancelled = ContinuousClock.now
        process.cancel()
        var arrived: [(String, ContinuousClock.Instant)] = []
        for try await frame in process.frames {
            if let text = deltaText(frame) { arrived.append((text, .now)) }
        }
        let result = await process.result
        let ended = ContinuousClock.now
        dog.stop()
        #expect(arrived.map(\.0) == ["SIGINT", "SIGTERM"])
        #expect(result.exitCode == ExitCode.forSignal(SIGKILL))
        #expect(result.verdict == .incomplete, "killed in round 1 without a terminal frame: \(result.reasons)")
        guard arrived.count == 2 else { return }
        let term = arrived[1].1 - cancelled
        #expect(term >= interrupt, "SIGTERM came \(term) after the cancel, before the interrupt grace")
        #expect(term < interrupt + .seconds(5), "SIGTERM came \(term) after the cancel (the default grace is 12 s)")
        #expect(ended - cancelled >= interrupt + terminate, "SIGKILL came before the terminate grace")
        #expect(ended - arrived[1].1 < terminate + .seconds(5), "SIGKILL came \(ended - arrived[1].1) after SIGTERM")
        #expect(ended - cancelled < interrupt + terminate + .seconds(8), "the cancel took \(ended - cancelled)")
        try await expectNoProcessLeft(process.pid)
    }

    /// `cancel(grace:)` replaces the interrupt grace for that cancel; the terminate grace
    /// stays the process's.
    @Test func cancelGraceReplacesTheInterruptGraceForThatCancel() async throws {
        let process = try HepProcess(
            executableURL: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", stubbornReporter],
            interruptGrace: .seconds(60), terminateGrace: .milliseconds(200))
        let dog = Watchdog(process.pid)
        _ = try await frames(of: process, until: isDelta)
        let cancelled = ContinuousClock.now
        process.cancel(grace: .milliseconds(100))
        let rest = try await all(process)
        let result = await process.result
        let took = ContinuousClock.now - cancelled
        dog.stop()
        #expect(rest.compactMap(deltaText) == ["SIGINT", "SIGTERM"])
        #expect(result.exitCode == ExitCode.forSignal(SIGKILL))
        #expect(took >= .milliseconds(300))
        #expect(took < HepProcess.terminateGrace, "the cancel took \(took)")
        try await expectNoProcessLeft(process.pid)
    }

    /// The timeout cancels with the process's graces: a child ignoring SIGINT and SIGTERM
    /// is killed within a second, not after the default 14 s.
    @Test func aTimeoutEscalatesWithTheProcesssGraces() async throws {
        let started = ContinuousClock.now
        let process = try HepProcess(
            executableURL: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", "trap '' INT TERM; \(printLines(header, agentStart, delta)); exec sleep 300"],
            timeout: .milliseconds(100), interruptGrace: .milliseconds(100), terminateGrace: .milliseconds(100))
        let dog = Watchdog(process.pid)
        let result = await process.result
        let took = ContinuousClock.now - started
        dog.stop()
        #expect(process.timedOut)
        #expect(result.exitCode == ExitCode.forSignal(SIGKILL))
        #expect(took >= .milliseconds(300))
        #expect(took < HepProcess.terminateGrace, "the timeout's cancel took \(took)")
        try await expectNoProcessLeft(process.pid)
    }

    /// A harness that answers SIGTERM with `cancelled` (but ignores SIGINT) is cancelled,
    /// after the interrupt grace.
    @Test func aChildThatWritesCancelledOnSigtermIsCancelledAfterTheInterruptGrace() async throws {
        let process = try HepProcess(
            executableURL: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", "trap '' INT; \(cancelHandler) trap cancel TERM; \(printLines(header, agentStart, delta)); "
                + "while :; do sleep 0.05; done"],
            interruptGrace: .milliseconds(250), terminateGrace: .seconds(60))
        let dog = Watchdog(process.pid)
        _ = try await frames(of: process, until: isDelta)
        let cancelled = ContinuousClock.now
        process.cancel()
        let rest = try await all(process)
        let result = await process.result
        let took = ContinuousClock.now - cancelled
        dog.stop()
        #expect(rest.map(\.type) == ["cancelled"])
        #expect(result.verdict == .cancelled && result.exitCode == ExitCode.cancelled)
        #expect(took >= .milliseconds(250) && took < .seconds(5), "the cancel took \(took)")
        try await expectNoProcessLeft(process.pid)
    }
}
