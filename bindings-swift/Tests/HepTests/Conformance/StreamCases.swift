// The `stream/` cases: whole streams fed three ways to `HepStream`, checked against `expect`.

import Foundation
import Hep

let expectKeys: Set = [
    "frames", "violations", "skipped", "halted", "verdict", "reasons", "conforms", "answer", "usage", "turns",
    "violation_count", "skipped_count", "untracked_calls", "turns_dropped",
]

@Sendable func runStream(_ c: JSON) throws {
    try checkExpect(get(c, "expect"), observe(c))
}

/// Reads a stream case's input, options and exit code, feeds the input whole, one byte at a
/// time and in 7-byte chunks (the outcomes must agree), and returns the outcome.
func observe(_ c: JSON) throws -> [String: JSON] {
    let data = try streamInput(c)
    let options = try streamOptions(c)
    let exitCode = try streamExitCode(c)
    let whole = try outcome([data], options, exitCode: exitCode)
    for (how, size) in [("one byte at a time", 1), ("in 7-byte chunks", 7)] {
        let other = try outcome(chunks(data, size: size), options, exitCode: exitCode)
        try sameJSON("fed \(how), the outcome (vs. fed whole)", .object(whole), .object(other))
    }
    return whole
}

/// `exit_code`: an integer, or null (unknown) when absent.
func streamExitCode(_ c: JSON) throws -> Int32? {
    switch has(c, "exit_code") ? try get(c, "exit_code") : .null {
    case .null: return nil
    case .int(let code) where Int32(exactly: code) != nil: return Int32(code)
    default: throw CaseError("`exit_code` must be an integer or null")
    }
}

/// `data` in pieces of `size` bytes (the last one shorter).
func chunks(_ data: Data, size: Int) -> [Data] {
    stride(from: 0, to: data.count, by: max(size, 1)).map { data.subdata(in: $0..<min($0 + max(size, 1), data.count)) }
}

/// Checks every key of `expect` against the outcome `whole`.
func checkExpect(_ expect: JSON, _ whole: [String: JSON]) throws {
    guard case .object(let expect) = expect else { throw CaseError("`expect` must be an object") }
    guard !expect.isEmpty else { throw CaseError("`expect` checks nothing") }
    var failures: [String] = []
    for (key, want) in expect.sorted(by: { $0.key < $1.key }) {
        do {
            guard expectKeys.contains(key), let got = whole[key] else { throw CaseError("unknown `expect` key `\(key)`") }
            if key == "reasons" {
                // The verdict's reasons, exactly and in order: strings, not entries.
                try sameJSON("`reasons`", want, got)
            } else if case .array(let wanted) = want, case .array(let gotten) = got {
                try entries(key, wanted, gotten)
            } else {
                try sameJSON("`\(key)`", want, got)
            }
        } catch {
            failures.append("\(error)")
        }
    }
    guard failures.isEmpty else { throw CaseError(failures.joined(separator: "\n")) }
}

/// `input_lines` (each followed by `\n`), or `input` / `input_base64` as given.
func streamInput(_ c: JSON) throws -> Data {
    guard has(c, "input_lines") else { return try getBytes(c, "input") }
    guard !has(c, "input"), !has(c, "input_base64") else {
        throw CaseError("give `input_lines` or `input`/`input_base64`, not both")
    }
    var data = Data()
    for line in try getList(c, "input_lines") {
        data.append(contentsOf: try text(line).utf8)
        data.append(0x0A)
    }
    return data
}

/// How a stream is read: strict or lenient, the longest accepted line, and its limits.
struct ReadOptions: Sendable {
    var strict = false
    var maxLine: UInt64 = 16 << 20
    var limits = Limits()
}

