// `hostile/`: the hostile-input catalog, with the semantics of the Rust runner
// (hep-core/tests/conformance/hostile.rs). A case is a `line` or a `stream` that must be
// accepted, must be rejected, or is implementation-defined (a list of allowed outcomes, and
// the one this library gives). Anything the runner does not know is an error, never a pass.

import Foundation
import Hep

/// Every error kind's name (`HepError.kind`).
let allErrorKinds: Set = errorKinds.union([
    "line_too_long", "truncated", "unsupported_version", "violation", "unencodable", "io",
])

/// The keys a stream case's `expect` (and each allowed stream outcome) must hold at least.
let streamMustPin = ["frames", "violations", "skipped", "verdict"]

@Sendable func runHostile(_ c: JSON) throws {
    guard !(try getString(c, "topic")).trimmingCharacters(in: .whitespaces).isEmpty else {
        throw CaseError("`topic` must not be empty")
    }
    let form = try getString(c, "form")
    let outcome = try getString(c, "outcome")
    guard ["accept", "reject", "implementation_defined"].contains(outcome) else {
        throw CaseError("unknown `outcome` `\(outcome)` (accept, reject or implementation_defined)")
    }
    try refuseKeysOfOtherKinds(c, form: form, outcome: outcome)
    switch form {
    case "line": try lineCase(c, outcome)
    case "stream": try streamCase(c, outcome)
    default: throw CaseError("unknown hostile case `form` `\(form)` (line or stream)")
    }
}

/// A key that belongs to another form or outcome means the case is not what it seems.
func refuseKeysOfOtherKinds(_ c: JSON, form: String, outcome: String) throws {
    let lineKeys = ["line", "line_base64", "frame", "encoded", "error"]
    let streamKeys = ["input", "input_base64", "input_lines", "options", "exit_code", "expect"]
    var foreign = form == "line" ? streamKeys : form == "stream" ? lineKeys : []
    foreign += outcome == "implementation_defined" ? ["frame", "encoded", "error", "expect"] : ["allowed", "chosen"]
    switch (form, outcome) {
    case ("line", "accept"): foreign.append("error")
    case ("line", "reject"): foreign += ["frame", "encoded"]
    default: break
    }
    if outcome == "implementation_defined" {
        guard case .string(let why)? = try? get(c, "why"), !why.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw CaseError("an implementation_defined case needs a non-empty string `why`")
        }
    }
    if let key = foreign.first(where: { has(c, $0) }) {
        throw CaseError("key `\(key)` does not belong to a `\(form)` case with outcome `\(outcome)`")
    }
}

// MARK: - line cases

/// What decoding one line gave.
enum Decoded {
    case frame(Frame)
    case rejected(HepError)
}

func lineCase(_ c: JSON, _ outcome: String) throws {
    let line = try getBytes(c, "line")
    guard !line.contains(0x0A) else {
        throw CaseError("a line case cannot hold `\\n` (a line ends there): make it a stream case")
    }
    guard line.last != 0x0D else {
        throw CaseError("a line case cannot end in `\\r` (a line end to some helpers): make it a stream case")
    }
    let got: Decoded
    do {
        got = .frame(try parseLine(line))
    } catch let error as HepError {
        got = .rejected(error)
    }
    try asOneLineStream(line, got)
    if outcome == "implementation_defined" {
        let allowed = try getList(c, "allowed")
        for (index, alternative) in allowed.enumerated() {
            do {
                try lineAlternative(alternative)
            } catch {
                throw CaseError("`allowed[\(index)]`: \(error)")
            }
        }
        try chosen(c, allowed.map { alternative in Result { try lineMatches(alternative, got) } }) { describe(got) }
    } else {
        try lineMatches(c, got)
    }
}

/// An allowed line outcome is `{"outcome": "accept", "frame"?, "encoded"?}` (at least one of
/// the two) or `{"outcome": "reject", "error"}`.
func lineAlternative(_ alternative: JSON) throws {
    let keys: Set<String>
    switch try getString(alternative, "outcome") {
    case "accept" where !has(alternative, "frame") && !has(alternative, "encoded"):
        throw CaseError("an allowed `accept` needs `frame` or `encoded`")
    case "accept": keys = ["outcome", "frame", "encoded"]
    case "reject": keys = ["outcome", "error"]
    case let other: throw CaseError("unknown allowed `outcome` `\(other)` (accept or reject)")
    }
    guard case .object(let object) = alternative else { throw CaseError("an allowed outcome must be an object") }
    if let key = object.keys.sorted().first(where: { !keys.contains($0) }) {
        throw CaseError("unknown key `\(key)` in an allowed outcome")
    }
}

