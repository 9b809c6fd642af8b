public import NotifyBus

/// Observes the four activity messages from `viewWillAppear` to
/// `viewWillDisappear` and hands them to the screen as moments (seed 000's
/// base controller).
///
/// A popped screen gets `viewWillDisappear` but never `willResignActive`, so
/// work undone on resign-active must also be undone on disappear.
public final class ActivityObserverPlugin: ScreenPlugin {
    public init() {}

    public func screen(_ screen: Screen, reached moment: ScreenMoment, in app: AppModel) {
        switch moment {
        case .viewWillAppear:
            observe(WillResignActive.self, .willResignActive, screen, app)
            observe(DidBecomeActive.self, .didBecomeActive, screen, app)
            observe(DidEnterBackground.self, .didEnterBackground, screen, app)
            observe(WillEnterForeground.self, .willEnterForeground, screen, app)
        case .viewWillDisappear:
            for name in [WillEnterForeground.name, DidEnterBackground.name, WillResignActive.name, DidBecomeActive.name] {
                app.removeObservers(named: name, of: screen)
            }
        default:
            break
        }
    }

    private func observe<M: BusMessage>(_ type: M.Type, _ moment: ScreenMoment, _ screen: Screen, _ app: AppModel,
                                        line: Int = #line) {
        let target = ModelRef(screen), model = ModelRef(app)
        app.addObserver(type, of: screen, line: line) { _ in
            guard let screen = target.object, let app = model.object else { return }
            app.deliver(moment, to: screen)
        }
    }
}

/// Observes keyboard will-show and will-hide from `viewDidAppear` to
/// `viewWillDisappear` (seed 004's timing), which cannot leak on pop.
public final class KeyboardObserverPlugin: ScreenPlugin {
    /// Called with each keyboard message while the screen observes.
    public let onKeyboard: @Sendable (any KeyboardMessage) -> Void

    public init(onKeyboard: @escaping @Sendable (any KeyboardMessage) -> Void = { _ in }) {
        self.onKeyboard = onKeyboard
    }

    public func screen(_ screen: Screen, reached moment: ScreenMoment, in app: AppModel) {
        switch moment {
        case .viewDidAppear:
            let handler = onKeyboard
            app.addObserver(KeyboardWillShow.self, of: screen) { handler($0) }
            app.addObserver(KeyboardWillHide.self, of: screen) { handler($0) }
        case .viewWillDisappear:
            app.removeObservers(named: KeyboardWillShow.name, of: screen)
            app.removeObservers(named: KeyboardWillHide.name, of: screen)
        default:
            break
        }
    }
}

/// Locks a screen to one orientation (seed 000's `rotate(to:lockRotation:)`):
/// the app forces that orientation when the screen appears in another one.
public final class OrientationLockPlugin: ScreenPlugin {
    /// The locked orientation; `nil` locks to the screen's preferred orientation.
    public let orientation: InterfaceOrientation?

    public init(orientation: InterfaceOrientation? = nil) {
        self.orientation = orientation
    }

    func mask(for screen: Screen) -> InterfaceOrientationMask {
        InterfaceOrientationMask(orientation ?? screen.preferredOrientation)
    }

    public func screen(_ screen: Screen, reached moment: ScreenMoment, in app: AppModel) {}
}
