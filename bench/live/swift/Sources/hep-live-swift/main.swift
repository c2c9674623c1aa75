// hep-live-swift: the Swift supervisor of `make bench-live` (see the "Live latency and many
// runs" section of bench/README.md), on the binding's `HepProcess`.
//
//     hep-live-swift latency --frames N -- CHILD [ARGS...]
//     hep-live-swift many --runs R --expect F -- CMD [ARGS...]
//
// `latency` runs the child once and, for each timed frame (a `message_delta` or
// `tool_delta` whose text starts with the CLOCK_MONOTONIC time it was written, see
// bench/live/rust/child.rs), records how long after its writing the `for try await` loop
// got it. `many` runs R copies of CMD at once, a task each, reading every frame's type, and
// reports the wall time, the process's CPU time (getrusage), the frames delivered, the peak
// of its thread count (/proc/self/status, sampled every 5 ms) and how many runs ended with
// verdict ok and F frames. Each prints one JSON line for bench/live/live.py.

import Foundation
import Hep

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A wrong invocation or a failed run: the supervisor stops with exit 2.
struct Failure: Error, CustomStringConvertible {
    let description: String
}

/// CLOCK_MONOTONIC in nanoseconds, the clock the child writes.
func nowNs() -> Int64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
}

/// The time a timed frame was written, from the start of its text.
func sentNs(_ frame: Frame) -> Int64? {
    let text: String
    switch frame {
    case .messageDelta(let f): text = f.delta
    case .toolDelta(let f): text = f.update
    default: return nil
    }
    return text.split(separator: " ", maxSplits: 1).first.flatMap { Int64($0) }
}

/// The process's thread count now (`Threads:` of /proc/self/status; 0 when it does not say).
func threads() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("Threads:") {
        return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) ?? 0
    }
    return 0
}

/// The process's user and system time so far, in seconds.
func cpuSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    let seconds = { (t: timeval) in Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func emit(_ record: [String: Any]) throws {
    let data = try JSONSerialization.data(withJSONObject: record)
    print(String(decoding: data, as: UTF8.self))
}

func latency(_ command: [String], frames: Int) async throws {
    var latencies: [Int64] = []
    latencies.reserveCapacity(frames)
    var bad = 0
    let process = try HepProcess(executable: command[0], arguments: Array(command.dropFirst()))
    for try await frame in process.frames {
        let now = nowNs()
        if let sent = sentNs(frame) {
            latencies.append(now - sent)
        } else if case .messageDelta = frame {
            bad += 1
        }
    }
    let result = await process.result
    try emit(["verdict": result.verdict.name, "expected": frames, "bad": bad, "latencies_ns": latencies])
}

/// What one run delivered: its frames, and whether it ended ok.
struct Outcome: Sendable {
    let frames: Int
    let ok: Bool
}

func many(_ command: [String], runs: Int, expect: Int) async throws {
    let start = nowNs()
    let before = cpuSeconds()
    let sampler = Task {
        var peak = threads()
        while !Task.isCancelled {
            peak = max(peak, threads())
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return peak
    }
    let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
        for _ in 0..<runs {
            group.addTask {
                let process = try HepProcess(executable: command[0], arguments: Array(command.dropFirst()))
                var seen = 0
                for try await frame in process.frames where !frame.type.isEmpty {  // look at it
                    seen += 1
                }
                let result = await process.result
                return Outcome(frames: seen, ok: result.verdict.name == "ok" && seen == expect)
            }
        }
        return try await group.reduce(into: [Outcome]()) { $0.append($1) }
    }
    sampler.cancel()
    let peak = max(await sampler.value, threads())
    let wall = Double(nowNs() - start) / 1e9
    try emit([
        "runs": runs, "ok": outcomes.filter(\.ok).count, "frames": outcomes.reduce(0) { $0 + $1.frames },
        "wall_s": wall, "cpu_s": cpuSeconds() - before, "peak_threads": peak,
    ])
}

func main() async throws {
    let args = Array(CommandLine.arguments.dropFirst())
    let usage = "usage: hep-live-swift latency --frames N -- CHILD... | many --runs R --expect F -- CMD..."
    guard let split = args.firstIndex(of: "--"), split < args.count - 1 else { throw Failure(description: usage) }
    let head = Array(args[..<split])
    let command = Array(args[(split + 1)...])
    if head.count == 3, head[0] == "latency", head[1] == "--frames", let frames = Int(head[2]) {
        try await latency(command, frames: frames)
    } else if head.count == 5, head[0] == "many", head[1] == "--runs", head[3] == "--expect",
        let runs = Int(head[2]), let expect = Int(head[4])
    {
        try await many(command, runs: runs, expect: expect)
    } else {
        throw Failure(description: "unknown arguments \(head) (\(usage))")
    }
}

do {
    try await main()
} catch {
    FileHandle.standardError.write("hep-live-swift: \(error)\n".data(using: .utf8)!)
    exit(2)
}
