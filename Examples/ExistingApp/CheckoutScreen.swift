import Foundation

/// Pattern 4, the bug: a selector observer added in `viewWillAppear` and removed in
/// `viewDidDisappear`. A back swipe the user cancels calls `viewWillAppear` again without
/// `viewDidDisappear`: the observer is added a second time, and every keyboard post runs the
/// method twice.
@MainActor
final class CheckoutScreen: LifecycleViewController {
    private(set) var keyboardMoves = 0

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        NotificationCenter.default.addObserver(self, selector: CheckoutScreen.keyboardWillShow,
                                               name: UIResponder.keyboardWillShowNotification, object: nil)
    }

    override func viewDidDisappear(_ animated: Bool) {
        super.viewDidDisappear(animated)
        NotificationCenter.default.removeObserver(self, name: UIResponder.keyboardWillShowNotification, object: nil)
    }

    func keyboardWillShow(_ notification: Notification) {
        keyboardMoves += 1
    }
}
