import Foundation

/// The frames a supervised child has written, from the thread reading its stdout to the one
/// task consuming `HepProcess.frames` or `HepProcess.received`: each frame is handed over the
/// moment its line is complete, and waits here until it is asked for.
///
/// Backpressure: while more than `highWater` bytes of lines wait, `push` blocks the reading
/// thread, so the child's pipe fills and the child waits for its consumer instead of the
/// queue growing with its output. `unbound()` lifts that for good (the result is awaited, or
/// the run is being cancelled: then everything is read, and kept until asked for).
final class LineQueue: @unchecked Sendable {
    /// Bytes of queued lines past which `push` waits for the consumer (1 MiB).
    static let highWater = 1 << 20

    // Every field is guarded by `lock`.
    private let lock = NSCondition()
    private var items: [Received] = []
    private var head = 0
    private var queuedBytes = 0
    private var bounded = true
    private var ended = false
    private var failure: (any Error)?
    private var waiter: CheckedContinuation<Received?, any Error>?

    /// Appends frames, waking the consumer if it waits; then, while bounded, waits until no
    /// more than `highWater` bytes of lines are queued.
    func push(_ received: [Received]) {
        guard !received.isEmpty else { return }
        lock.lock()
        items.append(contentsOf: received)
        queuedBytes += received.reduce(0) { $0 + Self.cost($1) }
        let wake = waiter.map { ($0, takeLocked()) }
        if wake != nil { waiter = nil }
        lock.unlock()
        if let (continuation, item) = wake {
            continuation.resume(returning: item)
        }
        lock.lock()
        while bounded && queuedBytes > Self.highWater {
            lock.wait()
        }
        lock.unlock()
    }

    /// Lifts the bound: `push` no longer waits, now or later.
    func unbound() {
        lock.lock()
        bounded = false
        lock.broadcast()
        lock.unlock()
    }

    /// Ends the sequence: after the frames still queued, `next()` throws `error` (once) or
    /// returns `nil`.
    func finish(throwing error: (any Error)? = nil) {
        lock.lock()
        guard !ended else {
            lock.unlock()
            return
        }
        ended = true
        failure = error
        let continuation = waiter
        waiter = nil
        let outcome = continuation == nil ? nil : endLocked()
        lock.unlock()
        if let continuation, let outcome {
            continuation.resume(with: outcome)
        }
    }

    /// The next frame; `nil` at the end, or when the calling task is cancelled.
    func next() async throws -> Received? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                lock.lock()
                if let item = takeLocked() {
                    lock.unlock()
                    continuation.resume(returning: item)
                } else if ended {
                    let outcome = endLocked()
                    lock.unlock()
                    continuation.resume(with: outcome)
                } else if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    precondition(waiter == nil, "a HepProcess's frames are read by one task at a time")
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            let continuation = waiter
            waiter = nil
            lock.unlock()
            continuation?.resume(returning: nil)
        }
    }

    /// The oldest queued frame, if any (the lock held).
    private func takeLocked() -> Received? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        queuedBytes -= Self.cost(item)
        if queuedBytes <= Self.highWater {
            lock.broadcast()
        }
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    /// What a queued frame counts for: its line and its newline.
    private static func cost(_ received: Received) -> Int {
        received.raw.utf8.count + 1
    }

    /// What `next()` gives once everything queued is taken (the lock held): the failure the
    /// first time, then `nil`.
    private func endLocked() -> Result<Received?, any Error> {
        defer { failure = nil }
        return failure.map { .failure($0) } ?? .success(nil)
    }
}
