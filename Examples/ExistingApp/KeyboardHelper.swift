import Foundation

/// Pattern 1, fixed: the helper keeps its tokens and removes them when it goes.
@MainActor
final class KeyboardHelper {
    private(set) var bottomInset = 0.0
    private var observers: [any NSObjectProtocol] = []

    func start() {
        observers.append(NotificationCenter.default.addObserver(
            forName: UIResponder.keyboardWillShowNotification, object: nil, queue: nil
        ) { [weak self] note in
            let height = (note.userInfo?[UIResponder.keyboardFrameEndUserInfoKey] as? CGRect)?.height ?? 0
            MainActor.assumeIsolated { self?.bottomInset = Double(height) }
        })
        observers.append(NotificationCenter.default.addObserver(
            forName: UIResponder.keyboardWillHideNotification, object: nil, queue: nil
        ) { [weak self] _ in
            MainActor.assumeIsolated { self?.bottomInset = 0 }
        })
    }

    isolated deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }
}
