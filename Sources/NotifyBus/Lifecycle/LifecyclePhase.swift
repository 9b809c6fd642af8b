/// A lifecycle step of a screen or plugin, or an operation of a container.
public enum LifecyclePhase: String, Codable, Sendable, CaseIterable {
    // A screen's own callbacks, in UIKit's order (seed 001).
    case `init`
    case viewDidLoad
    case viewWillAppear
    case viewDidAppear
    case viewWillDisappear
    case viewDidDisappear
    /// The object is gone. Recorded after its deinit body ran, so observers
    /// still registered at this event outlived their owner.
    case `deinit`

    // Container operations, recorded on the screen they act on.
    case setRoot
    case push
    case pop
    case present
    case dismiss
    case selectTab
    /// The screen left the hierarchy for good (popped, dismissed, its container removed).
    case removedFromHierarchy
    /// The screen became a child of another (`addChild(_:)`, `willMove(toParent:)`); the
    /// detail names the parent.
    case addChild
    /// The screen is leaving its parent (`willMove(toParent: nil)`, `removeFromParent()`).
    case removeChild
    /// The user cancelled an interactive pop or dismiss of this screen: it stays.
    case transitionCancelled
    /// A touch passed through this screen's view: nothing visible and enabled under it.
    case touchPassedThrough
    /// This screen (or the application, when every screen let it through) received a touch;
    /// the detail gives the point and the subview.
    case touchReceived

    // The application.
    case launch
    case rotate
    /// The system turned the interface to an orientation the appearing or revealed
    /// screen supports: a reaction, where `rotate` is the user turning the device.
    case forceOrientation
    case keyboard
    case wait
}
