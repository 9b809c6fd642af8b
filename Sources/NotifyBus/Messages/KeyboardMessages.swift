/// UIKit's `UIView.AnimationCurve`, with its raw values.
public enum AnimationCurve: Int, Codable, Sendable, CaseIterable {
    case easeInOut = 0
    case easeIn = 1
    case easeOut = 2
    case linear = 3
    /// The keyboard's own curve: UIKit reports the undocumented value 7.
    case keyboard = 7
}

/// The payload every keyboard message carries: UIKit's `userInfo`, typed.
public protocol KeyboardMessage: MainActorMessage {
    /// The keyboard's frame before the animation, in screen coordinates.
    var beginFrame: Rect { get }
    /// The keyboard's frame after the animation.
    var endFrame: Rect { get }
    /// The animation's curve.
    var curve: AnimationCurve { get }
    /// The animation's length in seconds.
    var duration: Double { get }
    init(beginFrame: Rect, endFrame: Rect, curve: AnimationCurve, duration: Double)
}

/// The keyboard is about to appear.
public struct KeyboardWillShow: KeyboardMessage, Equatable {
    public static let name = "keyboardWillShow"
    public var beginFrame: Rect, endFrame: Rect, curve: AnimationCurve, duration: Double
    public init(beginFrame: Rect, endFrame: Rect, curve: AnimationCurve, duration: Double) {
        (self.beginFrame, self.endFrame, self.curve, self.duration) = (beginFrame, endFrame, curve, duration)
    }
}

/// The keyboard appeared.
public struct KeyboardDidShow: KeyboardMessage, Equatable {
    public static let name = "keyboardDidShow"
    public var beginFrame: Rect, endFrame: Rect, curve: AnimationCurve, duration: Double
    public init(beginFrame: Rect, endFrame: Rect, curve: AnimationCurve, duration: Double) {
        (self.beginFrame, self.endFrame, self.curve, self.duration) = (beginFrame, endFrame, curve, duration)
    }
}

/// The keyboard is about to go.
public struct KeyboardWillHide: KeyboardMessage, Equatable {
    public static let name = "keyboardWillHide"
    public var beginFrame: Rect, endFrame: Rect, curve: AnimationCurve, duration: Double
    public init(beginFrame: Rect, endFrame: Rect, curve: AnimationCurve, duration: Double) {
        (self.beginFrame, self.endFrame, self.curve, self.duration) = (beginFrame, endFrame, curve, duration)
    }
}

/// The keyboard went.
public struct KeyboardDidHide: KeyboardMessage, Equatable {
    public static let name = "keyboardDidHide"
    public var beginFrame: Rect, endFrame: Rect, curve: AnimationCurve, duration: Double
    public init(beginFrame: Rect, endFrame: Rect, curve: AnimationCurve, duration: Double) {
        (self.beginFrame, self.endFrame, self.curve, self.duration) = (beginFrame, endFrame, curve, duration)
    }
}

/// The keyboard's frame is about to change (it precedes every show and hide).
public struct KeyboardWillChangeFrame: KeyboardMessage, Equatable {
    public static let name = "keyboardWillChangeFrame"
    public var beginFrame: Rect, endFrame: Rect, curve: AnimationCurve, duration: Double
    public init(beginFrame: Rect, endFrame: Rect, curve: AnimationCurve, duration: Double) {
        (self.beginFrame, self.endFrame, self.curve, self.duration) = (beginFrame, endFrame, curve, duration)
    }
}

/// The keyboard's frame changed.
public struct KeyboardDidChangeFrame: KeyboardMessage, Equatable {
    public static let name = "keyboardDidChangeFrame"
    public var beginFrame: Rect, endFrame: Rect, curve: AnimationCurve, duration: Double
    public init(beginFrame: Rect, endFrame: Rect, curve: AnimationCurve, duration: Double) {
        (self.beginFrame, self.endFrame, self.curve, self.duration) = (beginFrame, endFrame, curve, duration)
    }
}
