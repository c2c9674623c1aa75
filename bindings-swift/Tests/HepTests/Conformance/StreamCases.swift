// The `stream/` cases: whole streams fed three ways to `HepStream`, checked against `expect`.

import Foundation
import Hep

let expectKeys: Set = ["frames", "violations", "skipped", "halted", "verdict", "conforms", "answer", "usage", "turns"]

@Sendable func runStream(_ c: JSON) throws {
    try checkExpect(get(c, "expect"), observe(c))
}

/// Reads a stream case's input, options and exit code, feeds the input whole, one byte at a
/// time and in 7-byte chunks (the outcomes must agree), and returns the outcome.
func observe(_ c: JSON) throws -> [String: JSON] {
    let data = try streamInput(c)
    let (strict, maxLine) = try streamOptions(c)
    let exitCode: Int32?
    switch has(c, "exit_code") ? try get(c, "exit_code") : .null {
    case .null: exitCode = nil
    case .int(let code) where Int32(exactly: code) != nil: exitCode = Int32(code)
    default: throw CaseError("`exit_code` must be an integer or null")
    }
    let whole = try outcome(data, chunk: data.count, strict: strict, maxLine: maxLine, exitCode: exitCode)
    for (how, chunk) in [("one byte at a time", 1), ("in 7-byte chunks", 7)] {
        let other = try outcome(data, chunk: chunk, strict: strict, maxLine: maxLine, exitCode: exitCode)
        try sameJSON("fed \(how), the outcome (vs. fed whole)", .object(whole), .object(other))
    }
    return whole
}

/// Checks every key of `expect` against the outcome `whole`.
func checkExpect(_ expect: JSON, _ whole: [String: JSON]) throws {
    guard case .object(let expect) = expect else { throw CaseError("`expect` must be an object") }
    guard !expect.isEmpty else { throw CaseError("`expect` checks nothing") }
    var failures: [String] = []
    for (key, want) in expect.sorted(by: { $0.key < $1.key }) {
        do {
            guard expectKeys.contains(key), let got = whole[key] else { throw CaseError("unknown `expect` key `\(key)`") }
            if case .array(let wanted) = want, case .array(let gotten) = got {
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

func streamOptions(_ c: JSON) throws -> (strict: Bool, maxLine: UInt64) {
    var strict = false
    var maxLine: UInt64 = 16 << 20
    guard has(c, "options") else { return (strict, maxLine) }
    guard case .object(let options) = try get(c, "options") else { throw CaseError("`options` must be an object") }
    for (key, value) in options {
        switch (key, value) {
        case ("strict", .bool(let flag)): strict = flag
        case ("strict", _): throw CaseError("`options.strict` must be a boolean")
        case ("max_line_length", .int(let max)) where max >= 0: maxLine = UInt64(max)
        case ("max_line_length", _): throw CaseError("`options.max_line_length` must be an integer")
        default: throw CaseError("unknown option `\(key)`")
        }
    }
    return (strict, maxLine)
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

/// Everything a case can check, as JSON, after feeding `data` in `chunk`-byte pieces to a
/// fresh `HepStream` and finishing it with `exitCode`.
func outcome(_ data: Data, chunk: Int, strict: Bool, maxLine: UInt64, exitCode: Int32?) throws -> [String: JSON] {
    let stream = HepStream(strict: strict, maxLineBytes: maxLine)
    var frames: [JSON] = []
    var raised: [HepError] = []
    let step = max(chunk, 1)
    for start in stride(from: 0, to: data.count, by: step) {
        let got: [Received]
        do {
            got = try stream.feedReceived(data.subdata(in: start..<min(start + step, data.count)))
        } catch let error as HepError {
            // A halt (strict mode, or an unsupported version in any mode) is thrown, with the
            // frames before it in that chunk kept by the stream.
            raised.append(error)
            got = stream.receivedBeforeHalt
        }
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
            frames.append(.object(["line": .of(received.line), "type": .string(received.frame.type), "frame": form]))
        }
    }
    let result = stream.finish(exitCode: exitCode)
    let halted = JSON.of(result.halted) { .object(["kind": .string($0.kind), "line": .of($0.line)]) }
    if let error = raised.first {
        guard raised.count == 1 else { throw CaseError("feeding threw \(raised.count) errors; a stream halts once: \(raised)") }
        guard halted == .object(["kind": .string(error.kind), "line": .of(error.line)]) else {
            throw CaseError("feeding threw \(error) but the result's halt is \(show(halted))")
        }
    }
    return [
        "frames": .array(frames),
        "violations": .array(result.violations.map { v in
            .object([
                "code": .string(v.code), "severity": .string(v.severity == .error ? "error" : "warning"),
                "line": .of(v.line), "turn_id": .of(v.turnId, JSON.of),
            ])
        }),
        "skipped": .array(result.skipped.map { .object(["line": .of($0.line), "kind": .string($0.kind)]) }),
        "halted": halted,
        "verdict": .string(result.verdict.name),
        "conforms": .bool(result.conforms),
        "answer": .of(result.answer, JSON.string),
        "usage": usage(result.usage),
        "turns": .array(result.turns.map(turn)),
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
        "end": end,
        "message": .of(t.message, JSON.string),
        "error": .of(t.error, JSON.string),
        "stop_reason": .of(t.stopReason, JSON.string),
        "usage": .of(t.usage, usage),
        "compactions": .array(t.compactions.map(JSON.of)),
        "tools": .array(t.tools.map(tool)),
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
        "result": .of(c.result, JSON.string),
        "followups": .array(c.followups.map { .string($0.action) }),
    ])
}
