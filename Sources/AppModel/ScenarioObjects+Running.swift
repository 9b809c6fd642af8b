import NotifyBus

// Running scenario format v2's observer-level constructs: styled observers,
// token properties, unpaired removals, objects that are not screens, posts.

/// What code keeps in an owner's properties: the observations and tokens it
/// holds, and the objects it made.
final class OwnerProperties {
    enum Held {
        case token(ObservationToken)
        case block(BlockObservation)
    }

    /// Properties named by the scenario (`token`): one registration each, overwritten by the next.
    var named: [String: Held] = [:]
    /// Unnamed registrations, by observer index: lists that keep every one (`observers.append(...)`).
    var lists: [Int: [Held]] = [:]
    /// The objects it holds, by name.
    var hosted: [String: ScenarioObject] = [:]

    /// The owner's `strong` blocks not removed yet, by observation.
    var strongBlocks: Set<ObjectIdentifier> = []

    /// Whether a `strong` block of the owner's is still registered: the center keeps the owner alive.
    var holdsStrongBlock: Bool { !strongBlocks.isEmpty }

    /// Lets go of every token and observation, as the owner's storage is destroyed.
    func clearTokens() {
        for key in named.keys.sorted() { named[key] = nil }
        for key in lists.keys.sorted() { lists[key] = nil }
    }
}

/// An object of a scenario that is not a screen. Its type in traces is its name.
final class ScenarioObject: TraceLabeled {
    let name: String
    let spec: ObjectSpec
    let properties = OwnerProperties()

    init(name: String, spec: ObjectSpec) {
        self.name = name
        self.spec = spec
    }

    var traceLabel: String { name }
    var traceTypeName: String { name }
}

/// What the runner keeps about format v2's objects.
final class ScenarioObjectState {
    /// The objects each screen or object hosts, by host name, in name order.
    let hosted: [String: [(name: String, spec: ObjectSpec)]]
    /// Objects something outside the scenario keeps alive (`retained`).
    var retained: [ScenarioObject] = []

    init(scenario: Scenario) {
        hosted = Dictionary(grouping: scenario.objects.sorted { $0.key < $1.key }.map { (name: $0.key, spec: $0.value) },
                            by: \.spec.host.name)
    }
}

/// One observer of a screen or an object, with the moments of its owner.
struct ObserverEntry<Moment: Hashable> {
    var message: String
    var addOn: Moment
    var removeOn: Moment?
    var sender: String?
    var sameMoment: SameMomentOrder?
    var style: ObserverStyle?
}

/// Runs the observers, removals and hosted objects of one screen whose
/// description uses format v2.
final class ScenarioScreenPlugin: ScreenPlugin {
    let name: String
    let entries: [ObserverEntry<ScreenMoment>]
    let removals: [RemovalSpec<ScreenMoment>]
    let retainedAfterPop: Bool
    let properties = OwnerProperties()
    weak var runner: ScenarioRunner?

    init(name: String, spec: ScreenSpec, runner: ScenarioRunner) {
        self.name = name
        entries = spec.observers.map {
            ObserverEntry(message: $0.message, addOn: $0.addOn, removeOn: $0.removeOn, sender: $0.sender,
                          sameMoment: $0.sameMoment, style: $0.style)
        }
        removals = spec.removals
        retainedAfterPop = spec.retainedAfterPop
        self.runner = runner
    }

    func screen(_ screen: Screen, reached moment: ScreenMoment, in app: AppModel) {
        guard let runner else { return }
        runner.reach(moment, owner: screen, properties: properties, entries: entries, removals: removals,
                     path: "screens.\(name)")
        runner.hostReached(.screen(moment), hostName: name, host: screen, properties: properties)
        if moment == .deinit {
            runner.releaseHosted(of: properties)
            properties.clearTokens()
        }
        // A `strong` block keeps its screen alive after it leaves the hierarchy.
        screen.retainedAfterPop = retainedAfterPop || properties.holdsStrongBlock
    }
}

extension ScenarioRunner {
    // MARK: Screens

    /// Whether the screen `name` needs the format-v2 plugin.
    func usesV2(_ name: String) -> Bool {
        guard let spec = scenario.screens[name] else { return false }
        let catalog = Set(Scenario.messageNames)
        return spec.observers.contains { $0.style != nil || !catalog.contains($0.message) }
            || !spec.removals.isEmpty || scenario.objects.values.contains { $0.host == .screen(name) }
    }

