// What the core's Supervisor gives every driver, with real children through HepProcess: a
// cancel keeps reading, the idle timeout (stopped while the consumer holds the child up),
// live stderr, no orphans (release, exit of the supervisor), a second cancel, a child held
// up only while someone iterates its frames, an exit reaped elsewhere; the driver's own: a
// bare name looked up on PATH, stdin; LivenessAction; and the public Supervisor driven by
// hand.

import Foundation
import Hep
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let sh = URL(fileURLWithPath: "/bin/sh")
let toolStart = #"{"type":"tool_start","turn_id":1,"id":"c1","name":"bash","args_summary":"command=ls"}"#
let heartbeat = #"{"type":"tool_liveness","turn_id":1,"id":"c1","name":"bash","action":"heartbeat","elapsed_ms":100}"#
let toolTurnDone =
    #"{"type":"turn_done","turn_id":1,"message":"m","tool_results":[{"id":"c1","name":"bash","ok":true,"text":"a"}],"usage":{"input":1,"output":2,"cost":0.5},"stop_reason":"stop"}"#

/// A shell loop writing `message_delta` lines as fast as it can, eight per `printf`: each
/// write is far below PIPE_BUF, so whole lines reach the pipe whenever a signal comes.
let flood = "d='\(delta)'; while :; do printf '%s\\n' \"$d\" \"$d\" \"$d\" \"$d\" \"$d\" \"$d\" \"$d\" \"$d\"; done"

/// A file in a fresh temporary folder (removed by `cleanUp`).
func scratch(_ name: String) throws -> (file: URL, cleanUp: () -> Void) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hep-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return (folder.appendingPathComponent(name), { try? FileManager.default.removeItem(at: folder) })
}

@Suite struct CancelKeepsReading {
    /// The frames of a child that floods stdout are held for an iteration that takes none:
    /// stdout is paused and the child blocks on its full pipe. The cancel reads on, so the
    /// child's SIGINT handler can write `cancelled` and exit 130: cancelled by SIGINT alone,
    /// not killed.
    @Test func aChildBlockedOnAFullPipeCanStillWriteCancelled() async throws {
        let process = try HepProcess(
            executableURL: sh, arguments: ["-c", "\(cancelHandler) trap cancel INT; \(printLines(header, agentStart)); \(flood)"],
            interruptGrace: .seconds(20))
        let dog = Watchdog(process.pid, seconds: 30)
        var frames = process.frames.makeAsyncIterator()  // someone iterates, slowly: stdout is paused for them
        try await Task.sleep(for: .milliseconds(500))  // far more than 1 MiB and a pipe's worth
        #expect(alive(process.pid))
        let cancelled = ContinuousClock.now
        process.cancel()
        let result = await process.result
        let took = ContinuousClock.now - cancelled
        dog.stop()
        var last: Frame?
        while let frame = try await frames.next() { last = frame }
        #expect(last?.type == "cancelled")
        #expect(result.supervision?.noticesDropped == 0, "the child was held up, not read past the bound")
        #expect(result.verdict == .cancelled, "\(result.reasons)")
        #expect(result.exitCode == ExitCode.cancelled)
        #expect(result.lastTerminal == .cancelled, "the child's `cancelled` frame was read")
        #expect(result.supervision?.signals.map(\.signal) == [.interrupt], "SIGINT alone")
        #expect(result.supervision?.cancelledBy == .user)
        #expect(result.skipped.isEmpty && result.conforms, "\(result.reasons)")
        #expect(took < .seconds(10), "the cancel took \(took)")
        try await expectNoProcessLeft(process.pid)
    }