/// `want` (a case, or an allowed outcome) holds `outcome` and what it implies.
func lineMatches(_ want: JSON, _ got: Decoded) throws {
    switch (try getString(want, "outcome"), got) {
    case ("accept", .frame(let frame)):
        if has(want, "frame") {
            try sameJSON("the decoded frame", get(want, "frame"), canonical(frame))
        }
        if has(want, "encoded") {
            try sameText("the encoding of the decoded frame", getString(want, "encoded"), encoded(frame))
        }
    case ("accept", .rejected(let error)):
        throw CaseError("must decode, but is rejected: \(error)")
    case ("reject", _):
        let error = try get(want, "error")
        let kind = try getString(error, "kind")
        guard allErrorKinds.contains(kind) else { throw CaseError("`error.kind` `\(kind)` is no ErrorKind name") }
        guard case .rejected(let thrown) = got else {
            throw CaseError("must be rejected with `\(kind)`, but \(describe(got))")
        }
        guard thrown.kind == kind else { throw CaseError("rejected with kind `\(thrown.kind)` instead of `\(kind)`: \(thrown)") }
        if has(error, "column") {
            let column = try getUInt(error, "column")
            guard thrown.column == column else { throw CaseError("rejected at column \(thrown.column) instead of \(column): \(thrown)") }
        }
    case (let other, _):
        throw CaseError("unknown `outcome` `\(other)`")
    }
}

func describe(_ got: Decoded) -> String {
    switch got {
    case .frame(let frame): "accepted as \((try? canonical(frame)).map { show($0) } ?? "\(frame)")"
    case .rejected(let error): "rejected with `\(error.kind)` at column \(error.column): \(error)"
    }
}

/// The line fed as a one-line stream (`line` + `\n`) gives the same: the same frame (same
/// canonical form and encoding: an unknown frame's is its line verbatim), or line 1 skipped
/// with the same kind and nothing else.
func asOneLineStream(_ line: Data, _ got: Decoded) throws {
    let stream = HepStream()
    let frames: [Frame]
    do {
        frames = try stream.feed(line + Data([0x0A]))
    } catch is HepError {
        frames = stream.framesBeforeHalt  // a refused version halts the stream after its header
    }
    let skipped = stream.finish(exitCode: nil).skipped.map { ($0.line, $0.kind) }
    switch got {
    case .rejected(let error):
        if frames.isEmpty, skipped.count == 1, skipped[0] == (1, error.kind) { return }
    case .frame(let want):
        if skipped.isEmpty, frames.count == 1, try encoded(frames[0]) == encoded(want) {
            try sameJSON("fed as a one-line stream, the frame", canonical(want), canonical(frames[0]))
            return
        }
    }
    let shown = frames.map { (try? canonical($0)).map { show($0) } ?? "\($0)" }
    throw CaseError(
        "fed as a one-line stream, the line gives frames \(shown) and skipped \(skipped), unlike decoding it (\(describe(got)))")
}

// MARK: - stream cases

func streamCase(_ c: JSON, _ outcome: String) throws {
    let whole = try observe(c)
    if outcome == "implementation_defined" {
        let allowed = try getList(c, "allowed")
        for (index, want) in allowed.enumerated() {
            do {
                try pinsEnough(want)
            } catch {
                throw CaseError("`allowed[\(index)]`: \(error)")
            }
        }
        try chosen(c, allowed.map { want in Result { try checkExpect(want, whole) } }) { show(.object(whole)) }
        return
    }
    let expect = try get(c, "expect")
    try pinsEnough(expect)
    try checkExpect(expect, whole)
    switch (outcome, whole["conforms"]) {
    case ("accept", .bool(true)?), ("reject", .bool(false)?): return
    case ("accept", _): throw CaseError("an `accept` stream case must conform, and this one does not")
    default: throw CaseError("a `reject` stream case must not conform, and this one does")
    }
}

/// A hostile stream outcome pins at least the frames, violations, skipped lines and verdict,
/// and nothing a runner does not know.
func pinsEnough(_ expect: JSON) throws {
    guard case .object(let object) = expect else { throw CaseError("a stream outcome must be an object") }
    if let key = object.keys.sorted().first(where: { !expectKeys.contains($0) }) {
        throw CaseError("unknown `expect` key `\(key)`")
    }
    if let key = streamMustPin.first(where: { object[$0] == nil }) {
        throw CaseError("a hostile stream outcome must pin `\(key)`")
    }
}

// MARK: - implementation-defined

/// `checks[i]` says whether the outcome is `allowed[i]`; it must be `allowed[chosen]`, the
/// alternative this library takes (so that every binding gives the same).
func chosen(_ c: JSON, _ checks: [Result<Void, any Error>], _ got: () -> String) throws {
    guard !checks.isEmpty else { throw CaseError("`allowed` lists no outcome") }
    let chosen = try getUInt(c, "chosen")
    guard chosen < UInt64(checks.count) else { throw CaseError("`chosen` \(chosen) is no index of `allowed`") }
    let index = Int(chosen)
    guard case .failure(let why) = checks[index] else { return }
    if let other = checks.firstIndex(where: { if case .success = $0 { true } else { false } }) {
        throw CaseError("the outcome is allowed[\(other)], not the chosen allowed[\(index)]: the bindings would disagree\n  \(why)")
    }
    throw CaseError("the outcome is none of the allowed ones: \(got())\n  against allowed[\(index)]: \(why)")
}
