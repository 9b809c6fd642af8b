import Foundation
import NotifyBus

// Parsing of scenario format v2's observer-level constructs; see ScenarioObjects.swift.

extension ScenarioParser {
    /// The optional keys of an observer that say how it is registered.
    static let styleKeys: Set<String> = ["kind", "capture", "token", "removeBy", "selector"]
    static let v2StepKeys = ["post", "create", "release", "call", "drop"]
    static let v2StepExtras: [String: Set<String>] = ["post": ["payload"], "call": ["on"], "drop": ["of"]]

    /// Reads `messages` and the names of `objects` (before the screens, whose
    /// observers may use both), returning the objects to parse after the screens.
    mutating func declarations(_ top: [String: Any]) throws(NotifyBusError) -> [String: Any] {
        if let value = top["messages"] {
            for (index, item) in try array(value, "messages").enumerated() {
                let path = "messages[\(index)]"
                let name = try string(item, path)
                guard !name.isEmpty else { throw NotifyBusError("must not be empty", path: path) }
                if Scenario.messageNames.contains(name) || SystemNotification.names.contains(name) {
                    throw NotifyBusError("\(name) is already known: declare only the app's own names", path: path)
                }
                guard declaredMessages.insert(name).inserted else { throw NotifyBusError("\(name) is declared twice", path: path) }
            }
        }
        guard let value = top["objects"] else { return [:] }
        let objects = try object(value, "objects", keys: [], optional: nil)
        for name in objects.keys.sorted() {
            if screenNames.contains(name) {
                throw NotifyBusError("\(name) is already a screen: objects and screens share their names", path: "objects.\(name)")
            }
            guard !name.isEmpty else { throw NotifyBusError("must not be empty", path: "objects") }
        }
        objectNames = Set(objects.keys)
        return objects
    }

    /// A message an observer or a removal names: one of the catalog, a system
    /// notification, or a name the scenario declared in `messages`.
    func messageName(_ value: Any?, _ path: String) throws(NotifyBusError) -> String {
        let message = try string(value, path)
        guard Scenario.messageNames.contains(message) || SystemNotification.names.contains(message)
                || declaredMessages.contains(message) else {
            let known = Scenario.messageNames + SystemNotification.names + declaredMessages.sorted()
            throw NotifyBusError("unknown message '\(message)' (expected one of \(known.joined(separator: ", ")), "
                                 + "or declare it in messages)", path: path)
        }
        return message
    }

    /// An observer's kind, capture, token, removal method and selector; `nil` for a
    /// version-1 observer (no `kind`) unless `required`.
    func style(_ fields: [String: Any], _ path: String, required: Bool) throws(NotifyBusError) -> ObserverStyle? {
        guard let kindValue = fields["kind"] else {
            if required { throw NotifyBusError("missing (expected one of selector, block, token)", path: "\(path).kind") }
            for key in Self.styleKeys.sorted() where fields[key] != nil {
                throw NotifyBusError("\(key) goes with kind: selector, block or token", path: "\(path).\(key)")
            }
            return nil
        }
        let kind = try choice(kindValue, "\(path).kind",
                              Dictionary(uniqueKeysWithValues: ObserverKind.allCases.map { ($0.rawValue, $0) }),
                              order: ["selector", "block", "token"], what: "observer kind")
        var capture: BlockCapture?
        if let value = fields["capture"] {
            guard kind == .block else { throw NotifyBusError("capture goes with a block observer", path: "\(path).capture") }
            capture = try choice(value, "\(path).capture", Dictionary(uniqueKeysWithValues: BlockCapture.allCases.map { ($0.rawValue, $0) }),
                                 order: ["strong", "weak", "unowned"], what: "capture")
        } else if kind == .block {
            throw NotifyBusError("missing: a block captures its owner strong, weak or unowned", path: "\(path).capture")
        }
        var token: String?
        if let value = fields["token"] {
            guard kind != .selector else {
                throw NotifyBusError("a selector observer has no token: remove it by name or by owner", path: "\(path).token")
            }
            let name = try string(value, "\(path).token")
            guard !name.isEmpty else { throw NotifyBusError("must not be empty", path: "\(path).token") }
            token = name
        }
        var removeBy: RemovalMethod?
        if let value = fields["removeBy"] {
            removeBy = try choice(value, "\(path).removeBy", Dictionary(uniqueKeysWithValues: RemovalMethod.allCases.map { ($0.rawValue, $0) }),
                                  order: ["token", "name", "owner"], what: "removal")
            if removeBy == .token && kind == .selector {
                throw NotifyBusError("a selector observer has no token: remove it by name or by owner", path: "\(path).removeBy")
            }
        }
        var selector: String?
        if let value = fields["selector"] {
            guard kind == .selector else { throw NotifyBusError("selector goes with a selector observer", path: "\(path).selector") }
            selector = try string(value, "\(path).selector")
        }
        return ObserverStyle(kind: kind, capture: capture, token: token, removeBy: removeBy, selector: selector)
    }

