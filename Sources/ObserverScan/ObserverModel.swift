import Foundation
/// The facts of every scanned file joined per class: its extensions in any file, its superclasses
/// in the scanned code, the protocol extensions it conforms to. Each lifecycle moment's
/// registrations and removals are found by following the moment's method, its `super` call and
/// the calls it makes to methods of the type.
struct ObserverModel {
    /// The pseudo-method holding stored properties' initial values (they run at `init`).
    static let propertyInitializers = "<property initializers>"

    /// How the scanner models a class.
    enum Role: Sendable, Hashable {
        /// A view controller: a screen of the scenario, run through the journeys.
        case screen
        /// A view: an object its screen makes, entering and leaving the window with the screen.
        case view
        /// Anything else that observes: a helper its screen makes and lets go of.
        case object
    }

    /// A registration or removal reached from a moment, with the calls that lead to it.
    struct Reached: Sendable, Hashable {
        enum Fact: Sendable, Hashable {
            case register(RegistrationFact)
            case remove(RemovalFact)
        }
        var fact: Fact
        /// The methods from the moment's own to the one that holds the fact: `viewWillAppear → registerKeyboard`.
        var via: [String]
    }

    /// One class, resolved.
    struct TypeModel: Sendable {
        var name: String
        var role: Role
        var location: SourceLocation
        /// Lives for ever (`static let shared`): never released.
        var isSingleton: Bool
        /// Moment name (a ``ScreenMoment`` raw value, or `init`, `deinit`, `enterWindow`, `leaveWindow`
        /// for objects) → what it does, in order.
        var moments: [String: [Reached]]
        /// Properties and methods, to tell a closure's implicit use of `self`.
        var memberNames: Set<String>
        /// Token and collection properties.
        var collections: Set<String>
        var notes: [ScanNote]
        /// Whether something the scanner could not follow may register for this type.
        var hasUnresolved: Bool
        /// A navigation, tab or split controller: presented, never pushed.
        var isContainer = false
        /// For an object: a screen of the scanned code keeps one in a stored property, so it goes with its screen.
        var heldByScreen = false
    }

    private var classes: [String: TypeDeclFacts] = [:]
    private var extensions: [String: [TypeDeclFacts]] = [:]
    private var protocols: [String: TypeDeclFacts] = [:]
    private(set) var nameConstants: [String: String?] = [:]
    private var looseRegistrations: [SourceLocation] = []

    init(files: [FileFacts]) {
        for file in files {
            for type in file.types {
                switch type.kind {
                case .class, .actor:
                    if let existing = classes[type.name] {
                        // `#if` branches declare it twice: one class, both bodies.
                        var merged = existing
                        merged.methods += type.methods
                        merged.properties.merge(type.properties) { first, _ in first }
                        classes[type.name] = merged
                    } else {
                        classes[type.name] = type
                    }
                case .extension: extensions[type.name, default: []].append(type)
                case .protocol: protocols[type.name] = type
                case .struct, .enum: break
                }
            }
            for constant in file.nameConstants where nameConstants[constant.identifier] == nil {
                nameConstants[constant.identifier] = constant.value
            }
            looseRegistrations += file.looseRegistrations
        }
    }

    /// Notes for registrations outside any type.
    var looseNotes: [ScanNote] {
        looseRegistrations.map {
            ScanNote(location: $0, type: nil,
                     text: "an observer registered outside any class (top-level code or a free function): not modelled")
        }
    }

    /// Every class with at least one registration or removal in it, its extensions, superclasses or protocol extensions.
    func models() -> [TypeModel] {
        // One class's model reads the others' facts and writes nothing: both cores.
        let names = classes.keys.sorted()
        let model = self
        var result = Parallel.map(names.count) { model.model(names[$0]) }.compactMap { $0 }
        // Types a screen keeps in a property: their lifetime is the screen's, as the journeys model it.
        var held = Set<String>()
        for type in result where type.role == .screen {
            for decl in chain(of: type.name) {
                held.formUnion(decl.propertyTypes)
                for ext in extensions[decl.name] ?? [] { held.formUnion(ext.propertyTypes) }
            }
        }
        for index in result.indices where result[index].role != .screen {
            let name = result[index].name
            result[index].heldByScreen = held.contains(name) || held.contains(String(name.split(separator: ".").last ?? ""))
        }
        return result
    }

