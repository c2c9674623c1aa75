import Foundation
import Hep
import Testing

@Suite struct WriterAPI {
    @Test func writesEachLineToAClosureAndReturnsIt() throws {
        var sunk: [String] = []
        let writer = Writer(fah: "1.2.3") { sunk.append($0) }
        #expect(writer.turnId == 0)
        #expect(try writer.header(session: "s-1") == #"{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"s-1"}"#,
                "the harness version is the constructor's")
        #expect(try writer.header(session: "again") == nil, "the header is written once")
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
        let writer = Writer(to: pipe.fileHandleForWriting, fah: "1")
        try writer.header(session: "s")
        try writer.agentStart()
        try pipe.fileHandleForWriting.close()
        let written = String(decoding: try pipe.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        #expect(written == #"{"type":"hep_header","hep":"v1","fah":"1","session":"s"}"# + "\n"
            + #"{"type":"agent_start","turn_id":1}"# + "\n")
    }

    @Test func toolArgumentsAsJSONTextKeepTheirOrder() throws {
        let writer = Writer(fah: "1.2.3") { _ in }
        let line = try writer.toolStart(id: "c1", name: "grep", args: #"{"pattern":"a","path":"src"}"#)
        let frame = try parseLine(try #require(line))
        guard case .toolStart(let start) = frame else {
            Issue.record("not a tool_start: \(frame)")
            return
        }
        #expect(start.argsSummary == #"pattern="a", path="src""#)
        #expect(start.turnId == 1, "a tool call opens a turn")
    }

    /// A dictionary literal is ordered pairs (`KeyValuePairs`): its keys keep their order, at
    /// the top and in `KeyValuePairs` nested in it. A repeated key keeps its first place and
    /// takes its last value, as the reference's map (and the core's reading of JSON text) does.
    @Test func toolArgumentsAsALiteralKeepTheirOrder() throws {
        let summary = Writer(fah: "1.2.3") { _ in }
        #expect(try Self.argsSummary(summary.toolStart(id: "c1", name: "bash", args: ["timeout": 30, "command": "ls -l", "env": ["B": 1, "A": true]]))
            == #"timeout=30, command="ls -l", env={"A":true,"B":1}"#, "a nested dictionary has its keys sorted")
        let nested: KeyValuePairs<String, Any> = ["z": 1, "a": ["y": 2, "b": 3] as KeyValuePairs<String, Any>]
        #expect(try Self.argsSummary(summary.toolStart(id: "c2", name: "x", args: nested)) == #"z=1, a={"y":2,"b":3}"#)
        #expect(try Self.argsSummary(summary.toolStart(id: "c3", name: "x", args: ["b": 1, "a": 2, "b": 3])) == "b=3, a=2")
        #expect(try Self.argsSummary(summary.toolStart(id: "c4", name: "x", args: #"{"b":1,"a":2,"b":3}"#)) == "b=3, a=2",
                "the same as the JSON text")

        let full = Writer(fah: "1.2.3", toolArgs: .full) { _ in }
        #expect(try Self.argsSummary(full.toolStart(id: "c1", name: "bash", args: ["path": "/", "command": "ls", "n": [1, 2.5]]))
            == #"{"path":"/","command":"ls","n":[1,2.5]}"#)
    }

    /// A `[String: Any]` has no order: its keys are rendered sorted.
    @Test func toolArgumentsAsADictionaryAreRenderedWithSortedKeys() throws {
        let args: [String: Any] = ["timeout": 30, "command": "ls -l", "env": ["A": true]]
        let summary = Writer(fah: "1.2.3") { _ in }
        #expect(try Self.argsSummary(summary.toolStart(id: "c1", name: "bash", args: args))
            == #"command="ls -l", env={"A":true}, timeout=30"#)

        let full = Writer(fah: "1.2.3", toolArgs: .full) { _ in }
        let raw: [String: Any] = ["z": "ls", "a": 1]
        #expect(try Self.argsSummary(full.toolStart(id: "c1", name: "bash", args: raw)) == #"{"a":1,"z":"ls"}"#)
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
        let summary = Writer(fah: "1.2.3") { _ in }
        #expect(try Self.argsSummary(summary.toolStart(id: "c1", name: "calc", args: args))
            == #"x=[unserializable], y=[unserializable], z="ok""#)
        let full = Writer(fah: "1.2.3", toolArgs: .full) { _ in }
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
        let writer = Writer(fah: "1.2.3") { _ in }
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
        let writer = Writer(fah: "1.2.3") { lines.append($0) }
        try writer.header(session: "s-1")
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
        let writer = Writer(fah: "1.2.3") { lines.append($0) }
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
        let writer = Writer(fah: "1.2.3") { _ in throw Full() }
        #expect(throws: Full.self) { try writer.header(session: "s") }
    }
}

/// The text bounds the writer applies (the core's), and terminal sanitising.
@Suite struct TextBounds {
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
}
