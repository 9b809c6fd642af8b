public import Foundation
public import NotifyBus

extension Scenario {
    /// The typed catalog's message names; format v2 adds ``SystemNotification/names`` and a scenario's `messages`.
    public static var messageNames: [String] { MessageCatalog.all.map { $0.name } }

    /// Reads a scenario file.
    ///
    /// - Throws: ``NotifyBusError`` naming the path of the first mistake:
    ///   text that is not UTF-8, invalid JSON, a key given twice, a missing or unknown key, an unknown screen, message,
    ///   moment, plugin or orientation, a value of the wrong type.
    public static func parse(_ data: Data) throws(NotifyBusError) -> Scenario {
        // JSON files are UTF-8 (RFC 8259): Foundation would also read UTF-16 and UTF-32, which the
        // trace, storing the file as text for replay, would not give back.
        if let offset = data.firstIndex(of: 0) {
            throw NotifyBusError("not UTF-8 JSON: a NUL byte at offset \(offset - data.startIndex) (UTF-16 or UTF-32 text?); save the scenario as UTF-8")
        }
        if String(validating: data, as: UTF8.self) == nil {
            throw NotifyBusError("not UTF-8 JSON: the file holds bytes that are not UTF-8; save the scenario as UTF-8")
        }
        // JSONSerialization keeps the last of two equal keys without a word; unknown keys are refused, so these are too.
        if let path = DuplicateKeys.first(in: data) {
            throw NotifyBusError("duplicate key (JSON would keep only the last)", path: path)
        }
        // Steps one at a time, when every one is valid JSON on its own: the whole file's
        // JSONSerialization tree costs kilobytes per step (ScenarioStepSplitter).
        if let split = ScenarioStepSplitter(data), let top = try? JSONSerialization.jsonObject(with: split.rest),
           split.steps.allSatisfy({ ScenarioStepSplitter.value(of: $0, in: data) != nil }) {
            var parser = ScenarioParser()
            return try parser.scenario(top, stepValue: { index in ScenarioStepSplitter.value(of: split.steps[index], in: data) },
                                       stepCount: split.steps.count)
        }
        return try parseWhole(data)
    }

    /// Reads a scenario file from one `JSONSerialization` tree of the whole file.
    /// A scenario from the objects JSONSerialization would give for its file (dictionaries, arrays,
    /// strings, numbers and booleans), without the file: `tracectl scan` builds its journeys this way.
    /// The same checks as ``parse(_:)`` past the JSON text itself.
    package static func parse(object: Any) throws(NotifyBusError) -> Scenario {
        var parser = ScenarioParser()
        return try parser.scenario(object)
    }

    static func parseWhole(_ data: Data) throws(NotifyBusError) -> Scenario {
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data)
        } catch {
            let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            throw NotifyBusError("invalid JSON: \(reason)")
        }
        var parser = ScenarioParser()
        return try parser.scenario(json)
    }
}

/// Walks the JSON value, keeping the path of what it reads.
struct ScenarioParser {
    var screenNames: Set<String> = []
    /// Format v2: the objects' names and the notification names outside the catalog.
    var objectNames: Set<String> = []
    var declaredMessages: Set<String> = []
    var objectMethods: [String: [String]] = [:]
    /// The token properties of each screen and object, for `drop` steps.
    var tokenNames: [String: Set<String>] = [:]
    /// The seconds the steps read so far add to the clock.
    var elapsed: Double = 0

