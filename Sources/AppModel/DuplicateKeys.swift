import Foundation

/// Finds a key that appears twice in one object of a JSON text, which `JSONSerialization` reads
/// silently as the last one: in a scenario, where unknown keys are refused, a repeated `steps` or
/// `observers` would drop the first without a word.
///
/// One pass over the bytes, keeping the keys of the objects open at the point reached. Text that
/// is not JSON ends the search (`nil`): the parser then says what is wrong with it.
enum DuplicateKeys {
    private enum Frame {
        /// An object: the keys seen, the last key read, whether a key comes next.
        case object(keys: Set<String>, key: String?, expectingKey: Bool)
        /// An array: the index of the element being read.
        case array(index: Int)
    }

    /// The path of the first repeated key (`screens.Home.observers`, `steps[2].wait`), `nil` when
    /// every object's keys differ or the text is not JSON.
    static func first(in data: Data) -> String? {
        data.withUnsafeBytes { raw in first(in: raw.bindMemory(to: UInt8.self)) }
    }

    private static func first(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var stack: [Frame] = []
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                stack.append(.object(keys: [], key: nil, expectingKey: true))
            case UInt8(ascii: "["):
                stack.append(.array(index: 0))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard stack.popLast() != nil else { return nil }
            case UInt8(ascii: ","):
                switch stack.last {
                case .object(let keys, let key, _)?: stack[stack.count - 1] = .object(keys: keys, key: key, expectingKey: true)
                case .array(let element)?: stack[stack.count - 1] = .array(index: element + 1)
                case nil: return nil
                }
            case UInt8(ascii: "\""):
                guard let end = stringEnd(bytes, from: index) else { return nil }
                if case .object(var keys, _, true)? = stack.last {
                    guard let key = decodedString(UnsafeBufferPointer(rebasing: bytes[index...end])) else { return nil }
                    if !keys.insert(key).inserted {
                        return path(stack.dropLast(), key)
                    }
                    stack[stack.count - 1] = .object(keys: keys, key: key, expectingKey: false)
                }
                index = end
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The index of the quote that closes the string opening at `start`, `nil` when none does.
    private static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index
            default: index += 1
            }
        }
        return nil
    }

    /// The string a quoted JSON string literal stands for (escapes decoded).
    private static func decodedString(_ literal: UnsafeBufferPointer<UInt8>) -> String? {
        let inner = UnsafeBufferPointer(rebasing: literal[(literal.startIndex + 1)..<(literal.endIndex - 1)])
        guard inner.contains(UInt8(ascii: "\\")) else { return String(decoding: inner, as: UTF8.self) }
        let array = Data([UInt8(ascii: "[")] + Array(literal) + [UInt8(ascii: "]")])
        return (try? JSONSerialization.jsonObject(with: array) as? [String])?.first
    }

    /// `key`'s path inside the frames open around its object.
    private static func path(_ frames: ArraySlice<Frame>, _ key: String) -> String {
        var path = ""
        for frame in frames {
            switch frame {
            case .object(_, let name, _): path += (path.isEmpty ? "" : ".") + (name ?? "")
            case .array(let element): path += "[\(element)]"
            }
        }
        return path.isEmpty ? key : path + "." + key
    }
}
