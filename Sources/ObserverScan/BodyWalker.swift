import Foundation
import SwiftSyntax

/// Walks one method body in source order and lists its observer registrations, removals and
/// calls of the type's own methods, each with the conditions it stands under.
struct BodyWalker {
    let path: String
    let lines: SourceLines
    /// The conditions the statement being walked stands under, innermost last. Their text is made
    /// only when a fact records them (``conditions``): most bodies register nothing, and making the
    /// text of every `if` of an app was a tenth of its scan.
    private var pending: [PendingCondition] = [] {
        didSet { conditionsText = nil }
    }
    /// ``conditions`` until `pending` changes: the calls of one block share it.
    private var conditionsText: [String]?
    /// The conditions' text, as a fact records them.
    var conditions: [String] {
        mutating get {
            if let conditionsText { return conditionsText }
            let text = pending.map(\.text)
            conditionsText = text
            return text
        }
    }
    /// Set when the body is a stored property's initial value: a registration there goes to that property.
    let propertyInitializer: String?
    private(set) var actions: [MethodAction] = []
    private(set) var truncated = false
    /// Locals that hold a registration, by name: the index of the registration in `actions`.
    private var localRegistrations: [String: Int] = [:]

    init(collector: FactCollector, propertyInitializer: String? = nil) {
        self.init(path: collector.path, lines: collector.lines, propertyInitializer: propertyInitializer)
    }

    init(path: String, lines: SourceLines, propertyInitializer: String? = nil) {
        self.path = path
        self.lines = lines
        self.propertyInitializer = propertyInitializer
    }

    func location(_ node: some SyntaxProtocol) -> SourceLocation {
        SourceLocation(file: path, line: lines.line(at: node.positionAfterSkippingLeadingTrivia.utf8Offset))
    }

    mutating func walk(_ node: Syntax, depth: Int) {
        guard depth < FactCollector.maximumDepth else { truncated = true; return }
        if let ifExpr = node.as(IfExprSyntax.self) {
            for condition in ifExpr.conditions { walk(Syntax(condition), depth: depth + 1) }
            pending.append(PendingCondition(prefix: "if ", node: Syntax(ifExpr.conditions)))
            walk(Syntax(ifExpr.body), depth: depth + 1)
            pending.removeLast()
            if let elseBody = ifExpr.elseBody {
                pending.append(PendingCondition(prefix: "else of if ", node: Syntax(ifExpr.conditions)))
                walk(Syntax(elseBody), depth: depth + 1)
                pending.removeLast()
            }
            return
        }
        if let guardStmt = node.as(GuardStmtSyntax.self) {
            for condition in guardStmt.conditions { walk(Syntax(condition), depth: depth + 1) }
            pending.append(PendingCondition(prefix: "else of guard ", node: Syntax(guardStmt.conditions)))
            walk(Syntax(guardStmt.body), depth: depth + 1)
            pending.removeLast()
            return
        }
        if let statements = node.as(CodeBlockItemListSyntax.self) {
            // What follows `guard c else { return }` (or `if !c { return }`) in a block runs only when the
            // exit was not taken: it stands under that condition too.
            let depthBefore = pending.count
            for item in statements {
                walk(Syntax(item), depth: depth + 1)
                if let exit = Self.earlyExitCondition(item.item) { pending.append(exit) }
            }
            pending.removeLast(pending.count - depthBefore)
            return
        }
        if let switchCase = node.as(SwitchCaseSyntax.self) {
            pending.append(PendingCondition(prefix: "", node: Syntax(switchCase.label)))
            for statement in switchCase.statements { walk(Syntax(statement), depth: depth + 1) }
            pending.removeLast()
            return
        }
        if let call = node.as(FunctionCallExprSyntax.self) {
            self.call(call)
        } else if let sequence = node.as(SequenceExprSyntax.self) {
            assignment(sequence)
        }
        // A token has nothing below it: about half the nodes of a body, not worth a call each.
        for child in node.children(viewMode: .sourceAccurate) where !child.is(TokenSyntax.self) { walk(child, depth: depth + 1) }
    }