    /// - Parameters:
    ///   - json: The file's value.
    ///   - stepValue: The value of step `index`, when the file's `steps` were split off (and read `[]` in `json`).
    ///   - stepCount: The number of split-off steps.
    mutating func scenario(_ json: Any, stepValue: ((Int) -> Any?)? = nil, stepCount: Int = 0) throws(NotifyBusError) -> Scenario {
        let top = try object(json, "", keys: ["name", "screens", "root", "steps"], optional: ["objects", "messages", "format", "selectorSemantics"])
        let name = try string(top["name"], "name")
        guard !name.isEmpty else { throw NotifyBusError("must not be empty", path: "name") }
        let screensObject = try object(top["screens"], "screens", keys: [], optional: nil)
        guard !screensObject.isEmpty else { throw NotifyBusError("a scenario needs at least one screen", path: "screens") }
        screenNames = Set(screensObject.keys)
        let objectsObject = try declarations(top)
        var screens: [String: ScreenSpec] = [:]
        for key in screensObject.keys.sorted() {
            screens[key] = try screen(screensObject[key], "screens.\(key)")
        }
        try Self.checkContainment(screens)
        let objects = try objectSpecs(objectsObject, screens: screens)
        let rootObject = try object(top["root"], "root", keys: [], optional: ["screen", "navigation", "tabs", "selected", "main"])
        let main = try rootObject["main"].map { (value: Any) throws(NotifyBusError) -> String in try screenName(value, "root.main") }
        let root = try rootSpec(rootObject, "root", allowTabs: true)
        if let main, Self.names(in: root).contains(main) {
            throw NotifyBusError("\(main) is the main screen and cannot also be in the root", path: "root.main")
        }
        let stepList = try array(top["steps"], "steps")
        var steps: [Step] = []
        if let stepValue {
            steps.reserveCapacity(stepCount)
            for index in 0 ..< stepCount {
                steps.append(try step(stepValue(index), "steps[\(index)]"))
            }
        } else {
            for (index, value) in stepList.enumerated() {
                steps.append(try step(value, "steps[\(index)]"))
            }
        }
        let format = try top["format"].map { (value: Any) throws(NotifyBusError) -> ModelFidelity in
            let number = try integer(value, "format")
            guard let format = ModelFidelity(rawValue: number) else {
                throw NotifyBusError("unknown format \(number) (expected 1 or 2)", path: "format")
            }
            return format
        } ?? .v1
        let semantics = try top["selectorSemantics"].map { (value: Any) throws(NotifyBusError) -> SelectorSemantics in
            try choice(value, "selectorSemantics", Dictionary(uniqueKeysWithValues: SelectorSemantics.allCases.map { ($0.rawValue, $0) }),
                       order: SelectorSemantics.allCases.map(\.rawValue), what: "selector semantics")
        } ?? .modern
        return Scenario(name: name, screens: screens, root: root, main: main, steps: steps, objects: objects,
                        messages: declaredMessages.sorted(), format: format, selectorSemantics: semantics)
    }

    private static func names(in root: RootSpec) -> [String] {
        switch root {
        case .screen(let name), .navigation(let name): [name]
        case .tabs(let tabs, _): tabs.flatMap(names)
        }
    }

    private func screen(_ value: Any?, _ path: String) throws(NotifyBusError) -> ScreenSpec {
        let fields = try object(value, path, keys: ["observers"],
                                optional: ["supportedOrientations", "preferredOrientation", "retainedAfterPop", "handles", "plugins",
                                           "children", "removals", "subviews", "passesTouchesThrough"])
        var spec = ScreenSpec()
        for (index, item) in try array(fields["observers"], "\(path).observers").enumerated() {
            spec.observers.append(try observer(item, "\(path).observers[\(index)]"))
        }
        if let value = fields["supportedOrientations"] {
            spec.supportedOrientations = try choice(value, "\(path).supportedOrientations", [
                "portrait": InterfaceOrientationMask.portrait, "landscape": .landscape, "landscapeLeft": .landscapeLeft,
                "landscapeRight": .landscapeRight, "allButUpsideDown": .allButUpsideDown, "all": .all,
            ], what: "orientation mask")
        }
        if let value = fields["preferredOrientation"] {
            spec.preferredOrientation = try choice(value, "\(path).preferredOrientation", [
                "portrait": InterfaceOrientation.portrait, "landscapeLeft": .landscapeLeft, "landscapeRight": .landscapeRight,
            ], what: "orientation")
        }
        if spec.supportedOrientations.misses(spec.preferredOrientation) {
            throw NotifyBusError("\(spec.preferredOrientation) is not among the supported orientations",
                                 path: "\(path).preferredOrientation")
        }
        if let value = fields["retainedAfterPop"] {
            guard Self.isBoolean(value), let flag = value as? Bool else {
                throw NotifyBusError("expected true or false", path: "\(path).retainedAfterPop")
            }
            spec.retainedAfterPop = flag
        }
        if let value = fields["handles"] {
            for (index, item) in try array(value, "\(path).handles").enumerated() {
                spec.handles.append(try string(item, "\(path).handles[\(index)]"))
            }
        }
        if let value = fields["plugins"] {
            for (index, item) in try array(value, "\(path).plugins").enumerated() {
                let itemPath = "\(path).plugins[\(index)]"
                let plugin = try choice(item, itemPath, Dictionary(uniqueKeysWithValues: StockPlugin.allCases.map { ($0.rawValue, $0) }), what: "plugin")
                guard !spec.plugins.contains(plugin) else { throw NotifyBusError("\(plugin.rawValue) is listed twice", path: itemPath) }
                spec.plugins.append(plugin)
            }
        }
        if let value = fields["passesTouchesThrough"] {
            guard Self.isBoolean(value), let flag = value as? Bool else {
                throw NotifyBusError("expected true or false", path: "\(path).passesTouchesThrough")
            }
            spec.passesTouchesThrough = flag
        }
        if let value = fields["subviews"] {
            for (index, item) in try array(value, "\(path).subviews").enumerated() {
                spec.subviews.append(try subview(item, "\(path).subviews[\(index)]"))
            }
        }
        if let value = fields["children"] {
            for (index, item) in try array(value, "\(path).children").enumerated() {
                spec.children.append(try screenName(item, "\(path).children[\(index)]"))
            }
        }
        let tokens = try Self.tokens(of: spec.observers.enumerated().map { ($1.style, "\(path).observers[\($0)]") })
        spec.removals = try removals(fields["removals"], path, tokens: tokens) { (value, here) throws(NotifyBusError) in
            try screenMoment(value, here)
        }
        return spec
    }

