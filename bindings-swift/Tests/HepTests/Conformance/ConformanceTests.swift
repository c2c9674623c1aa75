// The conformance vectors of ../../../../conformance/, run through the Swift API, with the
// semantics of the Rust and Python runners (conformance/README.md): one test case per
// file, named by its path below conformance/. A case with an unknown `op`, `call`, option,
// `expect` key, `form` or `outcome` fails; a supervise/ case with any key its format does
// not define fails.

import Foundation
import Hep
import Testing

/// One case file.
struct Case: Sendable, CustomTestStringConvertible {
    let group: String
    let url: URL

    /// The path below conformance/ (a case in a subfolder, such as stream/reference/, is
    /// named with it).
    var testDescription: String {
        let folder = Conformance.root.appendingPathComponent(group).standardizedFileURL.pathComponents
        let path = url.standardizedFileURL.pathComponents
        let below = path.starts(with: folder) ? path.dropFirst(folder.count) : [url.lastPathComponent]
        return ([group] + below).joined(separator: "/")
    }

    /// The case: a JSON object with a non-empty `description`.
    func load() throws -> JSON {
        let value = try JSON.parse(Data(contentsOf: url))
        guard case .object = value else { throw CaseError("a case must be a JSON object") }
        guard case .string(let description) = try? get(value, "description"),
            !description.trimmingCharacters(in: .whitespaces).isEmpty
        else { throw CaseError("a case needs a non-empty string `description`") }
        return value
    }
}

enum Conformance {
    /// conformance/ at the root of the repository.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("conformance")
    static let groups = ["encode", "decode", "reject", "bounds", "writer", "stream", "hostile", "supervise"]

    /// The cases of `group`, sorted by path.
    static func cases(_ group: String) -> [Case] {
        let folder = root.appendingPathComponent(group)
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        return walk.compactMap { $0 as? URL }.filter { $0.pathExtension == "json" }
            .sorted { $0.path < $1.path }.map { Case(group: group, url: $0) }
    }

    /// Runs `c` with the runner of its group (off Swift concurrency's pool), recording what
    /// differs.
    static func check(_ c: Case) async throws {
        let failure: String? = try await offThePool {
            do {
                try runners[c.group]!(c.load())
                return nil
            } catch {
                return "\(error)"
            }
        }
        if let failure {
            Issue.record("conformance/\(c.testDescription):\n    \(failure.replacingOccurrences(of: "\n", with: "\n    "))")
        }
    }

    static let runners: [String: @Sendable (JSON) throws -> Void] = [
        "encode": runEncode, "decode": runDecode, "reject": runReject,
        "bounds": runBounds, "writer": runWriter, "stream": runStream, "hostile": runHostile,
        "supervise": runSupervise,
    ]
}

@Suite struct ConformanceCases {
    @Test(arguments: Conformance.cases("encode")) func encode(_ c: Case) async throws { try await Conformance.check(c) }
    @Test(arguments: Conformance.cases("decode")) func decode(_ c: Case) async throws { try await Conformance.check(c) }
    @Test(arguments: Conformance.cases("reject")) func reject(_ c: Case) async throws { try await Conformance.check(c) }
    @Test(arguments: Conformance.cases("bounds")) func bounds(_ c: Case) async throws { try await Conformance.check(c) }
    @Test(arguments: Conformance.cases("writer")) func writer(_ c: Case) async throws { try await Conformance.check(c) }
    @Test(arguments: Conformance.cases("stream")) func stream(_ c: Case) async throws { try await Conformance.check(c) }
    @Test(arguments: Conformance.cases("hostile")) func hostile(_ c: Case) async throws { try await Conformance.check(c) }
    @Test(arguments: Conformance.cases("supervise")) func supervise(_ c: Case) async throws { try await Conformance.check(c) }

    @Test(arguments: Conformance.groups) func folderHoldsCases(_ group: String) {
        #expect(!Conformance.cases(group).isEmpty, "conformance/\(group)/ holds no case: an empty folder proves nothing")
    }