/// `options.limits` as `Limits`: an unknown limit or a value that is no count fails the case.
func streamLimits(_ given: JSON) throws -> Limits {
    guard case .object(let given) = given else { throw CaseError("`options.limits` must be an object") }
    // The keys (the core's names) and the fields of `Limits` they set.
    let fields: [String: WritableKeyPath<Limits, UInt64>] = [
        "max_turns": \.maxTurns, "max_text_bytes": \.maxTextBytes, "max_tool_output_bytes": \.maxToolOutputBytes,
        "max_tools_per_turn": \.maxToolsPerTurn, "max_followups": \.maxFollowups, "max_reports": \.maxReports,
        "max_retained_bytes": \.maxRetainedBytes, "max_tracked_calls": \.maxTrackedCalls,
        "max_compactions_per_turn": \.maxCompactionsPerTurn,
    ]
    var limits = Limits()
    for (key, value) in given {
        guard let field = fields[key] else { throw CaseError("unknown limit `options.limits.\(key)`") }
        guard case .int(let max) = value, let count = UInt64(exactly: max) else {
            throw CaseError("`options.limits.\(key)` must be a non-negative integer")
        }
        limits[keyPath: field] = count
    }
    return limits
}

func streamOptions(_ c: JSON) throws -> ReadOptions {
    var read = ReadOptions()
    guard has(c, "options") else { return read }
    guard case .object(let options) = try get(c, "options") else { throw CaseError("`options` must be an object") }
    for (key, value) in options {
        switch (key, value) {
        case ("strict", .bool(let flag)): read.strict = flag
        case ("strict", _): throw CaseError("`options.strict` must be a boolean")
        case ("max_line_length", .int(let max)) where max >= 0: read.maxLine = UInt64(max)
        case ("max_line_length", _): throw CaseError("`options.max_line_length` must be an integer")
        case ("limits", _): read.limits = try streamLimits(value)
        default: throw CaseError("unknown option `\(key)`")
        }
    }
    return read
}

/// Each listed entry must match the actual one key by key (`tools` entries likewise); the
/// lists must be equally long.
func entries(_ path: String, _ want: [JSON], _ got: [JSON]) throws {
    for (index, (w, g)) in zip(want, got).enumerated() {
        let at = "\(path)[\(index)]"
        guard case .object(let wanted) = w else { throw CaseError("`\(at)` must be an object") }
        guard case .object(let gotten) = g else { throw CaseError("`\(at)` is not an object: \(show(g))") }
        for (key, value) in wanted.sorted(by: { $0.key < $1.key }) {
            guard let actual = gotten[key] else { throw CaseError("`\(at).\(key)` is no key a runner knows") }
            if key == "tools", case .array(let tools) = value, case .array(let actualTools) = actual {
                try entries("\(at).tools", tools, actualTools)
            } else {
                try sameJSON("`\(at).\(key)`", value, actual)
            }
        }
    }
    guard want.count == got.count else {
        throw CaseError("`\(path)` has \(got.count) entries instead of \(want.count): \(show(.array(got)))")
    }
}

