// The protocol's bounds, the core's: text counted and capped in UTF-16 units, tool arguments
// rendered to `args_summary`.

/// `text` capped at `limit` UTF-16 units, with the `…(+N chars)` suffix when cut (the
/// writer caps tool result texts at 2000 this way).
public func cap(_ text: String, limit: Int) -> String {
    capText(text: text, limit: UInt64(clamping: limit))
}

/// The length of `text` in UTF-16 code units: the protocol's "characters".
public func utf16Length(_ text: String) -> Int {
    Int(clamping: countUtf16Units(text: text))
}

/// The `args_summary` a `tool_start` gets for `json`, the JSON text of the argument object,
/// in `mode` (`key=value` pairs cut at 100 units, or the JSON cut at 4000).
///
/// - Throws: `HepError` when `json` is not the JSON text of an object.
public func renderArgs(_ json: String, mode: ArgsMode) throws -> String {
    try rethrowingHepError { try renderToolArgs(args: json, mode: mode) }
}
