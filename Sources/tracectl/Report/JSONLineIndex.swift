/// The line on which each value of a JSON text begins, by its path: `screens.Login.observers[0]`.
///
/// What a scenario call site names is such a path; this turns it into a line a code-review tool
/// can point at. Malformed text yields no index (the call site is then shown without a line).
struct JSONLineIndex {
    private(set) var lines: [String: Int] = [:]

    init?(_ text: String) {
        var scanner = Scanner(bytes: Array(text.utf8))
        guard scanner.value(path: "", into: &lines) else { return nil }
    }

    /// The line (from 1) where the value at `path` begins.
    func line(of path: String) -> Int? { lines[path] }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var depth = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                if byte == 0x0A { line += 1 }
                index += 1
            }
        }

        mutating func value(path: String, into lines: inout [String: Int]) -> Bool {
            skipSpace()
            guard let byte = current else { return false }
            lines[path] = line
            switch byte {
            case UInt8(ascii: "{"):
                depth += 1
                guard depth < 512 else { return false }
                defer { depth -= 1 }
                index += 1
                skipSpace()
                if current == UInt8(ascii: "}") { index += 1; return true }
                while true {
                    skipSpace()
                    guard let key = string() else { return false }
                    skipSpace()
                    guard current == UInt8(ascii: ":") else { return false }
                    index += 1
                    guard value(path: path.isEmpty ? key : path + "." + key, into: &lines) else { return false }
                    skipSpace()
                    if current == UInt8(ascii: ",") { index += 1; continue }
                    if current == UInt8(ascii: "}") { index += 1; return true }
                    return false
                }
            case UInt8(ascii: "["):
                depth += 1
                guard depth < 512 else { return false }
                defer { depth -= 1 }
                index += 1
                skipSpace()
                if current == UInt8(ascii: "]") { index += 1; return true }
                var element = 0
                while true {
                    guard value(path: path + "[\(element)]", into: &lines) else { return false }
                    element += 1
                    skipSpace()
                    if current == UInt8(ascii: ",") { index += 1; continue }
                    if current == UInt8(ascii: "]") { index += 1; return true }
                    return false
                }
            case UInt8(ascii: "\""):
                return string() != nil
            default:
                // A number or a literal: up to the next delimiter.
                let start = index
                while let byte = current, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"),
                                            0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                    index += 1
                }
                return index > start
            }
        }

        /// A string's text; escapes other than `\"` and `\\` are kept as written.
        mutating func string() -> String? {
            guard current == UInt8(ascii: "\"") else { return nil }
            index += 1
            var text: [UInt8] = []
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let next = current else { return nil }
                    index += 1
                    if next != UInt8(ascii: "\"") && next != UInt8(ascii: "\\") { text.append(byte) }
                    text.append(next)
                case 0x0A:
                    return nil
                default:
                    text.append(byte)
                }
            }
            return nil
        }
    }
}