/// Everything a case can check, as JSON, after feeding `chunks` to a fresh `HepStream`,
/// ending its input and finishing it with `exitCode`.
func outcome(_ chunks: [Data], _ options: ReadOptions, exitCode: Int32?) throws -> [String: JSON] {
    let stream = HepStream(strict: options.strict, maxLineBytes: options.maxLine, limits: options.limits)
    var frames: [JSON] = []
    var raised: [HepError] = []
    func take(_ got: [Received]) throws {
        for received in got {
            let form: JSON
            do {
                form = try canonical(received.frame)
            } catch {
                form = .string("<no canonical form: \(error)>")
            }
            // `raw` is the frame's original line: it decodes to the same frame.
            guard (try? parseLine(received.raw)) == received.frame else {
                throw CaseError("line \(received.line): `raw` \(received.raw.debugDescription) is not the frame's line")
            }
            frames.append(.object([
                "line": .of(received.line), "type": .string(received.frame.type), "frame": form, "raw": .string(received.raw),
            ]))
        }
    }
    for chunk in chunks {
        do {
            try take(try stream.feedReceived(chunk))
        } catch let error as HepError {
            // A halt (strict mode, or an unsupported version in any mode) is thrown, with the
            // frames before it in that chunk kept by the stream.
            raised.append(error)
            try take(stream.receivedBeforeHalt)
        }
    }
    do {
        let tail = try stream.endInput()
        guard tail.isEmpty else { throw CaseError("ending the input gave frames: \(tail)") }
    } catch let error as HepError {
        raised.append(error)  // strict mode: a truncated last line halts
    }
    let result = stream.finish(exitCode: exitCode)
    let halted = JSON.of(result.halted) { .object(["kind": .string($0.kind), "line": .of($0.line)]) }
    if let error = raised.first {
        guard raised.count == 1 else { throw CaseError("feeding threw \(raised.count) errors; a stream halts once: \(raised)") }
        guard halted == .object(["kind": .string(error.kind), "line": .of(error.line)]) else {
            throw CaseError("feeding threw \(error) but the result's halt is \(show(halted))")
        }
    }
    let skipped = result.skipped.map { JSON.object(["line": .of($0.line), "kind": .string($0.kind)]) }
    try sameJSON("`skipped` of the stream (vs. the result's)", .array(skipped),
                 .array(stream.skipped.map { .object(["line": .of($0.line), "kind": .string($0.kind)]) }))
    guard stream.violations == result.violations else {
        throw CaseError("`violations` of the stream differ from the result's: \(stream.violations) vs \(result.violations)")
    }
    return [
        "frames": .array(frames),
        "violations": .array(result.violations.map { v in
            .object([
                "code": .string(v.code), "severity": .string(v.severity == .error ? "error" : "warning"),
                "line": .of(v.line), "turn_id": .of(v.turnId, JSON.of),
            ])
        }),
        "skipped": .array(skipped),
        "halted": halted,
        "verdict": .string(result.verdict.name),
        "reasons": .array(result.reasons.map(JSON.string)),
        "conforms": .bool(result.conforms),
        "answer": .of(result.answer, JSON.string),
        "usage": usage(result.usage),
        "turns": .array(result.turns.map(turn)),
        "violation_count": .of(result.violationCount),
        "skipped_count": .of(result.skippedCount),
        "untracked_calls": .of(result.untrackedCalls),
        "turns_dropped": .of(result.turnsDropped),
    ]
}

func usage(_ u: Usage) -> JSON {
    .object(["input": .of(u.input), "output": .of(u.output), "cost": .double(u.cost)])
}

func turn(_ t: Turn) -> JSON {
    let end = JSON.of(t.end) { end in
        switch end {
        case .done: .string("turn_done")
        case .error: .string("turn_error")
        case .cancelled: .string("cancelled")
        }
    }
    return .object([
        "turn_id": .of(t.turnId),
        "text": .string(t.text),
        "text_dropped": .of(t.textDropped),
        "end": end,
        "message": .of(t.message, JSON.string),
        "error": .of(t.error, JSON.string),
        "stop_reason": .of(t.stopReason, JSON.string),
        "usage": .of(t.usage, usage),
        "compactions": .array(t.compactions.map(JSON.of)),
        "compactions_dropped": .of(t.compactionsDropped),
        "bytes_dropped": .of(t.bytesDropped),
        "tools": .array(t.tools.map(tool)),
        "tools_dropped": .of(t.toolsDropped),
    ])
}

func tool(_ c: ToolCall) -> JSON {
    let status: String
    switch c.status {
    case .running: status = "running"
    case .ok: status = "ok"
    case .failed: status = "failed"
    }
    return .object([
        "id": .string(c.id),
        "name": .string(c.name),
        "args_summary": .string(c.argsSummary),
        "status": .string(status),
        "output": .string(c.output),
        "output_dropped": .of(c.outputDropped),
        "result": .of(c.result, JSON.string),
        "followups": .array(c.followups.map { .string($0.action.name) }),
        "followups_dropped": .of(c.followupsDropped),
    ])
}
