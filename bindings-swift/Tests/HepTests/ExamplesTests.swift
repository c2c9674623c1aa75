// The code shown in docs/swift.md: each `// START name` ... `// END name` region is a
// snippet of the doc (scripts/check_docs.py checks that they match), and the tests around
// it check what the doc says it does.

import Foundation
import Hep
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct Examples {
    @Test func parsingOneLine() throws {
        // START parse
        let frame = try parseLine(#"{"type":"message_delta","turn_id":1,"delta":"Hello"}"#)
        switch frame {
        case .messageDelta(let delta):
            print("turn \(delta.turnId): \(sanitize(delta.delta))")
        case .unknown(let unknown):
            print("a frame type from a newer emitter: \(unknown.frameType)")
        default:
            print(frame.type)
        }
        let line = try encode(frame)  // the exact bytes the reference writes, no newline
        // END parse
        #expect(frame == .messageDelta(MessageDelta(turnId: 1, delta: "Hello")))
        #expect(line == #"{"type":"message_delta","turn_id":1,"delta":"Hello"}"#)
    }

    @Test func catchingErrorsByCase() {
        // START errors
        func describe(_ line: String) -> String {
            do {
                return try parseLine(line).type
            } catch HepError.wrongType(_, let column, let message, _) {
                return "wrong type at column \(column): \(message)"
            } catch let error as HepError {
                return "\(error.kind) at column \(error.column): \(error.message)"
            } catch {
                return "not a HEP error: \(error)"
            }
        }
        // END errors
        #expect(describe(#"{"type":"agent_start","turn_id":"1"}"#).hasPrefix("wrong type at column 33: "))
        #expect(describe("{").hasPrefix("syntax at column "))
        #expect(describe(#"{"type":"agent_start","turn_id":1}"#) == "agent_start")
    }

    @Test func readingALiveStream() throws {
        let bytes = Data(okRun.utf8)
        let chunks = stride(from: 0, to: bytes.count, by: 100).map { bytes.subdata(in: $0..<min($0 + 100, bytes.count)) }
        var types: [String] = []
        // START stream
        let stream = HepStream()
        for chunk in chunks {  // Data, as a pipe or a socket hands it over
            for frame in try stream.feed(chunk) {
                types.append(frame.type)
            }
        }
        let result = stream.finish(exitCode: 0)  // the harness's exit code, or nil if unknown
        print(result.verdict.name, result.answer ?? "(no answer)", result.usage.cost)
        for violation in stream.violations {
            print("line \(violation.line): \(violation.code): \(violation.message)")
        }
        // END stream
        #expect(types.count == 7)
        #expect(result.verdict == .ok)
    }

    @Test func aFramesOriginalLine() throws {
        // START received
        let stream = HepStream()
        for received in try stream.feedReceived(okRun) {
            print(received.line, received.frame.type, received.raw)
        }
        // END received
        #expect(stream.finish(exitCode: 0).frames == 7)
    }

    @Test func writingAStream() throws {
        var output = ""
        // START writer
        let writer = Writer(fah: "1.2.3") { line in output += line }  // or Writer(to: .standardOutput, fah: "1.2.3")
        try writer.header(session: "s-1")
        try writer.agentStart()
        try writer.messageStart()
        try writer.messageDelta("Listing the files.")
        try writer.toolStart(id: "c1", name: "bash", args: ["command": "ls", "timeout": 30])  // in this order
        try writer.toolDelta(id: "c1", update: "a.txt\n")
        try writer.turnDone(
            message: "Listing the files.",
            toolResults: [ToolResult(id: "c1", name: "bash", ok: true, text: "a.txt")],
            usage: Usage(input: 12, output: 3, cost: 0.001),
            stopReason: "stop")
        // END writer
        let stream = HepStream()
        _ = try stream.feed(output)
        let result = stream.finish(exitCode: 0)
        #expect(result.verdict == .ok && result.conforms)
        #expect(result.turns.first?.tools.first?.result == "a.txt")
        #expect(result.turns.first?.tools.first?.argsSummary == #"command="ls", timeout=30"#)
        #expect(output.hasPrefix(#"{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"s-1"}"# + "\n"))
    }

    @Test func supervisingWithReceived() async throws {
        var lines: [UInt64] = []
        // START process-received
        let process = try HepProcess(executableURL: hepBinary, arguments: ["simulate", "--speed", "0"])
        for try await received in process.received {
            lines.append(received.line)  // received.raw is the line as the child wrote it
        }
        let result = await process.result
        // END process-received
        #expect(result.verdict == .ok)
        #expect(lines == Array(1...UInt64(lines.count)))
    }

    @Test func cancellingARun() async throws {
        // START cancel
        let process = try HepProcess(executableURL: hepBinary, arguments: ["simulate", "--scenario", "cancel-me"])
        for try await frame in process.frames {
            if case .toolStart(let tool) = frame, tool.name == "bash" {
                process.cancel()  // SIGINT to its group; SIGTERM, SIGKILL after grace periods
            }
        }
        let result = await process.result
        print(result.verdict.name, result.exitCode ?? -1)  // cancelled 130
        // END cancel
        #expect(result.verdict == .cancelled && result.exitCode == 130)
    }

    @Test func startingAHarnessByName() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = hepBinary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        var types: [String] = []
        // START spawn
        // A bare name is looked up on PATH (the `environment`'s when it sets one, as here).
        let process = try HepProcess(
            executable: "hep", arguments: ["simulate", "--speed", "0"], environment: environment,
            standardInput: .nullDevice)  // the default; or .inherit, .fileHandle(handle), .pipe
        for try await frame in process.frames {
            types.append(frame.type)
        }
        let result = await process.result
        // END spawn
        #expect(types.first == "hep_header" && result.verdict == .ok)
    }

    @Test func writingTheChildsStdin() async throws {
        let lines = [header, agentStart, turnDone].map { $0 + "\n" }.joined()
        // START stdin
        let process = try HepProcess(executable: "cat", standardInput: .pipe)  // cat echoes its input
        try process.standardInput?.write(contentsOf: Data(lines.utf8))
        try process.standardInput?.close()  // the end of its input
        let result = await process.result
        // END stdin
        #expect(result.verdict == .ok && result.frames == 3)
    }

    @Test func cancellingAnIdleRun() async throws {
        // START idle
        // The simulator slowed down tenfold: its tool call runs for seconds without a frame.
        let process = try HepProcess(
            executableURL: hepBinary, arguments: ["simulate", "--scenario", "cancel-me", "--speed", "0.1"],
            idleTimeout: .seconds(1))  // no frame for 1 s (heartbeats count): cancelled, as by cancel()
        let result = await process.result
        print(result.reasons[0])  // the supervisor cancelled the run: idle for 1 s: no frame
        print(result.supervision?.cancelledBy == .idle)  // true
        // END idle
        #expect(result.reasons.first == "the supervisor cancelled the run: idle for 1 s: no frame")
        #expect(result.supervision?.cancelledBy == .idle)
        #expect(result.verdict == .cancelled && result.exitCode == 130)
    }

    @Test func readingStderrLive() async throws {
        // A harness that logs to stderr as it works.
        let script = "echo 'loading the session' >&2; \(printLines(header, agentStart)); echo 'calling the model' >&2; "
            + printLines(turnDone)
        var shown: [String] = []
        // START stderr
        let process = try HepProcess(executable: "sh", arguments: ["-c", script])
        let logs = Task {
            var lines: [String] = []
            for await line in process.stderrLines {  // each line as soon as it is complete
                print("stderr │ \(sanitize(line))")
                lines.append(line)
            }
            return lines  // the sequence ends with the run
        }
        for try await frame in process.frames {
            print(frame.type)
        }
        let result = await process.result  // result.stderrTail: the last 64 KiB, read or not
        shown = await logs.value
        // END stderr
        #expect(shown == ["loading the session", "calling the model"])
        #expect(result.verdict == .ok && result.stderrTail == "loading the session\ncalling the model\n")
    }

    @Test func drivingASupervisorByHand() {
        var signals: [Int32] = []
        var readingStdout = true
        var pipesOpen = true
        func signalGroup(_ signal: Int32) { signals.append(signal) }  // killpg(pid, signal) in a driver
        // START supervisor
        let supervisor = Supervisor(options: .init(idleTimeout: .seconds(300)))  // the child started at .zero
        var frames: [Frame] = []
        /// After each input: hand over what is ready, then carry out the orders (taking events
        /// can resume stdout, so the actions come last).
        func handle() {
            for event in supervisor.pollEvents() {
                if case .frame(let received) = event { frames.append(received.frame) }
            }
            while let line = supervisor.pollStderr() {
                print("stderr │ \(sanitize(line))")
            }
            while let action = supervisor.pollAction() {
                switch action {
                case .signal(let step): signalGroup(step.signal.number)  // SIGINT; step.next after its wait
                case .killGroup: signalGroup(SIGKILL)  // the child exited: kill its group, then reap it
                case .pauseStdout: readingStdout = false
                case .resumeStdout: readingStdout = true
                case .closePipes: pipesOpen = false  // the drain after the exit is over
                }
            }
        }
        supervisor.stdout(at: .milliseconds(5), Data("\(header)\n\(agentStart)\n".utf8))
        handle()
        supervisor.cancel(at: .milliseconds(10))  // SIGINT now; call tick(at:) at supervisor.deadline
        handle()
        supervisor.stdout(at: .milliseconds(400), Data("\(cancelledFrame)\n".utf8))
        supervisor.exited(at: .milliseconds(450), .code(130))
        handle()
        supervisor.stdoutClosed(at: .milliseconds(450))
        supervisor.stderrClosed(at: .milliseconds(450))
        handle()
        print(supervisor.result?.verdict.name ?? "still running")  // cancelled
        // END supervisor
        #expect(signals == [SIGINT, SIGKILL] && readingStdout && pipesOpen)
        #expect(frames.map(\.type) == ["hep_header", "agent_start", "cancelled"])
        #expect(supervisor.result?.verdict == .cancelled)
    }

    @Test func choosingTheGracePeriods() async throws {
        // START graces
        let process = try HepProcess(
            executableURL: hepBinary, arguments: ["simulate", "--scenario", "cancel-me"],
            interruptGrace: .seconds(3),  // SIGTERM 3 s after SIGINT, not 12 s
            terminateGrace: .milliseconds(500))  // SIGKILL 0.5 s after SIGTERM, not 2 s
        // END graces
        #expect(process.interruptGrace == .seconds(3) && process.terminateGrace == .milliseconds(500))
        _ = try await frames(of: process, until: isDelta)
        process.cancel()
        let result = await process.result
        #expect(result.verdict == .cancelled && result.exitCode == 130)
    }

    @Test func boundingARunWithATimeout() async throws {
        // START timeout
        let process = try HepProcess(
            executableURL: hepBinary, arguments: ["simulate", "--scenario", "cancel-me"],
            timeout: .milliseconds(500))  // still running after 0.5 s: cancelled, as by cancel()
        let result = await process.result
        print(process.timedOut, result.verdict.name)  // true cancelled
        // END timeout
        #expect(process.timedOut)
        #expect(result.verdict == .cancelled && result.exitCode == 130)
    }
}
