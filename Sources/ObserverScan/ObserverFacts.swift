import SwiftParser
import SwiftSyntax
import Synchronization

// What the scanner reads out of one Swift file, before any type is resolved: the raw facts.
// Names are kept as written; ObserverModel resolves them across files.

/// A place in a scanned file.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The path as the report shows it (relative to `--source-root` when the file is under it).
    public var file: String
    /// 1-based.
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var description: String { "\(file):\(line)" }

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.file, lhs.line) < (rhs.file, rhs.line) }
}

/// A notification name as written in the source.
enum NameExpression: Sendable, Hashable {
    /// A member or constant: `UIResponder.keyboardWillShowNotification`, `.didLogin`, `NSNotification.Name.UIKeyboardWillShow`.
    case member(String)
    /// A string literal wrapped in `Notification.Name("…")` or `Notification.Name(rawValue: "…")`.
    case literal(String)
    /// SF-0011's message type: `for: KeyboardWillShow.self`.
    case messageType(String)
    /// A bare identifier: a global constant (`didLoginNotification`, `UIKeyboardWillShowNotification`) or a variable.
    case bare(String)
    /// `name: nil`: every name.
    case every
    /// Anything else: a variable, a call, an interpolation. Kept as text for the note.
    case dynamic(String)
}

/// How a block's closure holds `self`.
enum CaptureFact: Sendable, Hashable {
    case weak, unowned
    /// `[self]` or no capture list: strong if the body refers to `self` or to a member of the type.
    case implicit(identifiers: Set<String>, mentionsSelf: Bool)
    /// `assign(to:on: self)`: strong, whatever the body.
    case strong
}

/// Where a registration's result goes.
enum TokenDestination: Sendable, Hashable {
    /// A property of the type: `self.observer = …`, `observer = …`.
    case property(String)
    /// Appended to (or stored in) a collection property: `observers.append(…)`, `.store(in: &cancellables)`.
    case collection(String)
    /// `_ = …`, a bare call, or a local that goes nowhere.
    case discarded
    /// `return center.addObserver(…)`: the caller keeps it, which the scanner does not follow.
    case returned
}

/// The observer kinds the scanner recognises.
enum RegistrationKind: Sendable, Hashable {
    /// `addObserver(self, selector: #selector(m), name:, object:)`.
    case selector(method: String)
    /// `addObserver(forName:object:queue:using:)`.
    case block
    /// SF-0011: `addObserver(of:for:)` / `addObserver(for:)`.
    case typedToken
    /// `for await _ in center.notifications(named:)` inside a `Task`.
    case asyncLoop
    /// `publisher(for:)` … `.sink` / `.assign(to:on:)`.
    case combine
}

/// One observer registration in a method body.
struct RegistrationFact: Sendable, Hashable {
    var kind: RegistrationKind
    var name: NameExpression
    var capture: CaptureFact?
    var destination: TokenDestination
    /// `addObserver(self, …)`: false when the observer is another object (`addObserver(helper, …)`).
    var observerIsSelf: Bool
    var location: SourceLocation
    /// The enclosing `if`/`guard`/`switch` conditions, innermost last, as written.
    var conditions: [String]
    /// An `async` function's loop not inside a `Task { }`: its lifetime is the caller's.
    var outsideTask = false
}

/// One removal (or release of a registration) in a method body.
enum RemovalTarget: Sendable, Hashable {
    /// `removeObserver(self)`.
    case owner
    /// `removeObserver(self, name: N, object:)`.
    case name(NameExpression)
    /// `removeObserver(property)`, `property.cancel()`.
    case token(String)
    /// `removeObserver(property, name: N, object:)`: removes the registration only if it is of N.
    case tokenNamed(String, NameExpression)
    /// `for o in collection { removeObserver(o) }`, `collection.forEach { $0.cancel() }`.
    case collection(String)
    /// `property = nil`, `collection.removeAll()`, `collection = []`.
    case drop(String)
    /// `removeObserver(x)` with something the scanner cannot follow.
    case unknown(String)
}

