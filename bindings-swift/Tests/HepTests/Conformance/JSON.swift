// JSON values as the conformance runner compares them: compared by JSON equality (keys
// unordered, numbers by value, a boolean never a number), written by Foundation's
// JSONEncoder, read by `JSONReader`.

import Foundation

/// A JSON value. Objects are unordered, as Foundation reads them.
enum JSON: Sendable, Equatable, Encodable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    func encode(to encoder: any Encoder) throws {
        var value = encoder.singleValueContainer()
        switch self {
        case .null: try value.encodeNil()
        case .bool(let bool): try value.encode(bool)
        case .int(let int): try value.encode(int)
        case .double(let double): try value.encode(double)
        case .string(let string): try value.encode(string)
        case .array(let array): try value.encode(array)
        case .object(let object): try value.encode(object)
        }
    }

    /// Parses JSON text (see `JSONReader`).
    static func parse(_ data: Data) throws -> JSON {
        var reader = JSONReader(Array(data))
        return try reader.document()
    }

    /// The value as compact JSON text.
    var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "\(self)" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The number, if this is one.
    var number: Double? {
        switch self {
        case .int(let int): Double(int)
        case .double(let double): double
        default: nil
        }
    }

    /// An optional value: `.null` for `nil`.
    static func of<T>(_ value: T?, _ convert: (T) -> JSON) -> JSON {
        value.map(convert) ?? .null
    }

    /// An unsigned integer.
    static func of(_ value: UInt64) -> JSON {
        value <= UInt64(Int64.max) ? .int(Int64(value)) : .double(Double(value))
    }
}

/// The value shown in a message, cut after `limit` characters.
func show(_ value: JSON, limit: Int = 400) -> String {
    let text = value.text
    return text.count <= limit ? text : "\(text.prefix(limit)) …(\(text.count - limit) more chars)"
}

/// Where `got` first differs from `expected` under JSON equality, or `nil` when equal.
func firstDifference(_ path: String, _ expected: JSON, _ got: JSON) -> String? {
    switch (expected, got) {
    case (.object(let want), .object(let have)):
        for key in want.keys.sorted() {
            guard let value = have[key] else { return "\(path).\(key): expected \(show(want[key]!)), got nothing" }
            if let difference = firstDifference("\(path).\(key)", want[key]!, value) { return difference }
        }
        for key in have.keys.sorted() where want[key] == nil {
            return "\(path).\(key): expected nothing, got \(show(have[key]!))"
        }
        return nil
    case (.array(let want), .array(let have)):
        for (index, (w, h)) in zip(want, have).enumerated() {
            if let difference = firstDifference("\(path)[\(index)]", w, h) { return difference }
        }
        return want.count == have.count ? nil : "\(path): expected \(want.count) items, got \(have.count)"
    case (.int(let want), .int(let have)):
        return want == have ? nil : "\(path): expected \(want), got \(have)"
    default:
        if let want = expected.number, let have = got.number {
            return want == have ? nil : "\(path): expected \(show(expected)), got \(show(got))"
        }
        return expected == got ? nil : "\(path): expected \(show(expected)), got \(show(got))"
    }
}
