public import Foundation
import Synchronization

/// Re-posts Foundation notifications named like UIKit's as typed messages.
///
/// The bridge listens on a `NotificationCenter` for
/// `UIKeyboardWillShowNotification`, `UIApplicationDidBecomeActiveNotification`,
/// `UIDeviceOrientationDidChangeNotification` and their siblings, reads the
/// UIKit `userInfo` keys, and posts the matching message on a ``Bus`` as a
/// stimulus. A notification whose `userInfo` is missing a key or holds a value
/// of the wrong type never crashes (the seeds' `as!` casts do): it is recorded
/// as ``TraceEvent/Kind/bridgeRejected(name:reason:)`` with the reason, and
/// counted in ``rejectedCount``.
///
/// ```swift
/// let bridge = FoundationBridge(center: .default, bus: bus)
/// NotificationCenter.default.post(name: FoundationBridge.keyboardWillShow, object: nil, userInfo: [...])
/// ```
public final class FoundationBridge: Sendable {
    private let center: NotificationCenter
    private let bus: Bus
    private let observers = Locked<[ObserverHandle]>([])
    private let rejections = Atomic<Int>(0)
    /// Shared with the ``RecordingNotificationCenter``s of the same bus and center: a post that one
    /// of them records is not recorded again here, and the other way round.
    private let tracker: PostTracker
    /// This bridge's participant ids in the tracker, one per name.
    private let participants: [UInt64]
    private static let bridges = Atomic<UInt64>(0)

    /// `UIKeyboardWillShowNotification`
    public static let keyboardWillShow = Notification.Name("UIKeyboardWillShowNotification")
    /// `UIKeyboardDidShowNotification`
    public static let keyboardDidShow = Notification.Name("UIKeyboardDidShowNotification")
    /// `UIKeyboardWillHideNotification`
    public static let keyboardWillHide = Notification.Name("UIKeyboardWillHideNotification")
    /// `UIKeyboardDidHideNotification`
    public static let keyboardDidHide = Notification.Name("UIKeyboardDidHideNotification")
    /// `UIKeyboardWillChangeFrameNotification`
    public static let keyboardWillChangeFrame = Notification.Name("UIKeyboardWillChangeFrameNotification")
    /// `UIKeyboardDidChangeFrameNotification`
    public static let keyboardDidChangeFrame = Notification.Name("UIKeyboardDidChangeFrameNotification")
    /// `UIApplicationWillResignActiveNotification`
    public static let willResignActive = Notification.Name("UIApplicationWillResignActiveNotification")
    /// `UIApplicationDidBecomeActiveNotification`
    public static let didBecomeActive = Notification.Name("UIApplicationDidBecomeActiveNotification")
    /// `UIApplicationDidEnterBackgroundNotification`
    public static let didEnterBackground = Notification.Name("UIApplicationDidEnterBackgroundNotification")
    /// `UIApplicationWillEnterForegroundNotification`
    public static let willEnterForeground = Notification.Name("UIApplicationWillEnterForegroundNotification")
    /// `UIDeviceOrientationDidChangeNotification`; `object` is the device, `userInfo` here
    /// carries ``orientationKey`` with the new `UIDeviceOrientation` raw value.
    public static let orientationDidChange = Notification.Name("UIDeviceOrientationDidChangeNotification")

    /// `UIKeyboardFrameBeginUserInfoKey`: a `CGRect` or a ``Rect``.
    public static let frameBeginKey = "UIKeyboardFrameBeginUserInfoKey"
    /// `UIKeyboardFrameEndUserInfoKey`: a `CGRect` or a ``Rect``.
    public static let frameEndKey = "UIKeyboardFrameEndUserInfoKey"
    /// `UIKeyboardAnimationCurveUserInfoKey`: an integer curve.
    public static let curveKey = "UIKeyboardAnimationCurveUserInfoKey"
    /// `UIKeyboardAnimationDurationUserInfoKey`: seconds.
    public static let durationKey = "UIKeyboardAnimationDurationUserInfoKey"
    /// The device orientation raw value of an orientation notification.
    public static let orientationKey = "UIDeviceOrientationUserInfoKey"

