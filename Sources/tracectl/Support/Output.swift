import Foundation

/// Buffered standard output: long listings stream instead of being built in memory.
final class Output {
    private var buffer = [UInt8]()
    private let handle: FileHandle

    /// Buffers writes to `handle`, standard output by default.
    init(_ handle: FileHandle = .standardOutput) {
        self.handle = handle
        buffer.reserveCapacity(1 << 16)
    }

    deinit { flush() }

    func line(_ text: String = "") {
        buffer.append(contentsOf: text.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 16 { flush() }
    }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}

/// ANSI styles, used only when standard output is a terminal and `NO_COLOR` is unset.
struct Style {
    let enabled: Bool

    static let current = Style(enabled: isatty(STDOUT_FILENO) == 1
        && ProcessInfo.processInfo.environment["NO_COLOR"].map(\.isEmpty) ?? true
        && ProcessInfo.processInfo.environment["TERM"] != "dumb")

    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }
    func red(_ text: String) -> String { wrap(text, "31") }
    func yellow(_ text: String) -> String { wrap(text, "33") }
    func green(_ text: String) -> String { wrap(text, "32") }
    func cyan(_ text: String) -> String { wrap(text, "36") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

/// A JSON value with ordered keys, written without Foundation's encoder so that
/// output is stable and can stream.
indirect enum JSON {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])
    /// Text that is already JSON (a recorded payload).
    case raw(String)

    static func from(_ value: String?) -> JSON { value.map(JSON.string) ?? .null }
    static func from(_ value: UInt64?) -> JSON { value.map { .int(Int64(bitPattern: $0)) } ?? .null }
    static func from(_ value: Int64?) -> JSON { value.map(JSON.int) ?? .null }
    static func from(_ value: Bool?) -> JSON { value.map(JSON.bool) ?? .null }

    var rendered: String {
        var out = ""
        render(into: &out)
        return out
    }

    func render(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value): out += value.isFinite ? String(value) : "null"
        case .string(let value): Self.escape(value, into: &out)
        case .raw(let text): out += text
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.render(into: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { out += "," }
                Self.escape(key, into: &out)
                out += ":"
                value.render(into: &out)
            }
            out += "}"
        }
    }

    private static func escape(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += String(format: "\\u%04x", c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// Seconds with milliseconds, from nanoseconds.
func seconds(_ nanoseconds: UInt64) -> String {
    String(format: "%.3fs", Double(nanoseconds) / 1e9)
}

extension String {
    func padded(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
