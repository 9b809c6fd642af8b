public import NotifyBus

/// Runs a ``Scenario`` through the lifecycle model on a bus.
///
/// Each push or present makes a new ``Screen`` from the scenario's
/// description; scenario observers are added and removed at their moments,
/// owned by their screen, with a call site that points into the scenario file
/// (`login.json: screens.Login.observers[0]`). A screen whose observers hook
/// on activity moments gets the ``ActivityObserverPlugin``, like seed 000's
/// base controller, since that is what delivers those moments to it.
///
/// ```swift
/// let scenario = try Scenario.parse(data)
/// let runner = ScenarioRunner(scenario: scenario, file: "login.json", bus: bus, clock: clock)
/// try runner.run()
/// ```
public final class ScenarioRunner {
    public let scenario: Scenario
    public let app: AppModel
    let file: String
    private var pendingError: NotifyBusError?
    /// Format v2's objects: which host has which, and those kept alive from outside.
    lazy var objectState = ScenarioObjectState(scenario: scenario)

    /// - Parameters:
    ///   - scenario: What to run.
    ///   - file: The scenario's file name, used in call sites.
    ///   - bus: The bus the app posts on; make it with `clock.traceClock` for deterministic times.
    ///   - clock: The app's clock.
    public init(scenario: Scenario, file: String, bus: Bus, clock: ManualClock = ManualClock()) {
        self.scenario = scenario
        self.file = file
        self.app = AppModel(bus: bus, clock: clock)
        app.fidelity = scenario.format
    }

    /// Launches the app into the scenario's root and runs every step.
    ///
    /// - Throws: ``NotifyBusError`` located at the step that cannot apply (`steps[3].pop: nothing to pop`).
    public func run() throws(NotifyBusError) {
        try launch()
        for index in scenario.steps.indices {
            try perform(at: index)
        }
    }

    /// Launches the app into the scenario's root.
    public func launch() throws(NotifyBusError) {
        do {
            try app.launch(root: rootNode(scenario.root), main: scenario.main.map(makeScreen))
            try checkPending()
        } catch {
            throw error.path == nil ? error.at("root") : error
        }
    }

    /// Runs step `index`.
    public func perform(at index: Int) throws(NotifyBusError) {
        let step = scenario.steps[index]
        do throws(NotifyBusError) {
            // Each step takes at most one longest interval, so this keeps trace times in range.
            guard app.clock.now <= AppModel.clockLimit else { throw NotifyBusError("the app's clock would pass 100 years") }
            try perform(step)
            try checkPending()
            // Format v2: record what the step released before the next one.
            if !scenario.objects.isEmpty { app.bus.sweepReleasedOwners() }
        } catch {
            throw error.path == nil ? error.at("steps[\(index)].\(step.key)") : error
        }
    }

    private func perform(_ step: Step) throws(NotifyBusError) {
        switch step {
        case .push(let name): try app.push(makeScreen(name))
        case .pop: try app.pop()
        case .popToRoot: try app.popToRoot()
        case .present(let name, let style, let duration): try app.present(makeScreen(name), style: style, duration: duration)
        case .dismiss: try app.dismiss()
        case .selectTab(let index): try app.selectTab(index)
        case .showKeyboard(let height): try app.showKeyboard(height: height)
        case .hideKeyboard: try app.hideKeyboard()
        case .background: try app.enterBackground()
        case .foreground: try app.enterForeground()
        case .interrupt: try app.interrupt()
        case .rotate(let orientation): try app.rotate(to: orientation)
        case .action(let action, let from):
            guard let screen = app.screen(named: from) else { throw NotifyBusError("\(from) is not in the hierarchy") }
            try app.sendAction(action, from: screen)
        case .wait(let seconds): try app.wait(seconds: seconds)
        case .interactivePop(let outcome, let duration): try app.interactivePop(outcome, duration: duration)
        case .interactiveDismiss(let outcome, let duration): try app.interactiveDismiss(outcome, duration: duration)
        case .addChild(let name, let parentName):
            guard let parent = app.screen(named: parentName) else { throw NotifyBusError("\(parentName) is not in the hierarchy") }
            try app.addChild(makeScreen(name), to: parent)
        case .tap(let x, let y):
            try app.tap(x: x, y: y)
        case .removeChild(let name):
            guard let child = app.screen(named: name) else { throw NotifyBusError("\(name) is not in the hierarchy") }
            try app.removeChild(child)
        case .post(let name, let payload): try post(name, payload: payload)
        case .object(let step): try perform(step)
        }
    }