    private func subview(_ value: Any?, _ path: String) throws(NotifyBusError) -> Subview {
        let fields = try object(value, path, keys: ["name", "frame"], optional: ["hidden", "alpha", "userInteractionEnabled", "action"])
        let name = try string(fields["name"], "\(path).name")
        let frameList = try array(fields["frame"], "\(path).frame")
        guard frameList.count == 4 else { throw NotifyBusError("expected [x, y, width, height]", path: "\(path).frame") }
        var numbers: [Double] = []
        for (index, item) in frameList.enumerated() {
            let number = try number(item, "\(path).frame[\(index)]")
            guard number.isFinite, abs(number) <= Self.largestCoordinate else {
                throw NotifyBusError("must be a finite number of points up to \(Int(Self.largestCoordinate))", path: "\(path).frame[\(index)]")
            }
            if index >= 2, number < 0 { throw NotifyBusError("must not be negative", path: "\(path).frame[\(index)]") }
            numbers.append(number)
        }
        var subview = Subview(name: name, frame: Rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]))
        for key in ["hidden", "userInteractionEnabled"] {
            guard let value = fields[key] else { continue }
            guard Self.isBoolean(value), let flag = value as? Bool else { throw NotifyBusError("expected true or false", path: "\(path).\(key)") }
            if key == "hidden" { subview.isHidden = flag } else { subview.isUserInteractionEnabled = flag }
        }
        if let value = fields["alpha"] {
            let alpha = try number(value, "\(path).alpha")
            guard alpha >= 0, alpha <= 1 else { throw NotifyBusError("must be between 0 and 1", path: "\(path).alpha") }
            subview.alpha = alpha
        }
        subview.action = try fields["action"].map { (value: Any) throws(NotifyBusError) -> String in try string(value, "\(path).action") }
        return subview
    }

    /// The largest coordinate a frame or a tap may have, in points.
    static let largestCoordinate = 100_000.0

    /// A screen may not contain itself, directly or through its children.
    private static func checkContainment(_ screens: [String: ScreenSpec]) throws(NotifyBusError) {
        for name in screens.keys.sorted() {
            var seen: Set<String> = [], frontier = [name]
            while let current = frontier.popLast() {
                for (index, child) in (screens[current]?.children ?? []).enumerated() {
                    if child == name {
                        throw NotifyBusError("\(name) would contain itself", path: "screens.\(current).children[\(index)]")
                    }
                    if seen.insert(child).inserted { frontier.append(child) }
                }
            }
        }
    }

    private func observer(_ value: Any?, _ path: String) throws(NotifyBusError) -> ObserverSpec {
        let fields = try object(value, path, keys: ["message", "addOn", "removeOn"], optional: Self.styleKeys.union(["sender", "sameMoment"]))
        let message = try messageName(fields["message"], "\(path).message")
        let moments = Dictionary(uniqueKeysWithValues: ScreenMoment.allCases.map { ($0.rawValue, $0) })
        let addOn = try choice(fields["addOn"], "\(path).addOn", moments, order: ScreenMoment.allCases.map(\.rawValue), what: "moment")
        var removeMoments: [String: ScreenMoment?] = moments.mapValues { $0 }
        removeMoments["never"] = .some(nil)
        let removeOn = try choice(fields["removeOn"], "\(path).removeOn", removeMoments,
                                  order: ScreenMoment.allCases.map(\.rawValue) + ["never"], what: "moment")
        let orders = Dictionary(uniqueKeysWithValues: SameMomentOrder.allCases.map { ($0.rawValue, $0) })
        let sameMoment = try fields["sameMoment"].map { (value: Any) throws(NotifyBusError) -> SameMomentOrder in
            try choice(value, "\(path).sameMoment", orders, order: SameMomentOrder.allCases.map(\.rawValue), what: "order")
        }
        if removeOn == addOn, sameMoment == nil {
            throw NotifyBusError("added and removed at \(addOn.rawValue): say which comes first with \"sameMoment\": \"addFirst\" or \"removeFirst\"",
                                 path: "\(path).removeOn")
        }
        if removeOn != addOn, sameMoment != nil {
            throw NotifyBusError("sameMoment goes with removeOn equal to addOn", path: "\(path).sameMoment")
        }
        let sender = try fields["sender"].map { (value: Any) throws(NotifyBusError) -> String in try screenName(value, "\(path).sender") }
        return ObserverSpec(message: message, addOn: addOn, removeOn: removeOn, sender: sender, sameMoment: sameMoment,
                            style: try style(fields, path, required: false))
    }

    private func rootSpec(_ fields: [String: Any], _ path: String, allowTabs: Bool) throws(NotifyBusError) -> RootSpec {
        let kinds = ["screen", "navigation", "tabs"].filter { fields[$0] != nil }
        guard kinds.count == 1 else {
            throw NotifyBusError(kinds.isEmpty ? "expected one of screen, navigation, tabs"
                                               : "expected only one of \(kinds.joined(separator: ", "))", path: path)
        }
        switch kinds[0] {
        case "screen":
            if fields["selected"] != nil { throw NotifyBusError("unknown key (selected goes with tabs)", path: "\(path).selected") }
            return .screen(try screenName(fields["screen"], "\(path).screen"))
        case "navigation":
            if fields["selected"] != nil { throw NotifyBusError("unknown key (selected goes with tabs)", path: "\(path).selected") }
            return .navigation(try screenName(fields["navigation"], "\(path).navigation"))
        default:
            guard allowTabs else { throw NotifyBusError("a tab holds a screen or a navigation stack, not tabs", path: "\(path).tabs") }
            let list = try array(fields["tabs"], "\(path).tabs")
            guard !list.isEmpty else { throw NotifyBusError("tabs need at least one tab", path: "\(path).tabs") }
            var tabs: [RootSpec] = []
            for (index, item) in list.enumerated() {
                let tabPath = "\(path).tabs[\(index)]"
                tabs.append(try rootSpec(try object(item, tabPath, keys: [], optional: ["screen", "navigation"]), tabPath, allowTabs: false))
            }
            let selected = try fields["selected"].map { (value: Any) throws(NotifyBusError) -> Int in try integer(value, "\(path).selected") } ?? 0
            guard tabs.indices.contains(selected) else {
                throw NotifyBusError("no tab \(selected): there are \(tabs.count)", path: "\(path).selected")
            }
            return .tabs(tabs, selected: selected)
        }
    }

    private mutating func step(_ value: Any?, _ path: String) throws(NotifyBusError) -> Step {
        guard let fields = value as? [String: Any] else { throw NotifyBusError("expected an object with one step", path: path) }
        let stepKeys = ["push", "pop", "popToRoot", "present", "dismiss", "selectTab", "keyboard", "background",
                        "foreground", "interrupt", "rotate", "action", "wait", "interactivePop", "interactiveDismiss",
                        "addChild", "removeChild", "tap"] + Self.v2StepKeys
        let found = stepKeys.filter { fields[$0] != nil }
        guard found.count == 1 else {
            if found.isEmpty {
                let unknown = fields.keys.sorted().first.map { "unknown step '\($0)'" } ?? "empty step"
                throw NotifyBusError("\(unknown) (expected one of \(stepKeys.joined(separator: ", ")))", path: path)
            }
            throw NotifyBusError("one step per entry, found \(found.joined(separator: " and "))", path: path)
        }
        let key = found[0]
        let extras: [String: Set<String>] = ["present": ["style", "duration"], "keyboard": ["height"], "action": ["from"],
                                             "interactivePop": ["duration"], "interactiveDismiss": ["duration"], "addChild": ["to"]]
            .merging(Self.v2StepExtras) { old, _ in old }
        for other in fields.keys where other != key && !(extras[key]?.contains(other) ?? false) {
            throw NotifyBusError("unknown key for a \(key) step", path: "\(path).\(other)")
        }
        let argument = fields[key]
        let here = "\(path).\(key)"
        if let step = try v2Step(key, fields, path) { return step }
        switch key {
        case "push":
            return .push(try screenName(argument, here))
        case "present":
            let style = try fields["style"].map { (value: Any) throws(NotifyBusError) -> PresentationStyle in
                try choice(value, "\(path).style", Dictionary(uniqueKeysWithValues: PresentationStyle.allCases.map { ($0.rawValue, $0) }), what: "presentation style")
            } ?? .fullScreen
            let duration = try fields["duration"].map { (value: Any) throws(NotifyBusError) -> Double in try seconds(value, "\(path).duration") } ?? 0
            try spend(duration, "\(path).duration")
            return .present(try screenName(argument, here), style: style, duration: duration)
        case "selectTab":
            return .selectTab(try integer(argument, here))
        case "keyboard":
            let action = try choice(argument, here, ["show": true, "hide": false], what: "keyboard action")
            if action {
                let height = try fields["height"].map { (value: Any) throws(NotifyBusError) -> Double in try number(value, "\(path).height") } ?? 336
                guard height.isFinite, height > 0, height <= Self.largestCoordinate else {
                    throw NotifyBusError("must be a positive number of points up to \(Int(Self.largestCoordinate))", path: "\(path).height")
                }
                return .showKeyboard(height: height)
            }
            if fields["height"] != nil { throw NotifyBusError("height goes with show", path: "\(path).height") }
            return .hideKeyboard
        case "rotate":
            return .rotate(try choice(argument, here, [
                "portrait": DeviceOrientation.portrait, "landscapeLeft": .landscapeLeft,
                "landscapeRight": .landscapeRight, "portraitUpsideDown": .portraitUpsideDown,
            ], what: "device orientation"))
        case "action":
            let name = try string(argument, here)
            guard fields["from"] != nil else { throw NotifyBusError("an action needs from: the screen that sends it", path: "\(path).from") }
            return .action(name, from: try screenName(fields["from"], "\(path).from"))
        case "wait":
            let seconds = try seconds(argument, here)
            try spend(seconds, here)
            return .wait(seconds)
        case "interactivePop", "interactiveDismiss":
            let outcomes = Dictionary(uniqueKeysWithValues: InteractiveOutcome.allCases.map { ($0.rawValue, $0) })
            let outcome = try choice(argument, here, outcomes, order: InteractiveOutcome.allCases.map(\.rawValue), what: "outcome")
            let duration = try fields["duration"].map { (value: Any) throws(NotifyBusError) -> Double in try seconds(value, "\(path).duration") } ?? 0
            try spend(duration, "\(path).duration")
            return key == "interactivePop" ? .interactivePop(outcome, duration: duration) : .interactiveDismiss(outcome, duration: duration)
        case "addChild":
            guard let parent = fields["to"] else { throw NotifyBusError("an addChild step needs to", path: "\(path).to") }
            return .addChild(try screenName(argument, here), to: try screenName(parent, "\(path).to"))
        case "removeChild":
            return .removeChild(try screenName(argument, here))
        case "tap":
            let point = try array(argument, here)
            guard point.count == 2 else { throw NotifyBusError("expected [x, y]", path: here) }
            var coordinates: [Double] = []
            for (index, item) in point.enumerated() {
                let value = try number(item, "\(here)[\(index)]")
                guard value.isFinite, value >= 0, value <= Self.largestCoordinate else {
                    throw NotifyBusError("must be a finite number of points from 0 to \(Int(Self.largestCoordinate))", path: "\(here)[\(index)]")
                }
                coordinates.append(value)
            }
            return .tap(x: coordinates[0], y: coordinates[1])
        default:
            _ = try object(argument, here, keys: [], optional: [])
            switch key {
            case "pop": return .pop
            case "popToRoot": return .popToRoot
            case "dismiss": return .dismiss
            case "background": return .background
            case "foreground": return .foreground
            default: return .interrupt
            }
        }
    }

    // MARK: Values

    /// An object with exactly `keys` and any of `optional` (`nil`: any keys at all).
    func object(_ value: Any?, _ path: String, keys: Set<String>, optional: Set<String>?) throws(NotifyBusError) -> [String: Any] {
        let location: String? = path.isEmpty ? nil : path
        guard let value else { throw NotifyBusError("missing", path: location) }
        guard let fields = value as? [String: Any] else { throw NotifyBusError("expected an object", path: location) }
        for key in keys.sorted() where fields[key] == nil {
            throw NotifyBusError("missing", path: path.isEmpty ? key : "\(path).\(key)")
        }
        if let optional {
            for key in fields.keys.sorted() where !keys.contains(key) && !optional.contains(key) {
                let allowed = (keys.union(optional)).sorted()
                throw NotifyBusError(allowed.isEmpty ? "unknown key (expected {})" : "unknown key (expected \(allowed.joined(separator: ", ")))",
                                     path: path.isEmpty ? key : "\(path).\(key)")
            }
        }
        return fields
    }

    func array(_ value: Any?, _ path: String) throws(NotifyBusError) -> [Any] {
        guard let value else { throw NotifyBusError("missing", path: path) }
        guard let list = value as? [Any] else { throw NotifyBusError("expected a list", path: path) }
        return list
    }

    func string(_ value: Any?, _ path: String) throws(NotifyBusError) -> String {
        guard let value else { throw NotifyBusError("missing", path: path) }
        guard let text = value as? String else { throw NotifyBusError("expected a string", path: path) }
        return text
    }

    func screenName(_ value: Any?, _ path: String) throws(NotifyBusError) -> String {
        let name = try string(value, path)
        guard screenNames.contains(name) else {
            throw NotifyBusError("unknown screen '\(name)' (screens: \(screenNames.sorted().joined(separator: ", ")))", path: path)
        }
        return name
    }

    func number(_ value: Any?, _ path: String) throws(NotifyBusError) -> Double {
        guard let value else { throw NotifyBusError("missing", path: path) }
        if Self.isBoolean(value) { throw NotifyBusError("expected a number", path: path) }
        switch value {
        case let number as Int: return Double(number)
        case let number as Double: return number
        case let number as NSNumber: return number.doubleValue
        default: throw NotifyBusError("expected a number", path: path)
        }
    }

    /// JSON `true`/`false`: on Linux JSONSerialization gives an `NSNumber` for
    /// both numbers and booleans, and `0 is Bool` holds, so ask for its C type.
    static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return value is Bool }
        return String(cString: number.objCType) == "c"
    }

    func integer(_ value: Any?, _ path: String) throws(NotifyBusError) -> Int {
        let value = try number(value, path)
        guard value.rounded() == value, abs(value) < 1e9 else { throw NotifyBusError("expected a whole number", path: path) }
        return Int(value)
    }

    /// A number of seconds one operation takes: finite, from 0 to ``AppModel/longestInterval``.
    func seconds(_ value: Any?, _ path: String) throws(NotifyBusError) -> Double {
        let value = try number(value, path)
        guard value.isFinite else { throw NotifyBusError("must be a finite number", path: path) }
        guard value >= 0 else { throw NotifyBusError("must not be negative", path: path) }
        guard value <= AppModel.longestInterval else {
            throw NotifyBusError("must be at most \(Int(AppModel.longestInterval)) seconds", path: path)
        }
        return value
    }

    /// Adds a wait or transition to the scenario's elapsed time, refusing it past ``Scenario/maximumDuration``.
    mutating func spend(_ seconds: Double, _ path: String) throws(NotifyBusError) {
        guard seconds <= Scenario.maximumDuration - elapsed else {
            let limit = Int(Scenario.maximumDuration)
            throw NotifyBusError(elapsed == 0 ? "\(seconds) seconds is longer than a scenario can run (at most \(limit) in all)"
                                 : "\(seconds) seconds more is longer than a scenario can run (\(elapsed) already; at most \(limit) in all)",
                                 path: path)
        }
        elapsed += seconds
    }

    func choice<T>(_ value: Any?, _ path: String, _ options: [String: T], order: [String]? = nil,
                           what: String) throws(NotifyBusError) -> T {
        let name = try string(value, path)
        guard let result = options[name] else {
            let names = order ?? options.keys.sorted()
            throw NotifyBusError("unknown \(what) '\(name)' (expected one of \(names.joined(separator: ", ")))", path: path)
        }
        return result
    }
}
