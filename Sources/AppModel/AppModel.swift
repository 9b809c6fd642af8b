public import NotifyBus

/// A headless model of a UIKit app that drives a ``Bus`` the way a real app does.
///
/// It keeps the window hierarchy (an optional main screen, a root of screens,
/// navigation stacks and tabs, and a stack of modal presentations), calls each
/// screen's lifecycle in UIKit's order, posts the activity, keyboard and
/// orientation messages as stimuli, and records every step as a `lifecycle`
/// event. Time moves only through the injected ``ManualClock``.
///
/// ```swift
/// let app = AppModel(bus: bus)
/// let home = Screen(name: "Home")
/// try app.launch(root: .navigation([home]))
/// try app.push(Screen(name: "Login", plugins: [KeyboardObserverPlugin()]))
/// try app.showKeyboard()
/// try app.pop()
/// ```
///
/// Not thread safe: drive it from one thread, as UIKit's main thread.
/// Operations that cannot apply (a pop with one screen on the stack) throw
/// ``NotifyBusError`` and change nothing.
public final class AppModel {
    /// The bus the app posts on.
    public let bus: Bus
    /// The app's clock; also the bus's clock when the bus was made with `clock.traceClock`.
    public let clock: ManualClock
    public private(set) var state: ApplicationState = .notRunning
    public private(set) var deviceOrientation: DeviceOrientation = .portrait
    public private(set) var interfaceOrientation: InterfaceOrientation = .portrait
    /// The keyboard's frame while it is shown.
    public internal(set) var keyboardFrame: Rect?
    /// The screen's size in portrait, in points.
    public var screenSize = (width: 390.0, height: 844.0)
    /// The keyboard animation's length.
    public var keyboardDuration = 0.25
    /// How closely the model follows UIKit; ``ModelFidelity/v1`` reproduces format-1 scenario recordings.
    public var fidelity: ModelFidelity = .current

    let application = ApplicationObject()
    private var main: Screen?
    var root: Node?
    var presentations: [Presentation] = []
    private var retained: [Screen] = []
    private var introduced: Set<ObjectIdentifier> = []
    private var registrations: [Registration] = []

    private struct Registration {
        let ownerID: UInt64
        let message: String
        let token: ObservationToken
    }

    public init(bus: Bus, clock: ManualClock = ManualClock()) {
        self.bus = bus
        self.clock = clock
    }

    // MARK: Observers

    /// Adds an observer owned by `screen`, kept registered until it is removed by
    /// name, like `NotificationCenter.addObserver(_:selector:name:object:)`:
    /// releasing the screen does not remove it.
    @discardableResult
    public func addObserver<M: BusMessage>(
        _ type: M.Type, of screen: Screen, sender: AnyObject? = nil, file: String = #fileID, line: Int = #line,
        _ handler: @escaping @Sendable (M) -> Void
    ) -> ObservationToken {
        let token = bus.observe(type, sender: sender, owner: screen, file: file, line: line, handler)
        registrations.append(Registration(ownerID: bus.ownerID(of: screen), message: M.name, token: token))
        return token
    }

    /// Removes the observers of the message called `name` that `screen` added,
    /// like `NotificationCenter.removeObserver(_:name:object:)`. Removing when
    /// nothing is registered is recorded as an unbalanced removal.
    public func removeObservers(named name: String, of screen: Screen, file: String = #fileID, line: Int = #line) {
        bus.removeObservers(named: name, owner: screen, file: file, line: line)
        let ownerID = bus.ownerID(of: screen)
        registrations.removeAll { $0.ownerID == ownerID && $0.message == name }
    }

    // MARK: Launch

