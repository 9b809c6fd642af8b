import UIKit

// Fixed: the extension's stop is called from viewWillDisappear.
@objc protocol KeyboardAdjusting: AnyObject {
    func keyboardWillChange(_ notification: Notification)
}

extension KeyboardAdjusting where Self: UIViewController {
    func startAdjustingForKeyboard() {
        NotificationCenter.default.addObserver(self, selector: #selector(keyboardWillChange(_:)),
                                               name: UIResponder.keyboardWillChangeFrameNotification, object: nil)
    }

    func stopAdjustingForKeyboard() {
        NotificationCenter.default.removeObserver(self, name: UIResponder.keyboardWillChangeFrameNotification, object: nil)
    }
}

final class NoteEditorViewController: UIViewController, KeyboardAdjusting {
    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        startAdjustingForKeyboard()
    }

    override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        stopAdjustingForKeyboard()
    }

    func keyboardWillChange(_ notification: Notification) {}
}
