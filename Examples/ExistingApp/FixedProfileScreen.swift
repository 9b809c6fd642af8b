import Foundation

/// Pattern 2, fixed: the block is removed by its token.
@MainActor
final class FixedProfileScreen: LifecycleViewController {
    private var keyboardObserver: (any NSObjectProtocol)?
    private(set) var scrolls = 0

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        keyboardObserver = NotificationCenter.default.addObserver(
            forName: UIResponder.keyboardWillShowNotification, object: nil, queue: nil
        ) { [weak self] _ in
            MainActor.assumeIsolated { self?.scrolls += 1 }
        }
    }

    override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        if let keyboardObserver { NotificationCenter.default.removeObserver(keyboardObserver) }
        keyboardObserver = nil
    }
}
