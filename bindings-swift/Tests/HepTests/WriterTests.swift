import Foundation
import Hep
import Testing

@Suite struct WriterAPI {
    @Test func writesEachLineToAClosureAndReturnsIt() throws {
        var sunk: [String] = []
        let writer = Writer { sunk.append($0) }
        #expect(writer.turnId == 0)
        try writer.header(fah: "1.2.3", session: "s-1")
        #expect(try writer.header(fah: "1.2.3", session: "again") == nil, "the header is written once")
        try writer.agentStart()
        #expect(try writer.messageStart(role: "user") == nil, "only assistant messages are written")
        try writer.messageStart()
        let delta = try writer.messageDelta("Hi")
        #expect(delta == #"{"type":"message_delta","turn_id":1,"delta":"Hi"}"#)
        #expect(try writer.toolDelta(id: "c1", update: "") == nil, "an empty update is not written")
        try writer.turnDone(message: "Hi", usage: Usage(input: 1, output: 2, cost: 0.5), stopReason: "stop")
        #expect(writer.turnId == 1)
        #expect(sunk.count == 5)
        #expect(sunk.allSatisfy { $0.hasSuffix("\n") && !$0.dropLast().contains("\n") })
        #expect(sunk[3] == delta! + "\n")

        // What it wrote is a conforming stream.
        let stream = HepStream()
        _ = try stream.feed(sunk.joined())
        let result = stream.finish(exitCode: ExitCode.ok)
        #expect(result.verdict == .ok && result.conforms)
        #expect(result.answer == "Hi")
    }

