import Foundation

/// Writes byte-exact HEP v1 lines, one method per frame: what a harness uses to emit.
///
/// The state machine is the core's emitter: it allocates turn ids, writes the header and
/// `agent_start` once, brackets compactions and applies the bounds (tool result texts
/// capped at 2000 UTF-16 units, tool arguments rendered to `args_summary`). Each line, with
/// its `\n`, goes to the sink the moment it is produced: a `FileHandle` (written at once,
/// unbuffered) or a closure.
///
/// Every method returns the line it wrote, without the newline, or `nil` when the protocol
/// says the call writes nothing (a second `header`, a `messageStart` for another role, an
/// empty `toolDelta`). A sink that throws makes the method throw that error.
public final class Writer {
    private let core: CoreWriter
    private let sink: (String) throws -> Void

    /// A writer handing each line, `\n` included, to `sink`.
    ///
    /// - Parameter toolArgs: how `toolStart` renders arguments (`.summary`, the default, or
    ///   `.full`, the raw JSON).
    public init(toolArgs: ArgsMode = .summary, sink: @escaping (String) throws -> Void) {
        core = CoreWriter(argsMode: toolArgs)
        self.sink = sink
    }

    /// A writer writing each line, `\n` included, to `handle` (e.g. `.standardOutput`).
    public convenience init(to handle: FileHandle, toolArgs: ArgsMode = .summary) {
        self.init(toolArgs: toolArgs) { line in
            try handle.write(contentsOf: Data(line.utf8))
        }
    }

    /// The open turn's id, else the last allocated one (0 before any).
    public var turnId: UInt64 { core.turnId() }

    private func put(_ produce: () throws -> String?) throws -> String? {
        guard let line = try rethrowingHepError(produce) else { return nil }
        try sink(line + "\n")
        return line
    }

    /// `hep_header`, written once; later calls write nothing.
    @discardableResult
    public func header(fah: String, session: String) throws -> String? {
        try put { try core.header(fah: fah, session: session) }
    }

    /// `agent_start`: only the first call writes; it opens a turn.
    @discardableResult
    public func agentStart() throws -> String? {
        try put { try core.agentStart() }
    }

    /// Opens a turn if none is open; writes nothing.
    public func turnStart() {
        core.turnStart()
    }

    /// `message_start`, written only for `role == "assistant"`.
    @discardableResult
    public func messageStart(role: String = "assistant") throws -> String? {
        try put { try core.messageStart(role: role) }
    }

    /// `message_delta` with a chunk of assistant text.
    @discardableResult
    public func messageDelta(_ delta: String) throws -> String? {
        try put { try core.messageDelta(delta: delta) }
    }

    /// `tool_start`; `args` is the JSON text of the argument object, rendered in the
    /// writer's `toolArgs` mode with its keys in their order.
    ///
    /// - Throws: `HepError` when `args` is not the JSON text of an object.
    @discardableResult
    public func toolStart(id: String, name: String, args: String) throws -> String? {
        try put { try core.toolStart(id: id, name: name, args: args) }
    }

    /// `tool_start` with the arguments as a dictionary. A dictionary has no order, so its
    /// keys are rendered sorted; pass the JSON text to keep another order (or a number's
    /// exact spelling, such as `1.0`). Each value is converted by `JSONSerialization`.
    ///
    /// A value holding a non-finite `Double` or `Float` (NaN, infinity; at its top or nested
    /// in arrays and dictionaries), which JSON cannot write, is rendered as the reference
    /// harness renders one: `[unserializable]` in place of that value in the summary, and
    /// the whole `args_summary` `[unserializable]` in `.full` mode.
    ///
    /// - Throws: `HepError.wrongType` when `args` holds a value JSON cannot represent at all
    ///   (a `Date`, say).
    @discardableResult
    public func toolStart(id: String, name: String, args: [String: Any]) throws -> String? {
        try toolStart(id: id, name: name, args: argumentsJSON(args, id: id, name: name))
    }