    /// Whether a declaration registers an observer or removes one through the center. Every such
    /// call holds one of ``ObserverScan/observerWords``.
    static func hasObserverCode(_ decl: TypeDeclFacts) -> Bool {
        decl.methods.contains { method in
            method.actions.contains { action in
                switch action {
                case .register: true
                case .remove(let removal): removal.throughCenter
                case .call, .superCall: false
                }
            }
        }
    }

    /// The names of every declaration a modelled class reads (its class and superclasses with their
    /// extensions, the protocols it conforms to with theirs): the outlines to read again, whole.
    func declarationsRead() -> Set<String> {
        var names = Set<String>()
        for name in classes.keys {
            let chain = chain(of: name)
            let conformed = conformances(of: chain)
            guard lookupOrder(chain, from: 0, protocols: conformed).contains(where: Self.hasObserverCode) else { continue }
            names.formUnion(chain.map(\.name))
            names.formUnion(conformed)
        }
        return names
    }

    // MARK: Resolution

    /// The class and its scanned superclasses, most derived first.
    func chain(of name: String) -> [TypeDeclFacts] {
        var result: [TypeDeclFacts] = []
        var seen: Set<String> = []
        var next: String? = name
        while let current = next, let type = classes[current], seen.insert(current).inserted, result.count < 64 {
            result.append(type)
            next = type.inherited.first.flatMap { classes[$0] != nil ? $0 : nil }
        }
        return result
    }

    /// The first superclass not in the scanned code (`UIViewController`), if any.
    func externalBase(of chain: [TypeDeclFacts]) -> String? {
        guard let last = chain.last, let first = last.inherited.first else { return nil }
        return protocols[first] == nil ? first : nil
    }

    /// The class's conformances, through its extensions, superclasses and protocols' own inheritance.
    func conformances(of chain: [TypeDeclFacts]) -> [String] {
        var names: [String] = []
        for type in chain {
            names += type.inherited
            for decl in extensions[type.name] ?? [] { names += decl.inherited }
        }
        var result: [String] = []
        var seen: Set<String> = []
        while let name = names.first {
            names.removeFirst()
            guard let proto = protocols[name] ?? (extensions[name].map { _ in TypeDeclFacts(
                kind: .protocol, name: name, inherited: [], selfConstraints: [], location: SourceLocation(file: "", line: 0),
                methods: [], properties: [:], isSingleton: false) }),
                  seen.insert(name).inserted else { continue }
            result.append(name)
            names += proto.inherited
        }
        return result
    }

    /// The declarations whose methods `self` dispatches to, in lookup order: the chain from
    /// `index`, each class with its extensions, then the protocol extensions.
    private func lookupOrder(_ chain: [TypeDeclFacts], from index: Int, protocols conformed: [String]) -> [TypeDeclFacts] {
        var order: [TypeDeclFacts] = []
        for type in chain.dropFirst(index) {
            order.append(type)
            order += extensions[type.name] ?? []
        }
        for name in conformed {
            order += (extensions[name] ?? [])
        }
        return order
    }

    private func find(_ name: String, labels: [String]?, in order: [TypeDeclFacts]) -> (MethodFacts, TypeDeclFacts)? {
        var fallback: (MethodFacts, TypeDeclFacts)?
        for decl in order {
            for method in decl.methods where method.name == name && !method.isStatic {
                guard let labels else { return (method, decl) }
                if method.labels == labels || (method.labels.count == labels.count
                                               && zip(method.labels, labels).allSatisfy { $0 == $1 || $0 == "_" }) {
                    return (method, decl)
                }
                if fallback == nil { fallback = (method, decl) }
            }
        }
        return fallback
    }

    private struct Expansion {
        var reached: [Reached] = []
        var visitedMethods: Set<String> = []
        var unresolvedCalls: [(name: String, location: SourceLocation)] = []
    }

