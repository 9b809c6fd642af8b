public import Foundation
import SwiftParser
import SwiftSyntax

/// A file's text with the bodies of its `func`, `init` and `deinit` declarations blanked out, for
/// a file read in outline: its facts are its declarations, never what its bodies do, and most of
/// the parser's time in an app goes into bodies.
///
/// Each byte inside a body's braces becomes a space, line breaks kept, so that every offset and
/// line of the rest is the file's own. The blanking is lexical (comments, strings with their
/// interpolations, raw strings, `#/…/#` regular expressions) and never trusted alone:
/// ``ObserverScan`` parses the result, and uses it only when it parses without error and the fact
/// walk meets each blanked range as exactly the inside of a function's body in that tree
/// (``FactCollector/foundEveryBlankedBody``). Anything else (a bare `/…/` regular expression with
/// a brace in it, text this lexer misreads) makes the file be parsed as it is.
struct BodyBlanker {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    /// The insides of the bodies found: from after `{` to `}`.
    private(set) var bodies: [Range<Int>] = []
    /// How deep strings in interpolations in strings may nest before the blanker gives up.
    static let maximumNesting = 32

    /// The blanked text and the ranges blanked (none when the file declares no function with a
    /// body); nil when the text is not understood (then the file is parsed as it is).
    static func blank(_ bytes: UnsafeRawBufferPointer) -> (text: [UInt8], bodies: [Range<Int>])? {
        var blanker = BodyBlanker(bytes: bytes)
        guard blanker.scan() else { return nil }
        var text = Array(bytes)
        for body in blanker.bodies {
            for offset in body where text[offset] != 0x0A && text[offset] != 0x0D { text[offset] = 0x20 }
        }
        return (text, blanker.bodies)
    }

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    private func byte(_ offset: Int) -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
            || byte == 0x5F || byte >= 0x80
    }

    /// Words that begin another declaration (or a modifier of one): a `func` seen before, with no
    /// `{` yet, had no body (a protocol's requirement).
    private static let declarationWords: Set<[UInt8]> = Set([
        "func", "init", "deinit", "var", "let", "subscript", "case", "typealias", "associatedtype", "class", "struct",
        "enum", "protocol", "extension", "actor", "import", "static", "private", "public", "internal", "fileprivate",
        "open", "override", "final", "mutating", "nonmutating", "convenience", "required", "lazy", "weak", "unowned",
        "dynamic", "indirect", "operator", "precedencegroup", "macro", "nonisolated",
    ].map { Array($0.utf8) })

    private static let funcWord = Array("func".utf8), initWord = Array("init".utf8), deinitWord = Array("deinit".utf8),
                       varWord = Array("var".utf8), letWord = Array("let".utf8), subscriptWord = Array("subscript".utf8)

    /// Words that begin a type's declaration: the next `{` opens its members.
    private static let typeWords: Set<[UInt8]> = Set(["class", "struct", "enum", "protocol", "extension", "actor"]
        .map { Array($0.utf8) })

    /// Walks the declarations; false when the text ends inside a comment, string or body.
    ///
    /// Only functions declared at the top level or among a type's members are blanked: one inside
    /// a closure or an accessor (`lazy var x = { func f() {…} … }()`) is read with it.
    private mutating func scan() -> Bool {
        // After `func`, `init` or `deinit`: the bracket depth its signature started at.
        var pending: Int?
        // After `class`, `struct`…: the bracket depth its declaration started at.
        var pendingType: Int?
        // Whether each `{` open here (outside the bodies skipped) holds a type's members.
        var braces: [Bool] = []
        var nesting = 0
        var previous: UInt8 = 0x20   // the last byte of code seen that is not white space
        while let current = byte(index) {
            switch current {
            case 0x20, 0x09, 0x0A, 0x0D:
                index += 1
                continue
            case 0x2F where byte(index + 1) == 0x2F || byte(index + 1) == 0x2A:   // comment
                guard skipComment() else { return false }
                continue
            case 0x22, 0x23 where startsString():   // " or #"
                guard skipString(depth: 0) else { return false }
            case 0x23 where byte(index + 1) == 0x2F:   // #/regex/#
                guard skipRegex() else { return false }
            case 0x60:   // `identifier`
                index += 1
                while let next = byte(index), next != 0x60, next != 0x0A { index += 1 }
                if index < bytes.count { index += 1 }   // the closing backtick, if the text has one
            case 0x28, 0x5B:   // ( [
                nesting += 1
                index += 1
            case 0x29, 0x5D:   // ) ]
                nesting = max(0, nesting - 1)
                if let start = pending, nesting < start { pending = nil }   // `f(func: x)`: a label
                index += 1
            case 0x7B:   // {
                if let start = pending, start == nesting {
                    pending = nil
                    let open = index
                    guard skipBraces() else { return false }
                    if braces.allSatisfy({ $0 }) { bodies.append(open + 1 ..< index - 1) }
                    previous = 0x7D
                    continue
                }
                braces.append(pendingType == nesting)
                pendingType = nil
                index += 1
            case 0x7D:   // }
                if pending == nesting { pending = nil }
                if pendingType == nesting { pendingType = nil }
                _ = braces.popLast()
                index += 1
            case 0x40, 0x23:   // @attribute, #directive: another declaration's start
                if pending == nesting { pending = nil }
                index += 1
            default:
                guard Self.isIdentifierByte(current) else {
                    index += 1
                    break
                }
                let start = index
                while let next = byte(index), Self.isIdentifierByte(next) { index += 1 }
                // `.init`, `x.func`: a member, not a declaration. Every word this looks for is lowercase.
                guard previous != 0x2E, current >= 0x61, current <= 0x7A, index - start <= 15 else { break }
                let word = Array(bytes[start..<index])
                if pending == nesting, Self.declarationWords.contains(word) { pending = nil }
                if word == Self.funcWord || word == Self.deinitWord || (word == Self.initWord && startsSignature()) {
                    pending = nesting
                    pendingType = nil   // `class func`
                } else if Self.typeWords.contains(word) {
                    pendingType = nesting
                } else if pendingType == nesting, word == Self.varWord || word == Self.letWord || word == Self.subscriptWord {
                    pendingType = nil   // `class var`, `class subscript`
                }
            }
            previous = bytes[index - 1]
        }
        return true
    }

    /// Whether `init` is followed by its parameters (`init(`, `init?(`, `init!(`, `init<T>(`).
    private func startsSignature() -> Bool {
        var offset = index
        while let next = byte(offset), next == 0x20 || next == 0x09 { offset += 1 }
        guard let next = byte(offset) else { return false }
        return next == 0x28 || next == 0x3F || next == 0x21 || next == 0x3C
    }

    /// At `{`: moves past its matching `}`; false when the text ends first.
    private mutating func skipBraces() -> Bool {
        skipBalanced(open: 0x7B, close: 0x7D, depth: 0)
    }

    /// At `open` (`{`, or the `(` of a `\(` interpolation in a string nested `depth` deep): moves past
    /// its matching `close`, stepping over comments, strings and regex literals; false when the text
    /// ends first.
    private mutating func skipBalanced(open: UInt8, close: UInt8, depth: Int) -> Bool {
        var level = 0
        while let current = byte(index) {
            switch current {
            case 0x2F where byte(index + 1) == 0x2F || byte(index + 1) == 0x2A:
                guard skipComment() else { return false }
                continue
            case 0x22, 0x23 where startsString():
                guard skipString(depth: depth) else { return false }
                continue
            case 0x23 where byte(index + 1) == 0x2F:
                guard skipRegex() else { return false }
                continue
            case open:
                level += 1
            case close:
                level -= 1
                if level == 0 {
                    index += 1
                    return true
                }
            default:
                break
            }
            index += 1
        }
        return false
    }

    /// At `//` or `/*`: moves past the comment (block comments nest); false when one never ends.
    private mutating func skipComment() -> Bool {
        if byte(index + 1) == 0x2F {
            while let current = byte(index), current != 0x0A { index += 1 }
            return true
        }
        var depth = 0
        while let current = byte(index) {
            if current == 0x2F, byte(index + 1) == 0x2A {
                depth += 1
                index += 2
            } else if current == 0x2A, byte(index + 1) == 0x2F {
                depth -= 1
                index += 2
                if depth == 0 { return true }
            } else {
                index += 1
            }
        }
        return false
    }

    /// Whether a string starts here: `"`, or `#` repeated then `"`.
    private func startsString() -> Bool {
        var offset = index
        while byte(offset) == 0x23 { offset += 1 }
        return byte(offset) == 0x22
    }

    /// At a string (`"`, `"""`, `#"`, `#"""`…): moves past it, interpolations included.
    private mutating func skipString(depth: Int) -> Bool {
        guard depth < Self.maximumNesting else { return false }
        var hashes = 0
        while byte(index) == 0x23 {
            hashes += 1
            index += 1
        }
        let multiline = byte(index + 1) == 0x22 && byte(index + 2) == 0x22
        index += multiline ? 3 : 1
        while let current = byte(index) {
            if current == 0x5C, delimiter(hashes, at: index + 1) {   // \ then the raw string's #s
                index += 1 + hashes
                if byte(index) == 0x28 {   // \( interpolation )
                    guard skipBalanced(open: 0x28, close: 0x29, depth: depth + 1) else { return false }
                } else {
                    index += 1
                }
                continue
            }
            if current == 0x22, !multiline || (byte(index + 1) == 0x22 && byte(index + 2) == 0x22) {
                let end = index + (multiline ? 3 : 1)
                if delimiter(hashes, at: end) {
                    index = end + hashes
                    return true
                }
            }
            if current == 0x0A, !multiline { return true }   // an unterminated line: the parser says so
            index += 1
        }
        return false
    }

    /// Whether `count` `#` stand at `offset`.
    private func delimiter(_ count: Int, at offset: Int) -> Bool {
        for position in offset ..< offset + count where byte(position) != 0x23 { return false }
        return true
    }

    /// At `#/`: moves past the closing `/#` (extended delimiters with more `#` are matched too).
    private mutating func skipRegex() -> Bool {
        var hashes = 0
        while byte(index) == 0x23 {
            hashes += 1
            index += 1
        }
        index += 1
        while let current = byte(index) {
            if current == 0x5C {
                index += 2
                continue
            }
            if current == 0x2F, delimiter(hashes, at: index + 1) {
                index += 1 + hashes
                return true
            }
            index += 1
        }
        return false
    }
}