struct RemovalFact: Sendable, Hashable {
    var target: RemovalTarget
    var location: SourceLocation
    var conditions: [String]
    /// A call of the center's `removeObserver`, not a token's `cancel()` or a property let go of.
    var throughCenter = false
}

/// One step of a method body, in source order.
enum MethodAction: Sendable, Hashable {
    case register(RegistrationFact)
    case remove(RemovalFact)
    /// A call of a method of `self` (explicit or implicit): its base name and argument labels.
    case call(name: String, labels: [String], location: SourceLocation, conditions: [String])
    /// `super.name(…)`.
    case superCall(name: String)
}

/// A method, initializer or deinitializer of a type or extension.
struct MethodFacts: Sendable, Hashable {
    /// `viewWillAppear`, `init`, `deinit`, `didMoveToWindow`, …
    var name: String
    /// Argument labels, `_` for none.
    var labels: [String]
    var isStatic: Bool
    var location: SourceLocation
    /// What the body does, when it was walked as it was read (``deferred`` nil).
    var actions: [MethodAction]
    /// A body with no observer word in it, walked only when the model follows a call into it.
    var deferred: DeferredBody? = nil

    /// What the body does: ``actions``, or the deferred body walked now (once).
    var steps: [MethodAction] { deferred?.actions ?? actions }
}

/// A method body whose walk waits until the model needs it: it has no observer word, so it can
/// register nothing and remove nothing through the center, and only matters when a lifecycle
/// moment reaches it (its calls, `super` calls, tokens let go of). Most methods of an app never are.
/// Walked at most once, by whichever thread asks first.
///
/// The body is a node of the file's kept tree, or, in a file read with its bodies blanked
/// (``BodyBlanker``), a range of the file's text, parsed when it is walked.
final class DeferredBody: Sendable, Hashable {
    private enum Body: Sendable {
        case node(Syntax)
        /// The offsets of its `{` and `}` in `text.source`.
        case text(BlankedText, open: Int, close: Int)
    }
    private let body: Body
    private let path: String
    private let lines: SourceLines
    private let depth: Int
    private let walked = Mutex<Walked?>(nil)

    private struct Walked: Sendable {
        var actions: [MethodAction]
        var truncated: Bool
        /// The body's text did not parse on its own (a syntax error in it).
        var unparsed: Bool
    }

    init(body: Syntax, path: String, lines: SourceLines, depth: Int) {
        self.body = .node(body)
        self.path = path
        self.lines = lines
        self.depth = depth
    }

    init(text: BlankedText, open: Int, close: Int, path: String, lines: SourceLines, depth: Int) {
        self.body = .text(text, open: open, close: close)
        self.path = path
        self.lines = lines
        self.depth = depth
    }

    var actions: [MethodAction] { walk().actions }

    /// Whether the walk, if it ran, stopped at ``FactCollector/maximumDepth``.
    var truncated: Bool { walked.withLock { $0?.truncated ?? false } }

    /// Whether the walk, if it ran, found that the body's text does not parse.
    var unparsed: Bool { walked.withLock { $0?.unparsed ?? false } }

    private func walk() -> Walked {
        walked.withLock { state in
            if let state { return state }
            var walker = BodyWalker(path: path, lines: lines)
            var unparsed = false
            switch body {
            case .node(let node):
                walker.walk(node, depth: depth)
            case .text(let text, let open, let close):
                if let (block, shift) = text.block(open: open, close: close) {
                    walker = BodyWalker(path: path, lines: lines.shifted(by: shift))
                    walker.walk(Syntax(block), depth: depth)
                } else {
                    unparsed = true
                }
            }
            let result = Walked(actions: walker.actions, truncated: walker.truncated, unparsed: unparsed)
            state = result
            return result
        }
    }

