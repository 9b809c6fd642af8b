public import NotifyBus

/// A subview of a screen's view, for hit-testing.
public struct Subview: Sendable, Equatable {
    public var name: String
    /// In the screen's coordinates, which are the window's: screens fill the screen.
    public var frame: Rect
    public var isHidden: Bool
    public var alpha: Double
    public var isUserInteractionEnabled: Bool
    /// An action sent up the responder chain from the screen when the subview is tapped.
    public var action: String?

    public init(name: String, frame: Rect, isHidden: Bool = false, alpha: Double = 1,
                isUserInteractionEnabled: Bool = true, action: String? = nil) {
        self.name = name
        self.frame = frame
        self.isHidden = isHidden
        self.alpha = alpha
        self.isUserInteractionEnabled = isUserInteractionEnabled
        self.action = action
    }

    /// Seed 000's `point(inside:with:)` test for one subview: not hidden, not transparent,
    /// taking touches, and under the point.
    public func takes(x: Double, y: Double) -> Bool {
        !isHidden && alpha > 0 && isUserInteractionEnabled
            && x >= frame.x && x < frame.x + frame.width && y >= frame.y && y < frame.y + frame.height
    }
}

/// Where a tap went.
public struct TapResult {
    /// The screen whose view took the touch; `nil` when every screen let it through.
    public var receiver: Screen?
    /// The subview that took it; `nil` for the screen's view itself.
    public var subview: Subview?
    /// The screens that let it through, top first.
    public var passedThrough: [Screen]
    /// The screen that handled the subview's action, if it had one.
    public var actionHandler: Screen?
}

extension AppModel {
    /// The user taps the screen at (`x`, `y`).
    ///
    /// The touch is hit-tested from the top: the screens on screen, each screen's children
    /// above it (the last added on top). A screen that passes touches through takes the
    /// touch only where one of its subviews takes it, else the touch goes on to the screen
    /// below; any other screen takes it. Each screen passed is recorded as
    /// `touchPassedThrough`, the one that took it as `touchReceived` (the application when
    /// none did); a subview with an action then sends it up the responder chain.
    @discardableResult
    public func tap(x: Double, y: Double) throws(NotifyBusError) -> TapResult {
        guard root != nil else { throw NotifyBusError("the app is not launched") }
        guard x.isFinite, y.isFinite else { throw NotifyBusError("a tap needs a finite point") }
        let bounds = screenBounds
        guard x >= 0, y >= 0, x < bounds.width, y < bounds.height else {
            throw NotifyBusError("(\(x), \(y)) is off the screen (\(bounds.width) × \(bounds.height) points)")
        }
        let point = "(\(x), \(y))"
        var result = TapResult(receiver: nil, subview: nil, passedThrough: [], actionHandler: nil)
        let candidates = visibleScreens.reversed().flatMap { $0.withDescendants.reversed() }
        for screen in candidates {
            let subview = screen.subviews.last { $0.takes(x: x, y: y) }
            if subview == nil && screen.passesTouchesThrough {
                record(.touchPassedThrough, on: screen, detail: point)
                result.passedThrough.append(screen)
                continue
            }
            result.receiver = screen
            result.subview = subview
            record(.touchReceived, on: screen, detail: point + (subview.map { " on \($0.name)" } ?? ""))
            if let action = subview?.action {
                result.actionHandler = try sendAction(action, from: screen)
            }
            return result
        }
        record(.touchReceived, on: application, detail: point)
        return result
    }
}
