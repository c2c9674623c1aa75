// supervise/: a timeline of what a supervised child did, on a simulated clock in
// milliseconds, fed to the public `Supervisor`, and what it must order and conclude. The
// runner algorithm of conformance/README.md ("## `supervise/`"), as the Rust runner
// (hep-core/tests/conformance/supervise.rs) implements it. Any key the format does not
// define fails the case.

import Foundation
import Hep

private let superviseCaseKeys: Set = ["description", "options", "consume", "steps", "expect"]
private let superviseOptionKeys: Set = [
    "timeout_ms", "idle_timeout_ms", "interrupt_grace_ms", "terminate_grace_ms", "drain_ms", "stderr_tail_bytes",
    "max_stderr_line", "pause_at_bytes", "strict", "max_reports",
]
private let superviseStepKeys: Set = [
    "at", "stdout", "stderr", "cancel", "grace_ms", "exit", "close", "consume", "consumer",
]
private let superviseExpectKeys: Set = ["actions", "stderr_lines", "frames", "finished_at", "result"]
private let superviseResultKeys: Set = [
    "verdict", "exit_code", "reasons", "conforms", "timed_out", "cancelled_by", "signals", "stderr_tail",
    "stderr_dropped", "notices_dropped", "duration_ms",
]

/// Fails unless every key of the object `value` is one of `known`.
private func keysKnown(_ what: String, _ value: JSON, _ known: Set<String>) throws {
    guard case .object(let object) = value else { throw CaseError("\(what) must be an object") }
    if let key = object.keys.sorted().first(where: { !known.contains($0) }) {
        throw CaseError("unknown key `\(key)` in \(what)")
    }
}

/// `key` in milliseconds, when present and not null.
private func milliseconds(_ value: JSON, _ key: String) throws -> Duration? {
    try optional(value, key, getUInt).map { .milliseconds($0) }
}

/// Whole milliseconds of `d` (truncated, as the Rust runner's `as_millis`).
private func millis(_ d: Duration) -> Int64 {
    let (seconds, attoseconds) = d.components
    return seconds * 1000 + attoseconds / 1_000_000_000_000_000
}

private func options(_ c: JSON) throws -> Supervisor.Options {
    var o = Supervisor.Options()
    guard has(c, "options") else { return o }
    let given = try get(c, "options")
    try keysKnown("`options`", given, superviseOptionKeys)
    o.timeout = try milliseconds(given, "timeout_ms")
    o.idleTimeout = try milliseconds(given, "idle_timeout_ms")
    o.interruptGrace = try milliseconds(given, "interrupt_grace_ms") ?? o.interruptGrace
    o.terminateGrace = try milliseconds(given, "terminate_grace_ms") ?? o.terminateGrace
    o.drain = try milliseconds(given, "drain_ms") ?? o.drain
    let size = { (key: String, fallback: Int) throws -> Int in try optional(given, key, getUInt).map { Int($0) } ?? fallback }
    o.stderrTailBytes = try size("stderr_tail_bytes", o.stderrTailBytes)
    o.maxStderrLine = try size("max_stderr_line", o.maxStderrLine)
    o.pauseAtBytes = try size("pause_at_bytes", o.pauseAtBytes)
    o.strict = try optional(given, "strict", getBool) ?? false
    o.limits.maxReports = try optional(given, "max_reports", getUInt) ?? o.limits.maxReports
    return o
}

/// The JSON form of an action, as the cases spell it.
private func actionJSON(_ at: Int64, _ action: Supervisor.Action) -> JSON {
    let name: String
    var fields: [String: JSON] = ["at": .int(at)]
    switch action {
    case .signal(let step):
        name = "signal"
        fields["signal"] = .string(step.signal.name)
        fields["reason"] = .string(step.reason.name)
        fields["next"] = .of(step.next) { .object(["signal": .string($0.signal.name), "after_ms": .int(millis($0.after))]) }
    case .killGroup: name = "kill_group"
    case .pauseStdout: name = "pause_stdout"
    case .resumeStdout: name = "resume_stdout"
    case .closePipes: name = "close_pipes"
    }
    fields["action"] = .string(name)
    return .object(fields)
}