    /// Builds the hierarchy, shows it, and becomes active.
    ///
    /// - Parameters:
    ///   - root: The window's root.
    ///   - main: A screen that contains everything and sits at the top of the
    ///     responder chain (seed 002's `MainViewController`).
    public func launch(root: RootNode, main: Screen? = nil) throws(NotifyBusError) {
        guard state == .notRunning else { throw NotifyBusError("the app is already running") }
        let node = try build(root)
        record(.launch, on: application)
        self.main = main
        self.root = node
        let all = (main.map { [$0] } ?? []) + node.screens
        for screen in all { introduce(screen) }
        for screen in all { record(.setRoot, on: screen, detail: main === screen ? "main" : nil) }
        state = .inactive
        forceOrientation(for: node.leaf)
        transition(disappearing: [], appearing: visibleScreens)
        state = .active
        bus.post(DidBecomeActive(), sender: nil, origin: .stimulus)
    }

    private func build(_ root: RootNode) throws(NotifyBusError) -> Node {
        switch root {
        case .screen(let screen):
            return .screen(screen)
        case .navigation(let screens):
            guard !screens.isEmpty else { throw NotifyBusError("a navigation stack needs a screen") }
            return .navigation(NavigationController(screens: screens))
        case .tabs(let tabs, let selected):
            guard !tabs.isEmpty else { throw NotifyBusError("tabs need at least one tab") }
            guard tabs.indices.contains(selected) else {
                throw NotifyBusError("no tab \(selected): there are \(tabs.count)")
            }
            var nodes: [Node] = []
            for tab in tabs {
                if case .tabs = tab { throw NotifyBusError("tabs cannot hold tabs") }
                nodes.append(try build(tab))
            }
            return .tabs(TabBarController(tabs: nodes, selected: selected))
        }
    }

    // MARK: Navigation

    /// Pushes onto the navigation stack of the top presented screen, or of the visible tab.
    public func push(_ screen: Screen) throws(NotifyBusError) {
        let navigation = try currentNavigation()
        let covered = navigation.top
        introduce(screen)
        record(.push, on: screen, detail: "onto \(navigation.traceLabel)")
        navigation.screens.append(screen)
        forceOrientation(for: screen)
        transition(disappearing: [covered], appearing: [screen])
    }

    /// Pops the top screen of the current navigation stack; it is released unless retained.
    public func pop() throws(NotifyBusError) {
        let navigation = try currentNavigation()
        guard navigation.screens.count > 1 else { throw NotifyBusError("nothing to pop") }
        let popped = navigation.screens.removeLast()
        record(.pop, on: popped)
        forceOrientation(for: navigation.top)
        transition(disappearing: [popped], appearing: [navigation.top])
        leave([popped])
    }

    /// Pops every screen above the current stack's first.
    public func popToRoot() throws(NotifyBusError) {
        let navigation = try currentNavigation()
        guard navigation.screens.count > 1 else { throw NotifyBusError("nothing to pop") }
        let removed = Array(navigation.screens.dropFirst())
        navigation.screens = [navigation.screens[0]]
        let top = removed[removed.count - 1]
        record(.pop, on: top, detail: "to root")
        forceOrientation(for: navigation.top)
        transition(disappearing: [top], appearing: [navigation.top])
        leave(removed.reversed())
    }

    /// Presents `screen` modally, in a navigation stack of its own.
    ///
    /// - Parameters:
    ///   - style: A full-screen presentation makes the presenting screens disappear; a sheet does not.
    ///   - duration: The transition's length (seed 001's `transitionDuration`); the clock advances by it.
    public func present(_ screen: Screen, style: PresentationStyle = .fullScreen, duration: Double = 0) throws(NotifyBusError) {
        guard root != nil else { throw NotifyBusError("the app is not launched") }
        try checkInterval(duration, "a duration")
        let covered = style == .fullScreen ? visibleScreens : []
        introduce(screen)
        record(.present, on: screen, detail: style.rawValue + (duration > 0 ? " \(duration)s" : ""))
        presentations.append(Presentation(navigation: NavigationController(screens: [screen]), style: style, duration: duration))
        forceOrientation(for: screen)
        transition(disappearing: covered, appearing: [screen], duration: duration, appearedFirst: modalCompletesAppearingFirst(style))
    }