    /// The first cancel sends SIGINT; each further one takes the next step at once (SIGTERM,
    /// then SIGKILL), whatever the graces.
    @Test func aSecondCancelTakesTheNextStepAtOnce() async throws {
        let process = try HepProcess(
            executableURL: sh, arguments: ["-c", stubbornReporter], interruptGrace: .seconds(60), terminateGrace: .seconds(60))
        let dog = Watchdog(process.pid)
        _ = try await frames(of: process, until: isDelta)
        let started = ContinuousClock.now
        var arrived: [String] = []
        process.cancel()
        for try await frame in process.frames {
            guard let text = deltaText(frame) else { continue }
            arrived.append(text)
            process.cancel()  // after SIGINT, SIGTERM; after SIGTERM, SIGKILL
        }
        let result = await process.result
        let took = ContinuousClock.now - started
        dog.stop()
        #expect(arrived == ["SIGINT", "SIGTERM"])
        #expect(result.exitCode == ExitCode.forSignal(SIGKILL))
        #expect(result.supervision?.signals.map(\.signal) == [.interrupt, .terminate, .kill])
        #expect(took < .seconds(5), "the cancels took \(took)")
        try await expectNoProcessLeft(process.pid)
    }
}

@Suite struct IdleTimeout {
    /// A child that writes no frame for the idle timeout is cancelled (its stderr does not
    /// count); the first reason says so.
    @Test func aRunWithoutAFrameForTheIdleTimeoutIsCancelled() async throws {
        let process = try HepProcess(
            executableURL: sh,
            arguments: ["-c", "\(cancelHandler) trap cancel INT; \(printLines(header, agentStart, delta)); "
                + "while :; do echo 'still thinking' >&2; sleep 0.05; done"],
            idleTimeout: .milliseconds(300))
        let started = ContinuousClock.now
        let (seen, result) = try await watched(process)
        let took = ContinuousClock.now - started
        #expect(seen.last?.type == "cancelled")
        #expect(result.verdict == .cancelled, "\(result.reasons)")
        #expect(result.reasons.first == "the supervisor cancelled the run: idle for 0.3 s: no frame")
        #expect(result.supervision?.cancelledBy == .idle)
        #expect(!process.timedOut)
        #expect(took >= .milliseconds(300) && took < .seconds(5), "took \(took)")
        try await expectNoProcessLeft(process.pid)
    }

    /// Any frame restarts the idle timeout, a tool call's heartbeats included: a run that
    /// takes twice the idle timeout, with a heartbeat every 100 ms, is not cancelled. (The
    /// timeout is 8 heartbeats long, so that a loaded machine's late `sleep` does not end it.)
    @Test func heartbeatsKeepARunAlive() async throws {
        let process = try HepProcess(
            executableURL: sh,
            arguments: ["-c", "\(printLines(header, agentStart, toolStart)); i=0; while [ $i -lt 16 ]; do sleep 0.1; "
                + "\(printLines(heartbeat)); i=$((i + 1)); done; \(printLines(toolTurnDone))"],
            idleTimeout: .milliseconds(800))
        let (seen, result) = try await watched(process)
        #expect(seen.filter { $0.type == "tool_liveness" }.count == 16)
        #expect(result.verdict == .ok, "\(result.reasons)")
        #expect(result.supervision?.cancelledBy == nil)
        #expect((result.supervision?.durationMs ?? 0) >= 1600)
        try await expectNoProcessLeft(process.pid)
    }
}

/// About 4.5 MiB of events as the supervisor counts them (40,000 lines of 50 bytes, each
/// counted plus 64): past the pause threshold (1 MiB), below the drop threshold (16 MiB).
let pastThePause = "\(printLines(header, agentStart)); yes '\(delta)' | head -n 40000; \(printLines(turnDone))"

@Suite struct WhoTakesTheFrames {
    /// Nobody iterates the frames (the result is not even awaited yet): the child is never
    /// held up, and runs to its end; the frames wait for a later iteration.
    @Test func aChildWhoseFramesNobodyIteratesRunsToItsEnd() async throws {
        let process = try shell(pastThePause)
        let dog = Watchdog(process.pid, seconds: 30)
        #expect(try await eventually(20) { !alive(process.pid) }, "the child was held up for nobody")
        let result = await process.result
        var taken = 0
        for try await _ in process.frames { taken += 1 }
        dog.stop()
        #expect(result.verdict == .ok, "\(result.reasons)")
        #expect(taken == 40_003 && result.supervision?.noticesDropped == 0)
        try await expectNoProcessLeft(process.pid)
    }

