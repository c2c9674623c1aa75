// HepError: one case per error kind of the core, each with line, column, message, excerpt,
// and `internal` for a bug of the binding. The enum is generated (Generated/Hep.swift); the
// FFI throws it wrapped in `CoreError`, which `rethrowingHepError` unwraps.

import Foundation

extension HepError: Error, LocalizedError, CustomStringConvertible {
    /// The stable snake_case name of the kind, as in the conformance vectors (`"wrong_type"`).
    public var kind: String {
        switch self {
        case .syntax: "syntax"
        case .invalidUtf8: "invalid_utf8"
        case .trailingCharacters: "trailing_characters"
        case .notAnObject: "not_an_object"
        case .missingField: "missing_field"
        case .duplicateField: "duplicate_field"
        case .wrongType: "wrong_type"
        case .outOfRange: "out_of_range"
        case .tooDeep: "too_deep"
        case .lineTooLong: "line_too_long"
        case .truncated: "truncated"
        case .unsupportedVersion: "unsupported_version"
        case .violation: "violation"
        case .unencodable: "unencodable"
        case .io: "io"
        case .internal: "internal"
        }
    }

    private var parts: (line: UInt64, column: UInt64, message: String, excerpt: String) {
        switch self {
        case let .syntax(line, column, message, excerpt),
            let .invalidUtf8(line, column, message, excerpt),
            let .trailingCharacters(line, column, message, excerpt),
            let .notAnObject(line, column, message, excerpt),
            let .missingField(line, column, message, excerpt),
            let .duplicateField(line, column, message, excerpt),
            let .wrongType(line, column, message, excerpt),
            let .outOfRange(line, column, message, excerpt),
            let .tooDeep(line, column, message, excerpt),
            let .lineTooLong(line, column, message, excerpt),
            let .truncated(line, column, message, excerpt),
            let .unsupportedVersion(line, column, message, excerpt),
            let .violation(line, column, message, excerpt),
            let .unencodable(line, column, message, excerpt),
            let .io(line, column, message, excerpt):
            (line, column, message, excerpt)
        case let .internal(message):
            (0, 0, message, "")
        }
    }

    /// The 1-based line, or 0 when the error is not tied to a line.
    public var line: UInt64 { parts.line }
    /// The 1-based byte column within the line, or 0 when unknown.
    public var column: UInt64 { parts.column }
    /// The error as text, with its position (`line 3, column 9: wrong_type: ...`).
    public var message: String { parts.message }
    /// A short excerpt of the input around the error (may be empty).
    public var excerpt: String { parts.excerpt }

    public var description: String { message }
    public var errorDescription: String? { message }
}

/// Runs an FFI call, throwing the `HepError` it fails with as is, and a failure of the
/// binding itself (`CoreError.Internal`, a panic the Rust side caught) as `HepError.internal`.
@inline(__always)
func rethrowingHepError<T>(_ call: () throws -> T) throws -> T {
    do {
        return try call()
    } catch CoreError.Failed(let error) {
        throw error
    } catch CoreError.Internal(let message) {
        throw HepError.internal(message: message)
    }
}