    /// iOS 13+ completes a full-screen presentation or dismissal with the screen that
    /// appears before the one that goes; sheets and custom presentations give the
    /// presenter no callbacks, so the order does not arise.
    func modalCompletesAppearingFirst(_ style: PresentationStyle) -> Bool {
        fidelity >= .current && style == .fullScreen
    }

    /// Dismisses the top presentation and releases its screens.
    public func dismiss() throws(NotifyBusError) {
        guard let top = presentations.popLast() else { throw NotifyBusError("nothing presented to dismiss") }
        let leaving = top.navigation.top
        record(.dismiss, on: leaving)
        let revealed = top.style == .fullScreen ? visibleScreens : []
        forceOrientationAfterDismissal(revealing: revealed)
        transition(disappearing: [leaving], appearing: revealed, duration: top.duration,
                   appearedFirst: modalCompletesAppearingFirst(top.style))
        leave(top.navigation.screens.reversed())
    }

    /// Selects a tab of the root tab bar.
    public func selectTab(_ index: Int) throws(NotifyBusError) {
        guard case .tabs(let tabs)? = root else { throw NotifyBusError("the root has no tabs") }
        guard tabs.tabs.indices.contains(index) else {
            throw NotifyBusError("no tab \(index): there are \(tabs.tabs.count)")
        }
        guard index != tabs.selected else { return }
        let old = tabs.tabs[tabs.selected].leaf
        // Under a sheet the tabs stay in the window and switch with their callbacks; under a
        // full-screen presentation they are out of the window, and the new tab appears when
        // the presentation is dismissed.
        let onScreen = visibleScreens.contains { $0 === old }
        tabs.selected = index
        let new = tabs.tabs[index].leaf
        record(.selectTab, on: new, detail: "tab \(index)" + (presentations.isEmpty ? "" : " under a presentation"))
        guard onScreen else { return }
        if presentations.isEmpty { forceOrientation(for: new) }
        transition(disappearing: [old], appearing: [new])
    }

    /// The screen a dismissal leaves on top forces an orientation it supports: under a
    /// full-screen presentation the revealed screen; under a sheet (``ModelFidelity/current``)
    /// the presenter, which stayed on screen while the sheet may have turned the interface.
    func forceOrientationAfterDismissal(revealing revealed: [Screen]) {
        if let leaf = revealed.last {
            forceOrientation(for: leaf)
        } else if fidelity >= .current, let leaf = topLeaf {
            forceOrientation(for: leaf)
        }
    }

    // MARK: Application

    /// The app leaves for the home screen: resign active, then enter the background.
    public func enterBackground() throws(NotifyBusError) {
        guard state != .background else { throw NotifyBusError("the app is already in the background") }
        guard state == .active else { throw NotifyBusError("the app is not active") }
        state = .inactive
        bus.post(WillResignActive(), sender: nil, origin: .stimulus)
        state = .background
        bus.post(DidEnterBackground(), sender: nil, origin: .stimulus)
    }

    /// The app comes back: enter the foreground, then become active.
    public func enterForeground() throws(NotifyBusError) {
        guard state == .background else { throw NotifyBusError("the app is not in the background") }
        state = .inactive
        bus.post(WillEnterForeground(), sender: nil, origin: .stimulus)
        state = .active
        bus.post(DidBecomeActive(), sender: nil, origin: .stimulus)
    }

    /// Control centre pulled and released: resign active, then become active again.
    public func interrupt() throws(NotifyBusError) {
        guard state == .active else { throw NotifyBusError("the app is not active") }
        state = .inactive
        bus.post(WillResignActive(), sender: nil, origin: .stimulus)
        state = .active
        bus.post(DidBecomeActive(), sender: nil, origin: .stimulus)
    }

    /// Time passes.
    public func wait(seconds: Double) throws(NotifyBusError) {
        try checkInterval(seconds, "a wait")
        record(.wait, on: application, detail: "\(seconds)s")
        clock.advance(bySeconds: seconds)
    }

    // MARK: Keyboard

    var screenBounds: (width: Double, height: Double) {
        interfaceOrientation.isLandscape ? (screenSize.height, screenSize.width) : (screenSize.width, screenSize.height)
    }