    static func == (lhs: DeferredBody, rhs: DeferredBody) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The text of a file read with its bodies blanked (``BodyBlanker``), kept for the bodies walked late.
final class BlankedText: Sendable {
    let source: [UInt8]
    /// The blanked bodies: the offset of each `{` and of its `}`.
    let bodies: [Int: Int]

    init(source: [UInt8], bodies: [Range<Int>]) {
        self.source = source
        self.bodies = Dictionary(bodies.map { ($0.lowerBound - 1, $0.upperBound) }, uniquingKeysWith: { first, _ in first })
    }

    /// The body from `{` at `open` to `}` at `close`, parsed alone behind `func f()`, so that it
    /// parses as a function's and is walked as the function's own, with how far its offsets are
    /// from the file's. Nil when it does not parse, or not as that one body.
    func block(open: Int, close: Int) -> (block: CodeBlockSyntax, shift: Int)? {
        let signature = Array("func f()".utf8)
        guard open < close, close < source.count else { return nil }
        let text = signature + source[open...close]
        let tree = text.withUnsafeBufferPointer { Parser.parse(source: $0, maximumNestingLevel: ObserverScan.maximumNestingLevel) }
        guard !tree.hasError, tree.statements.count == 1,
              let block = tree.statements.first?.item.as(FunctionDeclSyntax.self)?.body,
              block.leftBrace.positionAfterSkippingLeadingTrivia.utf8Offset == signature.count,
              block.rightBrace.positionAfterSkippingLeadingTrivia.utf8Offset == signature.count + close - open
        else { return nil }
        return (block, open - signature.count)
    }
}

/// A class, struct, enum, actor, protocol or extension declaration.
struct TypeDeclFacts: Sendable, Hashable {
    enum Kind: Sendable, Hashable { case `class`, `struct`, `enum`, actor, `protocol`, `extension` }
    var kind: Kind
    /// Qualified by enclosing types: `Outer.Inner`. For an extension, the extended type as written.
    var name: String
    /// Inherited types as written (superclass first for a class, by Swift's rule).
    var inherited: [String]
    /// For a protocol extension: its `where Self: X` requirements.
    var selfConstraints: [String]
    var location: SourceLocation
    var methods: [MethodFacts]
    /// Stored and computed properties: names, with whether the declared type looks like a collection.
    var properties: [String: Bool]
    /// The types its stored properties hold, as written (`KeyboardHelper` for `let helper = KeyboardHelper()`
    /// or `var helper: KeyboardHelper?`): who owns whom.
    var propertyTypes: Set<String> = []
    /// Has `static let shared` / `static var shared` / `static let default`: a singleton that lives for ever.
    var isSingleton: Bool

    init(kind: Kind, name: String, inherited: [String], selfConstraints: [String], location: SourceLocation,
         methods: [MethodFacts], properties: [String: Bool], isSingleton: Bool) {
        self.kind = kind
        self.name = name
        self.inherited = inherited
        self.selfConstraints = selfConstraints
        self.location = location
        self.methods = methods
        self.properties = properties
        self.isSingleton = isSingleton
    }
}

/// A `Notification.Name` constant defined in the code: `static let didLogin = Notification.Name("didLogin")`.
struct NameConstant: Sendable, Hashable {
    var identifier: String
    var value: String?
}

/// Everything read from one file.
struct FileFacts: Sendable {
    var path: String
    /// False for a file read in outline only (``FactCollector/readsBodies``): its types have no methods.
    var readsBodies = true
    var types: [TypeDeclFacts] = []
    var nameConstants: [NameConstant] = []
    /// Registrations outside any type (top-level code, free functions): noted, not modelled.
    var looseRegistrations: [SourceLocation] = []

    /// Whether a body walked late (``DeferredBody``) stopped at the depth bound.
    var hasTruncatedLateWalk: Bool {
        types.contains { $0.methods.contains { $0.deferred?.truncated == true } }
    }

    /// Whether a body walked late, parsed then from the file's text, did not parse.
    var hasUnparsedLateWalk: Bool {
        types.contains { $0.methods.contains { $0.deferred?.unparsed == true } }
    }
}
