import Foundation

/// Writes byte-exact HEP v1 lines, one method per frame: what a harness uses to emit.
///
/// A writer is made for one harness version (`fah`, written in the header). The state
/// machine is the core's emitter: it allocates turn ids, writes the header and
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

    /// A writer for a harness of version `fah`, handing each line, `\n` included, to `sink`.
    ///
    /// - Parameters:
    ///   - fah: the harness's version, written in the header (no protocol meaning).
    ///   - toolArgs: how `toolStart` renders arguments (`.summary`, the default, or `.full`,
    ///     the raw JSON).
    public init(fah: String, toolArgs: ArgsMode = .summary, sink: @escaping (String) throws -> Void) {
        core = CoreWriter(fah: fah, argsMode: toolArgs)
        self.sink = sink
    }

    /// A writer for a harness of version `fah`, writing each line, `\n` included, to `handle`
    /// (e.g. `.standardOutput`).
    public convenience init(to handle: FileHandle, fah: String, toolArgs: ArgsMode = .summary) {
        self.init(fah: fah, toolArgs: toolArgs) { line in
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

    /// `hep_header` for session `session` (with the writer's `fah`), written once; later
    /// calls write nothing.
    @discardableResult
    public func header(session: String) throws -> String? {
        try put { try core.header(session: session) }
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

    /// `tool_start` with the arguments as ordered pairs, rendered in their order (a dictionary
    /// literal given here is one): `args: ["command": "ls", "timeout": 30]`. A repeated key
    /// keeps its first place and takes its last value, as the reference's map does. Each
    /// value is converted as JSON: strings, numbers, booleans, `NSNull`, arrays, and
    /// dictionaries (`[String: Any]`, keys sorted) or `KeyValuePairs<String, Any>` (keys in
    /// order) nested at any depth.
    ///
    /// A value holding a non-finite `Double` or `Float` (NaN, infinity; at its top or nested
    /// in arrays and dictionaries), which JSON cannot write, is rendered as the reference
    /// harness renders one: `[unserializable]` in place of that value in the summary, and
    /// the whole `args_summary` `[unserializable]` in `.full` mode.
    ///
    /// - Throws: `HepError.wrongType` when `args` holds a value JSON cannot represent at all
    ///   (a `Date`, say).
    @discardableResult
    public func toolStart(id: String, name: String, args: KeyValuePairs<String, Any>) throws -> String? {
        try toolStart(id: id, name: name, args: argumentsJSON(Array(args), id: id, name: name))
    }

    /// `tool_start` with the arguments as a dictionary, which has no order: its keys are
    /// rendered sorted (pass `KeyValuePairs`, or the JSON text, to keep an order, or a
    /// number's exact spelling such as `1.0`). Values are converted as for
    /// `toolStart(id:name:args:)` with `KeyValuePairs`.
    ///
    /// - Throws: `HepError.wrongType` when `args` holds a value JSON cannot represent at all.
    @_disfavoredOverload  // a dictionary literal keeps its order: it goes to `KeyValuePairs`
    @discardableResult
    public func toolStart(id: String, name: String, args: [String: Any]) throws -> String? {
        try toolStart(id: id, name: name, args: argumentsJSON(args.sorted { $0.key < $1.key }, id: id, name: name))
    }

    /// The JSON text of the argument object `members`, in their order, with the number
    /// `1e400` for each value holding a non-finite number: the core reads that number as a
    /// value JSON cannot write, as the reference's decoder reads a number past the double
    /// range (it becomes infinity).
    private func argumentsJSON(_ members: [(key: String, value: Any)], id: String, name: String) throws -> String {
        var texts: [String] = []
        for (key, value) in members {
            guard let keyText = scalarText(key), let json = jsonText(value) else {
                let message = "wrong_type: the argument \(key) of tool call \(id) (\(name)) holds a value JSON cannot represent"
                throw HepError.wrongType(line: 0, column: 0, message: message, excerpt: "")
            }
            texts.append("\(keyText):\(json.finite ? json.text : "1e400")")
        }
        return "{" + texts.joined(separator: ",") + "}"
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

/// The JSON text of `value`, and whether every number in it is finite (a non-finite one is
/// written as 0: the caller writes the whole value as unserializable); `nil` when `value`
/// holds something JSON cannot represent. Dictionaries are written with their keys sorted,
/// `KeyValuePairs` in their order.
private func jsonText(_ value: Any) -> (text: String, finite: Bool)? {
    func members(_ pairs: [(key: String, value: Any)]) -> (text: String, finite: Bool)? {
        var texts: [String] = []
        var finite = true
        for (key, value) in pairs {
            guard let keyText = scalarText(key), let json = jsonText(value) else { return nil }
            texts.append("\(keyText):\(json.text)")
            finite = finite && json.finite
        }
        return ("{" + texts.joined(separator: ",") + "}", finite)
    }
    switch value {
    case let number as Double where !number.isFinite:
        return ("0", false)
    case let number as Float where !number.isFinite:
        return ("0", false)
    case let pairs as KeyValuePairs<String, Any>:
        return members(Array(pairs))
    case let object as [String: Any]:
        return members(object.sorted { $0.key < $1.key })
    case let array as [Any]:
        var texts: [String] = []
        var finite = true
        for item in array {
            guard let json = jsonText(item) else { return nil }
            texts.append(json.text)
            finite = finite && json.finite
        }
        return ("[" + texts.joined(separator: ",") + "]", finite)
    default:
        return scalarText(value).map { ($0, true) }
    }
}

/// The JSON text of a string, number, boolean or `NSNull` (`JSONSerialization` writes it as
/// the one element of an array, as it writes no bare value); `nil` for anything else.
private func scalarText(_ value: Any) -> String? {
    guard JSONSerialization.isValidJSONObject([value]),
        let data = try? JSONSerialization.data(withJSONObject: [value])
    else { return nil }
    return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
}