    func screenMoment(_ value: Any?, _ path: String) throws(NotifyBusError) -> ScreenMoment {
        try choice(value, path, Dictionary(uniqueKeysWithValues: ScreenMoment.allCases.map { ($0.rawValue, $0) }),
                   order: ScreenMoment.allCases.map(\.rawValue), what: "moment")
    }

    /// A moment of the object `name`: `init`, `deinit` or one of its methods.
    func objectMoment(_ value: Any?, _ path: String, of name: String) throws(NotifyBusError) -> ObjectMoment {
        let methods = objectMethods[name] ?? []
        var options: [String: ObjectMoment] = ["init": .`init`, "deinit": .`deinit`]
        for method in methods { options[method] = .method(method) }
        return try choice(value, path, options, order: ["init", "deinit"] + methods, what: "moment of \(name)")
    }

    func hostMoment(_ value: Any?, _ path: String, host: HostReference) throws(NotifyBusError) -> HostMoment {
        switch host {
        case .screen: .screen(try screenMoment(value, path))
        case .object(let name): .object(try objectMoment(value, path, of: name))
        }
    }

    /// A list of removals not paired with an add: `{"on": MOMENT, "remove": "owner"}`,
    /// `{"on", "remove": "name", "message"}`, `{"on", "remove": "token", "token"}`, `{"on", "drop": TOKEN}`.
    func removals<M>(_ value: Any?, _ path: String, tokens: Set<String>,
                     moment: (Any?, String) throws(NotifyBusError) -> M) throws(NotifyBusError) -> [RemovalSpec<M>] {
        guard let value else { return [] }
        var result: [RemovalSpec<M>] = []
        for (index, item) in try array(value, "\(path).removals").enumerated() {
            let here = "\(path).removals[\(index)]"
            let fields = try object(item, here, keys: ["on"], optional: ["remove", "drop", "message", "token"])
            let on = try moment(fields["on"], "\(here).on")
            func token(_ key: String) throws(NotifyBusError) -> String {
                let name = try string(fields[key], "\(here).\(key)")
                guard tokens.contains(name) else {
                    throw NotifyBusError("no observer keeps its registration in '\(name)'"
                                         + (tokens.isEmpty ? "" : " (tokens: \(tokens.sorted().joined(separator: ", ")))"),
                                         path: "\(here).\(key)")
                }
                return name
            }
            if fields["drop"] != nil {
                for key in ["remove", "message", "token"] where fields[key] != nil {
                    throw NotifyBusError("unknown key for a drop (expected on, drop)", path: "\(here).\(key)")
                }
                result.append(RemovalSpec(on: on, action: .drop(try token("drop"))))
                continue
            }
            guard fields["remove"] != nil else {
                throw NotifyBusError("expected remove (owner, name, token) or drop", path: here)
            }
            let method = try choice(fields["remove"], "\(here).remove",
                                    Dictionary(uniqueKeysWithValues: RemovalMethod.allCases.map { ($0.rawValue, $0) }),
                                    order: ["token", "name", "owner"], what: "removal")
            let allowed: Set<String> = switch method {
            case .owner: []
            case .name: ["message"]
            case .token: ["token"]
            }
            for key in ["message", "token"] where fields[key] != nil && !allowed.contains(key) {
                throw NotifyBusError("\(key) does not go with remove: \(method.rawValue)", path: "\(here).\(key)")
            }
            let action: RemovalAction = switch method {
            case .owner: .owner
            case .name: .name(try messageName(fields["message"], "\(here).message"))
            case .token: .token(try token("token"))
            }
            result.append(RemovalSpec(on: on, action: action))
        }
        return result
    }

