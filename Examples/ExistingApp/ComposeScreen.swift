/// Pattern 1's screen: it owns a keyboard helper (the bug's).
@MainActor
final class ComposeScreen: LifecycleViewController {
    let keyboard = DiscardingKeyboardHelper()

    override func viewDidLoad() {
        super.viewDidLoad()
        keyboard.start()
    }
}

/// Pattern 1's screen with the fixed helper.
@MainActor
final class FixedComposeScreen: LifecycleViewController {
    let keyboard = KeyboardHelper()

    override func viewDidLoad() {
        super.viewDidLoad()
        keyboard.start()
    }
}
