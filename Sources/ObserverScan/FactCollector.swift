import Foundation
import SwiftSyntax

/// Reads the observer facts of one parsed file: its types, their methods' registrations,
/// removals and calls in source order, and the `Notification.Name` constants it defines.
///
/// The walk is recursive and bounded by ``maximumDepth``: a tree deeper than that (a
/// member chain of a hundred thousand links) is read down to the bound and the file is
/// reported as partly read, never a stack overflow.
struct FactCollector {
    /// How deep the walk descends into a tree.
    static let maximumDepth = 1_500

    let path: String
    let lines: SourceLines
    /// Whether method bodies, property initializers and top-level code are read. Without them
    /// (a file with no observer code in it, ``ObserverScan/observerWords``) only the types'
    /// outlines are: names, what they inherit, properties, name constants.
    let readsBodies: Bool
    var facts: FileFacts
    /// Set when the walk stopped at ``maximumDepth`` somewhere.
    private(set) var truncated = false

    /// The file's bytes, when method bodies without an observer word may wait (``DeferredBody``):
    /// the tree is kept alive until the model is made.
    let source: [UInt8]?

    /// The file's text, when the tree read is of that text with its bodies blanked (``BodyBlanker``):
    /// a blanked body is parsed from it when the model reaches it.
    let blanked: BlankedText?
    /// The `{` of each blanked body met, as an empty body of a function, initializer or
    /// deinitializer of the tree, from its `{` to its `}` (``foundEveryBlankedBody``).
    private var blankedFound: Set<Int> = []

    /// Whether every range blanked was met as exactly a function's body: the blanking is then
    /// trusted (else the file is parsed as it is).
    var foundEveryBlankedBody: Bool { blankedFound.count == (blanked?.bodies.count ?? 0) }

    private mutating func found(_ body: CodeBlockSyntax?) {
        guard let blanked, let body, body.statements.isEmpty, body.rightBrace.presence == .present else { return }
        let open = body.leftBrace.positionAfterSkippingLeadingTrivia.utf8Offset
        if blanked.bodies[open] == body.rightBrace.positionAfterSkippingLeadingTrivia.utf8Offset {
            blankedFound.insert(open)
        }
    }

    /// Whether the file holds one of ``ObserverScan/observerWords``: without them, a computed
    /// property's getter cannot register (the only reason it is walked) and is not.
    let holdsObserverWords: Bool

    init(path: String, lines: SourceLines, readsBodies: Bool = true, deferringWith source: [UInt8]? = nil,
         blanked: BlankedText? = nil, holdsObserverWords: Bool = true) {
        self.path = path
        self.lines = lines
        self.readsBodies = readsBodies
        self.holdsObserverWords = holdsObserverWords
        self.source = source
        self.blanked = blanked
        self.facts = FileFacts(path: path, readsBodies: readsBodies)
    }

    mutating func collect(_ tree: SourceFileSyntax) {
        for item in tree.statements { declaration(Syntax(item.item), scope: [], depth: 0) }
    }

    func location(_ node: some SyntaxProtocol) -> SourceLocation {
        SourceLocation(file: path, line: lines.line(at: node.positionAfterSkippingLeadingTrivia.utf8Offset))
    }

    // MARK: Declarations