    /// The tokens a list of observers keeps, checking that one property holds one kind.
    static func tokens(of styles: [(style: ObserverStyle?, path: String)]) throws(NotifyBusError) -> Set<String> {
        var kinds: [String: ObserverKind] = [:]
        for (style, path) in styles {
            guard let style, let token = style.token else { continue }
            if let other = kinds[token], other != style.kind {
                throw NotifyBusError("'\(token)' already holds a \(other.rawValue) observation", path: "\(path).token")
            }
            kinds[token] = style.kind
        }
        return Set(kinds.keys)
    }

    // MARK: Objects

    mutating func objectSpecs(_ objects: [String: Any], screens: [String: ScreenSpec]) throws(NotifyBusError) -> [String: ObjectSpec] {
        for (name, spec) in screens {
            tokenNames[name] = Set(spec.observers.compactMap { $0.style?.token })
        }
        // Methods first: an object's host moments may be another object's methods.
        for name in objects.keys.sorted() {
            let path = "objects.\(name)"
            let fields = try object(objects[name], path, keys: ["host"],
                                    optional: ["createdOn", "releasedOn", "methods", "calls", "observers", "removals", "retained"])
            var methods: [String] = []
            if let value = fields["methods"] {
                for (index, item) in try array(value, "\(path).methods").enumerated() {
                    let here = "\(path).methods[\(index)]"
                    let method = try string(item, here)
                    guard !method.isEmpty, method != "init", method != "deinit" else {
                        throw NotifyBusError(method.isEmpty ? "must not be empty" : "\(method) is a moment of every object", path: here)
                    }
                    guard !methods.contains(method) else { throw NotifyBusError("\(method) is listed twice", path: here) }
                    methods.append(method)
                }
            }
            objectMethods[name] = methods
        }
        var specs: [String: ObjectSpec] = [:]
        for name in objects.keys.sorted() {
            specs[name] = try objectSpec(name, objects[name] as? [String: Any] ?? [:])
        }
        for name in specs.keys.sorted() {
            var seen: Set<String> = [name]
            var next = specs[name]?.host
            while case .object(let host)? = next {
                guard seen.insert(host).inserted else {
                    throw NotifyBusError("\(name) lives in itself through its hosts", path: "objects.\(name).host")
                }
                next = specs[host]?.host
            }
        }
        return specs
    }