    /// What `method` does, following calls of the type's methods (dynamic dispatch from the most
    /// derived class) and `super` calls (from the class after the one that holds `method`).
    /// The class's methods by name, in the order `self` dispatches: made once per class, not per call.
    struct MethodIndex {
        private var byName: [String: [(MethodFacts, TypeDeclFacts)]] = [:]

        init(_ order: [TypeDeclFacts]) {
            for decl in order {
                for method in decl.methods where !method.isStatic { byName[method.name, default: []].append((method, decl)) }
            }
        }

        /// ``ObserverModel/find(_:labels:in:)`` over the order the index was made from.
        func find(_ name: String, labels: [String]?) -> (MethodFacts, TypeDeclFacts)? {
            guard let candidates = byName[name] else { return nil }
            guard let labels else { return candidates.first }
            for candidate in candidates {
                let method = candidate.0
                if method.labels == labels || (method.labels.count == labels.count
                                               && zip(method.labels, labels).allSatisfy { $0 == $1 || $0 == "_" }) {
                    return candidate
                }
            }
            return candidates.first
        }
    }

    private func expand(_ method: MethodFacts, holder: TypeDeclFacts, chain: [TypeDeclFacts], conformed: [String],
                        calls: MethodIndex, via: [String], into expansion: inout Expansion, depth: Int,
                        conditions inherited: [String] = []) {
        guard depth < 24 else { return }
        let key = "\(holder.name).\(method.name)(\(method.labels.joined(separator: ":")))@\(method.location)"
        guard !via.contains(key) else { return }
        expansion.visitedMethods.insert("\(method.location)")
        let here = via + [key]
        var readableVia: [String]?
        func names() -> [String] {
            if let readableVia { return readableVia }
            let names = Self.readable(here.map { $0.split(separator: "@").first.map(String.init) ?? $0 })
            readableVia = names
            return names
        }
        for action in method.steps {
            switch action {
            case .register(var fact):
                // The conditions around the calls that lead here hold too: `if !isFirstLayout { addObservers() }`.
                fact.conditions = inherited + fact.conditions
                expansion.reached.append(Reached(fact: .register(fact), via: names()))
            case .remove(var fact):
                fact.conditions = inherited + fact.conditions
                expansion.reached.append(Reached(fact: .remove(fact), via: names()))
            case .call(let name, let labels, let location, let conditions):
                if let (callee, decl) = calls.find(name, labels: labels) {
                    expand(callee, holder: decl, chain: chain, conformed: conformed, calls: calls, via: here,
                           into: &expansion, depth: depth + 1, conditions: inherited + conditions)
                } else if Self.soundsLikeObserving(name) {
                    expansion.unresolvedCalls.append((name, location))
                }
            case .superCall(let name):
                guard let index = chain.firstIndex(where: { $0.name == holder.name || extensions[$0.name]?.contains(holder) == true })
                else { continue }
                let order = lookupOrder(chain, from: index + 1, protocols: [])
                if let (callee, decl) = find(name, labels: nil, in: order) {
                    expand(callee, holder: decl, chain: chain, conformed: conformed, calls: calls, via: here,
                           into: &expansion, depth: depth + 1, conditions: inherited)
                }
            }
        }
    }

    static func readable(_ keys: [String]) -> [String] {
        keys.map { key in
            let name = key.split(separator: ".").last.map(String.init) ?? key
            return name.replacingOccurrences(of: "()", with: "")
        }
    }

    /// A method name that suggests it registers observers: an unresolved call of it is noted.
    static func soundsLikeObserving(_ name: String) -> Bool {
        // `NotificationViewController()` makes an object: not a method of this class.
        guard name.first?.isUppercase != true else { return false }
        let lower = name.lowercased()
        return ["observ", "notification", "subscribe", "listen", "keyboardnotification"].contains { lower.contains($0) }
    }