/// What the run produced, on the simulated clock.
private final class Seen {
    var actions: [JSON] = []
    var stderrLines: [JSON] = []
    var frames: [JSON] = []
    var finishedAt: Int64?

    func event(_ event: Supervisor.Event) {
        if case .frame(let received) = event {
            frames.append(.string(received.frame.type))
        }
    }

    /// Takes what the supervisor has for the driver, and its stderr lines (and, with `auto`,
    /// its events, consuming as it goes), at `at`.
    func collect(_ supervisor: Supervisor, at: Int64, auto: Bool) {
        while let action = supervisor.pollAction() {
            actions.append(actionJSON(at, action))
        }
        while let line = supervisor.pollStderr() {
            stderrLines.append(.string(line))
        }
        if auto {
            while let event = supervisor.pollEvent() {
                self.event(event)
                while let action = supervisor.pollAction() {
                    actions.append(actionJSON(at, action))
                }
            }
        }
        if supervisor.isFinished && finishedAt == nil {
            finishedAt = at
        }
    }
}

private func apply(_ supervisor: Supervisor, _ seen: Seen, _ step: JSON, at now: Duration) throws {
    var did = 0
    if has(step, "stdout") {
        supervisor.stdout(at: now, Data(try getText(step, "stdout").utf8))
        did += 1
    }
    if has(step, "stderr") {
        supervisor.stderr(at: now, Data(try getText(step, "stderr").utf8))
        did += 1
    }
    if has(step, "cancel") {
        let name = try getString(step, "cancel")
        let reasons: [String: CancelReason] = ["user": .user, "timeout": .timeout, "idle": .idle]
        guard let reason = reasons[name] else { throw CaseError("unknown cancel reason `\(name)`") }
        supervisor.cancel(at: now, reason: reason, interruptGrace: try milliseconds(step, "grace_ms"))
        did += 1
    } else if has(step, "grace_ms") {
        throw CaseError("`grace_ms` belongs to a `cancel` step")
    }
    if has(step, "exit"), case .string("unknown") = try get(step, "exit") {
        supervisor.exited(at: now, .unknown)
        did += 1
    } else if has(step, "exit") {
        let exit = try get(step, "exit")
        try keysKnown("`exit`", exit, ["code", "signal"])
        let code = { (key: String) -> Int32? in
            guard case .int(let value)? = try? get(exit, key) else { return nil }
            return Int32(exactly: value)
        }
        switch (code("code"), code("signal")) {
        case (let c?, nil): supervisor.exited(at: now, .code(c))
        case (nil, let s?): supervisor.exited(at: now, .signal(s))
        default: throw CaseError("`exit` needs one integer `code` or `signal`: \(show(exit))")
        }
        did += 1
    }
    if has(step, "close") {
        switch try getString(step, "close") {
        case "stdout": supervisor.stdoutClosed(at: now)
        case "stderr": supervisor.stderrClosed(at: now)
        case "both":
            supervisor.stdoutClosed(at: now)
            supervisor.stderrClosed(at: now)
        case let other: throw CaseError("`close` must be stdout, stderr or both, not `\(other)`")
        }
        did += 1
    }
    if has(step, "consumer") {
        switch try getString(step, "consumer") {
        case "attached": supervisor.setConsumer(at: now, attached: true)
        case "detached": supervisor.setConsumer(at: now, attached: false)
        case let other: throw CaseError("`consumer` must be attached or detached, not `\(other)`")
        }
        did += 1
    }
    if has(step, "consume") {
        supervisor.pollEvents(max: Int(try getUInt(step, "consume"))).forEach(seen.event)
        did += 1
    }
    guard did == 1 else { throw CaseError("a step does exactly one thing; this one does \(did): \(show(step))") }
}