    private mutating func declaration(_ node: Syntax, scope: [String], depth: Int) {
        guard depth < Self.maximumDepth else { truncated = true; return }
        if let decl = node.as(ClassDeclSyntax.self) {
            typeDecl(.class, name: decl.name.text, inherited: decl.inheritanceClause, members: decl.memberBlock, node: decl,
                     scope: scope, depth: depth)
        } else if let decl = node.as(StructDeclSyntax.self) {
            typeDecl(.struct, name: decl.name.text, inherited: decl.inheritanceClause, members: decl.memberBlock, node: decl,
                     scope: scope, depth: depth)
        } else if let decl = node.as(EnumDeclSyntax.self) {
            typeDecl(.enum, name: decl.name.text, inherited: decl.inheritanceClause, members: decl.memberBlock, node: decl,
                     scope: scope, depth: depth)
        } else if let decl = node.as(ActorDeclSyntax.self) {
            typeDecl(.actor, name: decl.name.text, inherited: decl.inheritanceClause, members: decl.memberBlock, node: decl,
                     scope: scope, depth: depth)
        } else if let decl = node.as(ProtocolDeclSyntax.self) {
            typeDecl(.protocol, name: decl.name.text, inherited: decl.inheritanceClause, members: decl.memberBlock, node: decl,
                     scope: scope, depth: depth)
        } else if let decl = node.as(ExtensionDeclSyntax.self) {
            let extended = Self.typeName(decl.extendedType.trimmedText)
            var constraints: [String] = []
            for requirement in decl.genericWhereClause?.requirements ?? [] {
                if case .conformanceRequirement(let conformance) = requirement.requirement,
                   conformance.leftType.trimmedText == "Self" {
                    constraints.append(Self.typeName(conformance.rightType.trimmedText))
                }
            }
            typeDecl(.extension, name: extended, inherited: decl.inheritanceClause, members: decl.memberBlock, node: decl,
                     scope: [], depth: depth, constraints: constraints)
        } else if let decl = node.as(VariableDeclSyntax.self), scope.isEmpty {
            // A global constant: `let didLoginNotification = Notification.Name("didLogin")`.
            nameConstants(decl)
        } else if let block = node.as(IfConfigDeclSyntax.self) {
            // `#if os(iOS)`: every branch is read; a type declared in two branches is merged.
            for clause in block.clauses {
                switch clause.elements {
                case .statements(let items)?: for item in items { declaration(Syntax(item.item), scope: scope, depth: depth + 1) }
                case .decls(let members)?: for member in members { declaration(Syntax(member.decl), scope: scope, depth: depth + 1) }
                default: break
                }
            }
        } else if let initializer = node.as(InitializerDeclSyntax.self) {
            // Inside `#if` among a type's members: not read as the type's, as a function there is not.
            found(initializer.body)
        } else if let deinitializer = node.as(DeinitializerDeclSyntax.self) {
            found(deinitializer.body)
        } else if readsBodies, node.is(FunctionDeclSyntax.self) || node.is(CodeBlockItemSyntax.self)
                    || node.kind == .expressionStmt || node.is(ExprSyntax.self) {
            // Free functions and top-level code: a registration there has no type to model.
            var loose = BodyWalker(collector: self)
            loose.walk(node, depth: depth)
            truncated = truncated || loose.truncated
            for case .register(let registration) in loose.actions { facts.looseRegistrations.append(registration.location) }
            // A free function's blanked body, parsed now from the text, to be read as the rest is.
            if let blanked, let body = node.as(FunctionDeclSyntax.self)?.body,
               case let open = body.leftBrace.positionAfterSkippingLeadingTrivia.utf8Offset, let close = blanked.bodies[open] {
                found(body)
                guard let (block, shift) = blanked.block(open: open, close: close) else { return }
                var inside = BodyWalker(path: path, lines: lines.shifted(by: shift))
                inside.walk(Syntax(block), depth: depth + 1)
                truncated = truncated || inside.truncated
                for case .register(let registration) in inside.actions { facts.looseRegistrations.append(registration.location) }
            }
        }
    }

