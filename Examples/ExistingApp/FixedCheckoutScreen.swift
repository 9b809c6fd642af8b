import Foundation

/// Pattern 4, fixed: added in `viewWillAppear`, removed in `viewWillDisappear`, which a cancelled
/// back swipe calls as often as it calls `viewWillAppear`.
@MainActor
final class FixedCheckoutScreen: LifecycleViewController {
    private(set) var keyboardMoves = 0

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        NotificationCenter.default.addObserver(self, selector: FixedCheckoutScreen.keyboardWillShow,
                                               name: UIResponder.keyboardWillShowNotification, object: nil)
    }

    override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        NotificationCenter.default.removeObserver(self, name: UIResponder.keyboardWillShowNotification, object: nil)
    }

    func keyboardWillShow(_ notification: Notification) {
        keyboardMoves += 1
    }
}
