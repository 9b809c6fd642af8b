public import NotifyBus

/// How an interactive transition ends: the user lifts the finger past the threshold
/// (`complete`) or goes back (`cancel`).
public enum InteractiveOutcome: String, Sendable, Codable, CaseIterable {
    case complete
    case cancel
}

extension AppModel {
    /// The user swipes back from the edge of the current navigation stack.
    ///
    /// Completed, it is a pop (recorded with the detail `interactive`). Cancelled, as
    /// UIKit's published logs show it: the top screen will-disappear, the screen below
    /// will-appear (its view enters the window); then the screen below will-disappear and
    /// did-disappear, and the top screen will-appear and did-appear. The top screen never
    /// gets did-disappear, the screen below never did-appear.
    ///
    /// - Parameter duration: The gesture's length; the clock advances by it between the two halves.
    public func interactivePop(_ outcome: InteractiveOutcome, duration: Double = 0) throws(NotifyBusError) {
        try checkInterval(duration, "a duration")
        let navigation = try currentNavigation()
        guard navigation.screens.count > 1 else { throw NotifyBusError("nothing to pop") }
        let top = navigation.top
        let below = navigation.screens[navigation.screens.count - 2]
        switch outcome {
        case .complete:
            navigation.screens.removeLast()
            record(.pop, on: top, detail: "interactive")
            forceOrientation(for: below)
            transition(disappearing: [top], appearing: [below], duration: duration)
            leave([top])
        case .cancel:
            record(.pop, on: top, detail: "interactive")
            cancelled(top: top, below: [below], duration: duration)
        }
    }

    /// The user swipes down the top presentation.
    ///
    /// Completed, it is a dismiss (recorded with the detail `interactive`). Cancelled, the
    /// presented screen will-disappear, will-appear and did-appear; the screens a
    /// full-screen presentation covered will-appear, will-disappear and did-disappear (a
    /// sheet's presenter stays on screen and gets nothing).
    public func interactiveDismiss(_ outcome: InteractiveOutcome, duration: Double = 0) throws(NotifyBusError) {
        try checkInterval(duration, "a duration")
        guard let presentation = presentations.last else { throw NotifyBusError("nothing presented to dismiss") }
        let top = presentation.navigation.top
        switch outcome {
        case .complete:
            presentations.removeLast()
            record(.dismiss, on: top, detail: "interactive")
            let revealed = presentation.style == .fullScreen ? visibleScreens : []
            forceOrientationAfterDismissal(revealing: revealed)
            transition(disappearing: [top], appearing: revealed, duration: duration,
                       appearedFirst: modalCompletesAppearingFirst(presentation.style))
            leave(presentation.navigation.screens.reversed())
        case .cancel:
            record(.dismiss, on: top, detail: "interactive")
            presentations.removeLast()
            let revealed = presentation.style == .fullScreen ? visibleScreens : []
            presentations.append(presentation)
            cancelled(top: top, below: revealed, duration: duration)
        }
    }

    /// The two halves of a cancelled interactive transition.
    private func cancelled(top: Screen, below: [Screen], duration: Double) {
        for screen in below where !screen.isViewLoaded { deliver(.viewDidLoad, to: screen) }
        forward(.viewWillDisappear, to: top)
        for screen in below { forward(.viewWillAppear, to: screen) }
        enterWindow(below)
        if duration > 0 { clock.advance(bySeconds: duration) }
        record(.transitionCancelled, on: top)
        for screen in below { forward(.viewWillDisappear, to: screen) }
        for screen in below { forward(.viewDidDisappear, to: screen) }
        forward(.viewWillAppear, to: top)
        forward(.viewDidAppear, to: top)
    }
}
