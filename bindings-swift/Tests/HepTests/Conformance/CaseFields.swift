// Reading the fields of a conformance case and its notations (texts, bytes), as
// conformance/README.md defines them.

import Foundation

/// What differs between a case and the library, or what is wrong with the case.
struct CaseError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `key` of the object `value`.
func get(_ value: JSON, _ key: String) throws -> JSON {
    guard case .object(let object) = value, let field = object[key] else { throw CaseError("missing field `\(key)`") }
    return field
}

/// Whether the object `value` has `key`.
func has(_ value: JSON, _ key: String) -> Bool {
    guard case .object(let object) = value else { return false }
    return object[key] != nil
}

func getString(_ value: JSON, _ key: String) throws -> String {
    guard case .string(let string) = try get(value, key) else { throw CaseError("field `\(key)` must be a string") }
    return string
}

func getUInt(_ value: JSON, _ key: String) throws -> UInt64 {
    guard case .int(let int) = try get(value, key), int >= 0 else {
        throw CaseError("field `\(key)` must be a non-negative integer")
    }
    return UInt64(int)
}

func getBool(_ value: JSON, _ key: String) throws -> Bool {
    guard case .bool(let bool) = try get(value, key) else { throw CaseError("field `\(key)` must be a boolean") }
    return bool
}

func getList(_ value: JSON, _ key: String) throws -> [JSON] {
    guard case .array(let array) = try get(value, key) else { throw CaseError("field `\(key)` must be an array") }
    return array
}

func getNumber(_ value: JSON, _ key: String) throws -> Double {
    guard let number = try get(value, key).number else { throw CaseError("field `\(key)` must be a number") }
    return number
}

/// `key` when present and not null.
func optional<T>(_ value: JSON, _ key: String, _ read: (JSON, String) throws -> T) throws -> T? {
    guard has(value, key), try get(value, key) != .null else { return nil }
    return try read(value, key)
}

/// The *text* notation: a string, `{"repeat": S, "count": N}`, or an array of texts.
func text(_ value: JSON) throws -> String {
    switch value {
    case .string(let string):
        return string
    case .array(let parts):
        return try parts.map(text).joined()
    case .object(let object) where object.count == 2:
        guard let part = object["repeat"] else { throw CaseError("a text object needs `repeat`") }
        guard case .int(let count) = object["count"], count >= 0 else {
            throw CaseError("a text object needs an integer `count`")
        }
        return String(repeating: try text(part), count: Int(count))
    default:
        throw CaseError("not a text: \(show(value))")
    }
}

func getText(_ value: JSON, _ key: String) throws -> String {
    do {
        return try text(get(value, key))
    } catch let error as CaseError {
        throw CaseError("field `\(key)`: \(error)")
    }
}

/// The *bytes* notation: `key` (a text, as UTF-8) or `key_base64`, exactly one.
func getBytes(_ value: JSON, _ key: String) throws -> Data {
    let base64 = "\(key)_base64"
    switch (has(value, key), has(value, base64)) {
    case (true, true):
        throw CaseError("give `\(key)` or `\(base64)`, not both")
    case (true, false):
        return Data(try getText(value, key).utf8)
    case (false, true):
        guard let data = Data(base64Encoded: try getString(value, base64)) else {
            throw CaseError("field `\(base64)` is not standard base64")
        }
        return data
    case (false, false):
        throw CaseError("missing field `\(key)` (or `\(base64)`)")
    }
}

/// Fails with a readable difference unless `got` equals `expected` under JSON equality.
func sameJSON(_ what: String, _ expected: JSON, _ got: JSON) throws {
    guard let difference = firstDifference("$", expected, got) else { return }
    switch expected {
    case .object, .array:
        throw CaseError("\(what) differs at \(difference)\n  expected: \(show(expected))\n  got:      \(show(got))")
    default:
        throw CaseError("\(what): \(difference.hasPrefix("$: ") ? String(difference.dropFirst(3)) : difference)")
    }
}

/// Fails, showing where, unless `got` is exactly `expected`.
func sameText(_ what: String, _ expected: String, _ got: String) throws {
    guard expected != got else { return }
    let want = Array(expected), have = Array(got)
    var at = 0
    while at < min(want.count, have.count) && want[at] == have[at] { at += 1 }
    let start = max(0, at - 60)
    func around(_ chars: [Character]) -> String {
        String(chars[min(start, chars.count)..<min(at + 140, chars.count)]).debugDescription
    }
    throw CaseError(
        "\(what) differs at character \(at) (of \(want.count) expected, \(have.count) got)\n"
            + "  expected: \(around(want))\n  got:      \(around(have))")
}
