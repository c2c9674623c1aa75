import Foundation

/// A frame with its place in the stream: what `HepStream.feedReceived(_:)` and
/// `HepProcess.received` give.
public struct Received: Equatable, Hashable, Sendable {
    /// The 1-based line number.
    public let line: UInt64
    /// The line exactly as read, without its line ending: the frame's original text.
    public let raw: String
    /// The decoded frame.
    public let frame: Frame

    /// A frame with its line number and line.
    public init(line: UInt64, raw: String, frame: Frame) {
        self.line = line
        self.raw = raw
        self.frame = frame
    }
}

extension FrameBatch {
    // The frames one `feed` of the core completes, encoded by the Rust side in one buffer
    // (`bindings-swift/src/batch.rs` documents the layout) and read here in place, while
    // `self` keeps the buffer alive: several times faster than uniffi's lifting of `[Frame]`.

    /// The frames with their line numbers and lines.
    func received() -> [Received] {
        decode { reader in
            let line = reader.u64()
            let raw = reader.str()
            return Received(line: line, raw: raw, frame: reader.frame())
        }
    }

    /// The frames alone (their lines are skipped, never made into strings).
    func frames() -> [Frame] {
        decode { reader in
            reader.skip(8)
            reader.skip(Int(reader.u32()))
            return reader.frame()
        }
    }

    private func decode<T>(_ item: (inout Reader) -> T) -> [T] {
        withExtendedLifetime(self) {
            let count = Int(length())
            guard count > 0, let start = UnsafeRawPointer(bitPattern: UInt(address())) else { return [] }
            var reader = Reader(UnsafeRawBufferPointer(start: start, count: count))
            var out: [T] = []
            while !reader.atEnd {
                out.append(item(&reader))
            }
            return out
        }
    }
}

/// Reads the layout of `FrameBatch`, bounds-checked.
private struct Reader {
    private let bytes: UnsafeRawBufferPointer
    private var at = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var atEnd: Bool { at >= bytes.count }

    /// The offset of the next `count` bytes, consumed. A batch cut short is a bug of this
    /// library, which stops the program as an out-of-bounds index would.
    private mutating func take(_ count: Int) -> Int {
        precondition(count >= 0 && count <= bytes.count - at, "a frame batch from the core is cut short")
        defer { at += count }
        return at
    }

    mutating func skip(_ count: Int) {
        _ = take(count)
    }

    mutating func u8() -> UInt8 {
        bytes[take(1)]
    }

    mutating func u32() -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: take(4), as: UInt32.self))
    }

    mutating func u64() -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: take(8), as: UInt64.self))
    }

    mutating func bool() -> Bool {
        u8() != 0
    }

    mutating func str() -> String {
        let count = Int(u32())
        let start = take(count)
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]), as: UTF8.self)
    }

    mutating func optU64() -> UInt64? {
        u8() == 0 ? nil : u64()
    }

    mutating func optStr() -> String? {
        u8() == 0 ? nil : str()
    }

    mutating func frame() -> Frame {
        switch u8() {
        case 0:
            return .hepHeader(HepHeader(hep: str(), fah: str(), session: str()))
        case 1:
            return .agentStart(AgentStart(turnId: u64()))
        case 2:
            return .messageStart(MessageStart(turnId: u64(), role: str()))
        case 3:
            return .messageDelta(MessageDelta(turnId: u64(), delta: str()))
        case 4:
            return .toolStart(ToolStart(turnId: u64(), id: str(), name: str(), argsSummary: str()))
        case 5:
            return .toolDelta(ToolDelta(turnId: u64(), id: str(), update: str()))
        case 6:
            return .toolLiveness(
                ToolLiveness(
                    turnId: u64(), id: str(), name: str(), action: LivenessAction(wireName: str()), elapsedMs: u64(),
                    outputBytes: optU64(), detail: optStr()))
        case 7:
            let turnId = u64()
            let message = str()
            let results = (0..<u32()).map { _ in
                ToolResult(id: str(), name: str(), ok: bool(), text: str())
            }
            let usage = Usage(input: u64(), output: u64(), cost: Double(bitPattern: u64()))
            return .turnDone(
                TurnDone(turnId: turnId, message: message, toolResults: results, usage: usage, stopReason: str()))
        case 8:
            return .turnError(TurnError(turnId: u64(), error: str(), fatal: bool()))
        case 9:
            return .cancelled(TurnRef(turnId: u64()))
        case 10:
            return .compactionStart(TurnRef(turnId: u64()))
        case 11:
            return .compactionEnd(CompactionEnd(turnId: u64(), tokensFreed: u64()))
        case 12:
            return .unknown(UnknownFrame(frameType: str(), turnId: optU64(), raw: str()))
        case let tag:
            preconditionFailure("unknown frame tag \(tag) in a batch from the core")
        }
    }
}
