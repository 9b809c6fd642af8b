/// The physical orientation of the device: UIKit's `UIDeviceOrientation`.
///
/// Device and interface landscape are mirror images: when the device turns
/// to its left (`landscapeLeft`, home button on the right) the interface is
/// `landscapeRight`. ``interfaceOrientation`` and
/// ``InterfaceOrientation/deviceOrientation`` do that mapping, once.
public enum DeviceOrientation: Int, Codable, Sendable, CaseIterable {
    case unknown = 0
    case portrait = 1
    case portraitUpsideDown = 2
    case landscapeLeft = 3
    case landscapeRight = 4
    case faceUp = 5
    case faceDown = 6

    /// The interface orientation that matches, or `nil` for flat and unknown.
    public var interfaceOrientation: InterfaceOrientation? {
        switch self {
        case .portrait: .portrait
        case .portraitUpsideDown: .portraitUpsideDown
        case .landscapeLeft: .landscapeRight
        case .landscapeRight: .landscapeLeft
        case .unknown, .faceUp, .faceDown: nil
        }
    }
}

/// The orientation of the user interface: UIKit's `UIInterfaceOrientation`.
public enum InterfaceOrientation: Int, Codable, Sendable, CaseIterable {
    case portrait = 1
    case portraitUpsideDown = 2
    case landscapeLeft = 4
    case landscapeRight = 3

    /// The device orientation that produces this interface orientation.
    public var deviceOrientation: DeviceOrientation {
        switch self {
        case .portrait: .portrait
        case .portraitUpsideDown: .portraitUpsideDown
        case .landscapeLeft: .landscapeRight
        case .landscapeRight: .landscapeLeft
        }
    }

    /// Whether the orientation is one of the two landscapes.
    public var isLandscape: Bool { self == .landscapeLeft || self == .landscapeRight }
}

/// The orientations a screen supports: UIKit's `UIInterfaceOrientationMask`.
public struct InterfaceOrientationMask: OptionSet, Codable, Hashable, Sendable {
    /// A bit for each ``InterfaceOrientation``, at its raw value, as UIKit's masks are.
    public let rawValue: UInt
    /// The mask with these bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Upright.
    public static let portrait = InterfaceOrientationMask(rawValue: 1 << 1)
    /// Upside down (iPhones with a notch or Dynamic Island do not support it).
    public static let portraitUpsideDown = InterfaceOrientationMask(rawValue: 1 << 2)
    /// The interface's `landscapeLeft`, bit 4: UIKit numbers it as the device's `landscapeRight`,
    /// because the interface turns the other way from the device.
    public static let landscapeLeft = InterfaceOrientationMask(rawValue: 1 << 4)
    /// The interface's `landscapeRight`, bit 3 (the device's `landscapeLeft`).
    public static let landscapeRight = InterfaceOrientationMask(rawValue: 1 << 3)
    /// Both landscapes.
    public static let landscape: InterfaceOrientationMask = [.landscapeLeft, .landscapeRight]
    /// Every orientation but upside down: UIKit's default for a phone.
    public static let allButUpsideDown: InterfaceOrientationMask = [.portrait, .landscapeLeft, .landscapeRight]
    /// Every orientation: UIKit's default for a pad.
    public static let all: InterfaceOrientationMask = [.portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight]

    /// The mask that contains only `orientation`.
    public init(_ orientation: InterfaceOrientation) {
        self.init(rawValue: 1 << UInt(orientation.rawValue))
    }

    /// Whether a screen with this mask can show `orientation`.
    public func supports(_ orientation: InterfaceOrientation) -> Bool {
        contains(InterfaceOrientationMask(orientation))
    }

    /// Whether a screen with this mask cannot show `orientation` (seed 003's `misses`).
    public func misses(_ orientation: InterfaceOrientation) -> Bool { !supports(orientation) }
}

/// The device turned; `interface` is where the interface ended up (it follows
/// the device only when the visible screen supports that orientation).
public struct OrientationDidChange: MainActorMessage, Equatable {
    public static let name = "orientationDidChange"
    /// How the device is held now.
    public var device: DeviceOrientation
    /// The orientation the interface shows after the turn (unchanged when the visible screen
    /// does not support the device's).
    public var interface: InterfaceOrientation

    /// A turn to `device` that left the interface in `interface`.
    public init(device: DeviceOrientation, interface: InterfaceOrientation) {
        self.device = device
        self.interface = interface
    }
}
