// A stand-in for the part of UIKit these examples use, so that the app code reads as it does on
// iOS: the notification names and userInfo keys UIKit posts under, view controllers with their
// lifecycle methods, and a navigation controller that calls them in UIKit's order
// (shared/NOTIFICATIONCENTER.md). What UIKit posts, it posts to Foundation's default center
// directly, never through the recording center: `UIKitSystem`.
import Foundation

enum UIResponder {
    static let keyboardWillShowNotification = Notification.Name("UIKeyboardWillShowNotification")
    static let keyboardWillHideNotification = Notification.Name("UIKeyboardWillHideNotification")
    static let keyboardFrameBeginUserInfoKey = "UIKeyboardFrameBeginUserInfoKey"
    static let keyboardFrameEndUserInfoKey = "UIKeyboardFrameEndUserInfoKey"
    static let keyboardAnimationCurveUserInfoKey = "UIKeyboardAnimationCurveUserInfoKey"
    static let keyboardAnimationDurationUserInfoKey = "UIKeyboardAnimationDurationUserInfoKey"
}

enum UIApplication {
    static let didBecomeActiveNotification = Notification.Name("UIApplicationDidBecomeActiveNotification")
    static let willResignActiveNotification = Notification.Name("UIApplicationWillResignActiveNotification")
    static let didEnterBackgroundNotification = Notification.Name("UIApplicationDidEnterBackgroundNotification")
    static let willEnterForegroundNotification = Notification.Name("UIApplicationWillEnterForegroundNotification")
}

/// A view controller: its lifecycle methods, called by ``UINavigationController``.
@MainActor
class UIViewController {
    /// Set by the navigation controller while it pops this screen (also during a pop the user cancels).
    fileprivate(set) var isMovingFromParent = false
    var isBeingDismissed: Bool { false }
    fileprivate var isViewLoaded = false

    init() {}

    func viewDidLoad() {}
    func viewWillAppear(_ animated: Bool) {}
    func viewDidAppear(_ animated: Bool) {}
    func viewWillDisappear(_ animated: Bool) {}
    func viewDidDisappear(_ animated: Bool) {}

    fileprivate func loadViewIfNeeded() {
        guard !isViewLoaded else { return }
        isViewLoaded = true
        viewDidLoad()
    }
}

/// A navigation stack, calling its screens' lifecycle methods in UIKit's order; a popped screen
/// is released unless something else keeps it.
@MainActor
final class UINavigationController {
    private(set) var viewControllers: [UIViewController]

    /// Shows the stack with `root` on screen, as a window does at launch.
    init(rootViewController root: UIViewController) {
        viewControllers = [root]
        root.loadViewIfNeeded()
        root.viewWillAppear(false)
        root.viewDidAppear(false)
    }

    var topViewController: UIViewController? { viewControllers.last }

    func pushViewController(_ screen: UIViewController, animated: Bool) {
        let covered = viewControllers.last
        screen.loadViewIfNeeded()
        covered?.viewWillDisappear(animated)
        screen.viewWillAppear(animated)
        covered?.viewDidDisappear(animated)
        screen.viewDidAppear(animated)
        viewControllers.append(screen)
    }

    @discardableResult
    func popViewController(animated: Bool) -> UIViewController? {
        guard viewControllers.count > 1 else { return nil }
        let popped = viewControllers.removeLast(), revealed = viewControllers.last
        popped.isMovingFromParent = true
        popped.viewWillDisappear(animated)
        revealed?.viewWillAppear(animated)
        popped.viewDidDisappear(animated)
        revealed?.viewDidAppear(animated)
        popped.isMovingFromParent = false
        return nil  // UIKit returns it; the examples let it go, as an app that does not keep it
    }

    /// The user starts the back swipe and lets go: the top screen stays.
    func cancelInteractivePop() {
        guard viewControllers.count > 1 else { return }
        let top = viewControllers[viewControllers.count - 1], below = viewControllers[viewControllers.count - 2]
        top.isMovingFromParent = true
        top.viewWillDisappear(true)
        below.viewWillAppear(true)
        top.isMovingFromParent = false
        below.viewWillDisappear(true)
        top.viewWillAppear(true)
        below.viewDidDisappear(true)
        top.viewDidAppear(true)
    }
}

/// What the system posts, to Foundation's default center directly, as UIKit does.
@MainActor
enum UIKitSystem {
    private static var center: Foundation.NotificationCenter { .default }

    static func showKeyboard(height: Double) {
        center.post(name: UIResponder.keyboardWillShowNotification, object: nil, userInfo: [
            UIResponder.keyboardFrameBeginUserInfoKey: CGRect(x: 0, y: 844, width: 390, height: 0),
            UIResponder.keyboardFrameEndUserInfoKey: CGRect(x: 0, y: 844 - height, width: 390, height: height),
            UIResponder.keyboardAnimationCurveUserInfoKey: 7, UIResponder.keyboardAnimationDurationUserInfoKey: 0.25,
        ])
    }

    static func hideKeyboard() {
        center.post(name: UIResponder.keyboardWillHideNotification, object: nil, userInfo: [
            UIResponder.keyboardFrameBeginUserInfoKey: CGRect(x: 0, y: 508, width: 390, height: 336),
            UIResponder.keyboardFrameEndUserInfoKey: CGRect(x: 0, y: 844, width: 390, height: 336),
            UIResponder.keyboardAnimationCurveUserInfoKey: 7, UIResponder.keyboardAnimationDurationUserInfoKey: 0.25,
        ])
    }

    /// The home button, then back to the app.
    static func backgroundAndReturn() {
        center.post(name: UIApplication.willResignActiveNotification, object: nil)
        center.post(name: UIApplication.didEnterBackgroundNotification, object: nil)
        center.post(name: UIApplication.willEnterForegroundNotification, object: nil)
        center.post(name: UIApplication.didBecomeActiveNotification, object: nil)
    }
}