    private mutating func objectSpec(_ name: String, _ fields: [String: Any]) throws(NotifyBusError) -> ObjectSpec {
        let path = "objects.\(name)"
        let hostName = try string(fields["host"], "\(path).host")
        let host: HostReference
        if screenNames.contains(hostName) {
            host = .screen(hostName)
        } else if objectNames.contains(hostName), hostName != name {
            host = .object(hostName)
        } else if hostName == name {
            throw NotifyBusError("an object cannot host itself (expected a screen or another object)", path: "\(path).host")
        } else {
            throw NotifyBusError("unknown host '\(hostName)' (expected a screen or another object: "
                                 + "\(screenNames.union(objectNames).subtracting([name]).sorted().joined(separator: ", ")))",
                                 path: "\(path).host")
        }
        var spec = ObjectSpec(host: host)
        spec.methods = objectMethods[name] ?? []
        if let value = fields["createdOn"] {
            spec.createdOn = try hostMoment(value, "\(path).createdOn", host: host)
            if spec.createdOn == .screen(.deinit) || spec.createdOn == .object(.deinit) {
                throw NotifyBusError("a host cannot make an object in its deinit", path: "\(path).createdOn")
            }
        }
        if let value = fields["releasedOn"] {
            spec.releasedOn = try hostMoment(value, "\(path).releasedOn", host: host)
        }
        if let value = fields["calls"] {
            for (index, item) in try array(value, "\(path).calls").enumerated() {
                let here = "\(path).calls[\(index)]"
                let call = try object(item, here, keys: ["method", "on"], optional: [])
                let method = try string(call["method"], "\(here).method")
                guard spec.methods.contains(method) else {
                    throw NotifyBusError("unknown method '\(method)' of \(name) (\(Self.methodList(spec.methods, of: name)))",
                                         path: "\(here).method")
                }
                spec.calls.append(MethodCall(method: method, on: try hostMoment(call["on"], "\(here).on", host: host)))
            }
        }
        if let value = fields["retained"] {
            guard Self.isBoolean(value), let flag = value as? Bool else {
                throw NotifyBusError("expected true or false", path: "\(path).retained")
            }
            spec.retained = flag
        }
        var styles: [(style: ObserverStyle?, path: String)] = []
        if let value = fields["observers"] {
            for (index, item) in try array(value, "\(path).observers").enumerated() {
                let here = "\(path).observers[\(index)]"
                let observer = try objectObserver(item, here, of: name)
                spec.observers.append(observer)
                styles.append((observer.style, here))
            }
        }
        let tokens = try Self.tokens(of: styles)
        tokenNames[name] = tokens
        spec.removals = try removals(fields["removals"], path, tokens: tokens) { (value, here) throws(NotifyBusError) in
            try objectMoment(value, here, of: name)
        }
        return spec
    }

    private func objectObserver(_ value: Any?, _ path: String, of name: String) throws(NotifyBusError) -> StyledObserver<ObjectMoment> {
        let fields = try object(value, path, keys: ["message", "addOn", "removeOn"],
                                optional: Self.styleKeys.union(["sender", "sameMoment"]))
        let message = try messageName(fields["message"], "\(path).message")
        let addOn = try objectMoment(fields["addOn"], "\(path).addOn", of: name)
        if addOn == .`deinit` {
            throw NotifyBusError("an observer added in deinit would outlive its owner at once", path: "\(path).addOn")
        }
        let removeOn: ObjectMoment? = try string(fields["removeOn"], "\(path).removeOn") == "never"
            ? nil : try objectMoment(fields["removeOn"], "\(path).removeOn", of: name)
        let sameMoment = try fields["sameMoment"].map { (value: Any) throws(NotifyBusError) -> SameMomentOrder in
            try choice(value, "\(path).sameMoment", Dictionary(uniqueKeysWithValues: SameMomentOrder.allCases.map { ($0.rawValue, $0) }),
                       order: SameMomentOrder.allCases.map(\.rawValue), what: "order")
        }
        if removeOn == addOn, sameMoment == nil {
            throw NotifyBusError("added and removed at \(addOn): say which comes first with \"sameMoment\": \"addFirst\" or \"removeFirst\"",
                                 path: "\(path).removeOn")
        }
        if removeOn != addOn, sameMoment != nil {
            throw NotifyBusError("sameMoment goes with removeOn equal to addOn", path: "\(path).sameMoment")
        }
        let sender = try fields["sender"].map { (value: Any) throws(NotifyBusError) -> String in try screenName(value, "\(path).sender") }
        guard let style = try style(fields, path, required: true) else { throw NotifyBusError("missing", path: "\(path).kind") }
        return StyledObserver(message: message, addOn: addOn, removeOn: removeOn, sender: sender, sameMoment: sameMoment, style: style)
    }

