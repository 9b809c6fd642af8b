import UIKit

// A footer view that observes the keyboard while it is in a superview: it adds in
// `willMove(toSuperview:)` when it gets one, and removes when `nil == newSuperview` (leaving).
final class FooterView: UIView {
    private var keyboardObserver: NSObjectProtocol?

    override func willMove(toSuperview newSuperview: UIView?) {
        super.willMove(toSuperview: newSuperview)
        if nil == newSuperview {
            if let observer = keyboardObserver { NotificationCenter.default.removeObserver(observer) }
            keyboardObserver = nil
        } else if keyboardObserver == nil {
            keyboardObserver = NotificationCenter.default.addObserver(forName: UIResponder.keyboardWillShowNotification,
                                                                      object: nil, queue: .main) { [weak self] _ in
                self?.setNeedsLayout()
            }
        }
    }
}
