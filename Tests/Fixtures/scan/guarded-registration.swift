import UIKit

// A screen that registers in viewWillAppear, guarded so that it registers once: the registration
// stands under `guard keyboardObserver == nil`, which the scan carries to the statements after the
// guard but does not evaluate. The appearance after a cancelled interactive pop would add again
// without the guard, so the duplicate the journeys show is a note, never a warning.
final class CommentViewController: UIViewController {
    private var keyboardObserver: NSObjectProtocol?

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        guard keyboardObserver == nil else { return }
        keyboardObserver = NotificationCenter.default.addObserver(forName: UIResponder.keyboardWillShowNotification,
                                                                  object: nil, queue: .main) { [weak self] _ in
            self?.view.setNeedsLayout()
        }
    }

    override func viewDidDisappear(_ animated: Bool) {
        super.viewDidDisappear(animated)
        if let keyboardObserver { NotificationCenter.default.removeObserver(keyboardObserver) }
        keyboardObserver = nil
    }
}
