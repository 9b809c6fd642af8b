import Foundation

/// Splits a scenario file so that its steps can be parsed one at a time.
///
/// `JSONSerialization` builds about 3 KB of dictionaries per step (`{"keyboard": "show"}`), all
/// alive at once: for a million-event scenario that tree, not the recording, was the peak of
/// `tracectl record` (see BENCHMARKS.md, "Recording memory as a scenario grows"). This finds the
/// byte range of each element of the top-level `steps` array without building anything, so the
/// parser can read the rest of the file with `steps` emptied and then each step on its own.
///
/// Anything it does not recognise as a plain UTF-8 object with one `steps` array gives `nil`,
/// and the caller parses the whole file as before, with the same errors.
struct ScenarioStepSplitter {
    /// The file with the `steps` array replaced by `[]`.
    let rest: Data
    /// The byte ranges of the steps, in order, relative to the file's first byte.
    let steps: [Range<Int>]

    init?(_ data: Data) {
        let found: (steps: Range<Int>, elements: [Range<Int>])? = data.withUnsafeBytes { raw in
            var scanner = Scanner(bytes: raw.bindMemory(to: UInt8.self))
            return scanner.topLevelSteps()
        }
        guard let found else { return nil }
        var rest = Data(data[data.startIndex ..< data.startIndex + found.steps.lowerBound])
        rest.append(contentsOf: Array("[]".utf8))
        rest.append(data[(data.startIndex + found.steps.upperBound)...])
        self.rest = rest
        self.steps = found.elements
    }

    /// The value of one step, or `nil` when it is not valid JSON on its own.
    static func value(of range: Range<Int>, in data: Data) -> Any? {
        let slice = data[(data.startIndex + range.lowerBound) ..< (data.startIndex + range.upperBound)]
        return try? JSONSerialization.jsonObject(with: Data(slice), options: .fragmentsAllowed)
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        private static let openObject = UInt8(ascii: "{"), closeObject = UInt8(ascii: "}")
        private static let openArray = UInt8(ascii: "["), closeArray = UInt8(ascii: "]")
        private static let comma = UInt8(ascii: ","), colon = UInt8(ascii: ":")
        private static let stepsKey = Array("steps".utf8)
        /// Far deeper than any step, far shallower than JSONSerialization's limit.
        private static let maximumDepth = 64

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func topLevelSteps() -> (steps: Range<Int>, elements: [Range<Int>])? {
            skipSpace()
            guard take(Self.openObject) else { return nil }
            var steps: Range<Int>?
            skipSpace()
            if take(Self.closeObject) { return nil }
            while true {
                skipSpace()
                guard let key = string(), !key.escaped else { return nil }
                skipSpace()
                guard take(Self.colon) else { return nil }
                skipSpace()
                let start = index
                guard skipValue() else { return nil }
                if bytes[key.content].elementsEqual(Self.stepsKey) {
                    // A repeated key: leave it to JSONSerialization.
                    guard steps == nil else { return nil }
                    steps = start ..< index
                }
                skipSpace()
                if take(Self.comma) { continue }
                guard take(Self.closeObject) else { return nil }
                break
            }
            skipSpace()
            guard index == bytes.count, let steps, bytes[steps.lowerBound] == Self.openArray else { return nil }
            index = steps.lowerBound + 1
            var elements: [Range<Int>] = []
            skipSpace()
            if take(Self.closeArray) { return (steps, elements) }
            while true {
                skipSpace()
                let start = index
                guard skipValue() else { return nil }
                elements.append(start ..< index)
                skipSpace()
                if take(Self.comma) { continue }
                guard take(Self.closeArray) else { return nil }
                return (steps, elements)
            }
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
                default: return
                }
            }
        }

        /// A string's content range, and whether it holds an escape.
        private mutating func string() -> (content: Range<Int>, escaped: Bool)? {
            guard take(Self.quote) else { return nil }
            let start = index
            var escaped = false
            while index < bytes.count {
                switch bytes[index] {
                case Self.quote:
                    index += 1
                    return (start ..< index - 1, escaped)
                case Self.backslash:
                    escaped = true
                    index += 2
                default:
                    index += 1
                }
            }
            return nil
        }

        /// Moves past one value; its validity is JSONSerialization's to check.
        private mutating func skipValue() -> Bool {
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case Self.quote:
                return string() != nil
            case Self.openObject, Self.openArray:
                var depth = 0
                while index < bytes.count {
                    switch bytes[index] {
                    case Self.quote:
                        guard string() != nil else { return false }
                        continue
                    case Self.openObject, Self.openArray:
                        depth += 1
                        // JSONSerialization limits nesting for the whole file; a step parsed alone
                        // would be two levels shallower, so deep steps are left to the whole tree.
                        guard depth <= Self.maximumDepth else { return false }
                    case Self.closeObject, Self.closeArray: depth -= 1
                    default: break
                    }
                    index += 1
                    if depth == 0 { return true }
                }
                return false
            case Self.comma, Self.colon, Self.closeObject, Self.closeArray:
                return false
            default:
                // A number or a literal: up to the next delimiter.
                let start = index
                while index < bytes.count {
                    switch bytes[index] {
                    case Self.comma, Self.closeObject, Self.closeArray, UInt8(ascii: " "), UInt8(ascii: "\t"),
                         UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                        return index > start
                    default: index += 1
                    }
                }
                return index > start
            }
        }
    }
}
