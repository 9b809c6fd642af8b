/// A scenario: an app's screens, the observers each adds and removes at which
/// moment, its root, and a list of things that happen to it.
///
/// The JSON format is documented in `SCENARIOS.md`; ``parse(_:)`` reads it
/// strictly: unknown keys and names are errors that name their path.
public struct Scenario: Sendable, Equatable {
    /// The most time, in seconds, a scenario's waits and transitions may add up to (about 31.7 years).
    ///
    /// The recorded clock counts nanoseconds in a `UInt64`, which holds about 584 years; this bound
    /// keeps a scenario far inside it, so that a `{"wait": 2e10}` is an error naming its path, not a trap.
    public static let maximumDuration: Double = 1_000_000_000

    public var name: String
    public var screens: [String: ScreenSpec]
    public var root: RootSpec
    /// A screen that contains everything and tops the responder chain.
    public var main: String?
    public var steps: [Step]

    public init(name: String, screens: [String: ScreenSpec], root: RootSpec, main: String? = nil, steps: [Step]) {
        self.name = name
        self.screens = screens
        self.root = root
        self.main = main
        self.steps = steps
    }
}

/// How a scenario screen behaves.
public struct ScreenSpec: Sendable, Equatable {
    public var observers: [ObserverSpec]
    public var supportedOrientations: InterfaceOrientationMask = .allButUpsideDown
    public var preferredOrientation: InterfaceOrientation = .portrait
    public var retainedAfterPop = false
    public var handles: [String] = []
    public var plugins: [StockPlugin] = []

    public init(observers: [ObserverSpec] = []) {
        self.observers = observers
    }
}

/// An observer a scenario screen adds at one moment and removes at another.
public struct ObserverSpec: Sendable, Equatable {
    public var message: String
    public var addOn: ScreenMoment
    /// `nil` for `never`.
    public var removeOn: ScreenMoment?
    /// Only posts from the live screen of this name.
    public var sender: String?

    public init(message: String, addOn: ScreenMoment, removeOn: ScreenMoment?, sender: String? = nil) {
        self.message = message
        self.addOn = addOn
        self.removeOn = removeOn
        self.sender = sender
    }
}

/// The stock plugins a scenario screen can carry.
public enum StockPlugin: String, Sendable, CaseIterable {
    case activityObserver, keyboardObserver, orientationLock
}

/// A scenario's root.
public indirect enum RootSpec: Sendable, Equatable {
    case screen(String)
    case navigation(String)
    case tabs([RootSpec], selected: Int)
}

/// One thing that happens to the app.
public enum Step: Sendable, Equatable {
    case push(String)
    case pop
    case popToRoot
    case present(String, style: PresentationStyle, duration: Double)
    case dismiss
    case selectTab(Int)
    case showKeyboard(height: Double)
    case hideKeyboard
    case background
    case foreground
    case interrupt
    case rotate(DeviceOrientation)
    case action(String, from: String)
    case wait(Double)

    /// The step's key in the file, which its error paths end with.
    public var key: String {
        switch self {
        case .push: "push"
        case .pop: "pop"
        case .popToRoot: "popToRoot"
        case .present: "present"
        case .dismiss: "dismiss"
        case .selectTab: "selectTab"
        case .showKeyboard, .hideKeyboard: "keyboard"
        case .background: "background"
        case .foreground: "foreground"
        case .interrupt: "interrupt"
        case .rotate: "rotate"
        case .action: "action"
        case .wait: "wait"
        }
    }
}
