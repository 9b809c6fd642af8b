import UIKit

// Fixed as seed 000 says: the keyboard observers are also removed in viewWillDisappear, and
// added in viewWillAppear (a pushed screen's app is already active: didBecomeActive never comes).
class LifecycleViewController: UIViewController {
    private var center: NotificationCenter { NotificationCenter.default }

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        addKeyboardObservers()
    }

    override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        removeKeyboardObservers()
    }

    private func addKeyboardObservers() {
        center.addObserver(self, selector: #selector(keyboardWillShow(_:)),
                           name: UIResponder.keyboardWillShowNotification, object: nil)
    }

    private func removeKeyboardObservers() {
        center.removeObserver(self, name: UIResponder.keyboardWillShowNotification, object: nil)
    }

    @objc private func keyboardWillShow(_ notification: Notification) {}
}