    /// A sequence of the frames, made and not yet iterated, holds the child up past 1 MiB of
    /// waiting events; iterated, it gets every frame.
    @Test func aSequenceOfTheFramesHoldsTheChildUpUntilItIsIterated() async throws {
        let process = try shell(pastThePause)
        let dog = Watchdog(process.pid, seconds: 30)
        var frames = process.frames.makeAsyncIterator()
        try await Task.sleep(for: .milliseconds(500))
        #expect(alive(process.pid), "the child was not held up for the sequence")
        var taken = 0
        while try await frames.next() != nil { taken += 1 }
        let result = await process.result
        dog.stop()
        #expect(taken == 40_003 && result.verdict == .ok, "\(result.reasons)")
        #expect(result.supervision?.noticesDropped == 0)
        try await expectNoProcessLeft(process.pid)
    }

    /// Once an iteration ends (here at the first delta), the child is no longer held up: it
    /// runs to its end, and a later iteration gets the frames left.
    @Test func theEndOfAnIterationLetsTheChildRunOn() async throws {
        let process = try shell(pastThePause)
        let dog = Watchdog(process.pid, seconds: 30)
        let first = try await frames(of: process, until: isDelta)
        #expect(try await eventually(20) { !alive(process.pid) }, "the child was held up after the iteration ended")
        var taken = first.count
        for try await _ in process.frames { taken += 1 }
        let result = await process.result
        dog.stop()
        #expect(taken == 40_003 && result.verdict == .ok, "\(result.reasons)")
        #expect(result.supervision?.noticesDropped == 0)
        try await expectNoProcessLeft(process.pid)
    }

    /// A consumer that takes its time holds the child up on a full pipe for three times the
    /// idle timeout: the child is held up, not idle, and is not cancelled.
    @Test func theIdleTimeoutDoesNotRunWhileASlowConsumerHoldsTheChildUp() async throws {
        let process = try HepProcess(executableURL: sh, arguments: ["-c", pastThePause], idleTimeout: .milliseconds(800))
        let dog = Watchdog(process.pid, seconds: 30)
        var frames = process.frames.makeAsyncIterator()
        _ = try await frames.next()
        try await Task.sleep(for: .milliseconds(2400))
        #expect(alive(process.pid), "the child was not held up")
        var taken = 1
        while try await frames.next() != nil { taken += 1 }
        let result = await process.result
        dog.stop()
        #expect(result.verdict == .ok, "\(result.reasons)")
        #expect(result.supervision?.cancelledBy == nil && taken == 40_003)
        try await expectNoProcessLeft(process.pid)
    }

    /// An application that reaps every child itself (here: SIGCHLD ignored, so the kernel
    /// reaps them, in hep-exit-check) leaves the exit unknown: the run is judged without an
    /// exit code, by its frames.
    @Test func anExitReapedElsewhereIsJudgedWithoutAnExitCode() async throws {
        let said = try NoOrphans.run(printLines(header, agentStart, turnDone) + "; exit 3", "reaped-elsewhere")
        #expect(said == "ok nil")
    }
}

@Suite struct LiveStderr {
    /// Each stderr line arrives as soon as it is complete, while the child runs; the lines
    /// end with the run, and the tail keeps them too.
    @Test func stderrLinesArriveWhileTheChildRuns() async throws {
        let process = try shell(
            "trap 'echo two >&2; exit 0' USR1; echo one >&2; printf 'no newline yet' >&2; \(printLines(header)); "
                + "while :; do sleep 0.05; done")
        let dog = Watchdog(process.pid)
        var lines = process.stderrLines.makeAsyncIterator()
        #expect(await lines.next() == "one")
        #expect(alive(process.pid), "the line came while the child runs")
        #expect(kill(process.pid, SIGUSR1) == 0)
        #expect(await lines.next() == "no newline yettwo")
        #expect(await lines.next() == nil, "the lines end with the run")
        let result = await process.result
        dog.stop()
        #expect(result.stderrTail == "one\nno newline yettwo\n")
        #expect(result.supervision?.stderrTail == result.stderrTail)
    }