    /// conformance/ holds the README and the folders of `groups`; a folder holds only cases and notes
    /// (a case with a mistyped extension would never run).
    @Test func layoutHasNoStrayFiles() throws {
        let files = FileManager.default
        for name in try files.contentsOfDirectory(atPath: Conformance.root.path) {
            #expect(Conformance.groups.contains(name) || name == "README.md", "conformance/\(name): no runner reads it")
        }
        for group in Conformance.groups {
            let walk = files.enumerator(atPath: Conformance.root.appendingPathComponent(group).path)
            while let path = walk?.nextObject() as? String {
                var isFolder: ObjCBool = false
                let full = Conformance.root.appendingPathComponent(group).appendingPathComponent(path).path
                guard files.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue else { continue }
                #expect(path.hasSuffix(".json") || path.hasSuffix(".md"), "conformance/\(group)/\(path) never runs")
            }
        }
    }
}

// MARK: - encode/, decode/, reject/

/// Decodes `line`, failing the case when the library cannot.
func parse(_ line: String, _ what: String) throws -> Frame {
    do {
        return try parseLine(line)
    } catch let error as HepError {
        throw CaseError("the library cannot decode \(what): \(error)")
    }
}

/// The frame's encoding, failing the case when the library cannot encode it.
func encoded(_ frame: Frame) throws -> String {
    do {
        return try encode(frame)
    } catch let error as HepError {
        throw CaseError("the library cannot encode \(frame): \(error)")
    }
}

/// The canonical form of a frame: the JSON object of the library's own encoding.
func canonical(_ frame: Frame) throws -> JSON {
    try JSON.parse(Data(encoded(frame).utf8))
}

/// `frame` serialized by Foundation (decoded, encoded) must give `line` byte for byte, and
/// `line` must decode to the same frame. Foundation does not keep key order, which only an
/// unknown frame type would need (its encoding is its line verbatim).
@Sendable func runEncode(_ c: JSON) throws {
    let serialized = try get(c, "frame").text
    let line = try getString(c, "line")
    let frame = try parse(serialized, "`frame` \(serialized)")
    try sameText("the encoding of `frame`", line, encoded(frame))
    let back = try parse(line, "`line`")
    guard back == frame else { throw CaseError("`line` decodes to another frame than `frame`\n  frame: \(frame)\n  line:  \(back)") }
}

/// `line` must decode to `frame` (canonical form) and, when given, encode to `encoded`.
@Sendable func runDecode(_ c: JSON) throws {
    let frame: Frame
    do {
        frame = try parseLine(getBytes(c, "line"))
    } catch let error as HepError {
        throw CaseError("must decode, but is rejected: \(error)")
    }
    try sameJSON("the decoded frame", get(c, "frame"), canonical(frame))
    if has(c, "encoded") {
        try sameText("the encoding of the decoded frame", getString(c, "encoded"), encoded(frame))
    }
}

let errorKinds: Set = [
    "syntax", "invalid_utf8", "trailing_characters", "not_an_object", "missing_field", "duplicate_field",
    "wrong_type", "out_of_range", "too_deep",
]

/// `line` must be rejected with `error.kind` (and `error.column` when given).
@Sendable func runReject(_ c: JSON) throws {
    let line = try getBytes(c, "line")
    let error = try get(c, "error")
    let kind = try getString(error, "kind")
    guard errorKinds.contains(kind) else { throw CaseError("`error.kind` `\(kind)` is no ErrorKind name") }
    let thrown: HepError
    do {
        let frame = try parseLine(line)
        throw CaseError("must be rejected with `\(kind)`, but decodes to \(show(try canonical(frame)))")
    } catch let error as HepError {
        thrown = error
    }
    guard thrown.kind == kind else { throw CaseError("rejected with kind `\(thrown.kind)` instead of `\(kind)`: \(thrown)") }
    if has(error, "column") {
        let column = try getUInt(error, "column")
        guard thrown.column == column else { throw CaseError("rejected at column \(thrown.column) instead of \(column): \(thrown)") }
    }
}

// MARK: - bounds/