    /// The keyboard appears: will change frame, will show, then (after the animation)
    /// did change frame, did show.
    public func showKeyboard(height: Double = 336) throws(NotifyBusError) {
        guard height.isFinite, height > 0 else { throw NotifyBusError("the keyboard needs a positive height") }
        let bounds = screenBounds
        let begin = keyboardFrame ?? Rect(x: 0, y: bounds.height, width: bounds.width, height: height)
        let end = Rect(x: 0, y: bounds.height - height, width: bounds.width, height: height)
        record(.keyboard, on: application, detail: "show \(height)")
        postKeyboard(KeyboardWillChangeFrame.self, KeyboardWillShow.self, KeyboardDidChangeFrame.self,
                     KeyboardDidShow.self, begin: begin, end: end)
        keyboardFrame = end
    }

    /// The keyboard goes: will change frame, will hide, did change frame, did hide.
    public func hideKeyboard() throws(NotifyBusError) {
        guard let begin = keyboardFrame else { throw NotifyBusError("the keyboard is not shown") }
        let bounds = screenBounds
        let end = Rect(x: 0, y: bounds.height, width: bounds.width, height: begin.height)
        record(.keyboard, on: application, detail: "hide")
        postKeyboard(KeyboardWillChangeFrame.self, KeyboardWillHide.self, KeyboardDidChangeFrame.self,
                     KeyboardDidHide.self, begin: begin, end: end)
        keyboardFrame = nil
    }

    private func postKeyboard<A: KeyboardMessage, B: KeyboardMessage, C: KeyboardMessage, D: KeyboardMessage>(
        _ a: A.Type, _ b: B.Type, _ c: C.Type, _ d: D.Type, begin: Rect, end: Rect
    ) {
        let duration = keyboardDuration
        bus.post(A(beginFrame: begin, endFrame: end, curve: .keyboard, duration: duration), sender: nil, origin: .stimulus)
        bus.post(B(beginFrame: begin, endFrame: end, curve: .keyboard, duration: duration), sender: nil, origin: .stimulus)
        clock.advance(bySeconds: duration)
        bus.post(C(beginFrame: begin, endFrame: end, curve: .keyboard, duration: duration), sender: nil, origin: .stimulus)
        bus.post(D(beginFrame: begin, endFrame: end, curve: .keyboard, duration: duration), sender: nil, origin: .stimulus)
    }

    // MARK: Orientation

    /// The device turns. The interface follows only where the visible screen supports it.
    public func rotate(to device: DeviceOrientation) throws(NotifyBusError) {
        guard root != nil else { throw NotifyBusError("the app is not launched") }
        deviceOrientation = device
        if let wanted = device.interfaceOrientation, let leaf = topLeaf, leaf.effectiveOrientations.supports(wanted) {
            interfaceOrientation = wanted
        }
        record(.rotate, on: application, detail: "device \(device) interface \(interfaceOrientation)")
        bus.post(OrientationDidChange(device: device, interface: interfaceOrientation), sender: nil, origin: .stimulus)
        keyboardFollowsRotation()
    }

    /// Forces a rotation when `screen` does not support the current interface
    /// orientation, and only then (seed 003).
    func forceOrientation(for screen: Screen) {
        let mask = screen.effectiveOrientations
        guard mask.misses(interfaceOrientation) else { return }
        let fallback: [InterfaceOrientation] = [.portrait, .landscapeRight, .landscapeLeft, .portraitUpsideDown]
        guard let target = mask.supports(screen.preferredOrientation)
                ? screen.preferredOrientation : fallback.first(where: mask.supports) else { return }
        interfaceOrientation = target
        deviceOrientation = target.deviceOrientation
        record(.forceOrientation, on: application, detail: "interface \(target) for \(screen.name)")
        // The app forces it (seed 000's UIDevice.setValue), so it is not a stimulus.
        bus.post(OrientationDidChange(device: deviceOrientation, interface: target), sender: nil, origin: .app)
        keyboardFollowsRotation()
    }