    /// Starts bridging `center` onto `bus`; stops when the bridge is released.
    public init(center: NotificationCenter, bus: Bus) {
        self.center = center
        self.bus = bus
        let names = Array(Self.keyboardTypes.keys) + [
            Self.willResignActive, Self.didBecomeActive, Self.didEnterBackground, Self.willEnterForeground,
            Self.orientationDidChange,
        ]
        let tracker = PostTracker.shared(bus: bus, center: center)
        // Above any observer id a bus hands out; unique per bridge and name.
        let base = 1 << 63 | Self.bridges.wrappingAdd(1, ordering: .relaxed).newValue << 8
        let participants = names.indices.map { base | UInt64($0) }
        self.tracker = tracker
        self.participants = participants
        for (name, id) in zip(names, participants) { tracker.join(id, name: name, object: nil, bridge: true) }
        let handles = zip(names, participants).map { name, id in
            listen(name) { [weak self] note in self?.bridge(note, participant: id) }
        }
        observers.withLock { $0 = handles }
    }

    /// The keyboard notifications and the messages they become.
    private static let keyboardTypes: [Notification.Name: any KeyboardMessage.Type] = [
        keyboardWillShow: KeyboardWillShow.self, keyboardDidShow: KeyboardDidShow.self,
        keyboardWillHide: KeyboardWillHide.self, keyboardDidHide: KeyboardDidHide.self,
        keyboardWillChangeFrame: KeyboardWillChangeFrame.self, keyboardDidChangeFrame: KeyboardDidChangeFrame.self,
    ]

    /// The catalog name of the message a notification called `name` becomes, if any.
    package static func catalogName(for name: Notification.Name) -> String? {
        if let type = keyboardTypes[name] { return type.name }
        switch name {
        case willResignActive: return WillResignActive.name
        case didBecomeActive: return DidBecomeActive.name
        case didEnterBackground: return DidEnterBackground.name
        case willEnterForeground: return WillEnterForeground.name
        case orientationDidChange: return OrientationDidChange.name
        default: return nil
        }
    }

    /// What a Foundation notification is in the catalog.
    package enum Translation {
        /// The catalog message it stands for.
        case message(any BusMessage)
        /// A catalog name whose `userInfo` is missing a key or holds a value of the wrong type.
        case rejected(reason: String)
        /// Not a name the catalog knows.
        case notInCatalog
    }

    /// Turns a notification named like UIKit's keyboard, activity or orientation
    /// notifications into its catalog message, reading the UIKit `userInfo` keys.
    package static func translate(_ note: Notification) -> Translation {
        do throws(Rejection) {
            if let type = keyboardTypes[note.name] { return .message(try keyboard(note, as: type)) }
            switch note.name {
            case willResignActive: return .message(WillResignActive())
            case didBecomeActive: return .message(DidBecomeActive())
            case didEnterBackground: return .message(DidEnterBackground())
            case willEnterForeground: return .message(WillEnterForeground())
            case orientationDidChange: return .message(try orientation(note))
            default: return .notInCatalog
            }
        } catch {
            return .rejected(reason: error.reason)
        }
    }

    /// Posts the note's message on the bus, unless a recording center of the same bus and center
    /// already recorded (and so delivered) this post.
    private func bridge(_ note: Notification, participant: UInt64) {
        let translation = Self.translate(note)
        var rejected = false
        _ = tracker.post(of: note, for: participant) {
            switch translation {
            case .message(let message):
                func post<M: BusMessage>(_ message: M) -> UInt64 { bus.post(message, sender: nil, origin: .stimulus) }
                return post(message)
            case .rejected(let reason):
                rejected = true
                reject(note, reason)
                // A post for the recording centers' observers to be delivered under, if there are any.
                guard tracker.expectsOthers(than: participant, for: note) else { return 0 }
                return bus.recordPost(NamedMessage(name: note.name.rawValue,
                                                   payload: RecordingNotificationCenter.payload(note.userInfo)),
                                      sender: nil, origin: .stimulus)
            case .notInCatalog:
                return 0
            }
        }
        // Recorded once, by whoever saw it first; counted here either way.
        if !rejected, case .rejected = translation { rejections.add(1, ordering: .relaxed) }
    }