    static let viewControllerBases: Set<String> = [
        "UIViewController", "UITableViewController", "UICollectionViewController", "UINavigationController",
        "UITabBarController", "UIPageViewController", "UISplitViewController", "UIHostingController",
        "UIInputViewController", "UIAlertController", "UISearchController", "UIActivityViewController",
        "UIImagePickerController", "UIDocumentPickerViewController", "UIReferenceLibraryViewController",
        "SFSafariViewController", "AVPlayerViewController", "QLPreviewController", "MFMailComposeViewController",
        "NSViewController",
    ]

    static let viewBases: Set<String> = [
        "UIView", "UIControl", "UIButton", "UILabel", "UITextField", "UITextView", "UIScrollView", "UITableView",
        "UICollectionView", "UITableViewCell", "UICollectionViewCell", "UICollectionReusableView", "UIStackView",
        "UIImageView", "UINavigationBar", "UIToolbar", "UITabBar", "UISearchBar", "UIWindow", "UIVisualEffectView",
        "WKWebView", "MKMapView", "SKView", "UIInputView", "NSView", "UITableViewHeaderFooterView",
    ]

    func role(of chain: [TypeDeclFacts]) -> Role {
        let base = externalBase(of: chain) ?? ""
        let bare = base.split(separator: ".").last.map(String.init) ?? base
        if Self.viewControllerBases.contains(bare) || bare.hasSuffix("ViewController") { return .screen }
        if Self.viewBases.contains(bare) || bare.hasSuffix("View") || bare.hasSuffix("Cell") || bare.hasSuffix("Bar") {
            return .view
        }
        return .object
    }

    /// The screen moments and the methods UIKit calls for them, in the order each moment runs them.
    static let screenMoments: [(moment: String, methods: [String])] = [
        ("init", ["init", "awakeFromNib"]),
        ("viewDidLoad", ["loadView", "viewDidLoad"]),
        ("viewWillAppear", ["viewWillAppear", "viewIsAppearing"]),
        ("didMoveToWindow", []),
        ("viewDidLayoutSubviews", ["viewWillLayoutSubviews", "viewDidLayoutSubviews"]),
        ("viewDidAppear", ["viewDidAppear"]),
        ("viewWillDisappear", ["viewWillDisappear"]),
        ("viewDidDisappear", ["viewDidDisappear"]),
        ("deinit", ["deinit"]),
    ]

    static let objectMoments: [(moment: String, methods: [String])] = [
        ("init", ["init", "awakeFromNib"]),
        ("enterWindow", ["didMoveToWindow", "willMove", "didMoveToSuperview"]),
        ("leaveWindow", []),
        ("deinit", ["deinit"]),
    ]

    /// Whether a condition of `didMoveToWindow`, `willMove(toWindow:)`, `willMove(toSuperview:)` or
    /// `didMoveToSuperview` holds when the view is leaving: `window == nil`, `nil == newSuperview`, or the
    /// `else` of `window != nil` / `if let window`. (UIKit also calls `willMove(toSuperview: nil)` when the
    /// superview is deallocated: leaving all the same.)
    static func isLeavingCondition(_ condition: String) -> Bool {
        let negated = condition.hasPrefix("else")
        let text = condition.lowercased().replacingOccurrences(of: " ", with: "")
        guard text.contains("window") || text.contains("superview") else { return false }
        let isNil = text.contains("==nil") || text.contains("nil==")
        let notNil = text.contains("!=nil") || text.contains("nil!=") || text.contains("letwindow") || text.contains("letnewwindow")
            || text.contains("letsuperview") || text.contains("letnewsuperview")
        return negated ? notNil : isNil
    }