    // MARK: Responder chain

    /// Sends an action up the responder chain from `screen`: the screen, its
    /// containers, the screens that presented it, the main screen, the application.
    ///
    /// - Returns: The screen that handled it, or `nil` when nobody did (recorded as such).
    @discardableResult
    public func sendAction(_ action: String, from screen: Screen) throws(NotifyBusError) -> Screen? {
        guard let chain = responderChain(from: screen) else {
            throw NotifyBusError("\(screen.name) is not in the hierarchy")
        }
        var tried: [UInt64] = []
        var handler: Screen?
        for responder in chain {
            tried.append(bus.ownerID(of: responder))
            if let candidate = responder as? Screen, candidate.handledActions.contains(action) {
                handler = candidate
                break
            }
        }
        bus.record(.actionRouted(action: action, sender: bus.ownerID(of: screen), tried: tried,
                                 handler: handler.map { bus.ownerID(of: $0) }))
        return handler
    }

    private func responderChain(from screen: Screen) -> [AnyObject]? {
        // A child's next responder is its view's superview, inside its parent's view.
        if let parent = screen.parent { return responderChain(from: parent).map { [screen] + $0 } }
        var chain: [AnyObject] = []
        func tail() -> [AnyObject] { (main.map { [$0] } ?? []) + [application] }
        for (index, presentation) in presentations.enumerated().reversed()
        where presentation.navigation.screens.contains(where: { $0 === screen }) {
            chain += [screen, presentation.navigation]
            // A presented controller's next responder is the one that presented it.
            let presenter = index == 0 ? root?.leaf : presentations[index - 1].navigation.top
            if let presenter, let rest = responderChain(from: presenter) { return chain + rest }
            return chain + tail()
        }
        if main === screen { return [screen, application] }
        guard let root else { return nil }
        switch root {
        case .screen(let only) where only === screen:
            return [screen] + tail()
        case .navigation(let navigation) where navigation.screens.contains(where: { $0 === screen }):
            return [screen, navigation] + tail()
        case .tabs(let tabs):
            for case .navigation(let navigation) in tabs.tabs where navigation.screens.contains(where: { $0 === screen }) {
                return [screen, navigation, tabs] + tail()
            }
            for case .screen(let only) in tabs.tabs where only === screen {
                return [screen, tabs] + tail()
            }
            return nil
        default:
            return nil
        }
    }

    // MARK: Lookup

    /// The screens on screen now, parents first: the main screen and the root's
    /// visible leaf, unless covered, then each presented screen.
    public var visibleScreens: [Screen] {
        guard let root else { return [] }
        var layers: [[Screen]] = [(main.map { [$0] } ?? []) + [root.leaf]]
        layers += presentations.map { [$0.navigation.top] }
        var visible: [Screen] = []
        for (index, layer) in layers.enumerated().reversed() {
            visible = layer + visible
            if index > 0, presentations[index - 1].style == .fullScreen { break }
        }
        return visible
    }

    /// The screen the user interacts with: the top presented one, or the root's visible leaf;
    /// `nil` before launch.
    public var topLeaf: Screen? {
        presentations.last?.navigation.top ?? root?.leaf
    }

    /// The live screen called `name` that is in the hierarchy, the most recent one first.
    public func screen(named name: String) -> Screen? {
        var all: [Screen] = (main.map { [$0] } ?? []) + (root?.screens ?? [])
        all += presentations.flatMap(\.navigation.screens)
        return all.flatMap(\.withDescendants).last { $0.name == name }
    }

    func currentNavigation() throws(NotifyBusError) -> NavigationController {
        if let top = presentations.last { return top.navigation }
        switch root {
        case .navigation(let navigation)?: return navigation
        case .tabs(let tabs)?:
            if case .navigation(let navigation) = tabs.tabs[tabs.selected] { return navigation }
            throw NotifyBusError("the selected tab has no navigation stack")
        case .screen?: throw NotifyBusError("the root has no navigation stack")
        case nil: throw NotifyBusError("the app is not launched")
        }
    }