    private mutating func typeDecl(_ kind: TypeDeclFacts.Kind, name: String, inherited: InheritanceClauseSyntax?,
                                   members: MemberBlockSyntax, node: some SyntaxProtocol, scope: [String], depth: Int,
                                   constraints: [String] = []) {
        let qualified = (scope + [name]).joined(separator: ".")
        var type = TypeDeclFacts(kind: kind, name: qualified,
                                 inherited: inherited?.inheritedTypes.map { Self.typeName($0.type.trimmedText) } ?? [],
                                 selfConstraints: constraints, location: location(node), methods: [], properties: [:],
                                 isSingleton: false)
        var initializers: [MethodAction] = []
        let isNameExtension = kind == .extension && Self.isNotificationNameType(name)
        // The model runs classes (and actors) only: a struct's or enum's members matter for the name
        // constants and the types nested in them, not for their bodies or properties (most of a
        // SwiftUI app). In outline, a class's properties are not read either: a class the journeys
        // run has its files read again, whole.
        let readsMembers = readsBodies && kind != .struct && kind != .enum
        for member in members.members {
            let decl = member.decl
            if !readsMembers, decl.is(FunctionDeclSyntax.self) || decl.is(InitializerDeclSyntax.self)
                || decl.is(DeinitializerDeclSyntax.self) {
                if blanked != nil {
                    found(decl.as(FunctionDeclSyntax.self)?.body ?? decl.as(InitializerDeclSyntax.self)?.body
                          ?? decl.as(DeinitializerDeclSyntax.self)?.body)
                }
                continue
            }
            if !readsMembers, let variable = decl.as(VariableDeclSyntax.self) {
                // Name constants only: `static let didLogin = Notification.Name(…)`, or any property of
                // an extension of `Notification.Name`.
                guard isNameExtension || variable.modifiers.contains(where: { ["static", "class"].contains($0.name.text) })
                else { continue }
                for binding in variable.bindings where isNameExtension || Self.looksLikeNameConstant(binding) {
                    guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
                    facts.nameConstants.append(NameConstant(identifier: identifier, value: Self.literalValue(binding)))
                }
                continue
            }
            if let function = decl.as(FunctionDeclSyntax.self) {
                let labels = function.signature.parameterClause.parameters.map { $0.firstName.text }
                type.methods.append(method(function.name.text, labels: labels,
                                           isStatic: function.modifiers.contains { ["static", "class"].contains($0.name.text) },
                                           body: function.body, node: function, depth: depth))
            } else if let initializer = decl.as(InitializerDeclSyntax.self) {
                let labels = initializer.signature.parameterClause.parameters.map { $0.firstName.text }
                type.methods.append(method("init", labels: labels, isStatic: false, body: initializer.body, node: initializer,
                                           depth: depth))
            } else if let deinitializer = decl.as(DeinitializerDeclSyntax.self) {
                type.methods.append(method("deinit", labels: [], isStatic: false, body: deinitializer.body, node: deinitializer,
                                           depth: depth))
            } else if let variable = decl.as(VariableDeclSyntax.self) {
                let isStatic = variable.modifiers.contains { ["static", "class"].contains($0.name.text) }
                for binding in variable.bindings {
                    guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
                    if isStatic, ["shared", "default", "sharedInstance", "instance", "current"].contains(identifier) {
                        type.isSingleton = true
                    }
                    if isStatic || isNameExtension {
                        if isNameExtension || Self.looksLikeNameConstant(binding) {
                            facts.nameConstants.append(NameConstant(identifier: identifier, value: Self.literalValue(binding)))
                        }
                        continue
                    }
                    type.properties[identifier] = Self.looksLikeCollection(binding)
                    if let annotation = binding.typeAnnotation?.type.trimmedText {
                        type.propertyTypes.insert(Self.typeName(annotation))
                    } else if let call = binding.initializer?.value.as(FunctionCallExprSyntax.self) {
                        type.propertyTypes.insert(Self.typeName(call.calledExpression.trimmedText))
                    }
                    // A stored property's initial value runs at init: `let observer = center.addObserver(…)`.
                    if readsBodies, let value = binding.initializer?.value {
                        var walker = BodyWalker(collector: self, propertyInitializer: identifier)
                        walker.walk(Syntax(value), depth: depth + 1)
                        truncated = truncated || walker.truncated
                        initializers.append(contentsOf: walker.actions)
                    }
                    // A computed property's getter: calls in it are followed like a method's.
                    if readsBodies, holdsObserverWords, let accessors = binding.accessorBlock {
                        var walker = BodyWalker(collector: self)
                        walker.walk(Syntax(accessors), depth: depth + 1)
                        truncated = truncated || walker.truncated
                        if walker.actions.contains(where: { if case .register = $0 { true } else { false } }) {
                            type.methods.append(MethodFacts(name: identifier, labels: [], isStatic: false,
                                                            location: location(binding), actions: walker.actions))
                        }
                    }
                }
            } else {
                declaration(Syntax(decl), scope: kind == .extension ? [name] : scope + [name], depth: depth + 1)
            }
        }
        if !initializers.isEmpty {
            type.methods.append(MethodFacts(name: ObserverModel.propertyInitializers, labels: [], isStatic: false,
                                            location: type.location, actions: initializers))
        }
        facts.types.append(type)
    }

