import Foundation

/// Pattern 2, the bug: `removeObserver(self, name:object:)` for a block observer. Foundation
/// removes selector observers of `self` by name, never a block: the block stays, keeps hearing the
/// keyboard while the screen is covered, and the next `viewWillAppear` adds another over it.
@MainActor
final class ProfileScreen: LifecycleViewController {
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
        NotificationCenter.default.removeObserver(self, name: UIResponder.keyboardWillShowNotification, object: nil)
    }
}