    /// Stderr lines are never held behind frames not taken: stdout is paused for an iteration
    /// that takes none, and a line written then still arrives.
    @Test func aStderrLineIsNotHeldBehindUnreadFrames() async throws {
        let process = try shell("(sleep 0.5; echo late >&2) & \(printLines(header, agentStart)); \(flood)")
        let dog = Watchdog(process.pid)
        let frames = process.frames  // held, not iterated: stdout is paused for it
        var lines = process.stderrLines.makeAsyncIterator()
        #expect(await lines.next() == "late")
        process.cancel()
        let result = await process.result
        dog.stop()
        withExtendedLifetime(frames) {}
        #expect(result.verdict == .cancelled, "\(result.reasons)")
        try await expectNoProcessLeft(process.pid)
    }
}

@Suite struct NoOrphans {
    /// hep-exit-check, built beside this test bundle.
    static let exitCheck = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("hep-exit-check")

    /// Runs hep-exit-check with `script` and `mode`, returning what it printed (trimmed).
    static func run(_ script: String, _ mode: String? = nil) throws -> String {
        let program = Process()
        program.executableURL = exitCheck
        program.arguments = [script] + (mode.map { [$0] } ?? [])
        let output = Pipe()
        program.standardOutput = output
        try program.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        program.waitUntilExit()
        #expect(program.terminationStatus == 0)
        return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs hep-exit-check with `script` (and `release`), returning the pid of the child it
    /// left running when it exited.
    static func exitWhileAChildRuns(_ script: String, release: Bool = false) throws -> Int32 {
        try #require(Int32(run(script, release ? "release" : nil)))
    }

    /// A program that exits while its harness runs cancels it on the way out (atexit): the
    /// child gets SIGINT, once.
    @Test(arguments: [false, true])
    func theExitOfTheSupervisorCancelsItsChildren(_ releasedFirst: Bool) async throws {
        let (file, cleanUp) = try scratch("signals")
        defer { cleanUp() }
        let script =
            "trap 'echo INT >> \(file.path); sleep 0.3; exit 130' INT; trap 'echo TERM >> \(file.path); exit 143' TERM; "
            + "\(printLines(header)); while :; do sleep 0.05; done"
        let pid = try Self.exitWhileAChildRuns(script, release: releasedFirst)
        defer { _ = kill(pid, SIGKILL) }
        #expect(try await eventually { !alive(pid) }, "the child \(pid) outlived its supervisor")
        let signals = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        #expect(signals == "INT\n", "one SIGINT, not hurried by a second cancel: \(signals.debugDescription)")
    }
}

@Suite struct Spawning {
    /// A bare name is looked up on PATH (the given environment's when it sets one); a name
    /// with a `/` is a path; no such program is ENOENT.
    @Test func aBareNameIsLookedUpOnPath() async throws {
        let process = try HepProcess(executable: "sh", arguments: ["-c", printLines(header, agentStart, turnDone)])
        let (seen, result) = try await watched(process)
        #expect(seen.count == 3 && result.verdict == .ok)

        let (harness, cleanUp) = try scratch("my-harness")
        defer { cleanUp() }
        let folder = harness.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub/my-harness"), withIntermediateDirectories: true)
        try "#!/bin/sh\n\(printLines(header, agentStart, turnDone))\n".write(to: harness, atomically: true, encoding: .utf8)
        #expect(chmod(harness.path, 0o755) == 0)
        // A folder of that name earlier on PATH is passed over.
        let path = "\(folder.path)/sub:\(folder.path):/usr/bin:/bin"
        let found = try HepProcess(executable: "my-harness", environment: ["PATH": path])
        #expect(try await watched(found).result.verdict == .ok)
        let byPath = try HepProcess(executable: harness.path)
        #expect(try await watched(byPath).result.verdict == .ok)

        #expect(throws: POSIXError(.ENOENT)) { try HepProcess(executable: "my-harness") }
        #expect(throws: POSIXError(.ENOENT)) { try HepProcess(executable: "") }
    }

