import Foundation

/// A notification identified only by its name, with a JSON payload: the
/// audio-session interruption, the memory warning, an app's own names.
///
/// Named messages are observed, posted, recorded and analysed like the typed
/// catalog's, under their ``name``; typed messages keep their own types. The
/// two live in separate namespaces: observing the name `"keyboardWillShow"`
/// does not receive ``KeyboardWillShow``. Nor is a named message observed by its type:
/// `bus.observe(NamedMessage.self) { … }` would hear no post, so the compiler warns at each
/// spelling that takes `NamedMessage.self` and the bus stops at such an add from generic code.
///
/// ```swift
/// bus.observe(named: "AVAudioSessionInterruptionNotification", owner: player) { note in
///     if note.payload["type"] == "began" { player.pause() }
/// }
/// bus.post(NamedMessage(name: "AVAudioSessionInterruptionNotification", payload: ["type": "began"]))
/// ```
public struct NamedMessage: BusMessage, Hashable {
    /// The notification's name.
    public var name: String
    /// Its `userInfo`, as JSON.
    public var payload: JSONValue

    /// A notification named `name`, its `userInfo` `payload`.
    public init(name: String, payload: JSONValue = .null) {
        self.name = name
        self.payload = payload
    }

    /// The type's name. Observers of named messages are found by each message's own
    /// ``messageName``, never by this: observe them with `observe(named:)`.
    public static var name: String { "NamedMessage" }
    /// The notification's name: what observers of named messages are matched by.
    public var messageName: String { name }
}

/// A JSON value: the payload of a ``NamedMessage``.
///
/// Numbers are finite: ``init(number:)`` refuses NaN and infinities, and
/// decoding a non-finite number fails, so every value encodes.
public enum JSONValue: Sendable, Hashable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A number, or `nil` when it is NaN or infinite (JSON has no such numbers).
    public init?(number: Double) {
        guard number.isFinite else { return nil }
        self = .number(number)
    }

    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal, as a JSON number.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A number literal. A NaN or an infinity, which no literal spells but a direct call can
    /// pass, becomes 0 (use ``init(number:)`` to refuse it instead).
    public init(floatLiteral value: Double) { self = .number(value.isFinite ? value : 0) }
    /// `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal; of two equal keys, the last counts.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// `nil`, as JSON's `null`.
    public init(nilLiteral: ()) { self = .null }

    /// The value at `key` of an object; `nil` for other values and missing keys.
    public subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            guard value.isFinite else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a JSON number must be finite")
            }
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        // A non-finite number can only come from `.number(_)` built directly: write null, never fail.
        case .number(let value): value.isFinite ? try container.encode(value) : try container.encodeNil()
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    public var description: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}
