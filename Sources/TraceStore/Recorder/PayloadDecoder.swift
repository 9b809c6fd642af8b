import Foundation

/// A `Decoder` for recorded payloads that gives what ``PayloadCoding/decoder()`` gives, faster.
///
/// Foundation's `JSONDecoder` costs about 185 000 instructions for a keyboard message's payload
/// (generic metadata looked up for every nested container), which made a replay of distinct
/// payloads slower than recording them. This decoder parses the JSON into a small tree and
/// answers the type's `init(from:)` from it.
///
/// It answers only what it is sure `JSONDecoder` answers the same: strict JSON (RFC 8259
/// numbers, ASCII strings, no duplicate keys), `Double` from a number or the non-finite
/// strings of ``PayloadCoding``, integers from integer literals that fit, `Bool`, `String`,
/// nested containers. Anything else — `Float`, `Date`, `Data`, `URL`, `Decimal`, a super
/// decoder, a key or value that is missing or of another type, non-ASCII text — marks the
/// decoding as unsure, even when the type catches the error, and ``PayloadCoding/decode(_:from:)``
/// then decodes with `JSONDecoder`, whose value or error is the answer.
struct PayloadDecoder {
    /// A parsed JSON value.
    indirect enum Value {
        case null
        case bool(Bool)
        /// A number's literal text, validated against JSON's grammar.
        case number(String)
        case string(String)
        case array([Value])
        /// Members in document order; keys are distinct.
        case object([(key: String, value: Value)])
    }

    /// Set when anything was asked that this decoder does not answer as `JSONDecoder` would.
    final class Context {
        var unsure = false
    }