    /// Whether the screen `name`'s v2 parts hook on activity moments, which the activity plugin delivers.
    func v2UsesActivity(_ name: String) -> Bool {
        guard let spec = scenario.screens[name] else { return false }
        let activity: (ScreenMoment) -> Bool = { $0.isActivity }
        let hostMoments = scenario.objects.values.filter { $0.host == .screen(name) }.flatMap { object in
            [object.createdOn, object.releasedOn].compactMap { $0 } + object.calls.map(\.on)
        }
        return spec.removals.contains { activity($0.on) }
            || hostMoments.contains { if case .screen(let moment) = $0 { activity(moment) } else { false } }
    }

    /// Adds the v2 plugin to a new screen when its description needs one.
    func addV2Plugin(to screen: Screen, name: String) {
        guard usesV2(name), let spec = scenario.screens[name] else { return }
        screen.add(ScenarioScreenPlugin(name: name, spec: spec, runner: self))
    }

    // MARK: Moments

    /// At `moment` of `owner`: its observers' removals and adds in their order, then its unpaired removals.
    func reach<Moment: Hashable>(
        _ moment: Moment, owner: AnyObject, properties: OwnerProperties, entries: [ObserverEntry<Moment>],
        removals: [RemovalSpec<Moment>], path: String
    ) {
        for (index, entry) in entries.enumerated() {
            let site = "\(file): \(path).observers[\(index)]"
            let removes = entry.removeOn == moment
            if removes && entry.sameMoment != .addFirst {
                remove(entry, index: index, owner: owner, properties: properties, callSite: site)
            }
            defer {
                if removes && entry.sameMoment == .addFirst {
                    remove(entry, index: index, owner: owner, properties: properties, callSite: site)
                }
            }
            if entry.addOn == moment {
                var sender: Screen?
                if let name = entry.sender {
                    sender = app.screen(named: name)
                    if sender == nil {
                        fail(NotifyBusError("no live screen named \(name) when the observer was added",
                                            path: "\(path).observers[\(index)].sender"))
                        continue
                    }
                }
                add(entry, index: index, owner: owner, sender: sender, properties: properties, callSite: site)
            }
        }
        for (index, removal) in removals.enumerated() where removal.on == moment {
            let site = "\(file): \(path).removals[\(index)]"
            switch removal.action {
            case .owner:
                app.bus.removeObserver(owner, file: site, line: 0)
            case .name(let message):
                removeByName(message, owner: owner, callSite: site)
            case .token(let token):
                if let held = properties.named[token] { remove(held, from: properties, callSite: site) }
            case .drop(let token):
                properties.named[token] = nil
            }
        }
    }

    private func add(_ entry: ObserverEntry<some Hashable>, index: Int, owner: AnyObject, sender: Screen?,
                     properties: OwnerProperties, callSite: String) {
        let bus = app.bus
        let typed = MessageCatalog.all.first { $0.name == entry.message }
        guard let style = entry.style else {
            // Version 1: a token the app keeps, removed by name with every kind.
            if let typed, let screen = owner as? Screen {
                addVersion1(typed, screen: screen, sender: sender, callSite: callSite)
            } else {
                let token = bus.observe(named: entry.message, sender: sender, owner: owner, file: callSite, line: 0) { _ in }
                properties.lists[index, default: []].append(.token(token))
            }
            return
        }
        let held: OwnerProperties.Held
        switch style.kind {
        case .selector:
            let selector = style.selector ?? "\(entry.message):"
            if let typed {
                addSelector(typed, owner: owner, selector: selector, sender: sender, callSite: callSite)
            } else {
                bus.addObserver(owner, selector: selector, name: entry.message, object: sender, file: callSite, line: 0) { _ in { _ in } }
            }
            return
        case .block:
            let capture = style.capture ?? .strong
            let observation = if let typed {
                addBlock(typed, owner: owner, capture: capture, sender: sender, callSite: callSite)
            } else {
                bus.addObserver(forName: entry.message, object: sender, owner: owner, capture: capture,
                                file: callSite, line: 0) { _ in }
            }
            held = .block(observation)
            if capture == .strong { properties.strongBlocks.insert(ObjectIdentifier(observation)) }
        case .token:
            let token = if let typed {
                observe(typed, owner: owner, sender: sender, callSite: callSite)
            } else {
                bus.observe(named: entry.message, sender: sender, owner: owner, file: callSite, line: 0) { _ in }
            }
            held = .token(token)
        }
        if let name = style.token {
            properties.named[name] = held
        } else {
            properties.lists[index, default: []].append(held)
        }
    }

