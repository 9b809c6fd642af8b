import AppModel
import Foundation

/// Turns one resolved class into the scenario format's screens and objects, and the fixed
/// journeys it is run through; remembers which source line each observer and removal came from.
struct ScenarioBuilder {
    /// Where a scenario observer or removal came from.
    struct Origin: Sendable {
        var registration: RegistrationFact?
        /// The removal paired with the observer (`removeOn`), or the unpaired removal itself.
        var removal: RemovalFact?
        var via: [String]
        var removalVia: [String] = []
        /// The owner's moment of the registration (or of the removal, for an unpaired one).
        var moment: String
        var removalMoment: String?
    }

    /// A journey: a name and its steps.
    struct Journey {
        var name: String
        var steps: [[String: Any]]
    }

    static let file = "scan.json"
    static let rootScreen = "NavigationRoot"
    static let coverScreen = "CoveringScreen"
    static let hostScreen = "HostScreen"

    let model: ObserverModel.TypeModel
    let constants: [String: String?]
    /// The scenario name of the class: a screen, or an object in ``hostScreen``.
    let subject: String
    private(set) var origins: [String: Origin] = [:]
    private(set) var notes: [ScanNote] = []
    private(set) var messages: Set<String> = []
    private var observers: [[String: Any]] = []
    private var removals: [[String: Any]] = []

    /// The subject name every class shares when its journeys are recorded in memory: classes that
    /// observe alike (the subclasses of one base controller) then have the same scenarios, recorded once.
    static let sharedSubject = "ScannedClass"