    private mutating func method(_ name: String, labels: [String], isStatic: Bool, body: CodeBlockSyntax?,
                                 node: some SyntaxProtocol, depth: Int) -> MethodFacts {
        if let blanked, let body, case let open = body.leftBrace.positionAfterSkippingLeadingTrivia.utf8Offset,
           let close = blanked.bodies[open] {
            found(body)
            return MethodFacts(name: name, labels: labels, isStatic: isStatic, location: location(node), actions: [],
                               deferred: DeferredBody(text: blanked, open: open, close: close, path: path, lines: lines,
                                                      depth: depth + 1))
        }
        if let source, let body {
            let start = body.position.utf8Offset, end = body.endPosition.utf8Offset
            if start >= 0, start <= end, end <= source.count,
               !source[start..<end].withUnsafeBytes({ containsAny($0, of: ObserverScan.observerWords) }) {
                return MethodFacts(name: name, labels: labels, isStatic: isStatic, location: location(node), actions: [],
                                   deferred: DeferredBody(body: Syntax(body), path: path, lines: lines, depth: depth + 1))
            }
        }
        var walker = BodyWalker(collector: self)
        if let body { walker.walk(Syntax(body), depth: depth + 1) }
        truncated = truncated || walker.truncated
        return MethodFacts(name: name, labels: labels, isStatic: isStatic, location: location(node), actions: walker.actions)
    }

    private mutating func nameConstants(_ decl: VariableDeclSyntax) {
        for binding in decl.bindings where Self.looksLikeNameConstant(binding) {
            guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
            facts.nameConstants.append(NameConstant(identifier: identifier, value: Self.literalValue(binding)))
        }
    }

    // MARK: Helpers

    /// `Foo<Bar>` → `Foo`, `Module.Foo` stays, `Foo?` → `Foo`.
    static func typeName(_ text: String) -> String {
        var name = text
        if let angle = name.firstIndex(of: "<") { name = String(name[..<angle]) }
        name = name.trimming(["?", "!", " "])
        return name
    }

    static func isNotificationNameType(_ name: String) -> Bool {
        ["Notification.Name", "NSNotification.Name", "Foundation.Notification.Name"].contains(name)
    }

    /// `static let x = Notification.Name("…")`, `let x: Notification.Name = …`, `let x = NSNotification.Name(rawValue: …)`.
    static func looksLikeNameConstant(_ binding: PatternBindingSyntax) -> Bool {
        if let annotation = binding.typeAnnotation?.type.trimmedText, isNotificationNameType(annotation) { return true }
        guard let call = binding.initializer?.value.as(FunctionCallExprSyntax.self) else { return false }
        return isNotificationNameType(call.calledExpression.trimmedText)
    }

    static func literalValue(_ binding: PatternBindingSyntax) -> String? {
        guard let value = binding.initializer?.value else { return nil }
        if let call = value.as(FunctionCallExprSyntax.self), let first = call.arguments.first {
            return stringLiteral(first.expression)
        }
        return stringLiteral(value)
    }

    /// The value of a string literal without interpolation.
    static func stringLiteral(_ expression: ExprSyntax) -> String? {
        guard let literal = expression.as(StringLiteralExprSyntax.self) else { return nil }
        var text = ""
        for segment in literal.segments {
            guard let string = segment.as(StringSegmentSyntax.self) else { return nil }
            text += string.content.text
        }
        return text
    }

    static func looksLikeCollection(_ binding: PatternBindingSyntax) -> Bool {
        if let type = binding.typeAnnotation?.type.trimmedText {
            let bare = typeName(type)
            if type.hasPrefix("[") || ["Set", "Array", "ContiguousArray"].contains(bare) { return true }
        }
        if let value = binding.initializer?.value {
            if value.is(ArrayExprSyntax.self) || value.is(DictionaryExprSyntax.self) { return true }
            if let call = value.as(FunctionCallExprSyntax.self) {
                let called = typeName(call.calledExpression.trimmedText)
                if called.hasPrefix("[") || ["Set", "Array"].contains(called) { return true }
            }
        }
        return false
    }
}
