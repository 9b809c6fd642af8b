public import NotifyBus

/// A scenario: an app's screens, the observers each adds and removes at which
/// moment, its root, and a list of things that happen to it.
///
/// The JSON format is documented in `SCENARIOS.md`; ``parse(_:)`` reads it
/// strictly: unknown keys and names are errors that name their path.
public struct Scenario: Sendable, Equatable {
    /// The most time, in seconds, a scenario's waits and transitions may add up to: the
    /// model's clock limit, 100 years (``AppModel/clockLimit``).
    ///
    /// A trace stores times as nanoseconds in an SQLite integer, which holds about 292 years; this bound
    /// keeps a scenario far inside it, so that waits adding up too far are an error naming the
    /// step's path when the file is read, not a trap or a half-recorded run.
    public static let maximumDuration = Double(AppModel.clockLimit / 1_000_000_000)

    public var name: String
    public var screens: [String: ScreenSpec]
    public var root: RootSpec
    /// A screen that contains everything and tops the responder chain.
    public var main: String?
    public var steps: [Step]
    /// Objects that are not screens, by name (format v2).
    public var objects: [String: ObjectSpec]
    /// App-defined notification names the scenario observes and posts (format v2).
    public var messages: [String]
    /// The file's `format`: 1 (the default, what files without the key record) or 2, which
    /// runs the model at ``ModelFidelity/current``.
    public var format: ModelFidelity
    /// What the center does with a selector observer whose target is gone: the file's
    /// `selectorSemantics`, ``NotifyBus/SelectorSemantics/modern`` (iOS 9 and later) unless it says
    /// `legacy`. Recorded in the session, so that the leak rules judge the trace by it.
    public var selectorSemantics: SelectorSemantics

    public init(name: String, screens: [String: ScreenSpec], root: RootSpec, main: String? = nil, steps: [Step],
                objects: [String: ObjectSpec] = [:], messages: [String] = [], format: ModelFidelity = .v1,
                selectorSemantics: SelectorSemantics = .modern) {
        self.name = name
        self.screens = screens
        self.root = root
        self.main = main
        self.steps = steps
        self.objects = objects
        self.messages = messages
        self.format = format
        self.selectorSemantics = selectorSemantics
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
    /// Screens embedded in this one as its view loads (containment), in order.
    public var children: [String] = []
    /// Removals not paired with an add, and dropped tokens (format v2).
    public var removals: [RemovalSpec<ScreenMoment>] = []
    /// The subviews that take touches, back to front.
    public var subviews: [Subview] = []
    /// The view lets touches through where no subview takes them (seed 000).
    public var passesTouchesThrough = false

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
    /// Which comes first when `addOn` and `removeOn` are the same moment; `nil` otherwise.
    public var sameMoment: SameMomentOrder?
    /// Kind, capture and token (format v2); `nil`: a version-1 observer.
    public var style: ObserverStyle?

    public init(message: String, addOn: ScreenMoment, removeOn: ScreenMoment?, sender: String? = nil,
                sameMoment: SameMomentOrder? = nil, style: ObserverStyle? = nil) {
        self.message = message
        self.addOn = addOn
        self.removeOn = removeOn
        self.sender = sender
        self.sameMoment = sameMoment
        self.style = style
    }
}

/// The order of an observer's add and removal at one moment.
public enum SameMomentOrder: String, Sendable, CaseIterable {
    /// Added, then removed: code that cleans up at the end of the method that added.
    case addFirst
    /// Removed, then added: the defensive re-add that keeps one registration.
    case removeFirst
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
    /// The user swipes back; `duration` is the gesture's length.
    case interactivePop(InteractiveOutcome, duration: Double)
    /// The user swipes the top presentation down.
    case interactiveDismiss(InteractiveOutcome, duration: Double)
    /// A new instance of a screen embedded in the live screen `to`.
    case addChild(String, to: String)
    /// The live child screen of that name leaves its parent.
    case removeChild(String)
    /// The user taps the screen at this point.
    case tap(x: Double, y: Double)
    /// A notification outside the typed catalog, posted with a JSON payload (format v2).
    case post(String, payload: JSONValue)
    /// A step about objects and their tokens (format v2).
    case object(ObjectStep)

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
        case .interactivePop: "interactivePop"
        case .interactiveDismiss: "interactiveDismiss"
        case .addChild: "addChild"
        case .removeChild: "removeChild"
        case .post: "post"
        case .object(let step): step.key
        case .tap: "tap"
        }
    }
}