    private func model(_ name: String) -> TypeModel? {
        let chain = chain(of: name)
        guard let own = chain.first else { return nil }
        let conformed = conformances(of: chain)
        let role = role(of: chain)
        let decls = lookupOrder(chain, from: 0, protocols: conformed)
        let calls = MethodIndex(decls)
        // Only classes whose code (or inherited code) registers observers or removes them through the
        // center are modelled: `timer = nil` or `task.cancel()` alone is no observer code.
        guard decls.contains(where: Self.hasObserverCode) else { return nil }

        var memberNames = Set<String>()
        var collections = Set<String>()
        for decl in decls {
            for (property, isCollection) in decl.properties {
                memberNames.insert(property)
                if isCollection { collections.insert(property) }
            }
            for method in decl.methods { memberNames.insert(method.name) }
        }

        var moments: [String: [Reached]] = [:]
        var visited = Set<String>()
        var notes: [ScanNote] = []
        var hasUnresolved = false
        let table = role == .screen ? Self.screenMoments : Self.objectMoments
        for (moment, methods) in table {
            var expansion = Expansion()
            if moment == "init" {
                // Stored properties' initial values, superclass first, then the one initializer
                // that registers most (a class is made by one of them), then awakeFromNib.
                for decl in chain.reversed() {
                    for method in decl.methods where method.name == Self.propertyInitializers {
                        expand(method, holder: decl, chain: chain, conformed: conformed, calls: calls, via: [],
                               into: &expansion, depth: 0)
                    }
                }
                // `awakeFromNib` runs after `init(coder:)` only (an object from a nib or storyboard), never
                // after `init(frame:)`: the two are one way to make the object, the other initializers others.
                var awake: Expansion?
                if let (method, decl) = find("awakeFromNib", labels: nil, in: decls) {
                    var expanded = Expansion()
                    expand(method, holder: decl, chain: chain, conformed: conformed, calls: calls, via: [],
                           into: &expanded, depth: 0)
                    awake = expanded
                }
                func joined(_ a: Expansion, _ b: Expansion?) -> Expansion {
                    guard let b else { return a }
                    var both = a
                    both.reached += b.reached
                    both.visitedMethods.formUnion(b.visitedMethods)
                    both.unresolvedCalls += b.unresolvedCalls
                    return both
                }
                var best: Expansion?
                var declaresCoder = false
                for decl in decls where decl.kind != .protocol {
                    for method in decl.methods where method.name == "init" {
                        var candidate = Expansion()
                        expand(method, holder: decl, chain: chain, conformed: conformed, calls: calls, via: [],
                               into: &candidate, depth: 0)
                        if method.labels == ["coder"] {
                            declaresCoder = true
                            candidate = joined(candidate, awake)
                        }
                        if best == nil || candidate.reached.count > best!.reached.count { best = candidate }
                    }
                    if best != nil { break }   // the most derived class that declares an initializer
                }
                if !declaresCoder, let awake, best == nil || awake.reached.count > best!.reached.count {
                    // The inherited `init(coder:)`, then `awakeFromNib`.
                    best = awake
                }
                if let best { expansion = joined(expansion, best) }
                // Considered either way: its registrations are not "reached by no lifecycle method".
                if let awake { expansion.visitedMethods.formUnion(awake.visitedMethods) }
            } else if moment == "deinit" {
                // Every class's deinit runs, most derived first.
                for decl in chain {
                    for method in decl.methods where method.name == "deinit" {
                        expand(method, holder: decl, chain: chain, conformed: conformed, calls: calls, via: [],
                               into: &expansion, depth: 0)
                    }
                }
            } else {
                for methodName in methods {
                    guard let (method, decl) = find(methodName, labels: nil, in: decls) else { continue }
                    expand(method, holder: decl, chain: chain, conformed: conformed, calls: calls, via: [],
                           into: &expansion, depth: 0)
                }
            }
            if role == .view && moment == "enterWindow" {
                // `didMoveToWindow` / `willMove(toWindow:)` branch on the window: `== nil` is leaving it.
                var entering: [Reached] = [], leaving: [Reached] = []
                for reached in expansion.reached {
                    let conditions = reached.conditions
                    let leaves = conditions.contains(where: Self.isLeavingCondition)
                    if leaves { leaving.append(reached) } else { entering.append(reached) }
                }
                moments["enterWindow"] = entering
                moments["leaveWindow", default: []] += leaving
            } else if !expansion.reached.isEmpty {
                moments[moment, default: []] += expansion.reached
            }
            visited.formUnion(expansion.visitedMethods)
            for call in expansion.unresolvedCalls {
                hasUnresolved = true
                notes.append(ScanNote(location: call.location, type: name,
                                      text: "\(name) calls \(call.name)(), which the scan cannot see (not in the scanned code): "
                                          + "observers it may register are not modelled"))
            }
        }

        // Activity handlers (seed 000): a selector for an app-activity name added in viewWillAppear and
        // removed by name or owner in viewWillDisappear is the model's activity plugin, and its handler a
        // moment of its own. Elsewhere the plugin would not match the code: the handler is not followed.
        if role == .screen {
            var handled = Set<String>()
            let appear = moments["viewWillAppear"] ?? [], disappear = moments["viewWillDisappear"] ?? []
            for reached in appear {
                guard case .register(let fact) = reached.fact, case .selector(let method) = fact.kind,
                      let moment = activityMoment(fact.name), handled.insert(method).inserted,
                      let (handler, decl) = find(method, labels: nil, in: decls) else { continue }
                var expansion = Expansion()
                expand(handler, holder: decl, chain: chain, conformed: conformed, calls: calls, via: [],
                       into: &expansion, depth: 0)
                guard !expansion.reached.isEmpty else { continue }
                let removed = disappear.contains { removal in
                    guard case .remove(let removalFact) = removal.fact else { return false }
                    switch removalFact.target {
                    case .owner: return true
                    case .name(let name): return activityMoment(name) == moment
                    default: return false
                    }
                }
                guard removed else {
                    hasUnresolved = true
                    notes.append(ScanNote(location: fact.location, type: name,
                                          text: "\(method)() handles \(moment) and registers or removes observers, but is not "
                                              + "removed in viewWillDisappear: the model cannot follow that handler"))
                    continue
                }
                visited.formUnion(expansion.visitedMethods)
                moments[moment, default: []] += expansion.reached
                // The plugin stands for the registration and its removal by name.
                moments["viewWillAppear"]?.removeAll { $0 == reached }
                moments["viewWillDisappear"]?.removeAll { removal in
                    guard case .remove(let removalFact) = removal.fact, case .name(let name) = removalFact.target else { return false }
                    return activityMoment(name) == moment
                }
            }
        }

        // What no moment reaches is said, not guessed.
        for decl in decls {
            for method in decl.methods where !visited.contains("\(method.location)") && !method.isStatic {
                for action in method.actions {
                    guard case .register(let fact) = action else { continue }
                    hasUnresolved = true
                    let owner = decl.kind == .extension && protocols[decl.name] != nil ? " (a protocol extension \(name) conforms to)" : ""
                    notes.append(ScanNote(location: fact.location, type: name,
                                          text: "registration in \(method.name)()\(owner), which no lifecycle method of \(name) "
                                              + "reaches through calls within the type: not modelled (called from elsewhere?)"))
                }
            }
        }
        let base = externalBase(of: chain)?.split(separator: ".").last.map(String.init) ?? ""
        return TypeModel(name: name, role: role, location: own.location, isSingleton: decls.contains { $0.isSingleton },
                         moments: moments, memberNames: memberNames, collections: collections, notes: notes,
                         hasUnresolved: hasUnresolved,
                         isContainer: ["UINavigationController", "UITabBarController", "UISplitViewController"].contains(base))
    }

    /// The activity moment a notification name stands for, if it is one.
    func activityMoment(_ name: NameExpression) -> String? {
        guard case .message(let message, _) = NotificationNames.resolve(name, constants: nameConstants) else { return nil }
        return ["willResignActive", "didBecomeActive", "didEnterBackground", "willEnterForeground"].contains(message) ? message : nil
    }
}

extension ObserverModel.Reached {
    var conditions: [String] {
        switch fact {
        case .register(let fact): fact.conditions
        case .remove(let fact): fact.conditions
        }
    }

    var location: SourceLocation {
        switch fact {
        case .register(let fact): fact.location
        case .remove(let fact): fact.location
        }
    }
}

/// Something the scanner could not resolve or chose not to model: reported as a `note`, never a finding.
public struct ScanNote: Sendable, Hashable {
    public var location: SourceLocation
    public var type: String?
    public var text: String
}
