public import NotifyBus

// Scenario format v2, the observer-level half: observer kinds and captures,
// named tokens, objects that are not screens, unpaired removals, any
// notification name, and posts. See `SCENARIOS.md`.

/// How a scenario observer is registered and held, as the code it models does it.
///
/// A version-1 observer has no style: it is added as a token the app keeps and
/// removed by name with every kind (NotifyBus's strict form).
public struct ObserverStyle: Sendable, Hashable {
    /// Selector, block or token.
    public var kind: ObserverKind
    /// For a block: how the closure holds its owner.
    public var capture: BlockCapture?
    /// The property holding a block's observation or a token; `nil`: a list of its own
    /// that keeps every registration (`observers.append(...)`).
    public var token: String?
    /// How `removeOn` removes it.
    public var removeBy: RemovalMethod
    /// For a selector observer: the selector's name, so that one method registered
    /// for two messages can be recognised.
    public var selector: String?

    public init(kind: ObserverKind, capture: BlockCapture? = nil, token: String? = nil,
                removeBy: RemovalMethod? = nil, selector: String? = nil) {
        self.kind = kind
        self.capture = capture
        self.token = token
        self.removeBy = removeBy ?? (kind == .selector ? .name : .token)
        self.selector = selector
    }
}

/// How code removes an observer, with Foundation's rules.
public enum RemovalMethod: String, Sendable, CaseIterable, Codable {
    /// `removeObserver(observation)` / `token.cancel()`: only that registration.
    case token
    /// `removeObserver(self, name:object:)`: the owner's selector observers of that name; never a block or token.
    case name
    /// `removeObserver(self)`: every selector observer of the owner; never a block or token.
    case owner
}

/// A moment of an object that is not a screen: its creation, its release, or one of its methods.
public enum ObjectMoment: Sendable, Hashable, CustomStringConvertible {
    case `init`
    case `deinit`
    /// A method the scenario declared (`show`, `activate`, …), called by a step or at a host moment.
    case method(String)

    public var description: String {
        switch self {
        case .`init`: "init"
        case .`deinit`: "deinit"
        case .method(let name): name
        }
    }
}

/// A moment of a host: a screen's or an object's.
public enum HostMoment: Sendable, Hashable {
    /// A moment of a host screen.
    case screen(ScreenMoment)
    /// A moment of a host object.
    case object(ObjectMoment)
}

/// The screen or object an object lives in.
public enum HostReference: Sendable, Hashable {
    /// A screen of the scenario: each live instance hosts its own.
    case screen(String)
    /// Another object of the scenario.
    case object(String)

    /// The host's name in the scenario.
    public var name: String {
        switch self {
        case .screen(let name), .object(let name): name
        }
    }
}

/// An observer of an object (or a styled observer of a screen), with the moments of its owner.
public struct StyledObserver<Moment: Sendable & Hashable>: Sendable, Hashable {
    /// A catalog message, a system notification or a declared name.
    public var message: String
    /// When its owner adds it.
    public var addOn: Moment
    /// `nil` for `never`.
    public var removeOn: Moment?
    /// Only posts from the live screen of this name.
    public var sender: String?
    /// Which comes first when `addOn` and `removeOn` are the same moment; `nil` otherwise.
    public var sameMoment: SameMomentOrder?
    /// Kind, capture and token.
    public var style: ObserverStyle

    public init(message: String, addOn: Moment, removeOn: Moment?, sender: String? = nil,
                sameMoment: SameMomentOrder? = nil, style: ObserverStyle) {
        self.message = message
        self.addOn = addOn
        self.removeOn = removeOn
        self.sender = sender
        self.sameMoment = sameMoment
        self.style = style
    }
}

/// A removal (or a dropped token) not paired with an add, at a moment of its owner.
public struct RemovalSpec<Moment: Sendable & Hashable>: Sendable, Hashable {
    /// When its owner removes.
    public var on: Moment
    /// What it removes.
    public var action: RemovalAction

    public init(on: Moment, action: RemovalAction) {
        self.on = on
        self.action = action
    }
}

/// What an unpaired removal does.
public enum RemovalAction: Sendable, Hashable {
    /// `removeObserver(self)`.
    case owner
    /// `removeObserver(self, name: NAME, object: nil)`.
    case name(String)
    /// `removeObserver(property)`: removes what the property holds and keeps it set.
    case token(String)
    /// `property = nil`: a token's observer goes with it; a block's stays registered.
    case drop(String)
}

/// A method call an object's host makes at one of its own moments.
public struct MethodCall: Sendable, Hashable {
    /// A method of the object.
    public var method: String
    /// The host's moment at which it calls it.
    public var on: HostMoment

    public init(method: String, on: HostMoment) {
        self.method = method
        self.on = on
    }
}

/// An object that is not a screen: a helper, a view, a bar, a dialog, an audio handler.
///
/// It lives in its host (a screen or another object), which creates it at one of
/// its moments or when a step says so, and releases it with itself, at
/// ``releasedOn`` or at a `release` step, unless something keeps it alive (a
/// `strong` block observer of its own, or ``retained``). In traces its type is its name.
public struct ObjectSpec: Sendable, Hashable {
    public var host: HostReference
    /// `nil`: only a `create` step makes it.
    public var createdOn: HostMoment?
    /// The host moment at which it lets the object go; `nil`: with the host.
    public var releasedOn: HostMoment?
    /// Its method names: moments of its own, called by steps and by its host.
    public var methods: [String] = []
    /// The methods its host calls at the host's moments.
    public var calls: [MethodCall] = []
    /// Its observers, at its own moments (`init`, `deinit`, its methods).
    public var observers: [StyledObserver<ObjectMoment>] = []
    /// Its removals not paired with an add, and dropped tokens.
    public var removals: [RemovalSpec<ObjectMoment>] = []
    /// Something outside the scenario (a singleton, a cache) keeps it alive once its host lets it go.
    public var retained = false

    public init(host: HostReference, createdOn: HostMoment? = nil) {
        self.host = host
        self.createdOn = createdOn
    }
}

/// A step about objects and their tokens.
public enum ObjectStep: Sendable, Hashable {
    /// The object's host makes a new one (releasing the one it had).
    case create(String)
    /// Its host lets it go.
    case release(String)
    /// A method of the live object.
    case call(String, on: String)
    /// The live owner (screen or object) sets a token property to `nil`.
    case dropToken(String, of: String)

    var key: String {
        switch self {
        case .create: "create"
        case .release: "release"
        case .call: "call"
        case .dropToken: "drop"
        }
    }
}

/// Notification names outside the typed catalog that every scenario may use
/// without declaring them: system notifications a `post` step stands in for.
public enum SystemNotification {
    /// `AVAudioSession.interruptionNotification`; payload `{"type": "began" | "ended"}`.
    public static let audioInterruption = "AVAudioSessionInterruptionNotification"
    /// `UIApplication.didReceiveMemoryWarningNotification`.
    public static let memoryWarning = "UIApplicationDidReceiveMemoryWarningNotification"
    /// `AVAudioSession.routeChangeNotification`.
    public static let audioRouteChange = "AVAudioSessionRouteChangeNotification"
    /// `UIContentSizeCategory.didChangeNotification`.
    public static let contentSizeCategoryChange = "UIContentSizeCategoryDidChangeNotification"

    /// Every system name a scenario may observe and post.
    public static let names: [String] = [audioInterruption, memoryWarning, audioRouteChange, contentSizeCategoryChange]
}
