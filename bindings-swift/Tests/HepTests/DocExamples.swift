// The code shown in docs/swift.md: each `// START name` ... `// END name` region is a
// snippet of the doc (examples/swift/check_docs.py checks that they match), and the tests
// around it check what the doc says it does.

import Foundation
import Hep
import Testing

@Suite struct DocExamples {
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
        let writer = Writer { line in output += line }  // or Writer(to: .standardOutput)
        try writer.header(fah: "1.2.3", session: "s-1")
        try writer.agentStart()
        try writer.messageStart()
        try writer.messageDelta("Listing the files.")
        try writer.toolStart(id: "c1", name: "bash", args: #"{"command":"ls"}"#)
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
