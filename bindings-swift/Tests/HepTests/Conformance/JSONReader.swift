// Reading JSON text for the conformance runner, as the Rust (serde_json) and Python runners
// read it: a repeated key keeps its last value, and numbers are read exactly (an integer as
// an integer, any other number correctly rounded to a Double). Foundation gets neither right
// for every case: JSONDecoder keeps the first of repeated keys (the canonical form of an
// unknown frame with a repeated key), and JSONSerialization reads 0.30000000000000004 as
// 0.3000000000000001.

import Foundation

/// A strict RFC 8259 reader over UTF-8 bytes.
struct JSONReader {
    private let bytes: [UInt8]
    private var at = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The one value of the text, with nothing but whitespace around it.
    mutating func document() throws -> JSON {
        let value = try self.value(depth: 0)
        skipSpace()
        guard at == bytes.count else { throw fail("trailing characters") }
        return value
    }

    private func fail(_ what: String) -> CaseError {
        CaseError("not JSON: \(what) at byte \(at)")
    }

    private mutating func skipSpace() {
        while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
    }

    private mutating func expect(_ literal: String) throws {
        let want = Array(literal.utf8)
        guard bytes.count - at >= want.count, Array(bytes[at..<at + want.count]) == want else {
            throw fail("expected \(literal)")
        }
        at += want.count
    }

    private mutating func value(depth: Int) throws -> JSON {
        guard depth < 512 else { throw fail("nesting too deep") }
        skipSpace()
        guard at < bytes.count else { throw fail("end of text") }
        switch bytes[at] {
        case UInt8(ascii: "{"):
            at += 1
            var object: [String: JSON] = [:]
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
                at += 1
                return .object(object)
            }
            while true {
                skipSpace()
                let key = try string()
                skipSpace()
                try expect(":")
                object[key] = try value(depth: depth + 1)
                skipSpace()
                guard at < bytes.count else { throw fail("unclosed object") }
                at += 1
                if bytes[at - 1] == UInt8(ascii: "}") { return .object(object) }
                guard bytes[at - 1] == UInt8(ascii: ",") else { throw fail("expected , or }") }
            }
        case UInt8(ascii: "["):
            at += 1
            var array: [JSON] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
                at += 1
                return .array(array)
            }
            while true {
                array.append(try value(depth: depth + 1))
                skipSpace()
                guard at < bytes.count else { throw fail("unclosed array") }
                at += 1
                if bytes[at - 1] == UInt8(ascii: "]") { return .array(array) }
                guard bytes[at - 1] == UInt8(ascii: ",") else { throw fail("expected , or ]") }
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        default:
            return try number()
        }
    }

    private mutating func digits() -> Int {
        let start = at
        while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
        return at - start
    }

    private mutating func number() throws -> JSON {
        let start = at
        if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[at - integerDigits] != UInt8(ascii: "0") else {
            throw fail("bad number")
        }
        var integral = true
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            at += 1
            integral = false
            guard digits() > 0 else { throw fail("bad fraction") }
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            at += 1
            integral = false
            if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digits() > 0 else { throw fail("bad exponent") }
        }
        let text = String(decoding: bytes[start..<at], as: UTF8.self)
        if integral, let int = Int64(text) { return .int(int) }
        guard let double = Double(text) else { throw fail("bad number \(text)") }
        return .double(double)
    }

    private mutating func hex4() throws -> UInt32 {
        guard bytes.count - at >= 4, let code = UInt32(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16) else {
            throw fail("bad \\u escape")
        }
        at += 4
        return code
    }

    private mutating func string() throws -> String {
        guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw fail("expected a string") }
        at += 1
        var out: [UInt8] = []
        while true {
            guard at < bytes.count else { throw fail("unclosed string") }
            let byte = bytes[at]
            at += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(bytes: out, encoding: .utf8) else { throw fail("invalid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                guard at < bytes.count else { throw fail("unclosed string") }
                at += 1
                let escaped: Character
                switch bytes[at - 1] {
                case UInt8(ascii: "\""): escaped = "\""
                case UInt8(ascii: "\\"): escaped = "\\"
                case UInt8(ascii: "/"): escaped = "/"
                case UInt8(ascii: "b"): escaped = "\u{8}"
                case UInt8(ascii: "f"): escaped = "\u{c}"
                case UInt8(ascii: "n"): escaped = "\n"
                case UInt8(ascii: "r"): escaped = "\r"
                case UInt8(ascii: "t"): escaped = "\t"
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        try expect("\\u")
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("lone surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw fail("lone surrogate") }
                    escaped = Character(scalar)
                default:
                    throw fail("bad escape")
                }
                out.append(contentsOf: String(escaped).utf8)
            case 0x00..<0x20:
                throw fail("control character in a string")
            default:
                out.append(byte)
            }
        }
    }
}
