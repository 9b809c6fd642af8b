/// The real-world observer mistakes these examples show, each with a fixed twin, and the user's
/// path through the app that brings each out. Run one with ``run(fixed:)`` while
/// `RecordingNotificationCenter.record(into:)` records.
public enum RealWorldPattern: String, CaseIterable, Sendable {
    /// A helper object discards the tokens of its block observers.
    case helperDiscardsTokens = "helper-discards-tokens"
    /// `removeObserver(self, name:object:)` meant to remove a block observer.
    case removeSelfByNameOnBlock = "remove-self-by-name-on-block"
    /// An `[unowned self]` block "removed" by `removeObserver(self)` in `deinit`.
    case unownedSelfBlock = "unowned-self-block"
    /// A selector observer re-added after a back swipe the user cancelled.
    case readdedAfterCancelledPop = "readded-after-cancelled-pop"
    /// A block capturing `self` strongly keeps a popped screen alive.
    case strongSelfCapture = "strong-self-capture"

    /// Runs the app through the steps that bring the mistake out (or, `fixed`, through the same
    /// steps with the fixed code). Posts of the system go to Foundation's default center directly.
    @MainActor
    public func run(fixed: Bool) {
        let navigation = UINavigationController(rootViewController: HomeScreen())
        switch self {
        case .helperDiscardsTokens:
            navigation.pushViewController(fixed ? FixedComposeScreen() : ComposeScreen(), animated: true)
            UIKitSystem.showKeyboard(height: 336)
            UIKitSystem.hideKeyboard()
            navigation.popViewController(animated: true)
            UIKitSystem.showKeyboard(height: 336)   // on the home screen: the helper is gone
        case .removeSelfByNameOnBlock:
            navigation.pushViewController(fixed ? FixedProfileScreen() : ProfileScreen(), animated: true)
            navigation.pushViewController(HomeScreen(), animated: true)  // the profile is covered
            UIKitSystem.showKeyboard(height: 336)
            navigation.popViewController(animated: true)                 // the profile again
            UIKitSystem.showKeyboard(height: 336)
            navigation.popViewController(animated: true)
        case .unownedSelfBlock:
            navigation.pushViewController(fixed ? FixedPlayerScreen() : PlayerScreen(), animated: true)
            UIKitSystem.backgroundAndReturn()
            navigation.popViewController(animated: true)
            // With the bug, the next `UIKitSystem.backgroundAndReturn()` would crash here.
        case .readdedAfterCancelledPop:
            navigation.pushViewController(fixed ? FixedCheckoutScreen() : CheckoutScreen(), animated: true)
            navigation.cancelInteractivePop()
            UIKitSystem.showKeyboard(height: 336)
            navigation.popViewController(animated: true)
        case .strongSelfCapture:
            navigation.pushViewController(fixed ? FixedChatScreen() : ChatScreen(), animated: true)
            navigation.popViewController(animated: true)
            UIKitSystem.backgroundAndReturn()
        }
    }
}