    private func addVersion1<M: BusMessage>(_ type: M.Type, screen: Screen, sender: Screen?, callSite: String) {
        app.addObserver(type, of: screen, sender: sender, file: callSite, line: 0) { _ in }
    }

    private func addSelector<M: BusMessage>(_ type: M.Type, owner: AnyObject, selector: String, sender: Screen?, callSite: String) {
        app.bus.addObserver(owner, selector: selector, name: type, object: sender, file: callSite, line: 0) { _ in { _ in } }
    }

    private func addBlock<M: BusMessage>(_ type: M.Type, owner: AnyObject, capture: BlockCapture, sender: Screen?,
                                         callSite: String) -> BlockObservation {
        app.bus.addObserver(forName: type, object: sender, owner: owner, capture: capture, file: callSite, line: 0) { _ in }
    }

    private func observe<M: BusMessage>(_ type: M.Type, owner: AnyObject, sender: Screen?, callSite: String) -> ObservationToken {
        app.bus.observe(type, sender: sender, owner: owner, file: callSite, line: 0) { _ in }
    }

    private func remove(_ entry: ObserverEntry<some Hashable>, index: Int, owner: AnyObject,
                        properties: OwnerProperties, callSite: String) {
        guard let style = entry.style else {
            if let screen = owner as? Screen {
                app.removeObservers(named: entry.message, of: screen, file: callSite, line: 0)
            } else {
                app.bus.removeObservers(named: entry.message, owner: owner, file: callSite, line: 0)
            }
            return
        }
        switch style.removeBy {
        case .owner:
            app.bus.removeObserver(owner, file: callSite, line: 0)
        case .name:
            removeByName(entry.message, owner: owner, callSite: callSite)
        case .token:
            if let name = style.token {
                // `removeObserver(observation)`: the property keeps its value.
                if let held = properties.named[name] { remove(held, from: properties, callSite: callSite) }
            } else {
                // `observers.forEach(center.removeObserver); observers.removeAll()`.
                for held in properties.lists[index] ?? [] { remove(held, from: properties, callSite: callSite) }
                properties.lists[index] = nil
            }
        }
    }

    private func remove(_ held: OwnerProperties.Held, from properties: OwnerProperties, callSite: String) {
        switch held {
        case .token(let token):
            app.bus.remove(token, file: callSite, line: 0)
        case .block(let observation):
            // Only the observation removes a block: the one way its owner goes free.
            app.bus.removeObserver(observation, file: callSite, line: 0)
            properties.strongBlocks.remove(ObjectIdentifier(observation))
        }
    }

    /// `removeObserver(self, name:object:)` with Foundation's rules: selector observers only.
    private func removeByName(_ message: String, owner: AnyObject, callSite: String) {
        if let typed = MessageCatalog.all.first(where: { $0.name == message }) {
            removeSelectors(typed, owner: owner, callSite: callSite)
        } else {
            app.bus.removeObserver(owner, name: message, file: callSite, line: 0)
        }
    }

    private func removeSelectors<M: BusMessage>(_ type: M.Type, owner: AnyObject, callSite: String) {
        app.bus.removeObserver(owner, name: type, file: callSite, line: 0)
    }

    // MARK: Objects

    /// At a host's moment: the objects it makes, the methods it calls, the objects it lets go.
    func hostReached(_ moment: HostMoment, hostName: String, host: AnyObject, properties: OwnerProperties) {
        let hosted = objectState.hosted[hostName] ?? []
        for (name, spec) in hosted where spec.createdOn == moment {
            create(name, spec: spec, host: host, properties: properties)
        }
        for (name, spec) in hosted {
            for call in spec.calls where call.on == moment {
                if let object = properties.hosted[name] { objectReached(.method(call.method), object) }
            }
        }
        for (name, spec) in hosted where spec.releasedOn == moment {
            if let object = properties.hosted.removeValue(forKey: name) { release(object) }
        }
    }