    /// stdin: `/dev/null` by default; a pipe written through `standardInput`; a file handle.
    @Test func theChildReadsTheStdinItIsGiven() async throws {
        let lines = [header, agentStart, turnDone].map { $0 + "\n" }.joined()

        let silent = try HepProcess(executable: "cat")
        #expect(silent.standardInput == nil)
        let (none, nothing) = try await watched(silent)
        #expect(none.isEmpty && nothing.exitCode == 0)

        let piped = try HepProcess(executable: "cat", standardInput: .pipe)
        let writer = try #require(piped.standardInput)
        try writer.write(contentsOf: Data(lines.utf8))
        try writer.close()
        let (seen, result) = try await watched(piped)
        #expect(seen.map(\.type) == ["hep_header", "agent_start", "turn_done"])
        #expect(result.verdict == .ok)

        let (file, cleanUp) = try scratch("input")
        defer { cleanUp() }
        try lines.write(to: file, atomically: true, encoding: .utf8)
        let handle = try FileHandle(forReadingFrom: file)
        let fromFile = try HepProcess(executable: "cat", standardInput: .fileHandle(handle))
        try handle.close()
        #expect(try await watched(fromFile).result.verdict == .ok)
    }
}

@Suite struct SupervisorAPI {
    @Test func thePolicyIsTheCores() {
        // The reference settles for up to 10 s after SIGINT, then drains and exits: 10 + 2.
        #expect(HepProcess.interruptGrace == .seconds(12))
        #expect(HepProcess.terminateGrace == .seconds(2))
        #expect(HepProcess.stderrTailBytes == 64 << 10)
        #expect([ExitCode.ok, ExitCode.failed, ExitCode.cancelled] == [0, 1, 130])
        #expect(ExitCode.forSignal(9) == 137)
    }

    /// The options default to the core's policy, which HepProcess uses.
    @Test func theOptionsAreTheCoresPolicy() {
        let o = Supervisor.Options()
        #expect(o.interruptGrace == HepProcess.interruptGrace && o.terminateGrace == HepProcess.terminateGrace)
        #expect(o.stderrTailBytes == HepProcess.stderrTailBytes)
        #expect(o.drain == .seconds(2) && o.pauseAtBytes == 1 << 20 && o.maxStderrLine == 16 << 10)
        #expect(o.timeout == nil && o.idleTimeout == nil && !o.strict && o.limits == Limits())
        #expect(Supervisor.minDropAtBytes == 1 << 20 && o.dropAtBytes == 16 << 20)
        #expect(Supervisor.Options(pauseAtBytes: 1000).dropAtBytes == Supervisor.minDropAtBytes, "at least the minimum")
        #expect(Supervisor.Options(pauseAtBytes: 4 << 20).dropAtBytes == 64 << 20, "16 × pauseAtBytes")
    }