    /// Decodes `type` from `bytes`, or returns `nil` when `JSONDecoder` must decide.
    static func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) -> T? {
        var parser = Parser(bytes: bytes)
        guard let value = parser.document() else { return nil }
        let context = Context()
        guard !isSpecial(type) else { return nil }
        guard let decoded = try? T(from: Node(value: value, codingPath: [], context: context)), !context.unsure else {
            return nil
        }
        return decoded
    }

    /// Types that `JSONDecoder` decodes its own way rather than through their `init(from:)`.
    static func isSpecial(_ type: Any.Type) -> Bool {
        type == Date.self || type == Data.self || type == URL.self || type == Decimal.self || type == Float.self
            || type is AnyClass
    }

    /// Why a decoding stopped: never shown, as `JSONDecoder` decodes again and reports its own error.
    struct Unsure: Error {}

    // MARK: Parsing

    struct Parser {
        let bytes: UnsafeRawBufferPointer
        var index = 0
        var depth = 0
        static let maxDepth = 64
        /// The most members of one object this decoder reads; past them `JSONDecoder` decides: finding a member (and the check
        /// for a repeated key) is a search of the object's members, which must stay small.
        static let maxMembers = 64

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        /// The whole input as one value, or `nil` if it is not strict JSON this parser reads.
        mutating func document() -> Value? {
            guard let value = value() else { return nil }
            skipSpace()
            return index == bytes.count ? value : nil
        }

        private mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        private mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
            index += count
            return true
        }

        private mutating func value() -> Value? {
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object()
            case UInt8(ascii: "["): return array()
            case UInt8(ascii: "\""): return string().map(Value.string)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default: return number()
            }
        }

        private mutating func object() -> Value? {
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maxDepth else { return nil }
            index += 1   // {
            var members: [(key: String, value: Value)] = []
            skipSpace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
                // What JSONDecoder does with a repeated key is its own business.
                guard members.count < Self.maxMembers, !members.contains(where: { $0.key == key }) else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let value = value() else { return nil }
                members.append((key, value))
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                return nil
            }
        }

        private mutating func array() -> Value? {
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maxDepth else { return nil }
            index += 1   // [
            var elements: [Value] = []
            skipSpace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            while true {
                guard let value = value() else { return nil }
                elements.append(value)
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
                return nil
            }
        }

        /// A string of ASCII text with JSON's escapes for ASCII characters; anything else is left to JSONDecoder.
        private mutating func string() -> String? {
            index += 1   // "
            var text: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escape)
                    case UInt8(ascii: "b"): text.append(0x08)
                    case UInt8(ascii: "f"): text.append(0x0C)
                    case UInt8(ascii: "n"): text.append(0x0A)
                    case UInt8(ascii: "r"): text.append(0x0D)
                    case UInt8(ascii: "t"): text.append(0x09)
                    case UInt8(ascii: "u"):
                        guard bytes.count - index >= 4 else { return nil }
                        var scalar: UInt32 = 0
                        for _ in 0..<4 {
                            guard let digit = Self.hexDigit(bytes[index]) else { return nil }
                            scalar = scalar << 4 | digit
                            index += 1
                        }
                        guard scalar < 0x80 else { return nil }
                        text.append(UInt8(scalar))
                    default:
                        return nil
                    }
                default:
                    guard byte >= 0x20, byte < 0x80 else { return nil }
                    text.append(byte)
                }
            }
            return nil
        }

        private static func hexDigit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        private mutating func number() -> Value? {
            let start = index
            @inline(__always) func isDigit() -> Bool {
                index < bytes.count && bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")
            }
            @inline(__always) func digits() -> Bool {
                guard isDigit() else { return false }
                while isDigit() { index += 1 }
                return true
            }
            if index < bytes.count && bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit() else { return nil }
            if bytes[index] == UInt8(ascii: "0") { index += 1 } else { _ = digits() }
            if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() else { return nil }
            }
            if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
                index += 1
                if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
                guard digits() else { return nil }
            }
            return .number(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
        }
    }

    // MARK: Decoding

    /// Marks the decoding unsure and returns the error to throw.
    static func unsure(_ context: Context) -> Unsure {
        context.unsure = true
        return Unsure()
    }

    static func bool(_ value: Value) -> Bool? {
        if case .bool(let flag) = value { return flag }
        return nil
    }

    static func string(_ value: Value) -> String? {
        if case .string(let text) = value { return text }
        return nil
    }

    static func double(_ value: Value) -> Double? {
        switch value {
        case .number(let text):
            guard let number = Double(text), number.isFinite else { return nil }
            return number
        case .string(let text):
            switch text {
            case PayloadCoding.nan: return .nan
            case PayloadCoding.infinity: return .infinity
            case PayloadCoding.negativeInfinity: return -.infinity
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Integers from integer literals only: JSONDecoder's handling of "1.0" or "1e2" is its own.
    static func integer<I: FixedWidthInteger>(_ value: Value, as type: I.Type) -> I? {
        guard case .number(let text) = value,
              !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
        else { return nil }
        return I(text)
    }

    /// A value as one of the primitive types, or `nil` when JSONDecoder might answer otherwise.
    static func primitive<T>(_ value: Value, as type: T.Type) -> T? {
        switch value {
        case .bool(let flag):
            return type == Bool.self ? flag as? T : nil
        case .string(let text):
            if type == String.self { return text as? T }
            if type == Double.self {
                switch text {
                case PayloadCoding.nan: return Double.nan as? T
                case PayloadCoding.infinity: return Double.infinity as? T
                case PayloadCoding.negativeInfinity: return (-Double.infinity) as? T
                default: return nil
                }
            }
            return nil
        case .number(let text):
            if type == Double.self {
                guard let number = Double(text), number.isFinite else { return nil }
                return number as? T
            }
            // Integers from integer literals only: JSONDecoder's handling of "1.0" or "1e2" is its own.
            guard !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
            else { return nil }
            switch type {
            case is Int.Type: return Int(text) as? T
            case is Int8.Type: return Int8(text) as? T
            case is Int16.Type: return Int16(text) as? T
            case is Int32.Type: return Int32(text) as? T
            case is Int64.Type: return Int64(text) as? T
            case is UInt.Type: return UInt(text) as? T
            case is UInt8.Type: return UInt8(text) as? T
            case is UInt16.Type: return UInt16(text) as? T
            case is UInt32.Type: return UInt32(text) as? T
            case is UInt64.Type: return UInt64(text) as? T
            default: return nil
            }
        case .null, .array, .object:
            return nil
        }
    }

    /// Decodes a value of any type: primitives directly, special types never, others through `init(from:)`.
    static func decode<T: Decodable>(_ type: T.Type, from value: Value, codingPath: [any CodingKey], context: Context) throws -> T {
        if let primitive = primitive(value, as: type) { return primitive }
        if isSpecial(type) || isPrimitiveType(type) { throw unsure(context) }
        return try T(from: Node(value: value, codingPath: codingPath, context: context))
    }

    private static func isPrimitiveType(_ type: Any.Type) -> Bool {
        type == Bool.self || type == String.self || type == Double.self || type == Int.self || type == Int8.self
            || type == Int16.self || type == Int32.self || type == Int64.self || type == UInt.self || type == UInt8.self
            || type == UInt16.self || type == UInt32.self || type == UInt64.self
    }

    /// A decoder positioned on one value.
    struct Node: Decoder {
        let value: Value
        let codingPath: [any CodingKey]
        let context: Context
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard case .object(let members) = value else { throw PayloadDecoder.unsure(context) }
            return KeyedDecodingContainer(Keyed<Key>(members: members, codingPath: codingPath, context: context))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard case .array(let elements) = value else { throw PayloadDecoder.unsure(context) }
            return Unkeyed(elements: elements, codingPath: codingPath, context: context)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            Single(value: value, codingPath: codingPath, context: context)
        }
    }

    struct Single: SingleValueDecodingContainer {
        let value: Value
        let codingPath: [any CodingKey]
        let context: Context

        func decodeNil() -> Bool {
            if case .null = value { return true }
            return false
        }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try PayloadDecoder.decode(type, from: value, codingPath: codingPath, context: context)
        }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [(key: String, value: Value)]
        let codingPath: [any CodingKey]
        let context: Context

        var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

        func contains(_ key: Key) -> Bool { members.contains { $0.key == key.stringValue } }

        private func member(_ key: Key) throws -> Value {
            let name = key.stringValue
            guard let found = members.first(where: { $0.key == name }) else { throw PayloadDecoder.unsure(context) }
            return found.value
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            if case .null = try member(key) { return true }
            return false
        }

        // The primitives without a dynamic cast or a coding path: nearly every call is one of these.
        private func answer<T>(_ found: T?) throws -> T {
            guard let found else { throw PayloadDecoder.unsure(context) }
            return found
        }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try answer(PayloadDecoder.bool(try member(key))) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try answer(PayloadDecoder.string(try member(key))) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try answer(PayloadDecoder.double(try member(key))) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { throw PayloadDecoder.unsure(context) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try answer(PayloadDecoder.integer(try member(key), as: type)) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try answer(PayloadDecoder.integer(try member(key), as: type)) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try answer(PayloadDecoder.integer(try member(key), as: type)) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try answer(PayloadDecoder.integer(try member(key), as: type)) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try answer(PayloadDecoder.integer(try member(key), as: type)) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try answer(PayloadDecoder.integer(try member(key), as: type)) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try answer(PayloadDecoder.integer(try member(key), as: type)) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try answer(PayloadDecoder.integer(try member(key), as: type)) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try answer(PayloadDecoder.integer(try member(key), as: type)) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try answer(PayloadDecoder.integer(try member(key), as: type)) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try value(type, key) }

        private func value<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
            try PayloadDecoder.decode(type, from: try member(key), codingPath: codingPath + [key], context: context)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey> {
            try Node(value: try member(key), codingPath: codingPath + [key], context: context).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try Node(value: try member(key), codingPath: codingPath + [key], context: context).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder { throw PayloadDecoder.unsure(context) }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw PayloadDecoder.unsure(context) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let elements: [Value]
        let codingPath: [any CodingKey]
        let context: Context
        var currentIndex = 0

        init(elements: [Value], codingPath: [any CodingKey], context: Context) {
            (self.elements, self.codingPath, self.context) = (elements, codingPath, context)
        }

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private func current() throws -> Value {
            guard !isAtEnd else { throw PayloadDecoder.unsure(context) }
            return elements[currentIndex]
        }

        mutating func decodeNil() throws -> Bool {
            guard case .null = try current() else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let value = try PayloadDecoder.decode(type, from: try current(), codingPath: codingPath, context: context)
            currentIndex += 1
            return value
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            let container = try Node(value: try current(), codingPath: codingPath, context: context).container(keyedBy: type)
            currentIndex += 1
            return container
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let container = try Node(value: try current(), codingPath: codingPath, context: context).unkeyedContainer()
            currentIndex += 1
            return container
        }

        mutating func superDecoder() throws -> any Decoder { throw PayloadDecoder.unsure(context) }
    }
}
