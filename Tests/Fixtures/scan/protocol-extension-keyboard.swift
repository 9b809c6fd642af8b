import UIKit

// A protocol extension that starts keyboard observing, called from viewWillAppear, with no
// matching stop: each appearance registers the handler again.
@objc protocol KeyboardAdjusting: AnyObject {
    func keyboardWillChange(_ notification: Notification)
}

extension KeyboardAdjusting where Self: UIViewController {
    func startAdjustingForKeyboard() {
        NotificationCenter.default.addObserver(self, selector: #selector(keyboardWillChange(_:)),
                                               name: UIResponder.keyboardWillChangeFrameNotification, object: nil)
    }
}

final class NoteEditorViewController: UIViewController, KeyboardAdjusting {
    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        startAdjustingForKeyboard()
    }

    func keyboardWillChange(_ notification: Notification) {}
}
