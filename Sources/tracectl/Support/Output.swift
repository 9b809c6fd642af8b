import Foundation
import TraceStore

/// Buffered standard output: long listings stream instead of being built in memory.
///
/// Text goes into one byte buffer, written out in blocks of 64 KiB; the `append` methods
/// write numbers, literals and JSON strings as bytes, so a command printing a line per
/// event builds no `String` per line.
final class Output {
    // Read and written on every byte, by the command's one thread (`owner` checks that in debug
    // builds at each flush, `SingleThreadOwnershipTests`). No `@exclusivity(unchecked)`: the
    // release build makes no exclusivity check on these private fields without it either
    // (`BENCHMARKS.md`, "Fourth session").
    private var buffer: UnsafeMutablePointer<UInt8>
    private var count = 0
    /// "00" to "99", for numbers two digits at a time.
    private let digitPairs: UnsafeMutablePointer<UInt8>
    private let capacity = 1 << 17
    /// When the buffer is written out: at the end of a line past this many bytes.
    private static let flushThreshold = 1 << 16
    private let descriptor: Int32
    private let owner = OwningThread()
    /// What happens when a write fails: see ``init(_:failure:)``.
    private let failure: (_ reason: String) -> Never

    /// Buffers writes to `handle`, standard output by default.
    ///
    /// - Parameter failure: Called with the system's reason when a write fails (a full disk, an
    ///   I/O error); by default one line on stderr and exit 74. A closed pipe (`| head`) ends the
    ///   process by `SIGPIPE` before any write returns, as it does for other tools.
    init(_ handle: FileHandle = .standardOutput, failure: ((_ reason: String) -> Never)? = nil) {
        descriptor = handle.fileDescriptor
        self.failure = failure ?? { reason in
            exitWritingFailed("cannot write standard output (\(reason))")
        }
        buffer = .allocate(capacity: capacity)
        digitPairs = .allocate(capacity: 200)
        for value in 0..<100 {
            digitPairs[2 * value] = UInt8(ascii: "0") + UInt8(value / 10)
            digitPairs[2 * value + 1] = UInt8(ascii: "0") + UInt8(value % 10)
        }
    }

    deinit {
        // Commands flush before they return (a failed write exits 74 from there, not from a
        // deinit); this only catches what is left.
        flush()
        buffer.deallocate()
        digitPairs.deallocate()
    }

    func line(_ text: String = "") {
        write(text)
        endLine()
    }

    func write(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Ends a line, writing the buffer out when it is full enough.
    @inline(__always) func endLine() {
        append(UInt8(ascii: "\n"))
        if count >= Self.flushThreshold { flush() }
    }

    func flush() {
        owner.check("Output")
        guard count > 0 else { return }
        writeAll(UnsafeBufferPointer(start: buffer, count: count))
        count = 0
    }

    /// Writes `bytes` to the descriptor, all of them, or calls ``failure``.
    private func writeAll(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = Glibc.write(descriptor, next, left)
            if written < 0 {
                if errno == EINTR { continue }
                failure(String(cString: strerror(errno)))
            }
            next += written
            left -= written
        }
    }

    /// Room for `n` more bytes; `false` when they cannot fit even in an empty buffer.
    @inline(__always) private func reserve(_ n: Int) -> Bool {
        if count + n > capacity { flush() }
        return n <= capacity
    }

    @inline(__always) func append(_ byte: UInt8) {
        if count == capacity { flush() }
        buffer[count] = byte
        count += 1
    }

