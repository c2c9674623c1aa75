import Foundation
import Hep
import Testing

/// A complete, conforming run: one round with a tool call, ending in `turn_done`.
let okRun = [
    #"{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"s-1"}"#,
    #"{"type":"agent_start","turn_id":1}"#,
    #"{"type":"message_start","turn_id":1,"role":"assistant"}"#,
    #"{"type":"message_delta","turn_id":1,"delta":"Hi"}"#,
    #"{"type":"tool_start","turn_id":1,"id":"c1","name":"bash","args_summary":"command=\"ls\""}"#,
    #"{"type":"tool_delta","turn_id":1,"id":"c1","update":"a.txt\n"}"#,
    #"{"type":"turn_done","turn_id":1,"message":"Hi","tool_results":[{"id":"c1","name":"bash","ok":true,"text":"a.txt"}],"usage":{"input":10,"output":2,"cost":0.5},"stop_reason":"stop"}"#,
].map { $0 + "\n" }.joined()

@Suite struct Stream {
    @Test func feedsChunksSplitMidLineAndFinishes() throws {
        let stream = HepStream()
        let bytes = Data(okRun.utf8)
        var frames: [Frame] = []
        // 7-byte chunks: most lines arrive in pieces.
        for start in stride(from: 0, to: bytes.count, by: 7) {
            frames += try stream.feed(bytes.subdata(in: start..<min(start + 7, bytes.count)))
        }
        #expect(frames.map(\.type) == [
            "hep_header", "agent_start", "message_start", "message_delta", "tool_start", "tool_delta", "turn_done",
        ])
        #expect(stream.violations.isEmpty)
        #expect(stream.skipped.isEmpty)

        let result = stream.finish(exitCode: 0)
        #expect(result.verdict == .ok)
        #expect(result.verdict.name == "ok")
        #expect(result.conforms)
        #expect(result.answer == "Hi")
        #expect(result.usage == Usage(input: 10, output: 2, cost: 0.5))
        #expect(result.header?.session == "s-1")
        #expect(result.turns.first?.tools.first?.output == "a.txt\n")
        #expect(result.lines == 7)
        #expect(stream.finish(exitCode: 1) == result)
    }

    @Test func givesLineNumbersAndRawLines() throws {
        let stream = HepStream()
        let received = try stream.feedReceived(Data(okRun.utf8))
        #expect(received.map(\.line) == Array(1...7))
        #expect(received[3].raw == #"{"type":"message_delta","turn_id":1,"delta":"Hi"}"#)
    }

    @Test func collectsViolationsAndSkippedLines() throws {
        let stream = HepStream()
        let frames = try stream.feed(#"{"type":"agent_start","turn_id":1}"# + "\nnot json\n")
        #expect(frames.count == 1)
        #expect(stream.violations.map(\.code) == ["missing_header"])
        #expect(stream.skipped.map(\.kind) == ["syntax"])
        #expect(stream.skipped.first?.line == 2)
        let result = stream.finish(exitCode: nil)
        #expect(result.verdict == .protocolError)
        #expect(!result.conforms)
    }

    @Test func strictModeThrowsAtTheFirstError() throws {
        let stream = HepStream(strict: true)
        let header = #"{"type":"hep_header","hep":"v1","fah":"1","session":"s"}"# + "\n"
        do {
            _ = try stream.feed(header + "{oops\n" + #"{"type":"agent_start","turn_id":1}"# + "\n")
            Issue.record("no error")
        } catch let error as HepError {
            #expect(error.kind == "syntax")
            #expect(error.line == 2)
        }
        #expect(stream.framesBeforeHalt.map(\.type) == ["hep_header"])
        #expect(stream.halted?.kind == "syntax")
        #expect(try stream.feed("more\n").isEmpty)
        #expect(stream.finish(exitCode: 0).verdict == .protocolError)
    }

    @Test func reportsATruncatedLastLine() throws {
        let stream = HepStream()
        _ = try stream.feed(okRun + #"{"type":"agent_st"#)
        let result = stream.finish(exitCode: 0)
        #expect(result.skipped.map(\.kind) == ["truncated"])
    }

    @Test func isSendable() async throws {
        let stream = HepStream()
        let count = try await Task.detached { try stream.feed(okRun).count }.value
        #expect(count == 7)
    }
}