    /// The condition the statements after `item` stand under when `item` is an early exit:
    /// `guard c else { return }` gives `guard c`, `if c { return }` (no `else`) gives `else of if c`.
    static func earlyExitCondition(_ item: CodeBlockItemSyntax.Item) -> PendingCondition? {
        func exits(_ block: CodeBlockSyntax) -> Bool {
            guard let last = block.statements.last?.item else { return false }
            if let statement = last.as(StmtSyntax.self) {
                return statement.is(ReturnStmtSyntax.self) || statement.is(ThrowStmtSyntax.self)
                    || statement.is(ContinueStmtSyntax.self) || statement.is(BreakStmtSyntax.self)
            }
            if let expression = last.as(ExpressionStmtSyntax.self)?.expression ?? last.as(ExprSyntax.self),
               let call = expression.as(FunctionCallExprSyntax.self) {
                return ["fatalError", "preconditionFailure"].contains(call.calledExpression.trimmedText)
            }
            return false
        }
        if let guardStmt = item.as(StmtSyntax.self)?.as(GuardStmtSyntax.self) {
            return PendingCondition(prefix: "guard ", node: Syntax(guardStmt.conditions))
        }
        let ifExpr = item.as(ExprSyntax.self)?.as(IfExprSyntax.self)
            ?? item.as(StmtSyntax.self)?.as(ExpressionStmtSyntax.self)?.expression.as(IfExprSyntax.self)
        if let ifExpr, ifExpr.elseBody == nil, exits(ifExpr.body) {
            return PendingCondition(prefix: "else of if ", node: Syntax(ifExpr.conditions))
        }
        return nil
    }

    /// A condition a statement stands under: its text is `prefix` and the node's, shortened.
    struct PendingCondition {
        let prefix: String
        let node: Syntax
        var text: String { prefix + BodyWalker.short(node.trimmedText) }
    }

