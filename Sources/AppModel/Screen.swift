public import NotifyBus

/// A moment in a screen's life that plugins and scenario observers hook on:
/// its own callbacks (seed 001's order) and the activity messages delivered to it.
public enum ScreenMoment: String, Sendable, CaseIterable, Codable {
    case `init`
    case viewDidLoad
    case viewWillAppear
    case viewDidAppear
    case viewWillDisappear
    case viewDidDisappear
    case `deinit`
    case willResignActive
    case didBecomeActive
    case didEnterBackground
    case willEnterForeground
    /// The screen's view entered a window (`UIView.didMoveToWindow` with a window): after
    /// `viewWillAppear` each time the view was out of a window. Not recorded in traces.
    case didMoveToWindow
    /// The first `viewDidLayoutSubviews`, after the view first entered a window and before
    /// `viewDidAppear`. Not recorded in traces.
    case viewDidLayoutSubviews

    /// The lifecycle phase of a recorded callback moment; `nil` for activity and view-level moments.
    public var phase: LifecyclePhase? { LifecyclePhase(rawValue: rawValue) }

    /// Whether the moment is an activity message delivered to the screen (by the
    /// ``ActivityObserverPlugin``) rather than a callback of its own.
    public var isActivity: Bool {
        switch self {
        case .willResignActive, .didBecomeActive, .didEnterBackground, .willEnterForeground: true
        default: false
        }
    }
}

/// Adds behaviour to a screen without subclassing (seed 004's "Pluginable").
///
/// A screen calls each of its plugins, in order, at every ``ScreenMoment``.
///
/// ```swift
/// final class AnalyticsPlugin: ScreenPlugin {
///     func screen(_ screen: Screen, reached moment: ScreenMoment, in app: AppModel) {
///         if moment == .viewDidAppear { app.bus.post(ScreenShown(name: screen.name)) }
///     }
/// }
/// ```
public protocol ScreenPlugin: AnyObject {
    /// Called when `screen` reaches `moment`.
    func screen(_ screen: Screen, reached moment: ScreenMoment, in app: AppModel)
}

/// A view controller of the headless UIKit model.
///
/// Screens are created by the app (each push or present makes a new one, as
/// UIKit instantiates a new controller), receive their callbacks in UIKit's
/// order from ``AppModel``, and are released when they leave the hierarchy
/// unless ``retainedAfterPop`` says something keeps them alive.
public final class Screen: TraceLabeled {
    /// The screen's name: its label in traces.
    public let name: String
    /// The orientations the screen supports.
    public var supportedOrientations: InterfaceOrientationMask
    /// The orientation forced when the screen appears in one it does not support.
    public var preferredOrientation: InterfaceOrientation
    /// Actions this screen handles when they travel up the responder chain.
    public var handledActions: Set<String>
    /// Models a handler that captures the screen strongly: it is never released.
    public var retainedAfterPop: Bool
    /// The plugins, called in this order.
    public private(set) var plugins: [any ScreenPlugin]

    /// Whether `viewDidLoad` ran.
    public internal(set) var isViewLoaded = false
    /// Between `viewWillAppear` and `viewDidDisappear`.
    public internal(set) var isVisible = false
    /// Whether the view is in a window: from the `didMoveToWindow` after `viewWillAppear`
    /// to `viewDidDisappear`.
    public internal(set) var isInWindow = false
    /// Whether the view was laid out once (the first `viewDidLayoutSubviews`).
    var hasLaidOut = false

    /// The subviews that can receive touches, back to front.
    public var subviews: [Subview] = []
    /// Whether the view lets touches through where no visible, enabled subview is under
    /// them (seed 000's `TouchIgnoreView`); otherwise the view takes every touch on it.
    public var passesTouchesThrough = false

    /// The embedded child screens, in the order they were added (containment).
    public internal(set) var children: [Screen] = []
    /// The screen this one is embedded in.
    public internal(set) weak var parent: Screen?
    /// Children that join when this screen's view loads.
    var childrenToEmbed: [Screen]

    public var traceLabel: String { name }
    /// Each scenario screen stands for a view controller class of its own,
    /// so its type in traces is `<name>ViewController`.
    public var traceTypeName: String { name + "ViewController" }

    /// - Parameter children: Screens embedded in this one when its view loads (containment);
    ///   see ``AppModel/addChild(_:to:)``.
    public init(name: String, supportedOrientations: InterfaceOrientationMask = .allButUpsideDown,
                preferredOrientation: InterfaceOrientation = .portrait, handledActions: Set<String> = [],
                retainedAfterPop: Bool = false, plugins: [any ScreenPlugin] = [], children: [Screen] = []) {
        self.name = name
        self.supportedOrientations = supportedOrientations
        self.preferredOrientation = preferredOrientation
        self.handledActions = handledActions
        self.retainedAfterPop = retainedAfterPop
        self.plugins = plugins
        self.childrenToEmbed = children
    }

    /// The screen and its embedded children, depth first, parents before children.
    public var withDescendants: [Screen] {
        [self] + children.flatMap(\.withDescendants)
    }

    /// Adds a plugin after the others.
    public func add(_ plugin: any ScreenPlugin) {
        plugins.append(plugin)
    }

    /// The orientations the screen accepts now: an ``OrientationLockPlugin`` narrows them.
    public var effectiveOrientations: InterfaceOrientationMask {
        for case let lock as OrientationLockPlugin in plugins { return lock.mask(for: self) }
        return supportedOrientations
    }
}

/// A weak reference that may cross into `@Sendable` handlers.
struct ModelRef<T: AnyObject>: @unchecked Sendable {
    // @unchecked: the lifecycle model is single-threaded; the bus calls the
    // handlers holding this synchronously on the thread that posts, which is
    // the model's own thread.
    weak var object: T?
    init(_ object: T) { self.object = object }
}
