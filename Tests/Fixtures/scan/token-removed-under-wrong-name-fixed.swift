import UIKit

// Fixed: each token removed under its own name.
final class TransferViewController: UIViewController {
    private var willShowObserver: NSObjectProtocol?
    private var willHideObserver: NSObjectProtocol?
    private var frameObserver: NSObjectProtocol?

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        willShowObserver = NotificationCenter.default.addObserver(forName: UIResponder.keyboardWillShowNotification, object: nil, queue: nil) { [weak self] _ in
            self?.layout()
        }
        willHideObserver = NotificationCenter.default.addObserver(forName: UIResponder.keyboardWillHideNotification, object: nil, queue: nil) { [weak self] _ in
            self?.layout()
        }
        frameObserver = NotificationCenter.default.addObserver(forName: UIResponder.keyboardWillChangeFrameNotification, object: nil, queue: nil) { [weak self] _ in
            self?.layout()
        }
    }

    override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        NotificationCenter.default.removeObserver(willShowObserver as Any, name: UIResponder.keyboardWillShowNotification, object: nil)
        NotificationCenter.default.removeObserver(willHideObserver as Any, name: UIResponder.keyboardWillHideNotification, object: nil)
        NotificationCenter.default.removeObserver(frameObserver as Any, name: UIResponder.keyboardWillChangeFrameNotification, object: nil)
    }

    private func layout() {}
}
