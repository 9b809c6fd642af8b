import UIKit

// Seed 000's base controller: activity observed from viewWillAppear to viewWillDisappear, the
// keyboard added when the app becomes active and removed when it resigns active, which a
// screen that is covered or popped never hears.
class LifecycleViewController: UIViewController {
    private var center: NotificationCenter { NotificationCenter.default }

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        registerActivityObservers()
    }

    override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        for name in [UIApplication.didBecomeActiveNotification, UIApplication.willResignActiveNotification] {
            center.removeObserver(self, name: name, object: nil)
        }
        center.removeObserver(self, name: UIApplication.didBecomeActiveNotification, object: nil)
        center.removeObserver(self, name: UIApplication.willResignActiveNotification, object: nil)
    }

    private func registerActivityObservers() {
        center.addObserver(self, selector: #selector(viewDidBecomeActive),
                           name: UIApplication.didBecomeActiveNotification, object: nil)
        center.addObserver(self, selector: #selector(viewWillResignActive),
                           name: UIApplication.willResignActiveNotification, object: nil)
    }

    @objc func viewDidBecomeActive() { addKeyboardObservers() }
    @objc func viewWillResignActive() { removeKeyboardObservers() }

    private func addKeyboardObservers() {
        center.addObserver(self, selector: #selector(keyboardWillShow(_:)),
                           name: UIResponder.keyboardWillShowNotification, object: nil)
    }

    private func removeKeyboardObservers() {
        center.removeObserver(self, name: UIResponder.keyboardWillShowNotification, object: nil)
    }

    @objc private func keyboardWillShow(_ notification: Notification) {}
}
