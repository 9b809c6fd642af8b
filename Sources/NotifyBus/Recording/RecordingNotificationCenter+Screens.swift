import Foundation

/// A step of a view controller's lifecycle, as a base view controller reports it to
/// ``RecordingNotificationCenter/recordScreen(_:_:leaving:)``.
public enum ScreenStep: String, Sendable, CaseIterable {
    case viewDidLoad
    case viewWillAppear
    case viewDidAppear
    case viewWillDisappear
    case viewDidDisappear
    /// The screen's `deinit`.
    case `deinit`
}

/// What the center knows of a recorded screen.
struct ScreenState: Sendable {
    let ownerID: UInt64
    let bus: Bus
    var inHierarchy = false
    /// `viewWillDisappear` said the screen is leaving, and `viewDidDisappear` has not come yet.
    var leaving = false
    /// Between `viewWillDisappear` and `viewDidDisappear`.
    var disappearing = false
}

extension RecordingNotificationCenter {
    /// Records a step of a screen's lifecycle, from one place: the app's base view controller.
    ///
    /// ```swift
    /// class LifecycleViewController: UIViewController {
    ///     override func viewDidLoad() {
    ///         super.viewDidLoad()
    ///         NotificationCenter.default.recordScreen(self, .viewDidLoad)
    ///     }
    ///     override func viewWillAppear(_ animated: Bool) {
    ///         super.viewWillAppear(animated)
    ///         NotificationCenter.default.recordScreen(self, .viewWillAppear)
    ///     }
    ///     override func viewWillDisappear(_ animated: Bool) {
    ///         super.viewWillDisappear(animated)
    ///         NotificationCenter.default.recordScreen(self, .viewWillDisappear,
    ///                                                 leaving: isMovingFromParent || isBeingDismissed)
    ///     }
    ///     // viewDidAppear, viewDidDisappear alike
    ///     deinit { NotificationCenter.default.recordScreen(self, .deinit) }
    /// }
    /// ```
    ///
    /// The trace then has the screen's lane: it enters the hierarchy at its first `viewWillAppear`
    /// (or the first after it left), is visible from `viewWillAppear` to `viewDidDisappear`, and
    /// leaves the hierarchy at the `viewDidDisappear` of a `viewWillDisappear` that said `leaving`
    /// (popped or dismissed). A `viewWillAppear` after a leaving `viewWillDisappear` without
    /// `viewDidDisappear` is a cancelled interactive pop: recorded as such, the screen stays.
    ///
    /// At each step, the block observations the screen holds in its stored properties, and the
    /// selector targets it holds, are attached to it, so that findings say "in LoginScreen" and a
    /// covered screen's deliveries count as off screen. When the screen leaves the hierarchy, a
    /// block observation it still holds registered leaves with it: if nothing removes it, that is
    /// `observer-outlives-owner` (a block capturing `self` strongly keeps the screen, and itself, alive).
    ///
    /// - Parameters:
    ///   - screen: The view controller.
    ///   - step: The lifecycle method being run.
    ///   - leaving: At `viewWillDisappear` (or `viewDidDisappear`): whether the screen is being
    ///     popped or dismissed (`isMovingFromParent || isBeingDismissed`), not just covered.
    public func recordScreen(_ screen: AnyObject, _ step: ScreenStep, leaving: Bool = false) {
        guard let bus = session()?.bus else { return }
        let key = ObjectIdentifier(screen)
        if step == .deinit {
            // No weak reference to `screen` can be made now: only its identity and the id kept for it.
            guard let state = screens.withLock({ $0.removeValue(forKey: key) }), state.bus === bus else { return }
            bus.record(.lifecycle(owner: state.ownerID, phase: .deinit, detail: nil))
            return
        }
        let ownerID = ownerID(of: screen, bus: bus)
        var state = screens.withLock { screens in
            if let known = screens[key], known.bus === bus, known.ownerID == ownerID { return known }
            return ScreenState(ownerID: ownerID, bus: bus)
        }
        var phases: [(LifecyclePhase, String?)] = []
        switch step {
        case .viewDidLoad:
            phases.append((.viewDidLoad, nil))
        case .viewWillAppear:
            if state.disappearing && state.leaving {
                phases.append((.transitionCancelled, "viewWillAppear after a leaving viewWillDisappear"))
            }
            state.leaving = false
            state.disappearing = false
            if !state.inHierarchy {
                phases.append((.push, "appeared (recorded by the app)"))
                state.inHierarchy = true
            }
            phases.append((.viewWillAppear, nil))
        case .viewDidAppear:
            phases.append((.viewDidAppear, nil))
        case .viewWillDisappear:
            state.leaving = leaving
            state.disappearing = true
            phases.append((.viewWillDisappear, leaving ? "leaving" : nil))
        case .viewDidDisappear:
            let leaves = leaving || state.leaving
            phases.append((.viewDidDisappear, nil))
            state.disappearing = false
            state.leaving = false
            if leaves && state.inHierarchy {
                phases.append((.removedFromHierarchy, nil))
                state.inHierarchy = false
            }
        case .deinit:
            break
        }
        let settled = state
        screens.withLock { $0[key] = settled }
        let held = attachHeld(by: screen, bus: bus)
        for (phase, detail) in phases {
            bus.record(.lifecycle(owner: ownerID, phase: phase, detail: detail))
            if phase == .removedFromHierarchy {
                for observation in held where observation.isRegistered {
                    bus.record(.lifecycle(owner: observation.ownerID, phase: .removedFromHierarchy,
                                          detail: "its screen left the hierarchy"))
                }
            }
        }
    }

    /// Attaches to `screen` the block observations and the selector targets it holds.
    private func attachHeld(by screen: AnyObject, bus: Bus) -> [RecordedObservation] {
        let observations = RecordedObservation.held(by: screen).filter { $0.bus === bus }
        for observation in observations { bus.attach(observation, to: screen) }
        let targets = Set(selectors.withLock { $0.values.map(\.target) })
        guard !targets.isEmpty else { return observations }
        var mirror: Mirror? = Mirror(reflecting: screen)
        while let current = mirror {
            for child in current.children {
                let value: Any? = Mirror(reflecting: child.value).displayStyle == .optional
                    ? Mirror(reflecting: child.value).children.first?.value : child.value
                if let value, let object = Self.object(value), object !== screen,
                   targets.contains(ObjectIdentifier(object)) {
                    bus.attach(object, to: screen)
                }
            }
            mirror = current.superclassMirror
        }
        return observations
    }
}