/// For tests and the fuzz target: `source` read with its bodies blanked, every body then parsed
/// from the text and walked, against the same file parsed as it is and read whole. `used`: the
/// blanked text was used (it parsed, and its bodies were exactly the ranges blanked).
/// `disagreement`: what differs when it was used and the file parses as it is (a syntax error
/// inside a body is seen only when that body is walked: by design).
@_spi(Fuzzing)
public func outlineWithoutBodiesDisagreement(_ source: Data) -> (used: Bool, disagreement: String?) {
    // What the scan never parses: not UTF-8, or a run of `[` the parser takes exponential time on.
    let (lineCount, brackets) = source.withUnsafeBytes { ObserverScan.lineAndBracketCount($0) }
    guard brackets <= ObserverScan.maximumBracketRun, String(validating: source, as: UTF8.self) != nil else {
        return (false, nil)
    }
    let lines = source.withUnsafeBytes { SourceLines($0) }
    let holdsWords = source.withUnsafeBytes { containsAny($0, of: ObserverScan.observerWords) }
    guard let blanked = ObserverScan.readWithoutBodies(source, path: "outline.swift", lines: lines, lineCount: lineCount,
                                                       holdsWords: holdsWords)
    else { return (false, nil) }
    let tree = source.withUnsafeBytes { raw in
        Parser.parse(source: raw.bindMemory(to: UInt8.self), maximumNestingLevel: ObserverScan.maximumNestingLevel)
    }
    guard !tree.hasError else { return (true, nil) }
    var collector = FactCollector(path: "outline.swift", lines: lines, readsBodies: true, holdsObserverWords: holdsWords)
    collector.collect(tree)
    let whole = collector.facts
    guard let facts = blanked.facts else { return (true, "no facts from the blanked text") }
    // Every body walked: the late ones now.
    func walked(_ types: [TypeDeclFacts]) -> [TypeDeclFacts] {
        types.map { type in
            var type = type
            type.methods = type.methods.map { method in
                var method = method
                method.actions = method.steps
                method.deferred = nil
                return method
            }
            return type
        }
    }
    let (mine, theirs) = (walked(facts.types), walked(whole.types))
    if facts.hasUnparsedLateWalk { return (true, "a body did not parse alone in a file that parses") }
    if mine != theirs { return (true, "types: \(mine) against \(theirs)") }
    if facts.nameConstants != whole.nameConstants {
        return (true, "name constants: \(facts.nameConstants) against \(whole.nameConstants)")
    }
    if facts.looseRegistrations != whole.looseRegistrations { return (true, "loose registrations differ") }
    let truncated = blanked.warning != nil || facts.hasTruncatedLateWalk
    if truncated != collector.truncated { return (true, "truncation differs") }
    return (true, nil)
}