    /// The host makes a new object and keeps it, letting go of the one it had.
    private func create(_ name: String, spec: ObjectSpec, host: AnyObject, properties: OwnerProperties) {
        let object = ScenarioObject(name: name, spec: spec)
        app.bus.attach(object, to: host)
        objectReached(.`init`, object)
        let old = properties.hosted.updateValue(object, forKey: name)
        if let old { release(old) }
    }

    func objectReached(_ moment: ObjectMoment, _ object: ScenarioObject) {
        reach(moment, owner: object, properties: object.properties,
              entries: object.spec.observers.map {
                  ObserverEntry(message: $0.message, addOn: $0.addOn, removeOn: $0.removeOn, sender: $0.sender,
                          sameMoment: $0.sameMoment, style: $0.style)
              },
              removals: object.spec.removals, path: "objects.\(object.name)")
        hostReached(.object(moment), hostName: object.name, host: object, properties: object.properties)
    }

    /// The host let go of `object`: it is released, running its deinit and
    /// releasing what it holds, unless something keeps it alive.
    private func release(_ object: ScenarioObject) {
        if object.spec.retained {
            objectState.retained.append(object)
            return
        }
        // The center holds it through a `strong` block: no deinit, ever.
        guard !object.properties.holdsStrongBlock else { return }
        objectReached(.`deinit`, object)
        releaseHosted(of: object.properties)
        object.properties.clearTokens()
    }

    /// Releases every object `properties` holds, in name order.
    func releaseHosted(of properties: OwnerProperties) {
        for name in properties.hosted.keys.sorted() {
            if let object = properties.hosted.removeValue(forKey: name) { release(object) }
        }
    }

    /// The live object called `name`: held by its live host.
    func liveObject(named name: String) -> ScenarioObject? {
        properties(of: scenario.objects[name]?.host)?.hosted[name]
    }

    private func properties(of host: HostReference?) -> OwnerProperties? {
        switch host {
        case .screen(let name)?:
            return app.screen(named: name)?.plugins.lazy.compactMap { $0 as? ScenarioScreenPlugin }.first?.properties
        case .object(let name)?:
            return liveObject(named: name)?.properties
        case nil:
            return nil
        }
    }

    /// The properties of the live screen or object called `name`.
    private func properties(ofOwner name: String) -> OwnerProperties? {
        scenario.objects[name] != nil ? properties(of: .object(name)) : properties(of: .screen(name))
    }

    // MARK: Steps

    func perform(_ step: ObjectStep) throws(NotifyBusError) {
        switch step {
        case .create(let name):
            guard let spec = scenario.objects[name] else { throw NotifyBusError("unknown object \(name)") }
            guard let properties = properties(of: spec.host), let host = liveOwner(spec.host) else {
                throw NotifyBusError("\(name)'s host \(spec.host.name) is not live")
            }
            create(name, spec: spec, host: host, properties: properties)
        case .release(let name):
            guard let spec = scenario.objects[name], let properties = properties(of: spec.host),
                  let object = properties.hosted.removeValue(forKey: name) else {
                throw NotifyBusError("no live \(name) to release")
            }
            release(object)
        case .call(let method, let name):
            guard let object = liveObject(named: name) else { throw NotifyBusError("no live \(name) to call \(method) on") }
            objectReached(.method(method), object)
        case .dropToken(let token, let owner):
            guard let properties = properties(ofOwner: owner) else { throw NotifyBusError("no live \(owner) holding \(token)") }
            properties.named[token] = nil
        }
    }

    private func liveOwner(_ host: HostReference) -> AnyObject? {
        switch host {
        case .screen(let name): app.screen(named: name)
        case .object(let name): liveObject(named: name)
        }
    }

    /// Posts a notification outside the typed catalog: a system one as a stimulus, the app's own as the app.
    func post(_ name: String, payload: JSONValue) throws(NotifyBusError) {
        guard app.state != .notRunning else { throw NotifyBusError("the app is not launched") }
        let origin: PostOrigin = SystemNotification.names.contains(name) ? .stimulus : .app
        app.bus.post(NamedMessage(name: name, payload: payload), sender: nil, origin: origin)
    }
}