@Sendable func runBounds(_ c: JSON) throws {
    let op = try getString(c, "op")
    let got: String
    switch op {
    case "utf16_len":
        let want = try getUInt(c, "expected")
        let length = utf16Length(try getText(c, "text"))
        guard length == want else { throw CaseError("utf16_len is \(length) instead of \(want)") }
        return
    case "cap":
        got = cap(try getText(c, "text"), limit: Int(try getUInt(c, "limit")))
    case "args_summary", "args_full":
        do {
            got = try renderArgs(getText(c, "args"), mode: op == "args_full" ? .full : .summary)
        } catch let error as HepError {
            throw CaseError("`\(op)` fails: \(error)")
        }
    default:
        throw CaseError("unknown op `\(op)`")
    }
    try sameText("`\(op)`", getText(c, "expected"), got)
}

// MARK: - writer/

@Sendable func runWriter(_ c: JSON) throws {
    let mode: ArgsMode
    switch has(c, "args_mode") ? try getString(c, "args_mode") : "summary" {
    case "summary": mode = .summary
    case "full": mode = .full
    default: throw CaseError("`args_mode` must be \"summary\" or \"full\"")
    }
    var written: [String] = []
    let writer = Writer(fah: try getString(c, "fah"), toolArgs: mode) { written.append($0) }
    var lines: [String] = []
    for (index, call) in try getList(c, "calls").enumerated() {
        let name = try getString(call, "call")
        let before = written.count
        let returned: String?
        do {
            returned = try apply(writer, name, call)
        } catch let error as CaseError {
            throw CaseError("calls[\(index)] `\(name)`: \(error)")
        } catch {
            throw CaseError("calls[\(index)] `\(name)`: the writer fails: \(error)")
        }
        let new = Array(written[before...])
        guard new == (returned.map { [$0 + "\n"] } ?? []) else {
            throw CaseError("calls[\(index)] `\(name)` returned \(String(describing: returned)) but wrote \(new)")
        }
        if let returned { lines.append(returned) }
    }
    let expected = try getList(c, "lines").map { line in
        guard case .string(let string) = line else { throw CaseError("`lines` must hold strings") }
        return string
    }
    for (index, (want, got)) in zip(expected, lines).enumerated() {
        try sameText("line \(index + 1)", want, got)
    }
    guard expected.count == lines.count else {
        throw CaseError("the calls emit \(lines.count) lines instead of \(expected.count); extra: \(lines.dropFirst(expected.count))")
    }
    if has(c, "turn_id") {
        let want = try getUInt(c, "turn_id")
        guard writer.turnId == want else { throw CaseError("current turn id is \(writer.turnId) instead of \(want)") }
    }
}

/// Makes one call through `Writer`, returning the line it says it wrote.
func apply(_ w: Writer, _ name: String, _ call: JSON) throws -> String? {
    switch name {
    case "header": return try w.header(session: getString(call, "session"))
    case "agent_start": return try w.agentStart()
    case "turn_start":
        w.turnStart()
        return nil
    case "cancelled": return try w.cancelled()
    case "compaction_start": return try w.compactionStart()
    case "message_start": return try w.messageStart(role: getString(call, "role"))
    case "message_delta": return try w.messageDelta(getText(call, "delta"))
    case "tool_start": return try w.toolStart(id: getString(call, "id"), name: getString(call, "name"), args: getText(call, "args"))
    case "tool_delta": return try w.toolDelta(id: getString(call, "id"), update: getText(call, "update"))
    case "liveness":
        let actionName = try getString(call, "action")
        guard let action = LivenessAction(name: actionName) else { throw CaseError("`action` `\(actionName)` is no v1 action") }
        return try w.toolLiveness(
            id: getString(call, "id"), name: getString(call, "name"), action: action,
            elapsedMs: getUInt(call, "elapsed_ms"), outputBytes: optional(call, "output_bytes", getUInt),
            detail: optional(call, "detail", getString))
    case "turn_done":
        let results = try getList(call, "tool_results").map { r in
            try ToolResult(id: getString(r, "id"), name: getString(r, "name"), ok: getBool(r, "ok"), text: getText(r, "text"))
        }
        let u = try get(call, "usage")
        let usage = try Usage(input: getUInt(u, "input"), output: getUInt(u, "output"), cost: getNumber(u, "cost"))
        return try w.turnDone(
            message: getText(call, "message"), toolResults: results, usage: usage, stopReason: getString(call, "stop_reason"))
    case "turn_error": return try w.turnError(getString(call, "error"), fatal: getBool(call, "fatal"))
    case "compaction_end": return try w.compactionEnd(tokensFreed: getUInt(call, "tokens_freed"))
    default: throw CaseError("unknown call `\(name)`")
    }
}