    // MARK: Callbacks

    func record(_ phase: LifecyclePhase, on object: AnyObject, detail: String? = nil) {
        bus.record(.lifecycle(owner: bus.ownerID(of: object), phase: phase, detail: detail))
    }

    /// Calls a screen's plugins at `moment`, recording callback moments first
    /// (`deinit` is recorded by ``leave(_:)`` after the plugins ran).
    func deliver(_ moment: ScreenMoment, to screen: Screen) {
        if let phase = moment.phase, phase != .deinit { record(phase, on: screen) }
        switch moment {
        case .viewDidLoad: screen.isViewLoaded = true
        case .viewWillAppear: screen.isVisible = true
        case .viewDidDisappear:
            screen.isVisible = false
            screen.isInWindow = false
        case .didMoveToWindow: screen.isInWindow = true
        case .viewDidLayoutSubviews: screen.hasLaidOut = true
        default: break
        }
        for plugin in screen.plugins { plugin.screen(screen, reached: moment, in: self) }
        // The children a screen embeds in its viewDidLoad (containment).
        if moment == .viewDidLoad { embedPendingChildren(of: screen) }
    }

    /// Calls an appearance callback on `screen`, then forwards it to its children, as
    /// UIKit's automatic appearance forwarding does.
    func forward(_ moment: ScreenMoment, to screen: Screen) {
        deliver(moment, to: screen)
        for child in screen.children { forward(moment, to: child) }
    }

    /// After `viewWillAppear`: the views that were out of a window enter it (parents
    /// first), then each view laid out for the first time gets `viewDidLayoutSubviews`.
    func enterWindow(_ screens: [Screen]) {
        let all = screens.flatMap(\.withDescendants)
        for screen in all where !screen.isInWindow { deliver(.didMoveToWindow, to: screen) }
        for screen in all where !screen.hasLaidOut { deliver(.viewDidLayoutSubviews, to: screen) }
    }

    func introduce(_ screen: Screen) {
        guard introduced.insert(ObjectIdentifier(screen)).inserted else { return }
        deliver(.`init`, to: screen)
    }

    /// UIKit's appearance order: load what appears, will-disappear, will-appear,
    /// (the animation), did-disappear, did-appear.
    ///
    /// Each callback is forwarded to the screen's children after the screen; a view that
    /// enters the window gets `didMoveToWindow` (and its first layout) after every
    /// `viewWillAppear`.
    ///
    /// - Parameter appearedFirst: The transition completes with `viewDidAppear` before
    ///   `viewDidDisappear` (iOS 13+ full-screen presentations and dismissals).
    func transition(disappearing: [Screen], appearing: [Screen], duration: Double = 0, appearedFirst: Bool = false) {
        for screen in appearing where !screen.isViewLoaded { deliver(.viewDidLoad, to: screen) }
        for screen in disappearing { forward(.viewWillDisappear, to: screen) }
        for screen in appearing { forward(.viewWillAppear, to: screen) }
        enterWindow(appearing)
        if duration > 0 { clock.advance(bySeconds: duration) }
        if appearedFirst {
            for screen in appearing { forward(.viewDidAppear, to: screen) }
            for screen in disappearing { forward(.viewDidDisappear, to: screen) }
        } else {
            for screen in disappearing { forward(.viewDidDisappear, to: screen) }
            for screen in appearing { forward(.viewDidAppear, to: screen) }
        }
    }

    /// Screens leave the hierarchy for good: each is released unless retained.
    ///
    /// A screen's children leave with it; they are released after it, each unless retained.
    func leave(_ screens: [Screen]) {
        for screen in screens {
            for gone in screen.withDescendants { record(.removedFromHierarchy, on: gone) }
            release(screen)
        }
    }

    private func release(_ screen: Screen) {
        if screen.retainedAfterPop {
            retained.append(screen)
            return
        }
        deliver(.`deinit`, to: screen)
        record(.`deinit`, on: screen)
        introduced.remove(ObjectIdentifier(screen))
        for child in screen.children { release(child) }
    }
}