    static func short(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).map { $0.trimming(.whitespaces) }.joined(separator: " ")
        return flat.count > 80 ? String(flat.prefix(77)) + "…" : flat
    }

    // MARK: Calls

    private mutating func call(_ call: FunctionCallExprSyntax) {
        // The name first: the receiver's text is made only for the names a center answers to, and
        // `self` or `super` are told by the tree (most calls of an app are on other receivers).
        let name: String
        var base: ExprSyntax?
        var implicitMember = false
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self) {
            name = member.declName.baseName.text
            base = member.base
            implicitMember = base == nil
        } else if let reference = call.calledExpression.as(DeclReferenceExprSyntax.self) {
            name = reference.baseName.text
        } else {
            return
        }
        let labels = call.arguments.map { $0.label?.text ?? "_" }
        let here = location(call)
        let isCenter = base != nil && Self.centerMethods.contains(name)
            && Self.looksLikeCenter(Self.calledName(call.calledExpression).0 ?? "")
        switch name {
        case "addObserver" where isCenter && labels.starts(with: ["_", "selector", "name"]):
            let args = Array(call.arguments)
            let observer = args[0].expression
            let selector = Self.selectorName(args[1].expression)
            for name in names(args[2].expression, at: Syntax(call)) {
                append(RegistrationFact(kind: .selector(method: selector), name: name,
                                        capture: nil, destination: .discarded, observerIsSelf: Self.isSelf(observer),
                                        location: here, conditions: conditions))
            }
        case "addObserver" where isCenter && labels.first == "forName":
            let name = Self.nameExpression(call.arguments.first!.expression)
            let closure = Self.closure(of: call, label: "using")
            append(RegistrationFact(kind: .block, name: name, capture: closure.map(Self.capture) ?? .implicit(identifiers: [], mentionsSelf: false),
                                    destination: destination(of: ExprSyntax(call)), observerIsSelf: true, location: here,
                                    conditions: conditions), local: localName(of: ExprSyntax(call)))
        case "addObserver" where isCenter && (labels.starts(with: ["of", "for"]) || labels.first == "for"):
            let argument = call.arguments.first { $0.label?.text == "for" }!.expression
            let closure = Self.closure(of: call, label: "using")
            append(RegistrationFact(kind: .typedToken, name: Self.messageType(argument), capture: closure.map(Self.capture),
                                    destination: destination(of: ExprSyntax(call)), observerIsSelf: true, location: here,
                                    conditions: conditions), local: localName(of: ExprSyntax(call)))
        case "notifications" where isCenter && labels.first == "named":
            asyncLoop(call, here: here)
        case "publisher" where isCenter && labels.first == "for" && !(call.arguments.first!.expression.is(KeyPathExprSyntax.self)):
            combine(call, here: here)
        case "removeObserver" where isCenter && !labels.contains("forKeyPath"):
            guard let first = call.arguments.first?.expression else { return }
            let target: RemovalTarget
            if Self.isSelf(first) {
                if labels.count >= 2, labels[1] == "name", let nameArgument = call.arguments.dropFirst().first?.expression {
                    for name in names(nameArgument, at: Syntax(call)) {
                        actions.append(.remove(RemovalFact(target: .name(name), location: here, conditions: conditions,
                                                           throughCenter: true)))
                    }
                    return
                } else {
                    target = .owner
                }
            } else {
                target = tokenTarget(first, node: Syntax(call))
                if case .token(let property) = target, labels.count >= 2, labels[1] == "name",
                   let nameArgument = call.arguments.dropFirst().first?.expression {
                    actions.append(.remove(RemovalFact(target: .tokenNamed(property, Self.nameExpression(nameArgument)),
                                                       location: here, conditions: conditions, throughCenter: true)))
                    return
                }
            }
            actions.append(.remove(RemovalFact(target: target, location: here, conditions: conditions, throughCenter: true)))
        case "cancel" where labels.isEmpty:
            guard let receiver = call.calledExpression.as(MemberAccessExprSyntax.self)?.base else { return }
            let target = tokenTarget(receiver, node: Syntax(call))
            if case .unknown = target { return }
            actions.append(.remove(RemovalFact(target: target, location: here, conditions: conditions)))
        case "forEach":
            // `observers.forEach(NotificationCenter.default.removeObserver)`: every token of the collection.
            guard let base = call.calledExpression.as(MemberAccessExprSyntax.self)?.base, let collection = Self.propertyName(base),
                  let argument = call.arguments.first?.expression,
                  argument.trimmedText.contains("removeObserver") && !argument.is(ClosureExprSyntax.self) else { return }
            actions.append(.remove(RemovalFact(target: .collection(collection), location: here, conditions: conditions,
                                               throughCenter: true)))
        case "removeAll" where labels.isEmpty || labels == ["keepingCapacity"]:
            guard let base = call.calledExpression.as(MemberAccessExprSyntax.self)?.base, let collection = Self.propertyName(base)
            else { return }
            actions.append(.remove(RemovalFact(target: .drop(collection), location: here, conditions: conditions)))
        case "append", "insert" where call.arguments.count >= 1:
            // `tokens.append(token)`: a local registration kept in a collection.
            if let base = call.calledExpression.as(MemberAccessExprSyntax.self)?.base, let collection = Self.propertyName(base),
               let local = call.arguments.first?.expression.as(DeclReferenceExprSyntax.self)?.baseName.text,
               let index = localRegistrations[local] {
                setDestination(index, .collection(collection))
            }
        default:
            if let base, base.is(SuperExprSyntax.self) {
                actions.append(.superCall(name: name))
            } else if !implicitMember, base.map(Self.isSelfReceiver) ?? true {
                actions.append(.call(name: name, labels: labels, location: here, conditions: conditions))
            }
        }
    }

    private mutating func append(_ registration: RegistrationFact, local: String? = nil) {
        var registration = registration
        if let propertyInitializer, registration.destination == .discarded, local == nil {
            registration.destination = .property(propertyInitializer)
        }
        if let local { localRegistrations[local] = actions.count }
        actions.append(.register(registration))
    }

    /// `for await _ in center.notifications(named: N)`: a registration that lives as long as the
    /// enclosing `Task`, which is kept (a property), or not.
    private mutating func asyncLoop(_ call: FunctionCallExprSyntax, here: SourceLocation) {
        let name = Self.nameExpression(call.arguments.first!.expression)
        var node: Syntax? = Syntax(call).parent
        while let current = node {
            if let closure = current.as(ClosureExprSyntax.self) {
                if let taskCall = Self.taskCall(around: closure) {
                    append(RegistrationFact(kind: .asyncLoop, name: name, capture: Self.capture(closure),
                                            destination: destination(of: ExprSyntax(taskCall)), observerIsSelf: true,
                                            location: here, conditions: conditions), local: localName(of: ExprSyntax(taskCall)))
                    return
                }
            }
            if current.is(FunctionDeclSyntax.self) || current.is(InitializerDeclSyntax.self) { break }
            node = current.parent
        }
        var registration = RegistrationFact(kind: .asyncLoop, name: name, capture: nil, destination: .discarded,
                                            observerIsSelf: true, location: here, conditions: conditions)
        registration.outsideTask = true
        append(registration)
    }

    /// `Task { … }`, `Task.detached { … }`, `Task(priority:) { … }` around a closure.
    static func taskCall(around closure: ClosureExprSyntax) -> FunctionCallExprSyntax? {
        guard let call = closure.parent?.as(FunctionCallExprSyntax.self)
                ?? closure.parent?.parent?.parent?.as(FunctionCallExprSyntax.self) else { return nil }
        let called = call.calledExpression.trimmedText
        return called == "Task" || called.hasPrefix("Task.") || called.hasPrefix("Task<") ? call : nil
    }

    /// `center.publisher(for: N)…sink { }…store(in: &set)`: the subscription's capture and where it is kept.
    private mutating func combine(_ call: FunctionCallExprSyntax, here: SourceLocation) {
        let name = Self.nameExpression(call.arguments.first!.expression)
        var top = ExprSyntax(call)
        var capture: CaptureFact?
        var subscribed = false
        var stored: TokenDestination?
        while let member = top.parent?.as(MemberAccessExprSyntax.self), member.base?.id == top.id,
              let next = member.parent?.as(FunctionCallExprSyntax.self), next.calledExpression.id == member.id {
            let method = member.declName.baseName.text
            if method == "sink" {
                subscribed = true
                let closure = Self.closure(of: next, label: "receiveValue") ?? Self.closure(of: next, label: nil)
                capture = closure.map(Self.capture) ?? .implicit(identifiers: [], mentionsSelf: false)
            } else if method == "assign" {
                subscribed = true
                let on = next.arguments.first { $0.label?.text == "on" }?.expression
                capture = on.map(Self.isSelf) == true ? .strong : .implicit(identifiers: [], mentionsSelf: false)
                if on == nil { return }   // `assign(to: &$value)`: lives as long as the published property
            } else if method == "store", let target = next.arguments.first?.expression {
                let inner = target.as(InOutExprSyntax.self)?.expression ?? target
                stored = Self.propertyName(inner).map { .collection($0) }
            }
            top = ExprSyntax(next)
        }
        guard subscribed else { return }
        append(RegistrationFact(kind: .combine, name: name, capture: capture, destination: stored ?? destination(of: top),
                                observerIsSelf: true, location: here, conditions: conditions),
               local: stored == nil ? localName(of: top) : nil)
    }

    // MARK: Destinations

    /// Where the value of `expression` goes: a property, a collection, nowhere.
    private func destination(of expression: ExprSyntax) -> TokenDestination {
        let (outer, parent) = Self.unwrapped(expression)
        guard let parent else { return .discarded }
        if let sequence = parent.as(SequenceExprSyntax.self) {
            let elements = Array(sequence.elements)
            if elements.count == 3, elements[2].id == outer.id {
                if elements[0].is(DiscardAssignmentExprSyntax.self) { return .discarded }
                let isAssignment = elements[1].is(AssignmentExprSyntax.self)
                let op = elements[1].as(BinaryOperatorExprSyntax.self)?.operator.text
                if let property = Self.propertyName(elements[0]) {
                    if isAssignment { return .property(property) }
                    if op == "+=" { return .collection(property) }
                }
            }
            return .discarded
        }
        if let labeled = parent.as(LabeledExprSyntax.self),
           let call = labeled.parent?.parent?.as(FunctionCallExprSyntax.self),
           let member = call.calledExpression.as(MemberAccessExprSyntax.self),
           ["append", "insert", "add", "formUnion"].contains(member.declName.baseName.text),
           let base = member.base, let collection = Self.propertyName(base) {
            return .collection(collection)
        }
        if let element = parent.as(ArrayElementSyntax.self), let array = element.parent?.parent?.as(ArrayExprSyntax.self) {
            return destination(of: ExprSyntax(array)).asCollection
        }
        if parent.is(ReturnStmtSyntax.self) { return .returned }
        return .discarded
    }

    /// The local a registration is bound to: `let token = center.addObserver(…)`.
    private func localName(of expression: ExprSyntax) -> String? {
        let (_, parent) = Self.unwrapped(expression)
        guard propertyInitializer == nil, let clause = parent?.as(InitializerClauseSyntax.self),
              let binding = clause.parent?.as(PatternBindingSyntax.self) else { return nil }
        return binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
    }

    /// The expression with `try`, `await`, `!`, `?` and casts around it taken off, and its parent.
    static func unwrapped(_ expression: ExprSyntax) -> (ExprSyntax, Syntax?) {
        var current = expression
        while let parent = current.parent {
            if let wrapper = parent.as(TryExprSyntax.self) { current = ExprSyntax(wrapper); continue }
            if let wrapper = parent.as(AwaitExprSyntax.self) { current = ExprSyntax(wrapper); continue }
            if let wrapper = parent.as(ForceUnwrapExprSyntax.self) { current = ExprSyntax(wrapper); continue }
            if let wrapper = parent.as(OptionalChainingExprSyntax.self) { current = ExprSyntax(wrapper); continue }
            if let wrapper = parent.as(AsExprSyntax.self) { current = ExprSyntax(wrapper); continue }
            if let wrapper = parent.as(TupleExprSyntax.self), wrapper.elements.count == 1 { current = ExprSyntax(wrapper); continue }
            if let list = parent.as(LabeledExprListSyntax.self), let tuple = list.parent?.as(TupleExprSyntax.self), list.count == 1 {
                current = ExprSyntax(tuple); continue
            }
            if parent.is(ExprListSyntax.self) { return (current, parent.parent) }
            return (current, parent)
        }
        return (current, nil)
    }

    /// `self.token = local`, `tokens.append(local)`, `tokens += [local]`: a local registration finds its home.
    private mutating func assignment(_ sequence: SequenceExprSyntax) {
        let elements = Array(sequence.elements)
        guard elements.count == 3, let property = Self.propertyName(elements[0]) else { return }
        if elements[1].is(AssignmentExprSyntax.self), elements[2].is(NilLiteralExprSyntax.self) {
            actions.append(.remove(RemovalFact(target: .drop(property), location: location(sequence), conditions: conditions)))
            return
        }
        if elements[1].is(AssignmentExprSyntax.self), let array = elements[2].as(ArrayExprSyntax.self), array.elements.isEmpty {
            actions.append(.remove(RemovalFact(target: .drop(property), location: location(sequence), conditions: conditions)))
            return
        }
        if let local = elements[2].as(DeclReferenceExprSyntax.self)?.baseName.text, let index = localRegistrations[local],
           elements[1].is(AssignmentExprSyntax.self) {
            setDestination(index, .property(property))
        }
        if elements[1].as(BinaryOperatorExprSyntax.self)?.operator.text == "+=", let array = elements[2].as(ArrayExprSyntax.self) {
            for element in array.elements {
                if let local = element.expression.as(DeclReferenceExprSyntax.self)?.baseName.text, let index = localRegistrations[local] {
                    setDestination(index, .collection(property))
                }
            }
        }
    }

    private mutating func setDestination(_ index: Int, _ destination: TokenDestination) {
        guard case .register(var registration) = actions[index] else { return }
        registration.destination = destination
        actions[index] = .register(registration)
    }

    /// What `removeObserver(x)` / `x.cancel()` names: a property, or the collection a loop variable or `$0` runs over.
    private func tokenTarget(_ expression: ExprSyntax, node: Syntax) -> RemovalTarget {
        var inner = expression
        while true {
            if let cast = inner.as(AsExprSyntax.self) { inner = cast.expression; continue }
            // `token as Any` before operators are folded: a sequence of the value, `as`, the type.
            if let sequence = inner.as(SequenceExprSyntax.self), sequence.elements.count == 3,
               Array(sequence.elements)[1].is(UnresolvedAsExprSyntax.self), let first = sequence.elements.first {
                inner = first
                continue
            }
            if let unwrap = inner.as(ForceUnwrapExprSyntax.self) { inner = unwrap.expression; continue }
            if let chain = inner.as(OptionalChainingExprSyntax.self) { inner = chain.expression; continue }
            break
        }
        if let reference = inner.as(DeclReferenceExprSyntax.self) {
            let name = reference.baseName.text
            if name == "$0" || name.hasPrefix("$") { return collectionAround(node).map { .collection($0) } ?? .unknown(name) }
            if let collection = loopCollection(named: name, from: node) { return .collection(collection) }
            if localRegistrations[name] != nil { return .unknown(name) }
            // `if let observer = token { center.removeObserver(observer) }`: the property it unwraps.
            if let property = Self.property(boundTo: name, around: node) { return .token(property) }
            return .token(name)
        }
        if let property = Self.propertyName(inner) { return .token(property) }
        return .unknown(Self.short(expression.trimmedText))
    }

    /// The property a local of the enclosing function stands for: `if let observer = token`,
    /// `guard let observer = self.token`, `let observer = token`; `nil` when none binds `name`.
    static func property(boundTo name: String, around node: Syntax) -> String? {
        var current = node.parent
        var scope: Syntax?
        while let here = current {
            if here.is(FunctionDeclSyntax.self) || here.is(DeinitializerDeclSyntax.self) || here.is(InitializerDeclSyntax.self)
                || here.is(AccessorDeclSyntax.self) || here.is(ClosureExprSyntax.self) {
                scope = here
                break
            }
            current = here.parent
        }
        guard let scope else { return nil }
        final class Binding: SyntaxVisitor {
            let name: String
            var property: String?
            init(_ name: String) {
                self.name = name
                super.init(viewMode: .sourceAccurate)
            }
            /// `pattern = value` binding `name` to a property: `if let`, `guard let` and `let` alike.
            func consider(_ pattern: PatternSyntax, _ value: ExprSyntax?) -> SyntaxVisitorContinueKind {
                if property == nil, pattern.as(IdentifierPatternSyntax.self)?.identifier.text == name,
                   let value, let bound = BodyWalker.propertyName(value), bound != name {
                    property = bound
                }
                return .visitChildren
            }
            override func visit(_ node: OptionalBindingConditionSyntax) -> SyntaxVisitorContinueKind {
                consider(node.pattern, node.initializer?.value)
            }
            override func visit(_ node: PatternBindingSyntax) -> SyntaxVisitorContinueKind {
                consider(node.pattern, node.initializer?.value)
            }
        }
        let finder = Binding(name)
        finder.walk(scope)
        return finder.property
    }

    /// `collection.forEach { … $0 … }` around `node`.
    private func collectionAround(_ node: Syntax) -> String? {
        var current = node.parent
        while let here = current {
            if let closure = here.as(ClosureExprSyntax.self) {
                let call = closure.parent?.as(FunctionCallExprSyntax.self) ?? closure.parent?.parent?.parent?.as(FunctionCallExprSyntax.self)
                if let call, let member = call.calledExpression.as(MemberAccessExprSyntax.self),
                   ["forEach", "map", "compactMap"].contains(member.declName.baseName.text), let base = member.base {
                    return Self.propertyName(base)
                }
                return nil
            }
            current = here.parent
        }
        return nil
    }

    /// `for name in collection { … }` around `node`.
    private func loopCollection(named name: String, from node: Syntax) -> String? {
        var current = node.parent
        while let here = current {
            if let loop = here.as(ForStmtSyntax.self), loop.pattern.trimmedText == name {
                return Self.propertyName(loop.sequence)
            }
            if here.is(FunctionDeclSyntax.self) || here.is(CodeBlockItemListSyntax.self) && here.parent?.is(SourceFileSyntax.self) == true {
                return nil
            }
            current = here.parent
        }
        return nil
    }

    /// A name argument, or each element of the array literal a loop variable runs over:
    /// `for name in [A, B] { … name: name … }`, `[A, B].forEach { name in … }`, `names.forEach { … $0 … }`
    /// with `let names = [A, B]` earlier in the method.
    private func names(_ expression: ExprSyntax, at node: Syntax) -> [NameExpression] {
        let written = Self.nameExpression(expression)
        guard let variable = expression.as(DeclReferenceExprSyntax.self)?.baseName.text else { return [written] }
        var current = node.parent
        while let here = current {
            if let loop = here.as(ForStmtSyntax.self), loop.pattern.trimmedText == variable,
               let elements = arrayElements(loop.sequence, from: here) {
                return elements.map(Self.nameExpression)
            }
            if let closure = here.as(ClosureExprSyntax.self) {
                let parameters = closure.signature?.parameterClause.map { clause -> [String] in
                    switch clause {
                    case .simpleInput(let list): list.map(\.name.text)
                    case .parameterClause(let parameters): parameters.parameters.map(\.firstName.text)
                    }
                } ?? []
                guard parameters.first == variable || (variable == "$0" && parameters.isEmpty) else { return [written] }
                let call = closure.parent?.as(FunctionCallExprSyntax.self) ?? closure.parent?.parent?.parent?.as(FunctionCallExprSyntax.self)
                if let member = call?.calledExpression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "forEach",
                   let base = member.base, let elements = arrayElements(base, from: here) {
                    return elements.map(Self.nameExpression)
                }
                return [written]
            }
            if here.is(FunctionDeclSyntax.self) || here.is(InitializerDeclSyntax.self) { break }
            current = here.parent
        }
        return [written]
    }

    /// An array literal, or a local initialised with one earlier in the enclosing body.
    private func arrayElements(_ expression: ExprSyntax, from node: Syntax) -> [ExprSyntax]? {
        if let array = expression.as(ArrayExprSyntax.self) { return array.elements.map(\.expression) }
        guard let local = expression.as(DeclReferenceExprSyntax.self)?.baseName.text else { return nil }
        var current: Syntax? = node
        while let here = current {
            if let body = here.as(CodeBlockSyntax.self) {
                for item in body.statements {
                    guard let variable = item.item.as(VariableDeclSyntax.self) else { continue }
                    for binding in variable.bindings where binding.pattern.trimmedText == local {
                        if let array = binding.initializer?.value.as(ArrayExprSyntax.self) { return array.elements.map(\.expression) }
                    }
                }
            }
            if here.is(FunctionDeclSyntax.self) { return nil }
            current = here.parent
        }
        return nil
    }

    // MARK: Reading expressions

    /// The receiver's text and the method name of a call: `("NotificationCenter.default", "addObserver")`.
    static func calledName(_ called: ExprSyntax) -> (String?, String?) {
        if let member = called.as(MemberAccessExprSyntax.self) {
            // `.init(…)`, `.make(…)`: an implicit member of a type, never a call on `self`.
            guard member.base != nil else { return (".", member.declName.baseName.text) }
            var base = member.base.map { $0.trimmedText }
            if let text = base, text.hasSuffix("?") || text.hasSuffix("!") { base = String(text.dropLast()) }
            return (base, member.declName.baseName.text)
        }
        if let reference = called.as(DeclReferenceExprSyntax.self) { return (nil, reference.baseName.text) }
        return (nil, nil)
    }

    /// The methods whose receiver is checked for a notification center.
    static let centerMethods: Set<String> = ["addObserver", "notifications", "publisher", "removeObserver"]

    /// Whether a receiver is a notification center: `NotificationCenter.default`, `center`, `notiCenter`, `nc`.
    static func looksLikeCenter(_ receiver: String) -> Bool {
        let lower = receiver.lowercased()
        return lower.contains("notification") || lower.contains("center") || lower == "nc" || lower == "self.nc"
    }

    /// `self`, `self?` or `self!` as a call's receiver.
    static func isSelfReceiver(_ base: ExprSyntax) -> Bool {
        if let chain = base.as(OptionalChainingExprSyntax.self) { return isSelf(chain.expression) }
        if let unwrap = base.as(ForceUnwrapExprSyntax.self) { return isSelf(unwrap.expression) }
        return isSelf(base)
    }

    static func isSelf(_ expression: ExprSyntax) -> Bool {
        expression.as(DeclReferenceExprSyntax.self)?.baseName.tokenKind == .keyword(.self)
    }

    /// `token`, `self.token` → `token`; anything else `nil`.
    static func propertyName(_ expression: ExprSyntax) -> String? {
        var inner = expression
        while true {
            if let unwrap = inner.as(ForceUnwrapExprSyntax.self) { inner = unwrap.expression; continue }
            if let chain = inner.as(OptionalChainingExprSyntax.self) { inner = chain.expression; continue }
            break
        }
        if let reference = inner.as(DeclReferenceExprSyntax.self), reference.baseName.tokenKind != .keyword(.self) {
            return reference.baseName.text
        }
        if let member = inner.as(MemberAccessExprSyntax.self), let base = member.base, isSelf(base) {
            return member.declName.baseName.text
        }
        return nil
    }

    /// `#selector(keyboardWillShow(_:))` → `keyboardWillShow`.
    static func selectorName(_ expression: ExprSyntax) -> String {
        var text = expression.trimmedText
        if let macro = expression.as(MacroExpansionExprSyntax.self), let argument = macro.arguments.first {
            text = argument.expression.trimmedText
        }
        if let paren = text.firstIndex(of: "(") { text = String(text[..<paren]) }
        if let dot = text.lastIndex(of: ".") { text = String(text[text.index(after: dot)...]) }
        return text.trimming([" ", ")", "\""])
    }

    /// A notification name argument as written.
    static func nameExpression(_ expression: ExprSyntax) -> NameExpression {
        if expression.is(NilLiteralExprSyntax.self) { return .every }
        if let call = expression.as(FunctionCallExprSyntax.self) {
            let called = call.calledExpression.trimmedText
            if FactCollector.isNotificationNameType(called) || called == "Name" || called == ".init" || called == "Notification.Name.init",
               let first = call.arguments.first {
                if let value = FactCollector.stringLiteral(first.expression) { return .literal(value) }
                return nameExpression(first.expression).asDynamicUnlessKnown
            }
            return .dynamic(short(expression.trimmedText))
        }
        if let member = expression.as(MemberAccessExprSyntax.self) {
            guard let base = member.base else { return .member(member.declName.baseName.text) }
            if base.trimmedText.first?.isUppercase == true { return .member(expression.trimmedText) }
            return .dynamic(short(expression.trimmedText))
        }
        if let reference = expression.as(DeclReferenceExprSyntax.self) { return .bare(reference.baseName.text) }
        if let value = FactCollector.stringLiteral(expression) { return .literal(value) }
        return .dynamic(short(expression.trimmedText))
    }

    /// SF-0011's `for:` argument: `Message.self`, `.message`.
    static func messageType(_ expression: ExprSyntax) -> NameExpression {
        if let member = expression.as(MemberAccessExprSyntax.self) {
            if member.declName.baseName.tokenKind == .keyword(.self), let base = member.base {
                return .messageType(FactCollector.typeName(base.trimmedText))
            }
            if member.base == nil { return .messageType(member.declName.baseName.text) }
        }
        return .dynamic(short(expression.trimmedText))
    }

    /// The closure passed as `label` or as the trailing closure.
    static func closure(of call: FunctionCallExprSyntax, label: String?) -> ClosureExprSyntax? {
        if let label, let argument = call.arguments.first(where: { $0.label?.text == label }) {
            return argument.expression.as(ClosureExprSyntax.self)
        }
        if let trailing = call.trailingClosure { return trailing }
        return call.arguments.last?.expression.as(ClosureExprSyntax.self)
    }

    /// How a closure holds `self`: its capture list, else what its body mentions.
    static func capture(_ closure: ClosureExprSyntax) -> CaptureFact {
        for item in closure.signature?.capture?.items ?? [] {
            let captured = item.initializer?.value.trimmedText ?? item.name.text
            guard captured == "self" else { continue }
            switch item.specifier?.specifier.text {
            case "weak": return .weak
            case "unowned": return .unowned
            default: break
            }
        }
        var identifiers = Set<String>()
        var mentionsSelf = false
        var stack: [Syntax] = [Syntax(closure.statements)]
        var visited = 0
        while let node = stack.popLast(), visited < 200_000 {
            visited += 1
            if let token = node.as(TokenSyntax.self) {
                if token.tokenKind == .keyword(.self) {
                    // `[weak self] in` of a nested closure does not hold this one's self strongly… but it holds it.
                    mentionsSelf = true
                } else if case .identifier(let text) = token.tokenKind {
                    identifiers.insert(text)
                }
                continue
            }
            stack.append(contentsOf: node.children(viewMode: .sourceAccurate))
        }
        return .implicit(identifiers: identifiers, mentionsSelf: mentionsSelf)
    }
}

extension TokenDestination {
    var asCollection: TokenDestination {
        switch self {
        case .property(let name): .collection(name)
        default: self
        }
    }
}

extension NameExpression {
    var asDynamicUnlessKnown: NameExpression {
        switch self {
        case .literal, .member: self
        default: .dynamic("\(self)")
        }
    }
}