    deinit {
        for handle in observers.withLock({ $0 }) { center.removeObserver(handle.token) }
        for id in participants { tracker.leave(id) }
    }

    /// How many notifications were rejected for a malformed `userInfo`.
    public var rejectedCount: Int { rejections.load(ordering: .relaxed) }

    private func listen(_ name: Notification.Name, _ body: @escaping @Sendable (Notification) -> Void) -> ObserverHandle {
        ObserverHandle(token: center.addObserver(forName: name, object: nil, queue: nil, using: body))
    }

    private static func keyboard(_ note: Notification, as type: any KeyboardMessage.Type) throws(Rejection) -> any BusMessage {
        let info = note.userInfo ?? [:]
        let begin = try rect(info, frameBeginKey)
        let end = try rect(info, frameEndKey)
        let rawCurve = try number(info, curveKey)
        guard let curve = wholeNumber(rawCurve).flatMap(AnimationCurve.init(rawValue:)) else {
            throw Rejection("\(curveKey) \(text(rawCurve)) is not an animation curve")
        }
        let duration = try number(info, durationKey)
        return type.init(beginFrame: begin, endFrame: end, curve: curve, duration: duration)
    }

    private static func orientation(_ note: Notification) throws(Rejection) -> OrientationDidChange {
        let raw = try number(note.userInfo ?? [:], orientationKey)
        guard let device = wholeNumber(raw).flatMap(DeviceOrientation.init(rawValue:)) else {
            throw Rejection("\(orientationKey) \(text(raw)) is not a device orientation")
        }
        guard let interface = device.interfaceOrientation else {
            throw Rejection("device orientation \(device) has no interface orientation")
        }
        return OrientationDidChange(device: device, interface: interface)
    }

    private func reject(_ note: Notification, _ reason: String) {
        rejections.add(1, ordering: .relaxed)
        bus.record(.bridgeRejected(name: note.name.rawValue, reason: reason))
    }

    private static func value(_ info: [AnyHashable: Any], _ key: String) throws(Rejection) -> Any {
        guard let value = info[key] else { throw Rejection("userInfo has no \(key)") }
        return value
    }

    /// A rectangle whose four values are finite: NaN or an infinity is refused here, where it enters,
    /// rather than reaching handlers (and the trace, where JSON cannot hold it).
    private static func rect(_ info: [AnyHashable: Any], _ key: String) throws(Rejection) -> Rect {
        let rect: Rect
        switch try value(info, key) {
        case let value as Rect: rect = value
        case let value as CGRect:
            rect = Rect(x: Double(value.origin.x), y: Double(value.origin.y),
                        width: Double(value.size.width), height: Double(value.size.height))
        case let other: throw Rejection("\(key) is \(type(of: other)), not a rectangle")
        }
        guard [rect.x, rect.y, rect.width, rect.height].allSatisfy(\.isFinite) else {
            throw Rejection("\(key) has a coordinate that is not a finite number")
        }
        return rect
    }

    /// A finite number: NaN and the infinities are refused.
    private static func number(_ info: [AnyHashable: Any], _ key: String) throws(Rejection) -> Double {
        let number: Double
        switch try value(info, key) {
        case let value as Double: number = value
        case let value as Int: number = Double(value)
        case let value as NSNumber: number = value.doubleValue
        case let other: throw Rejection("\(key) is \(type(of: other)), not a number")
        }
        guard number.isFinite else { throw Rejection("\(key) \(text(number)) is not a finite number") }
        return number
    }

    /// `value` as an `Int` when it is a whole number that fits one; `Int(_:)` would trap otherwise.
    private static func wholeNumber(_ value: Double) -> Int? {
        value.rounded() == value ? Int(exactly: value) : nil
    }

    /// A number as a reason shows it: `7`, `7.5`, `1e+300`, `nan`.
    private static func text(_ value: Double) -> String {
        wholeNumber(value).map(String.init) ?? "\(value)"
    }
}

/// A Foundation observer token.
private struct ObserverHandle: @unchecked Sendable {
    // @unchecked: the token is an opaque object only handed back to the center
    // that made it, which is thread safe.
    let token: any NSObjectProtocol
}

/// Why a notification could not be bridged.
private struct Rejection: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
