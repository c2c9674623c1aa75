// Long synchronous test work (feeding thousands of streams) runs on threads of its own
// rather than on Swift concurrency's pool (on Linux, Dispatch's global queues, one thread per
// core): there it would hold up every async test, and every Dispatch timer, for as long as it
// runs, and the supervision tests, whose children a watchdog kills after a while, would fail
// for want of a thread rather than for a fault.

import Foundation

/// The value of `work`, run by one of `Workers.shared`'s threads. Issues must be recorded by
/// the caller, from the test's own task: return what failed.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Workers.shared.run { continuation.resume(with: Result { try work() }) }
    }
}

/// A fixed set of threads taking jobs in order.
final class Workers: @unchecked Sendable {
    /// As many threads as cores.
    static let shared = Workers(count: ProcessInfo.processInfo.activeProcessorCount)

    // `jobs` is guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []

    private init(count: Int) {
        for index in 0..<max(count, 1) {
            let thread = Thread { [self] in
                while true {
                    condition.lock()
                    while jobs.isEmpty { condition.wait() }
                    let job = jobs.removeFirst()
                    condition.unlock()
                    job()
                }
            }
            thread.name = "test worker \(index)"
            thread.start()
        }
    }

    /// Queues `job`.
    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }
}
