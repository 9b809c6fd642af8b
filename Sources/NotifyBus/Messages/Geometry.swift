/// A rectangle in points: UIKit's `CGRect`, without CoreGraphics.
public struct Rect: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The left edge, in points.
    public var x: Double
    /// The top edge, in points (UIKit's origin is the top left corner).
    public var y: Double
    /// The width, in points.
    public var width: Double
    /// The height, in points.
    public var height: Double

    /// The rectangle with its top left corner at (`x`, `y`).
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The empty rectangle at the origin.
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// `(x, y, width, height)`.
    public var description: String { "(\(x), \(y), \(width), \(height))" }
}