    /// The JSON text of `args`, keys sorted, with the number `1e400` for each value holding
    /// a non-finite number: the core reads that number as a value JSON cannot write, as the
    /// reference's decoder reads a number past the double range (it becomes infinity).
    private func argumentsJSON(_ args: [String: Any], id: String, name: String) throws -> String {
        var members: [String] = []
        for (key, value) in args.sorted(by: { $0.key < $1.key }) {
            let (json, finite) = finiteJSON(value)
            guard JSONSerialization.isValidJSONObject([key, json]) else {
                let message = "wrong_type: the argument \(key) of tool call \(id) (\(name)) holds a value JSON cannot represent"
                throw HepError.wrongType(line: 0, column: 0, message: message, excerpt: "")
            }
            members.append("\(try jsonText(key)):\(finite ? try jsonText(json) : "1e400")")
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// `tool_delta` with a chunk of the call's output; an empty `update` writes nothing.
    @discardableResult
    public func toolDelta(id: String, update: String) throws -> String? {
        try put { try core.toolDelta(id: id, update: update) }
    }

    /// `tool_liveness`: a heartbeat of a running call, or a stuck-call follow-up. An empty
    /// `detail` is omitted.
    @discardableResult
    public func toolLiveness(
        id: String, name: String, action: LivenessAction, elapsedMs: UInt64,
        outputBytes: UInt64? = nil, detail: String? = nil
    ) throws -> String? {
        try put {
            try core.toolLiveness(
                id: id, name: name, action: action, elapsedMs: elapsedMs,
                outputBytes: outputBytes, detail: detail)
        }
    }

    /// `turn_done` for the open turn (each result's text capped at 2000 UTF-16 units); closes
    /// the turn.
    @discardableResult
    public func turnDone(
        message: String, toolResults: [ToolResult] = [], usage: Usage, stopReason: String
    ) throws -> String? {
        try put {
            try core.turnDone(message: message, toolResults: toolResults, usage: usage, stopReason: stopReason)
        }
    }

    /// `turn_error` for the open turn; closes it. A fatal error ends the run.
    @discardableResult
    public func turnError(_ error: String, fatal: Bool = true) throws -> String? {
        try put { try core.turnError(error: error, fatal: fatal) }
    }

    /// `cancelled` for the open turn; closes it.
    @discardableResult
    public func cancelled() throws -> String? {
        try put { try core.cancelled() }
    }

    /// `compaction_start`: uses the open turn's id, or opens the next one.
    @discardableResult
    public func compactionStart() throws -> String? {
        try put { try core.compactionStart() }
    }

    /// `compaction_end`: the open turn's id (or the last one); leaves the turn open.
    @discardableResult
    public func compactionEnd(tokensFreed: UInt64) throws -> String? {
        try put { try core.compactionEnd(tokensFreed: tokensFreed) }
    }
}

/// The JSON text of `value`, a valid JSON value (written as the one element of an array,
/// as `JSONSerialization` writes no bare string or number), nested keys sorted.
private func jsonText(_ value: Any) throws -> Substring {
    String(decoding: try JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]), as: UTF8.self)
        .dropFirst().dropLast()
}

/// `value` with each non-finite `Double` or `Float` inside it (at its top, or nested in
/// arrays and dictionaries) replaced by 0, and whether it had none: what
/// `JSONSerialization` is then asked about is whether the rest is JSON.
private func finiteJSON(_ value: Any) -> (value: Any, finite: Bool) {
    switch value {
    case let number as Double where !number.isFinite:
        return (0, false)
    case let number as Float where !number.isFinite:
        return (0, false)
    case let array as [Any]:
        let items = array.map(finiteJSON)
        return (items.map(\.value), items.allSatisfy(\.finite))
    case let object as [String: Any]:
        let members = object.mapValues(finiteJSON)
        return (members.mapValues(\.value), members.values.allSatisfy(\.finite))
    default:
        return (value, true)
    }
}