    /// - Parameter subject: the class's name in the scenario; its own name (made a scenario name) when nil.
    init(model: ObserverModel.TypeModel, constants: [String: String?], subject: String? = nil) {
        self.model = model
        self.constants = constants
        var name = subject ?? String(model.name.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
        if [Self.rootScreen, Self.coverScreen, Self.hostScreen].contains(name) { name = "Scanned_" + name }
        self.subject = name
        sessionName = subject ?? model.name
        build()
    }

    /// The class as the sessions' names give it.
    private let sessionName: String

    /// What every journey's scenario is made of, as text: two builders with one identity record the
    /// same events. A scenario (``scenario(_:)``) and its journeys' steps (``journeys``) are functions
    /// of these fields alone; `identityIsWhatTheScenariosAreMadeOf` holds the two together.
    var identity: String {
        var text = "\(model.role) \(model.isContainer) \(model.isSingleton) "
        Self.append([subject, sessionName], to: &text)
        Self.append(messages.sorted(), to: &text)
        Self.append(observers, to: &text)
        Self.append(removals, to: &text)
        return text
    }

    /// A scenario value as text, keys sorted: one text for one value, and different texts for
    /// different values (strings are written with their length). `JSONSerialization` did the same
    /// at fifteen times the cost.
    static func append(_ value: Any, to text: inout String) {
        switch value {
        case let string as String:
            text += "s\(string.utf8.count):"
            text += string
        case let object as [String: Any]:
            text += "{"
            for key in object.keys.sorted() {
                append(key, to: &text)
                append(object[key]!, to: &text)
            }
            text += "}"
        case let array as [Any]:
            text += "["
            for element in array { append(element, to: &text) }
            text += "]"
        case let flag as Bool:
            text += flag ? "t" : "f"
        case let number as Int:
            text += "i\(number);"
        default:
            text += "?\(type(of: value))=\(value);"
        }
    }

    private var ownerPath: String { model.role == .screen ? "screens.\(subject)" : "objects.\(subject)" }

    private func moments() -> [String] {
        model.role == .screen ? ObserverModel.screenMoments.map(\.moment)
            + ["willResignActive", "didBecomeActive", "didEnterBackground", "willEnterForeground"]
            : ObserverModel.objectMoments.map(\.moment)
    }

    // MARK: Observers and removals

    private struct Entry {
        var moment: String
        var order: Int
        var reached: ObserverModel.Reached
    }

    private mutating func build() {
        var registrations: [(Entry, RegistrationFact)] = []
        var removalsFound: [(Entry, RemovalFact)] = []
        for moment in moments() {
            for (order, reached) in (model.moments[moment] ?? []).enumerated() {
                let entry = Entry(moment: moment, order: order, reached: reached)
                switch reached.fact {
                case .register(let fact): registrations.append((entry, fact))
                case .remove(let fact): removalsFound.append((entry, fact))
                }
            }
        }
        var consumed = Set<Int>()
        var tokenKinds: [String: String] = [:]
        var tokenMessages: [String: Set<String>] = [:]
        var discardedCount = 0
        for (entry, fact) in registrations {
            guard fact.observerIsSelf else {
                note(fact.location, "an observer registered for another object, not self: not modelled")
                continue
            }
            if fact.outsideTask {
                note(fact.location, "a `for await` loop over notifications(named:) outside a Task: it lives as long as "
                     + "its caller's task, which the scan does not follow")
                continue
            }
            if entry.moment == "deinit" {
                note(fact.location, "an observer registered in deinit: not modelled")
                continue
            }
            guard case .message(let message, _) = resolve(fact.name) else {
                if case .unresolved(let why) = resolve(fact.name) {
                    note(fact.location, "observer's notification cannot be resolved (\(why)): not modelled")
                } else {
                    note(fact.location, "an observer of every notification (name: nil): not modelled")
                }
                continue
            }
            if case .returned = fact.destination {
                note(fact.location, "the registration is returned to a caller, which the scan does not follow: not modelled")
                continue
            }
            let style = style(of: fact)
            var observer: [String: Any] = ["message": message, "addOn": entry.moment, "kind": style.kind]
            if let capture = style.capture { observer["capture"] = capture }
            var origin = Origin(registration: fact, via: entry.reached.via, moment: entry.moment)
            var token: String?
            var collection: String?
            switch fact.destination {
            case .property(let name) where style.kind != "selector":
                token = name
            case .collection(let name):
                collection = name
            case .discarded where style.kind == "token":
                // A token nobody keeps is released at once.
                discardedCount += 1
                token = "discarded\(discardedCount)"
            default:
                break
            }
            if let name = token {
                if let other = tokenKinds[name], other != style.kind {
                    note(fact.location, "\(name) holds both a \(other) and a \(style.kind) observation: this one is not modelled")
                    continue
                }
                tokenKinds[name] = style.kind
                tokenMessages[name, default: []].insert(message)
                observer["token"] = name
            }
            if case .selector(let method) = fact.kind { observer["selector"] = method }
            // The removal that undoes it: at the same moment (its order matters), else a collection's.
            var removeOn: String?
            for (index, (removalEntry, removal)) in removalsFound.enumerated() {
                let sameMoment = removalEntry.moment == entry.moment
                let matches: Bool
                var removeBy: String?
                switch removal.target {
                case .owner:
                    matches = sameMoment && style.kind == "selector"
                    removeBy = "owner"
                case .name(let name):
                    if case .message(let other, _) = resolve(name) {
                        matches = sameMoment && style.kind == "selector" && other == message
                    } else {
                        matches = false
                    }
                    removeBy = "name"
                case .token(let name):
                    // `removeObserver(observers)` with the collection itself removes nothing: not paired.
                    matches = sameMoment && name == token
                    removeBy = "token"
                case .tokenNamed(let name, let notification):
                    matches = sameMoment && name == token && nameMatches(notification, message)
                    removeBy = "token"
                case .drop(let name):
                    // Setting a block's property to nil leaves the block registered; a token goes with it.
                    matches = style.kind == "token" && ((sameMoment && name == token) || name == collection)
                    removeBy = "token"
                case .collection(let name):
                    matches = name == collection
                    removeBy = "token"
                case .unknown:
                    matches = false
                }
                guard matches else { continue }
                consumed.insert(index)
                removeOn = removalEntry.moment
                observer["removeBy"] = removeBy
                if removalEntry.moment == entry.moment {
                    observer["sameMoment"] = removalEntry.order < entry.order ? "removeFirst" : "addFirst"
                }
                origin.removal = removal
                origin.removalVia = removalEntry.reached.via
                origin.removalMoment = removalEntry.moment
                break
            }
            observer["removeOn"] = removeOn ?? "never"
            messages.insert(message)
            origins["\(ownerPath).observers[\(observers.count)]"] = origin
            observers.append(observer)
            if let name = token, name.hasPrefix("discarded") {
                appendRemoval(["on": entry.moment, "drop": name],
                              Origin(registration: fact, removal: nil, via: entry.reached.via, moment: entry.moment))
            }
        }
        let tokens = Set(tokenKinds.keys)
        for (index, (entry, removal)) in removalsFound.enumerated() where !consumed.contains(index) {
            let origin = Origin(registration: nil, removal: removal, via: entry.reached.via, moment: entry.moment,
                                removalMoment: entry.moment)
            switch removal.target {
            case .owner:
                appendRemoval(["on": entry.moment, "remove": "owner"], origin)
            case .name(let name):
                switch resolve(name) {
                case .message(let message, _):
                    messages.insert(message)
                    appendRemoval(["on": entry.moment, "remove": "name", "message": message], origin)
                case .every:
                    appendRemoval(["on": entry.moment, "remove": "owner"], origin)
                case .unresolved(let why):
                    note(removal.location, "removal's notification cannot be resolved (\(why)): not modelled")
                }
            case .token(let name) where tokens.contains(name):
                appendRemoval(["on": entry.moment, "remove": "token", "token": name], origin)
            case .tokenNamed(let name, let notification) where tokens.contains(name):
                // Foundation removes the token's registration only under its own name: another name removes nothing.
                if tokenMessages[name]?.contains(where: { nameMatches(notification, $0) }) == true {
                    appendRemoval(["on": entry.moment, "remove": "token", "token": name], origin)
                }
            case .drop(let name) where tokens.contains(name):
                appendRemoval(["on": entry.moment, "drop": name], origin)
            case .unknown(let text):
                note(removal.location, "removeObserver(\(text)): the scan cannot tell which registration this removes")
            default:
                break   // a property or collection no registration of this class uses
            }
        }
    }

    private mutating func appendRemoval(_ removal: [String: Any], _ origin: Origin) {
        origins["\(ownerPath).removals[\(removals.count)]"] = origin
        removals.append(removal)
    }

    private mutating func note(_ location: SourceLocation, _ text: String) {
        notes.append(ScanNote(location: location, type: model.name, text: text))
    }

    /// Whether a removal's name argument names `message`.
    func nameMatches(_ name: NameExpression, _ message: String) -> Bool {
        switch resolve(name) {
        case .message(let other, _): other == message
        case .every: true
        case .unresolved: true   // unknown: assume the code removes what it meant to
        }
    }

    func resolve(_ name: NameExpression) -> ResolvedName {
        NotificationNames.resolve(name, constants: constants)
    }

    /// The scenario kind and capture of a registration.
    func style(of fact: RegistrationFact) -> (kind: String, capture: String?) {
        let strong: Bool
        var capture = "weak"
        switch fact.capture {
        case .weak?: strong = false
        case .unowned?: strong = false; capture = "unowned"
        case .strong?: strong = true
        case .implicit(let identifiers, let mentionsSelf)?:
            strong = mentionsSelf || !identifiers.isDisjoint(with: model.memberNames)
        case nil: strong = false
        }
        if strong { capture = "strong" }
        switch fact.kind {
        case .selector: return ("selector", nil)
        case .block, .asyncLoop: return ("block", capture)
        case .typedToken, .combine:
            // A token kept by its owner whose closure holds the owner strongly: a cycle, as a strong block is.
            if strong, fact.destination != .discarded { return ("block", "strong") }
            return ("token", nil)
        }
    }

    // MARK: Scenario

    /// Whether the class has anything to run.
    var isEmpty: Bool { observers.isEmpty && removals.isEmpty }

    /// The scenario of one journey.
    func scenario(_ journey: Journey) -> [String: Any] {
        let declared = messages.filter(NotificationNames.needsDeclaration).sorted()
        var screens: [String: Any] = [Self.rootScreen: ["observers": []], Self.coverScreen: ["observers": []]]
        var result: [String: Any] = ["name": "scan \(sessionName): \(journey.name)", "format": 2,
                                     "root": ["navigation": Self.rootScreen], "steps": journey.steps]
        if !declared.isEmpty { result["messages"] = declared }
        if model.role == .screen {
            var screen: [String: Any] = ["observers": observers]
            if !removals.isEmpty { screen["removals"] = removals }
            screens[subject] = screen
        } else {
            screens[Self.hostScreen] = ["observers": []]
            var object: [String: Any] = ["host": Self.hostScreen, "createdOn": "viewDidLoad", "observers": observers]
            if !removals.isEmpty { object["removals"] = removals }
            if model.role == .view {
                object["methods"] = ["enterWindow", "leaveWindow"]
                object["calls"] = [["method": "enterWindow", "on": "didMoveToWindow"],
                                   ["method": "leaveWindow", "on": "viewDidDisappear"]]
            }
            if model.isSingleton { object["retained"] = true }
            result["objects"] = [subject: object]
        }
        result["screens"] = screens
        return result
    }

    /// The screen the journeys push and present.
    private var shown: String { model.role == .screen ? subject : Self.hostScreen }

    /// Push then pop; present then dismiss, as a sheet and full screen; an interactive pop
    /// cancelled then completed; background and foreground, the keyboard shown and hidden,
    /// the app's own notifications posted, while visible, covered and after the screen is gone.
    var journeys: [Journey] {
        let posts: [[String: Any]] = messages.filter { !Scenario.messageNames.contains($0) }.sorted().map { ["post": $0] }
        let keyboard: [[String: Any]] = [["keyboard": "show"], ["keyboard": "hide"]]
        let activity: [[String: Any]] = [["background": [:]], ["foreground": [:]]]
        let rotation: [[String: Any]] = messages.contains("orientationDidChange")
            ? [["rotate": "landscapeLeft"], ["rotate": "portrait"]] : []
        let around = keyboard + activity + rotation + posts
        var journeys: [Journey] = []
        if !model.isContainer {
            journeys.append(Journey(name: "push, covered by a push, pop back, interactive pop cancelled then completed", steps:
                [["push": shown]] + around + [["push": Self.coverScreen]] + around + [["pop": [:]]]
                + [["interactivePop": "cancel"], ["interactivePop": "complete"]] + around))
        }
        journeys.append(Journey(name: "presented as a sheet, interactive dismiss cancelled then completed", steps:
            [["present": shown, "style": "pageSheet"]] + keyboard + posts
            + [["interactiveDismiss": "cancel"], ["interactiveDismiss": "complete"]] + keyboard + posts))
        journeys.append(Journey(name: "presented full screen, covered by a full-screen presentation, dismissed", steps:
            [["present": shown, "style": "fullScreen"]] + around + [["present": Self.coverScreen, "style": "fullScreen"]]
            + around + [["dismiss": [:]], ["dismiss": [:]]] + around))
        return journeys
    }
}
