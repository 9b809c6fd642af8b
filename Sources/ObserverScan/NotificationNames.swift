import AppModel

/// A notification name as the scenario knows it.
enum ResolvedName: Sendable, Hashable {
    /// A scenario message (a catalog name, a system name, or a declared one) and how the code wrote it.
    case message(String, written: String)
    /// `name: nil`.
    case every
    /// Something the scanner cannot name: why.
    case unresolved(String)
}

/// UIKit's, AVFoundation's and the app's own notification names, mapped to the scenario's.
enum NotificationNames {
    /// UIKit names the model posts itself, by their name without prefix and `Notification` suffix.
    static let catalog: [String: String] = [
        "keyboardWillShow": "keyboardWillShow", "keyboardDidShow": "keyboardDidShow",
        "keyboardWillHide": "keyboardWillHide", "keyboardDidHide": "keyboardDidHide",
        "keyboardWillChangeFrame": "keyboardWillChangeFrame", "keyboardDidChangeFrame": "keyboardDidChangeFrame",
        "willResignActive": "willResignActive", "didBecomeActive": "didBecomeActive",
        "didEnterBackground": "didEnterBackground", "willEnterForeground": "willEnterForeground",
        "orientationDidChange": "orientationDidChange",
        "didReceiveMemoryWarning": SystemNotification.memoryWarning,
        "interruption": SystemNotification.audioInterruption,
        "routeChange": SystemNotification.audioRouteChange,
    ]

    static func resolve(_ expression: NameExpression, constants: [String: String?]) -> ResolvedName {
        switch expression {
        case .every:
            return .every
        case .literal(let value):
            return value.isEmpty ? .unresolved("an empty name") : declared(value, written: "\"\(value)\"")
        case .messageType(let type):
            return declared(type, written: "\(type).self")
        case .member(let text):
            let parts = text.split(separator: ".").map(String.init)
            let last = parts.last ?? text
            let base = parts.dropLast().joined(separator: ".")
            if base == "UIContentSizeCategory" && last == "didChangeNotification" {
                return .message(SystemNotification.contentSizeCategoryChange, written: text)
            }
            if let known = system(last) { return .message(known, written: text) }
            if let value = constants[last] { return declared(value ?? last, written: text) }
            return declared(last, written: text)
        case .bare(let identifier):
            if let known = system(identifier) { return .message(known, written: identifier) }
            if let value = constants[identifier] { return declared(value ?? identifier, written: identifier) }
            // An SDK's global constant: `NSManagedObjectContextDidSaveNotification`.
            if identifier.hasSuffix("Notification"), identifier.first?.isUppercase == true {
                return declared(identifier, written: identifier)
            }
            return .unresolved("the name is the variable `\(identifier)`")
        case .dynamic(let text):
            return .unresolved("the name is computed: `\(text)`")
        }
    }

    /// A catalog or system name for `keyboardWillShowNotification`, `UIKeyboardWillShow`,
    /// `UIApplicationDidBecomeActiveNotification`, `UIDeviceOrientationDidChange`, …
    static func system(_ identifier: String) -> String? {
        var name = identifier
        if name.hasSuffix("Notification") { name.removeLast("Notification".count) }
        for prefix in ["UIApplication", "UIDevice", "UI", "AVAudioSession"] where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            if rest.first?.isUppercase == true { name = String(rest); break }
        }
        guard let first = name.first else { return nil }
        name = first.lowercased() + name.dropFirst()
        return catalog[name]
    }

    /// A name of the app's own (or an SDK's the model does not post itself): declared in the scenario.
    static func declared(_ name: String, written: String) -> ResolvedName {
        .message(name, written: written)
    }

    /// Whether the scenario must declare `name` in `messages`.
    static func needsDeclaration(_ name: String) -> Bool {
        !Scenario.messageNames.contains(name) && !SystemNotification.names.contains(name)
    }
}
