// A supervisor: runs a HEP emitter, mirrors its progress live, cancels it on Ctrl-C.
//
// It runs the simulator `hep simulate --scenario tools --speed 4`, or the command given
// after `--` (a bare name is looked up on PATH):
//
//     swift run --package-path examples/swift hep-supervise
//     swift run --package-path examples/swift hep-supervise -- fa --output events -p "fix the test"
//
// (the reference harness runs headless with `-p PROMPT`). A Ctrl-C cancels the run with the
// core's grace periods: SIGTERM 12 s after SIGINT, SIGKILL 2 s after that.
//
// The `hep` binary is $HEP_BIN, else target/debug/hep in this repository, else `hep` on
// PATH. Everything the stream says goes through `sanitize` before it reaches the terminal.
// The exit code is the child's (0 ok, 1 failed, 130 cancelled).

import Foundation
import Hep

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// $HEP_BIN, else target/debug/hep in the repository, else `hep` on PATH.
func findHep() -> URL? {
    let environment = ProcessInfo.processInfo.environment
    if let path = environment["HEP_BIN"], !path.isEmpty {
        return URL(fileURLWithPath: path)
    }
    let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let candidates = [repo.appendingPathComponent("target/debug/hep")]
        + (environment["PATH"] ?? "").split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("hep") }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
}

func err(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

// START show
/// Mirrors frames on the terminal; stream text always goes through `sanitize`.
struct Mirror {
    /// Assistant text was printed without its newline yet.
    private var midLine = false

    /// Ends the line of streamed assistant text, if one is open.
    mutating func endText() {
        if midLine {
            print()
            midLine = false
        }
    }

    mutating func line(_ text: String) {
        endText()
        print(text)
    }

    mutating func show(_ frame: Frame) {
        switch frame {
        case .hepHeader(let h):
            line("● HEP \(sanitize(h.hep)) · fa \(sanitize(h.fah)) · session \(sanitize(h.session))")
        case .messageStart(let m):
            line("── turn \(m.turnId) ──")
        case .messageDelta(let d) where !d.delta.isEmpty:
            print(sanitize(d.delta), terminator: "")
            midLine = !d.delta.hasSuffix("\n")
        case .toolStart(let t):
            line("  ⚙ \(sanitize(t.name))(\(sanitize(t.argsSummary)))")
        case .toolDelta(let t):
            // One row per line of output (a last newline does not start an empty one).
            let rows = t.update.split(separator: "\n", omittingEmptySubsequences: false)
            for text in t.update.hasSuffix("\n") ? rows.dropLast() : rows[...] {
                line("  │ \(sanitize(String(text)))")
            }
        case .toolLiveness(let l) where l.action == .heartbeat:
            let note = l.detail.map { " · \(sanitize($0))" } ?? ""
            line("  ⏳ \(sanitize(l.name)) after \(String(format: "%.1f", Double(l.elapsedMs) / 1000))s\(note)")
        case .toolLiveness(let l):
            line("  ⚠ \(sanitize(l.name)): \(sanitize(l.action.name))")
        case .turnDone(let t):
            for r in t.toolResults {
                line("  \(r.ok ? "✓" : "✗") \(sanitize(r.name)) \(r.ok ? "ok" : "failed")")
            }
            let cost = String(format: "$%.4f", t.usage.cost)
            line("  · turn \(t.turnId) done (\(sanitize(t.stopReason))) · \(t.usage.input) in / \(t.usage.output) out · \(cost)")
        case .turnError(let t):
            line("  ✗ turn \(t.turnId) failed: \(sanitize(t.error))")
        case .cancelled(let t):
            line("  ✗ turn \(t.turnId) cancelled")
        case .compactionStart, .compactionEnd:
            line("  · \(frame.type)")
        default:
            break  // agent_start, empty deltas, and frame types from a newer emitter: nothing to show
        }
    }
}
// END show

let arguments = Array(CommandLine.arguments.dropFirst())
let command: [String]
if let dashes = arguments.firstIndex(of: "--") {
    command = Array(arguments[(dashes + 1)...])
} else if let hep = findHep() {
    command = [hep.path, "simulate", "--scenario", "tools", "--speed", "4"]
} else {
    err("hep-supervise: no `hep` binary: set HEP_BIN, run `cargo build -p hep-cli`, or put hep on PATH")
    exit(2)
}
guard let executable = command.first else {
    err("hep-supervise: no command after `--`")
    exit(2)
}

// START supervise
let process: HepProcess
do {
    // A bare name (`fa`) is looked up on PATH.
    process = try HepProcess(executable: executable, arguments: Array(command.dropFirst()))
} catch {
    err("hep-supervise: cannot start \(executable): \(error)")
    exit(2)
}

// Ctrl-C cancels the run: SIGINT to the child's group, then SIGTERM and SIGKILL if it
// lingers; a second Ctrl-C takes the next step at once.
signal(SIGINT, SIG_IGN)
let interrupts = DispatchSource.makeSignalSource(signal: SIGINT)
interrupts.setEventHandler {
    err("cancelling (SIGINT, then SIGTERM and SIGKILL if it lingers; Ctrl-C again to hurry)…")
    process.cancel()
}
interrupts.resume()

// The child's stderr, line by line as it comes, beside the frames.
let stderrShown = Task {
    for await line in process.stderrLines {
        err("stderr │ \(sanitize(line))")
    }
}

var mirror = Mirror()
for try await frame in process.frames {
    mirror.show(frame)
}
let result = await process.result
await stderrShown.value
mirror.endText()
// END supervise

// START verdict
print("── summary ──")
print("verdict     \(result.verdict.name) — \(sanitize(result.reasons.joined(separator: "; ")))")
print("answer      \(result.answer.map(sanitize) ?? "(none)")")
print("usage       \(result.usage.input) in / \(result.usage.output) out · \(String(format: "$%.6f", result.usage.cost))")
let tools = result.turns.flatMap(\.tools)
print("tools       \(tools.count) (\(tools.filter { $0.status == .ok }.count) ok)")
print("exit code   \(result.exitCode.map(String.init) ?? "unknown")")
for v in result.violations {
    print("violation   line \(v.line): \(v.severity) \(v.code): \(sanitize(v.message))")
}
if let supervision = result.supervision {
    let by = supervision.cancelledBy.map { "cancelled by \($0.name)" } ?? "not cancelled"
    print("run         \(String(format: "%.1f", Double(supervision.durationMs) / 1000)) s, \(by)")
}
// END verdict
exit(result.exitCode ?? ExitCode.failed)