    /// What the supervisor says of the run as it goes: a detached consumer is never paused
    /// for; who cancelled, a cancel under way until the exit, the timeout, stdout's end.
    @Test func theRunAsItGoes() {
        let line = "\(delta)\n"
        let supervisor = Supervisor(options: .init(timeout: .seconds(1), pauseAtBytes: 200))
        #expect(supervisor.cancelledBy == nil && !supervisor.isCancelling && !supervisor.timedOut && supervisor.isStdoutOpen)
        supervisor.setConsumer(at: .zero, attached: false)
        supervisor.stdout(at: .milliseconds(1), Data((header + "\n" + String(repeating: line, count: 10)).utf8))
        #expect(supervisor.pollAction() == nil && !supervisor.isPaused, "detached: never paused")
        supervisor.setConsumer(at: .milliseconds(2), attached: true)
        supervisor.stdout(at: .milliseconds(3), Data(line.utf8))
        #expect(supervisor.pollAction() == .pauseStdout && supervisor.isPaused)
        supervisor.setConsumer(at: .milliseconds(4), attached: false)
        #expect(supervisor.pollAction() == .resumeStdout && !supervisor.isPaused, "detaching resumes")
        supervisor.tick(at: .seconds(1))
        #expect(supervisor.timedOut && supervisor.cancelledBy == .timeout && supervisor.isCancelling)
        supervisor.stdoutClosed(at: .milliseconds(1100))
        #expect(!supervisor.isStdoutOpen)
        supervisor.exited(at: .milliseconds(1200), .unknown)
        #expect(!supervisor.isCancelling, "the child has exited")
        supervisor.stderrClosed(at: .milliseconds(1200))
        #expect(supervisor.result?.exitCode == nil && supervisor.result?.supervision?.timedOut == true)
        #expect(ExitStatus.unknown.code == nil && ExitStatus.signal(SIGINT).code == ExitCode.cancelled)
    }

    /// A driver's loop by hand, on a made-up clock: events in order (a skipped line between
    /// two frames), the cancel's SIGINT with its next step, the group kill at the exit, the
    /// result with its supervision report.
    @Test func aDriverByHand() {
        let supervisor = Supervisor(options: .init(interruptGrace: .seconds(3)))
        supervisor.stdout(at: .milliseconds(5), Data("\(header)\n{oops\n\(agentStart)\n".utf8))
        supervisor.stderr(at: .milliseconds(6), Data("warming up\npartial".utf8))
        #expect(supervisor.pollStderr() == "warming up" && supervisor.pollStderr() == nil)
        let events = supervisor.pollEvents()
        #expect(events.count == 3)
        if case .frame(let first) = events[0], case .skipped(let error) = events[1], case .frame(let last) = events[2] {
            #expect(first.frame.type == "hep_header" && error.kind == "syntax" && last.line == 3)
        } else {
            Issue.record("not frame, skipped, frame: \(events)")
        }
        #expect(supervisor.pollEvent() == nil)

        supervisor.cancel(at: .milliseconds(10))
        let step = Supervisor.SignalStep.Next(signal: .terminate, after: .seconds(3))
        guard case .signal(let sigint) = supervisor.pollAction() else {
            Issue.record("no signal")
            return
        }
        #expect(sigint.signal == .interrupt && sigint.signal.number == SIGINT && sigint.reason == .user && sigint.next == step)
        #expect(supervisor.deadline == .milliseconds(3010))
        supervisor.stdout(at: .milliseconds(400), Data("\(cancelledFrame)\n".utf8))
        supervisor.exited(at: .milliseconds(450), .code(130))
        #expect(supervisor.pollAction() == .killGroup)
        #expect(supervisor.deadline == .milliseconds(2450), "the drain")
        supervisor.stdoutClosed(at: .milliseconds(460))
        supervisor.stderrClosed(at: .milliseconds(460))
        #expect(supervisor.isFinished && supervisor.deadline == nil)
        #expect(supervisor.pollStderr() == "partial")
        #expect(supervisor.pollEvents().map { if case .frame(let r) = $0 { r.frame.type } else { "-" } } == ["cancelled"])
        let result = supervisor.result
        // The malformed line is a protocol error, cancelled or not; the cancel comes first.
        #expect(result?.verdict == .protocolError && result?.exitCode == 130)
        #expect(result?.reasons.first == "the supervisor cancelled the run: cancelled on request")
        #expect(result?.reasons.contains { $0.hasPrefix("skipped") } == true, "\(result?.reasons ?? [])")
        #expect(result?.supervision?.signals == [SentSignal(atMs: 10, signal: .interrupt)])
        #expect(result?.supervision?.durationMs == 460 && result?.stderrTail == "warming up\npartial")
    }
}