    private func checkPending() throws(NotifyBusError) {
        if let error = pendingError {
            pendingError = nil
            throw error
        }
    }

    private func rootNode(_ spec: RootSpec) -> RootNode {
        switch spec {
        case .screen(let name): .screen(makeScreen(name))
        case .navigation(let name): .navigation([makeScreen(name)])
        case .tabs(let tabs, let selected): .tabs(tabs.map(rootNode), selected: selected)
        }
    }

    /// A new screen from the scenario's description of `name`.
    public func makeScreen(_ name: String) -> Screen {
        let spec = scenario.screens[name] ?? ScreenSpec()
        let screen = Screen(name: name, supportedOrientations: spec.supportedOrientations,
                            preferredOrientation: spec.preferredOrientation, handledActions: Set(spec.handles),
                            retainedAfterPop: spec.retainedAfterPop, children: spec.children.map(makeScreen))
        screen.subviews = spec.subviews
        screen.passesTouchesThrough = spec.passesTouchesThrough
        let usesActivity = spec.observers.contains { $0.addOn.isActivity || ($0.removeOn?.isActivity ?? false) }
            || v2UsesActivity(name)
        var plugins = spec.plugins
        if usesActivity && !plugins.contains(.activityObserver) { plugins.insert(.activityObserver, at: 0) }
        for plugin in plugins {
            switch plugin {
            case .activityObserver: screen.add(ActivityObserverPlugin())
            case .keyboardObserver: screen.add(KeyboardObserverPlugin())
            case .orientationLock: screen.add(OrientationLockPlugin())
            }
        }
        addV2Plugin(to: screen, name: name)
        if !spec.observers.isEmpty && !usesV2(name) {
            screen.add(ScenarioObserversPlugin(observers: spec.observers, path: "\(file): screens.\(name).observers",
                                               runner: self))
        }
        return screen
    }

    func fail(_ error: NotifyBusError) {
        if pendingError == nil { pendingError = error }
    }
}

/// Adds and removes a scenario screen's observers at their moments.
private final class ScenarioObserversPlugin: ScreenPlugin {
    let observers: [ObserverSpec]
    let path: String
    weak var runner: ScenarioRunner?

    init(observers: [ObserverSpec], path: String, runner: ScenarioRunner) {
        self.observers = observers
        self.path = path
        self.runner = runner
    }

    func screen(_ screen: Screen, reached moment: ScreenMoment, in app: AppModel) {
        for (index, observer) in observers.enumerated() {
            let removes = observer.removeOn == moment
            if removes && observer.sameMoment != .addFirst {
                app.removeObservers(named: observer.message, of: screen, file: "\(path)[\(index)]", line: 0)
            }
            defer {
                if removes && observer.sameMoment == .addFirst {
                    app.removeObservers(named: observer.message, of: screen, file: "\(path)[\(index)]", line: 0)
                }
            }
            if observer.addOn == moment {
                var sender: Screen?
                if let name = observer.sender {
                    sender = app.screen(named: name)
                    if sender == nil {
                        let location = path.split(separator: " ", maxSplits: 1).last.map(String.init) ?? path
                        runner?.fail(NotifyBusError("no live screen named \(name) when the observer was added",
                                                    path: "\(location)[\(index)].sender"))
                        continue
                    }
                }
                guard let type = MessageCatalog.all.first(where: { $0.name == observer.message }) else { continue }
                add(type, sender: sender, callSite: "\(path)[\(index)]", screen: screen, app: app)
            }
        }
    }

    private func add<M: BusMessage>(_ type: M.Type, sender: Screen?, callSite: String, screen: Screen, app: AppModel) {
        app.addObserver(type, of: screen, sender: sender, file: callSite, line: 0) { _ in }
    }
}
