import Foundation

/// Pattern 1, the bug: a keyboard helper that adds its block observers and discards the tokens
/// (`_ =`). Foundation keeps a block until its token is removed, so these can never be removed:
/// they outlive the helper and its screen, and keep running at every keyboard post.
@MainActor
final class DiscardingKeyboardHelper {
    private(set) var bottomInset = 0.0

    func start() {
        _ = NotificationCenter.default.addObserver(forName: UIResponder.keyboardWillShowNotification, object: nil,
                                                   queue: nil) { [weak self] note in
            let height = (note.userInfo?[UIResponder.keyboardFrameEndUserInfoKey] as? CGRect)?.height ?? 0
            MainActor.assumeIsolated { self?.bottomInset = Double(height) }
        }
        _ = NotificationCenter.default.addObserver(forName: UIResponder.keyboardWillHideNotification, object: nil,
                                                   queue: nil) { [weak self] _ in
            MainActor.assumeIsolated { self?.bottomInset = 0 }
        }
    }
}
