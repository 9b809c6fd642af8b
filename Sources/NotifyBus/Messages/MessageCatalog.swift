/// The message types NotifyBus defines, for registries that decode recorded payloads.
public enum MessageCatalog {
    /// Every message type of the catalog.
    public static let all: [any BusMessage.Type] = [
        WillResignActive.self, DidBecomeActive.self, DidEnterBackground.self, WillEnterForeground.self,
        KeyboardWillShow.self, KeyboardDidShow.self, KeyboardWillHide.self, KeyboardDidHide.self,
        KeyboardWillChangeFrame.self, KeyboardDidChangeFrame.self,
        OrientationDidChange.self,
    ]

    /// The keyboard messages, the ones a screen off screen should not be reacting to.
    public static let keyboardNames: Set<String> = [
        KeyboardWillShow.name, KeyboardDidShow.name, KeyboardWillHide.name, KeyboardDidHide.name,
        KeyboardWillChangeFrame.name, KeyboardDidChangeFrame.name,
    ]
}