    @inline(__always) func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !bytes.isEmpty, let base = bytes.baseAddress else { return }
        guard reserve(bytes.count) else {
            flush()
            writeAll(bytes)
            return
        }
        if bytes.count <= 16 {
            // A name or a literal: a few bytes, cheaper copied here than through a call to memcpy.
            let target = buffer + count
            for index in 0..<bytes.count { target[index] = base[index] }
        } else {
            (buffer + count).update(from: base, count: bytes.count)
        }
        count += bytes.count
    }

    /// A literal, as its UTF-8 bytes.
    @inline(__always) func append(_ literal: StaticString) {
        append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    func append(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { append($0) } }

    /// `value` in decimal, right-aligned in `width` columns as `String.leftPadded` does.
    ///
    /// Two digits at a time from a table, written straight into the buffer, the padding by one fill.
    @inline(__always) func append(_ value: UInt64, width: Int = 0) {
        let room = max(width, 20)
        if count + room > capacity { flush() }
        guard room <= capacity else { return appendWide(value, width: width) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // 24 bytes: room for UInt64.max's 20 digits
        withUnsafeMutableBytes(of: &digits) { raw in
            let end = raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + raw.count
            var start = end
            var v = value
            do {
                let pairs = digitPairs
                while v >= 100 {
                    let pair = Int(v % 100) &* 2
                    v /= 100
                    start -= 2
                    start[0] = pairs[pair]
                    start[1] = pairs[pair &+ 1]
                }
                if v >= 10 {
                    start -= 2
                    start[0] = pairs[Int(v) &* 2]
                    start[1] = pairs[Int(v) &* 2 &+ 1]
                } else {
                    start -= 1
                    start[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v)
                }
            }
            let length = end - start
            if width > length {
                if width - length <= 16 {
                    // Sixteen spaces in two stores (room for them was made above), the digits over the rest.
                    let spaces: UInt64 = 0x2020_2020_2020_2020
                    UnsafeMutableRawPointer(buffer + count).storeBytes(of: spaces, as: UInt64.self)
                    UnsafeMutableRawPointer(buffer + count + 8).storeBytes(of: spaces, as: UInt64.self)
                } else {
                    (buffer + count).initialize(repeating: UInt8(ascii: " "), count: width - length)
                }
                count += width - length
            }
            let target = buffer + count
            for index in 0..<length { target[index] = start[index] }
            count += length
        }
    }

    /// A number padded wider than the buffer: byte by byte.
    private func appendWide(_ value: UInt64, width: Int) {
        let digits = Array(String(value).utf8)
        if width > digits.count { for _ in digits.count..<width { append(UInt8(ascii: " ")) } }
        append(digits)
    }

    /// Seconds from nanoseconds as `(Double(nanoseconds) / 1e9).description` writes them (the JSON `time`).
    ///
    /// Between 10^-4 s and 2^23 s (97 days) a `Double`'s spacing is finer than a nanosecond, so the
    /// shortest decimal that reads back as the quotient is the exact one, `whole.fraction` with the
    /// fraction's trailing zeros dropped (`.0` when it is whole): integer arithmetic. Outside that
    /// range (exponents below 10^-4, coarser spacing above) the `Double`'s description is asked.
    func appendJSONSeconds(_ nanoseconds: UInt64) {
        guard nanoseconds >= 100_000, nanoseconds < (1 << 23) * 1_000_000_000 else {
            return write((Double(nanoseconds) / 1e9).description)
        }
        append(nanoseconds / 1_000_000_000)
        append(UInt8(ascii: "."))
        var fraction = nanoseconds % 1_000_000_000
        guard fraction != 0 else { return append(UInt8(ascii: "0")) }
        var digits = 9
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        append(fraction, zeroPaddedTo: digits)
    }

    /// `value` in decimal with leading zeros to `digits` digits.
    private func append(_ value: UInt64, zeroPaddedTo digits: Int) {
        if count + 20 > capacity { flush() }
        var v = value
        var index = digits
        while index > 0 {
            index -= 1
            buffer[count + index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        }
        count += digits
    }

    /// `value` in decimal, with its sign.
    @inline(__always) func append(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        append(value.magnitude)
    }

    /// Seconds with milliseconds from nanoseconds, as ``seconds(_:)`` writes them, right-aligned in `width` columns.
    ///
    /// Integer arithmetic, unless the nanoseconds lie within a few of a half millisecond or past 2^50,
    /// where `%.3f` of the `Double` decides the rounding and is asked.
    @inline(__always) func appendSeconds(_ nanoseconds: UInt64, width: Int) {
        let remainder = nanoseconds % 1_000_000
        let margin: UInt64 = 64
        guard nanoseconds < 1 << 50, remainder < 500_000 - margin || remainder > 500_000 + margin else {
            let text = seconds(nanoseconds)
            let characters = text.utf8.count
            if characters < width { for _ in characters..<width { append(UInt8(ascii: " ")) } }
            write(text)
            return
        }
        let milliseconds = nanoseconds / 1_000_000 + (remainder > 500_000 ? 1 : 0)
        // Events come in time order, many in the same millisecond: the last column written is copied.
        if milliseconds == lastSeconds.milliseconds, width == lastSeconds.width, count + 16 <= capacity {
            withUnsafeBytes(of: lastSeconds.bytes) { (buffer + count).update(from: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: 16) }
            count += lastSeconds.count
            return
        }
        // Room for the whole column first, so that `start` stays where it was written.
        guard width <= 32 else { return writeSeconds(milliseconds, width: width) }
        if count + 64 > capacity { flush() }
        let start = count
        writeSeconds(milliseconds, width: width)
        if count - start <= 16 {
            // Copied as 16 bytes: the buffer has room for them whenever a copy is made (checked above).
            lastSeconds.milliseconds = milliseconds
            lastSeconds.width = width
            lastSeconds.count = count - start
            withUnsafeMutableBytes(of: &lastSeconds.bytes) { $0.baseAddress!.copyMemory(from: buffer + start, byteCount: count - start) }
        }
    }

    /// The last time column ``appendSeconds(_:width:)`` wrote: its milliseconds, width and bytes.
    private var lastSeconds = (milliseconds: UInt64.max, width: 0, count: 0, bytes: (UInt64(0), UInt64(0)))

    /// `milliseconds` as seconds with three decimals and `s`, right-aligned in `width` columns.
    @inline(__always) private func writeSeconds(_ milliseconds: UInt64, width: Int) {
        let whole = milliseconds / 1000, fraction = Int(milliseconds % 1000)
        append(whole, width: width - 5)   // then "." + three digits + "s"
        if count + 5 > capacity { flush() }
        let end = buffer + count
        end[0] = UInt8(ascii: ".")
        end[1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / 100)
        end[2] = digitPairs[2 &* (fraction % 100)]
        end[3] = digitPairs[2 &* (fraction % 100) &+ 1]
        end[4] = UInt8(ascii: "s")
        count += 5
    }

    /// `text` as a JSON string, quoted and escaped byte by byte as ``JSON`` escapes it.
    func appendJSONString(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            append(UInt8(ascii: "\""))
            var start = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                append(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                start = index + 1
                switch byte {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case UInt8(ascii: "\n"): append("\\n")
                case UInt8(ascii: "\r"): append("\\r")
                case UInt8(ascii: "\t"): append("\\t")
                default:
                    append("\\u00")
                    append(Self.hexDigits[Int(byte >> 4)])
                    append(Self.hexDigits[Int(byte & 0xF)])
                }
            }
            append(UnsafeBufferPointer(rebasing: bytes[start...]))
            append(UInt8(ascii: "\""))
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
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

    /// Writes the value into `out` as bytes, as ``render(into:)`` writes it: no `String` is built
    /// for the document (`export` writes a million-event session this way).
    func render(to out: Output) {
        switch self {
        case .null: out.append("null")
        case .bool(let value): if value { out.append("true") } else { out.append("false") }
        case .int(let value): out.append(value)
        case .double(let value): out.write(value.isFinite ? String(value) : "null")
        case .string(let value): out.appendJSONString(value)
        case .raw(let text): out.write(text)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.render(to: out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in fields.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out.appendJSONString(key)
                out.append(UInt8(ascii: ":"))
                value.render(to: out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `text` as a JSON string literal: the runs between characters that need escaping
    /// are appended whole (escaping scalar by scalar was most of `export`'s time). The characters
    /// escaped are ASCII, so every run starts and ends on a scalar boundary.
    private static func escape(_ text: String, into out: inout String) {
        out += "\""
        let utf8 = text.utf8
        var run = utf8.startIndex, index = run
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 {
                out += text[run..<index]
                switch byte {
                case UInt8(ascii: "\""): out += "\\\""
                case UInt8(ascii: "\\"): out += "\\\\"
                case UInt8(ascii: "\n"): out += "\\n"
                case UInt8(ascii: "\r"): out += "\\r"
                case UInt8(ascii: "\t"): out += "\\t"
                default: out += String(format: "\\u%04x", byte)
                }
                run = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        out += text[run...]
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