@Sendable func runSupervise(_ c: JSON) throws {
    try keysKnown("the case", c, superviseCaseKeys)
    let auto: Bool
    switch has(c, "consume") ? try get(c, "consume") : .string("auto") {
    case .string("auto"): auto = true
    case .string("manual"): auto = false
    default: throw CaseError("`consume` must be \"auto\" or \"manual\"")
    }
    let supervisor = Supervisor(options: try options(c), at: .zero)
    let seen = Seen()
    var clock: Int64 = 0
    for (index, step) in try getList(c, "steps").enumerated() {
        do {
            try keysKnown("steps[\(index)]", step, superviseStepKeys)
            let at = Int64(try getUInt(step, "at"))
            guard at >= clock else { throw CaseError("`at` \(at) is before the previous step's \(clock)") }
            while let due = supervisor.deadline, millis(due) <= at {
                clock = max(clock, millis(due))  // a deadline before the clock means: tick now
                supervisor.tick(at: .milliseconds(clock))
                seen.collect(supervisor, at: clock, auto: auto)
            }
            clock = at
            try apply(supervisor, seen, step, at: .milliseconds(at))
            seen.collect(supervisor, at: at, auto: auto)
        } catch let error as CaseError {
            throw CaseError("steps[\(index)]: \(error)")
        }
    }
    while !supervisor.isFinished, let due = supervisor.deadline {
        clock = max(clock, millis(due))
        supervisor.tick(at: .milliseconds(clock))
        seen.collect(supervisor, at: clock, auto: auto)
    }
    while let event = supervisor.pollEvent() {
        seen.event(event)
    }
    try check(c, supervisor, seen)
}

private func check(_ c: JSON, _ supervisor: Supervisor, _ seen: Seen) throws {
    let expect = try get(c, "expect")
    try keysKnown("`expect`", expect, superviseExpectKeys)
    var problems: [String] = []
    func compare(_ what: String, _ key: String, _ got: JSON) {
        guard has(expect, key), let want = try? get(expect, key) else { return }
        do { try sameJSON(what, want, got) } catch { problems.append("\(error)") }
    }
    compare("actions", "actions", .array(seen.actions))
    compare("stderr_lines", "stderr_lines", .array(seen.stderrLines))
    compare("frames", "frames", .array(seen.frames))
    compare("finished_at", "finished_at", .of(seen.finishedAt) { .int($0) })
    if has(expect, "result") {
        let want = try get(expect, "result")
        try keysKnown("`expect.result`", want, superviseResultKeys)
        guard let result = supervisor.result else {
            throw CaseError("the run never finished (no result), though `expect.result` is given")
        }
        guard let supervision = result.supervision else { throw CaseError("a supervised result has no `supervision`") }
        let got: [String: JSON] = [
            "verdict": .string(result.verdict.name),
            "exit_code": .of(result.exitCode) { .int(Int64($0)) },
            "reasons": .array(result.reasons.map(JSON.string)),
            "conforms": .bool(result.conforms),
            "timed_out": .bool(supervision.timedOut),
            "cancelled_by": .of(supervision.cancelledBy) { .string($0.name) },
            "signals": .array(
                supervision.signals.map { .object(["at_ms": .of($0.atMs), "signal": .string($0.signal.name)]) }),
            "stderr_tail": .string(supervision.stderrTail),
            "stderr_dropped": .of(supervision.stderrDropped),
            "notices_dropped": .of(supervision.noticesDropped),
            "duration_ms": .of(supervision.durationMs),
        ]
        if case .object(let fields) = want {
            for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
                do { try sameJSON("result.\(key)", value, got[key] ?? .null) } catch { problems.append("\(error)") }
            }
        }
    }
    guard problems.isEmpty else { throw CaseError(problems.joined(separator: "\n")) }
}