// MARK: - the runner itself: it must fail on what it cannot check

@Suite struct ConformanceRunner {
    /// The first case of `group`, changed by `mutate`.
    static func mutated(_ group: String, _ mutate: (inout [String: JSON]) -> Void) throws -> JSON {
        guard case .object(var object) = try Conformance.cases(group)[0].load() else { throw CaseError("not an object") }
        mutate(&object)
        return .object(object)
    }

    static func complaint(_ group: String, _ c: JSON) -> String? {
        do {
            try Conformance.runners[group]!(c)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func rejectsWhatItCannotCheck() throws {
        let cases: [(String, (inout [String: JSON]) -> Void, String)] = [
            ("bounds", { $0["op"] = .string("cap_everything") }, "unknown op `cap_everything`"),
            ("writer", { if case .array(let calls) = $0["calls"] { $0["calls"] = .array(calls + [.object(["call": .string("tool_finish")])]) } },
             "unknown call `tool_finish`"),
            ("stream", { if case .object(var e) = $0["expect"] { e["exit_status"] = .int(0); $0["expect"] = .object(e) } },
             "unknown `expect` key `exit_status`"),
            ("stream", { $0["options"] = .object(["strictly": .bool(true)]) }, "unknown option `strictly`"),
            ("stream", { $0["expect"] = .object([:]) }, "`expect` checks nothing"),
            ("stream", { if case .object(var e) = $0["expect"] { e["verdict"] = .string("nonsense"); $0["expect"] = .object(e) } },
             "`verdict`: expected \"nonsense\""),
            ("reject", { if case .object(var e) = $0["error"] { e["kind"] = .string("bogus"); $0["error"] = .object(e) } },
             "`error.kind` `bogus` is no ErrorKind name"),
            ("decode", { if case .object(var f) = $0["frame"] { f["extra"] = .int(1); $0["frame"] = .object(f) } },
             "$.extra: expected 1, got nothing"),
            ("encode", { if case .string(let l) = $0["line"] { $0["line"] = .string(l + " ") } }, "the encoding of `frame` differs"),
            ("writer", { if case .array(let l) = $0["lines"] { $0["lines"] = .array(l + [.string("{}")]) } }, "lines instead of"),
            ("writer", { $0["fah"] = nil }, "missing field `fah`"),
            ("writer", { $0["fah"] = .string("9.9.9") }, "line 1"),
            ("stream", { if case .object(var e) = $0["expect"] { e["reasons"] = .array([.string("nonsense")]); $0["expect"] = .object(e) } },
             "expected \"nonsense\""),
        ]
        for (group, mutate, complaint) in cases {
            let said = Self.complaint(group, try Self.mutated(group, mutate))
            #expect(said?.contains(complaint) == true, "\(group): expected a complaint with \(complaint), got \(said ?? "none")")
        }
    }

    /// A supervise/ case fails on any key its format does not define, wherever it is, and
    /// on a step that does not do exactly one thing (the Rust runner's complaints).
    @Test func superviseRunnerRejectsWhatItCannotCheck() throws {
        func onFirstStep(_ key: String, _ value: JSON) -> (inout [String: JSON]) -> Void {
            { c in
                if case .array(var steps) = c["steps"], case .object(var step) = steps[0] {
                    step[key] = value
                    steps[0] = .object(step)
                    c["steps"] = .array(steps)
                }
            }
        }
        func firstStepIs(_ step: [String: JSON]) -> (inout [String: JSON]) -> Void {
            { c in
                if case .array(var steps) = c["steps"] {
                    steps[0] = .object(step)
                    c["steps"] = .array(steps)
                }
            }
        }
        let cases: [((inout [String: JSON]) -> Void, String)] = [
            ({ $0["notes"] = .string("x") }, "unknown key `notes` in the case"),
            ({ $0["options"] = .object(["timeout": .int(5)]) }, "unknown key `timeout` in `options`"),
            (onFirstStep("stdin", .string("x")), "unknown key `stdin` in steps[0]"),
            (onFirstStep("cancel", .string("user")), "a step does exactly one thing; this one does 2"),
            (onFirstStep("grace_ms", .int(5)), "`grace_ms` belongs to a `cancel` step"),
            (firstStepIs(["at": .int(0), "consumer": .string("lazy")]), "`consumer` must be attached or detached, not `lazy`"),
            (firstStepIs(["at": .int(0), "exit": .string("gone")]), "`exit` must be an object"),
            ({ if case .object(var e) = $0["expect"] { e["exit_status"] = .int(0); $0["expect"] = .object(e) } },
             "unknown key `exit_status` in `expect`"),
            ({ if case .object(var e) = $0["expect"], case .object(var r) = e["result"] {
                r["killed"] = .bool(false)
                e["result"] = .object(r)
                $0["expect"] = .object(e)
            } }, "unknown key `killed` in `expect.result`"),
            ({ $0["consume"] = .string("lazy") }, "`consume` must be"),
            ({ if case .object(var e) = $0["expect"] { e["finished_at"] = .int(1); $0["expect"] = .object(e) } },
             "finished_at: expected 1"),
        ]
        for (mutate, complaint) in cases {
            let said = Self.complaint("supervise", try Self.mutated("supervise", mutate))
            #expect(said?.contains(complaint) == true, "expected a complaint with \(complaint), got \(said ?? "none")")
        }
        #expect(Self.complaint("supervise", try Self.mutated("supervise") { _ in }) == nil, "unchanged, it passes")
    }

    /// The hostile case `name`, with the object at `path` (keys, or indexes of arrays) given
    /// `key` = `value`, or without `key` when `value` is nil (an array's item, by index).
    static func hostile(_ name: String, at path: [String], _ key: String, _ value: JSON?) throws -> JSON {
        func change(_ node: inout JSON, _ path: ArraySlice<String>) {
            switch (node, path.first) {
            case (.object(var object), let step?):
                guard var child = object[step] else { return }
                change(&child, path.dropFirst())
                object[step] = child
                node = .object(object)
            case (.array(var array), let step?):
                guard let index = Int(step), array.indices.contains(index) else { return }
                change(&array[index], path.dropFirst())
                node = .array(array)
            case (.object(var object), nil):
                object[key] = value
                node = .object(object)
            case (.array(var array), nil):
                if value == nil, let index = Int(key), array.indices.contains(index) { array.remove(at: index) }
                node = .array(array)
            default:
                return
            }
        }
        var c = try Case(group: "hostile", url: Conformance.root.appendingPathComponent("hostile/\(name).json")).load()
        change(&c, path[...])
        return c
    }

    /// The mutations of hep-core/tests/conformance.rs (`hostile_runner_refuses_what_it_cannot_check`)
    /// and of the Python and Node runners, with the same complaints.
    @Test func hostileRunnerRefusesWhatItCannotCheck() throws {
        let mutations: [(String, [String], String, JSON?, String)] = [
            ("turn-id-2-pow-53", [], "form", .string("table"), "unknown hostile case `form` `table`"),
            ("turn-id-2-pow-53", [], "outcome", .string("maybe"), "unknown `outcome` `maybe`"),
            ("turn-id-2-pow-53", ["allowed", "0"], "outcome", .string("ignore"), "unknown allowed `outcome` `ignore`"),
            ("turn-id-2-pow-53", ["allowed", "1"], "note", .string("x"), "unknown key `note` in an allowed outcome"),
            ("turn-id-2-pow-53", [], "chosen", .int(1), "is allowed[0], not the chosen allowed[1]"),
            ("turn-id-2-pow-53", [], "chosen", .int(5), "`chosen` 5 is no index of `allowed`"),
            ("turn-id-2-pow-53", [], "allowed", .array([]), "`allowed` lists no outcome"),
            ("turn-id-2-pow-53", [], "why", nil, "needs a non-empty string `why`"),
            ("turn-id-2-pow-53", ["allowed"], "0", nil, "none of the allowed ones"),
            ("turn-id-fraction", [], "frame", .object([:]), "key `frame` does not belong"),
            ("turn-id-fraction", [], "input", .string("x"), "key `input` does not belong"),
            ("turn-id-fraction", [], "topic", nil, "missing field `topic`"),
            ("empty-line", [], "line", .string("{}\n{}"), "cannot hold `\\n`"),
            ("empty-line", [], "line", .string("{}\r"), "cannot end in `\\r`"),
            ("crlf-line-ends", ["expect"], "violations", nil, "must pin `violations`"),
            ("crlf-line-ends", [], "outcome", .string("reject"), "must not conform"),
            ("crlf-line-ends", [], "error", .object(["kind": .string("syntax")]), "key `error` does not belong"),
            ("bom-before-the-header", ["allowed", "1"], "exit_status", .int(0), "unknown `expect` key `exit_status`"),
            ("turn-id-2-pow-53", [], "topic", .string(" "), "`topic` must not be empty"),
        ]
        for (name, path, key, value, complaint) in mutations {
            let said = Self.complaint("hostile", try Self.hostile(name, at: path, key, value))
            #expect(said?.contains(complaint) == true, "\(name): expected a complaint with \(complaint), got \(said ?? "none")")
        }
        // Unchanged, each passes: the complaints come from the mutations.
        for name in Set(mutations.map(\.0)) {
            #expect(Self.complaint("hostile", try Self.hostile(name, at: [], "", nil)) == nil, "\(name)")
        }
    }

    /// A line that halts a stream (a refused protocol version) is checked as a one-line
    /// stream by the frames before the halt: the header, as decoding gives it.
    @Test func hostileRunnerReadsALineThatHaltsTheStream() throws {
        let header = #"{"type":"hep_header","hep":"v2","fah":"1.2.3","session":"s-1"}"#
        let c = JSON.object([
            "description": .string("a v2 header decodes; as a stream it halts after the header"),
            "topic": .string("versions"), "form": .string("line"), "outcome": .string("accept"), "line": .string(header),
            "frame": .object(["type": .string("hep_header"), "hep": .string("v2"), "fah": .string("1.2.3"), "session": .string("s-1")]),
        ])
        let stream = HepStream()
        #expect(throws: HepError.self) { try stream.feed(header + "\n") }
        #expect(stream.halted?.kind == "unsupported_version")
        #expect(Self.complaint("hostile", c) == nil)
    }

    /// The folders' enumeration goes into subfolders: every case of stream/reference/ and
    /// stream/limits/ runs, named by its path.
    @Test func casesInSubfoldersRunToo() throws {
        let stream = Set(Conformance.cases("stream").map(\.testDescription))
        for sub in ["reference", "limits"] {
            let folder = Conformance.root.appendingPathComponent("stream/\(sub)")
            let own = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            #expect(!own.isEmpty, "conformance/stream/\(sub)/ holds no case")
            for file in own {
                #expect(stream.contains("stream/\(sub)/\(file)"), "stream/\(sub)/\(file) is not run")
            }
        }
    }

    /// Unknown keys of a case are notes: the `reference` of a writer or stream case, and any
    /// other, change nothing.
    @Test func unknownKeysOfACaseAreNotes() throws {
        let noted = [
            ("writer", "tool-args-unserializable-summary.json"), ("writer", "message-start-non-assistant-opens-no-turn.json"),
            ("stream", "reference/signal-between-rounds.json"), ("bounds", "args-full-unserializable.json"),
        ]
        for (group, name) in noted {
            let file = Conformance.root.appendingPathComponent("\(group)/\(name)")
            guard case .object(var c) = try Case(group: group, url: file).load() else { throw CaseError("not an object") }
            if c["reference"] == nil { c["reference"] = .string("a note") }
            c["see_also"] = .array([.string("another note")])
            #expect(Self.complaint(group, .object(c)) == nil, "\(group)/\(name)")
        }
    }

    @Test func jsonEqualityIsStrictAboutTypes() {
        #expect(firstDifference("$", .object(["a": .int(0)]), .object(["a": .double(0.0)])) == nil)
        #expect(firstDifference("$", .object(["a": .int(1)]), .object(["a": .bool(true)])) != nil)
        #expect(firstDifference("$", .object(["a": .null]), .object(["a": .int(0)])) != nil)
        #expect(firstDifference("$", .array([.int(1), .int(2)]), .array([.int(1)])) != nil)
        #expect(firstDifference("$", .object(["a": .int(1)]), .object(["a": .int(1), "b": .int(2)])) != nil)
        #expect(firstDifference("$", .string("x"), .string("x")) == nil)
    }
}