    @Test func writesToAFileHandleAtOnce() throws {
        let pipe = Pipe()
        let writer = Writer(to: pipe.fileHandleForWriting)
        try writer.header(fah: "1", session: "s")
        try writer.agentStart()
        try pipe.fileHandleForWriting.close()
        let written = String(decoding: try pipe.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        #expect(written == #"{"type":"hep_header","hep":"v1","fah":"1","session":"s"}"# + "\n"
            + #"{"type":"agent_start","turn_id":1}"# + "\n")
    }

    @Test func toolArgumentsAsJSONTextKeepTheirOrder() throws {
        let writer = Writer { _ in }
        let line = try writer.toolStart(id: "c1", name: "grep", args: #"{"pattern":"a","path":"src"}"#)
        let frame = try parseLine(try #require(line))
        guard case .toolStart(let start) = frame else {
            Issue.record("not a tool_start: \(frame)")
            return
        }
        #expect(start.argsSummary == #"pattern="a", path="src""#)
        #expect(start.turnId == 1, "a tool call opens a turn")
    }

    @Test func toolArgumentsAsADictionaryAreRenderedWithSortedKeys() throws {
        let summary = Writer { _ in }
        let line = try summary.toolStart(id: "c1", name: "bash", args: ["timeout": 30, "command": "ls -l", "env": ["A": true]])
        #expect(line?.contains(#""args_summary":"command=\"ls -l\", env={\"A\":true}, timeout=30""#) == true, "\(line ?? "")")

        let full = Writer(toolArgs: .full) { _ in }
        let raw = try full.toolStart(id: "c1", name: "bash", args: ["command": "ls"])
        #expect(raw?.contains(#""args_summary":"{\"command\":\"ls\"}""#) == true, "\(raw ?? "")")
    }

    /// The `args_summary` of a `tool_start` line.
    static func argsSummary(_ line: String?) throws -> String {
        guard case .toolStart(let start) = try parseLine(try #require(line)) else {
            Issue.record("not a tool_start: \(line ?? "nil")")
            return ""
        }
        return start.argsSummary
    }

    /// A value holding a non-finite number (which JSON cannot write) renders as the reference
    /// renders it (`safeJsonEncode`): `[unserializable]`, for that value in the summary, for
    /// the whole arguments in full mode; the other values render as JSON.
    @Test func nonFiniteNumbersInADictionaryRenderAsUnserializable() throws {
        let args: [String: Any] = ["x": Double.nan, "y": [1, Double.infinity], "z": "ok"]
        let summary = Writer { _ in }
        #expect(try Self.argsSummary(summary.toolStart(id: "c1", name: "calc", args: args))
            == #"x=[unserializable], y=[unserializable], z="ok""#)
        let full = Writer(toolArgs: .full) { _ in }
        #expect(try Self.argsSummary(full.toolStart(id: "c1", name: "calc", args: args)) == "[unserializable]")

        // Nested in a dictionary, as a Float, negative: the same; finite values are JSON.
        let nested: [String: Any] = [
            "a": ["b": ["c": -Double.infinity]], "f": Float.nan, "n": 1.5, "s": ["t": [true, NSNull()]],
        ]
        #expect(try Self.argsSummary(summary.toolStart(id: "c2", name: "calc", args: nested))
            == #"a=[unserializable], f=[unserializable], n=1.5, s={"t":[true,null]}"#)
        #expect(try Self.argsSummary(full.toolStart(id: "c2", name: "calc", args: ["n": 1.5, "s": "/"]))
            == #"{"n":1.5,"s":"/"}"#, "finite arguments stay JSON in full mode")
        // The same bytes as the core gives the JSON text holding a number past the double range.
        #expect(try renderArgs(#"{"x":1e400,"y":[1,-1e400],"z":"ok"}"#, mode: .summary)
            == #"x=[unserializable], y=[unserializable], z="ok""#)
    }

    @Test func argumentsThatAreNotJSONThrow() {
        let writer = Writer { _ in }
        #expect(throws: HepError.self) { try writer.toolStart(id: "c1", name: "x", args: ["when": Date()]) }
        #expect(throws: HepError.self) { try writer.toolStart(id: "c1", name: "x", args: ["when": [Double.nan, Date()]]) }
        #expect(throws: HepError.self) { try writer.toolStart(id: "c1", name: "x", args: ["ok": 1, "nested": ["when": Date()]]) }
        #expect(throws: HepError.self) { try writer.toolStart(id: "c1", name: "x", args: "[1, 2]") }
        do {
            try writer.toolStart(id: "c1", name: "x", args: ["when": Date()])
        } catch let error as HepError {
            #expect(error.kind == "wrong_type")
        } catch {
            Issue.record("not a HepError: \(error)")
        }
        #expect(writer.turnId == 0, "a call that throws writes nothing and opens no turn")
    }

    /// As in the reference, a call that writes nothing allocates no turn id: a message of
    /// another role and an empty tool update open no turn, before the run or between rounds.
    @Test func callsThatWriteNothingOpenNoTurn() throws {
        var lines: [String] = []
        let writer = Writer { lines.append($0) }
        try writer.header(fah: "1.2.3", session: "s-1")
        #expect(try writer.messageStart(role: "user") == nil)
        #expect(try writer.toolDelta(id: "c1", update: "") == nil)
        #expect(writer.turnId == 0, "nothing written, no turn opened")
        #expect(try writer.agentStart() == #"{"type":"agent_start","turn_id":1}"#)
        try writer.turnDone(message: "hi", usage: Usage(input: 1, output: 2, cost: 0.5), stopReason: "stop")
        #expect(try writer.messageStart(role: "user") == nil)
        #expect(try writer.toolDelta(id: "c1", update: "") == nil)
        #expect(writer.turnId == 1)
        #expect(try writer.compactionEnd(tokensFreed: 5) == #"{"type":"compaction_end","turn_id":1,"tokens_freed":5}"#,
                "no turn was opened: compaction_end reuses the last id")
        #expect(try writer.messageStart(role: "toolResult") == nil)
        #expect(try writer.messageStart() == #"{"type":"message_start","turn_id":2,"role":"assistant"}"#)
        #expect(lines.count == 5)
    }

    @Test func livenessAndTerminalFrames() throws {
        var lines: [String] = []
        let writer = Writer { lines.append($0) }
        try writer.toolLiveness(id: "c1", name: "bash", action: .heartbeat, elapsedMs: 1500, outputBytes: 10, detail: "")
        try writer.turnError("boom", fatal: false)
        try writer.compactionStart()
        try writer.compactionEnd(tokensFreed: 120)
        try writer.cancelled()
        let frames = try lines.map { try parseLine($0) }
        #expect(frames.map(\.type) == ["tool_liveness", "turn_error", "compaction_start", "compaction_end", "cancelled"])
        #expect(frames.map(\.turnId) == [1, 1, 2, 2, 2])
        #expect(!lines[0].contains("detail"), "an empty detail is omitted")
    }

    @Test func aThrowingSinkMakesTheCallThrow() {
        struct Full: Error {}
        let writer = Writer { _ in throw Full() }
        #expect(throws: Full.self) { try writer.header(fah: "1", session: "s") }
    }
}

@Suite struct Support {
    @Test func thePolicyIsTheCores() {
        // The reference settles for up to 10 s after SIGINT, then drains and exits: 10 + 2.
        #expect(HepProcess.interruptGrace == .seconds(12))
        #expect(HepProcess.terminateGrace == .seconds(2))
        #expect(HepProcess.stderrTailBytes == 64 << 10)
        #expect([ExitCode.ok, ExitCode.failed, ExitCode.cancelled] == [0, 1, 130])
        #expect(ExitCode.forSignal(9) == 137)
        #expect(protocolVersion == "v1")
    }

    @Test func sanitizeMakesControlCharactersVisible() {
        #expect(sanitize("a\u{1b}[31mred\u{7}\r\n\tb\u{202e}") == "a\\x1b[31mred\\x07\\x0d\n\tb\\u{202e}")
        #expect(sanitize("plain é 😀\n") == "plain é 😀\n")
    }

    @Test func boundsCountUTF16Units() throws {
        #expect(utf16Length("a😀") == 3)
        #expect(cap("abcdef", limit: 4) == "abcd…(+2 chars)")
        #expect(try renderArgs(#"{"path":"a.txt"}"#, mode: .summary) == #"path="a.txt""#)
        #expect(throws: HepError.self) { try renderArgs("not json", mode: .full) }
    }

    @Test func livenessActionsByName() {
        let names = ["heartbeat", "cancel_retry", "background_convert", "escalate", "advisory"]
        #expect(names.compactMap(LivenessAction.init(name:)).map(\.name) == names)
        #expect(LivenessAction(name: "Heartbeat") == nil)
    }
}