    // MARK: Steps

    /// A format-v2 step, or `nil` for `key`s of version 1.
    func v2Step(_ key: String, _ fields: [String: Any], _ path: String) throws(NotifyBusError) -> Step? {
        let here = "\(path).\(key)"
        switch key {
        case "post":
            let name = try string(fields["post"], here)
            if Scenario.messageNames.contains(name) {
                throw NotifyBusError("\(name) is posted by the app model's own steps (keyboard, background, rotate, …); "
                                     + "post takes system and app-defined names", path: here)
            }
            let message = try messageName(name, here)
            let payload = try fields["payload"].map { (value: Any) throws(NotifyBusError) -> JSONValue in
                try jsonValue(value, "\(path).payload")
            } ?? .null
            return .post(message, payload: payload)
        case "create":
            return .object(.create(try objectName(fields[key], here)))
        case "release":
            return .object(.release(try objectName(fields[key], here)))
        case "call":
            let method = try string(fields[key], here)
            guard fields["on"] != nil else { throw NotifyBusError("a call needs on: the object whose method it is", path: "\(path).on") }
            let target = try objectName(fields["on"], "\(path).on")
            let methods = objectMethods[target] ?? []
            guard methods.contains(method) else {
                throw NotifyBusError("unknown method '\(method)' of \(target) (\(Self.methodList(methods, of: target)))", path: here)
            }
            return .object(.call(method, on: target))
        case "drop":
            let token = try string(fields[key], here)
            guard fields["of"] != nil else { throw NotifyBusError("a drop needs of: the screen or object holding the token", path: "\(path).of") }
            let owner = try string(fields["of"], "\(path).of")
            guard screenNames.contains(owner) || objectNames.contains(owner) else {
                throw NotifyBusError("unknown screen or object '\(owner)'", path: "\(path).of")
            }
            guard tokenNames[owner]?.contains(token) == true else {
                throw NotifyBusError("no observer of \(owner) keeps its registration in '\(token)'", path: here)
            }
            return .object(.dropToken(token, of: owner))
        default:
            return nil
        }
    }

    private func objectName(_ value: Any?, _ path: String) throws(NotifyBusError) -> String {
        let name = try string(value, path)
        guard objectNames.contains(name) else {
            let known = objectNames.isEmpty ? "the scenario declares no objects"
                                            : "objects: \(objectNames.sorted().joined(separator: ", "))"
            throw NotifyBusError("unknown object '\(name)' (\(known))", path: path)
        }
        return name
    }

    /// An object's methods, for an error about one it does not have: "methods: show, hide", or that
    /// it declares none.
    private static func methodList(_ methods: [String], of object: String) -> String {
        methods.isEmpty ? "\(object) declares no methods" : "methods: \(methods.joined(separator: ", "))"
    }

    /// A JSON value read by `JSONSerialization`, as a ``JSONValue``.
    func jsonValue(_ value: Any, _ path: String) throws(NotifyBusError) -> JSONValue {
        if value is NSNull { return .null }
        if Self.isBoolean(value), let flag = value as? Bool { return .bool(flag) }
        if let text = value as? String { return .string(text) }
        if let list = value as? [Any] {
            var items: [JSONValue] = []
            for (index, item) in list.enumerated() { items.append(try jsonValue(item, "\(path)[\(index)]")) }
            return .array(items)
        }
        if let fields = value as? [String: Any] {
            var result: [String: JSONValue] = [:]
            for key in fields.keys.sorted() { result[key] = try jsonValue(fields[key] as Any, "\(path).\(key)") }
            return .object(result)
        }
        guard let number = JSONValue(number: try self.number(value, path)) else { throw NotifyBusError("expected a finite number", path: path) }
        return number
    }
}
