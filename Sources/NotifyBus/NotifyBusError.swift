/// Every error NotifyBus throws: an operation of the lifecycle model that
/// cannot apply, or a scenario file that is not valid.
///
/// ``path`` locates the mistake in a scenario (`steps[4].pop`,
/// `screens.Login.observers[0].addOn`); the description reads
/// `steps[4].pop: nothing to pop`.
public struct NotifyBusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the mistake is, in a scenario file; `nil` for model operations.
    public var path: String?
    /// What is wrong.
    public var message: String

    /// An error saying `message`, at `path` in a scenario file when there is one.
    public init(_ message: String, path: String? = nil) {
        self.message = message
        self.path = path
    }

    /// The same error located at `path`.
    public func at(_ path: String) -> NotifyBusError {
        NotifyBusError(message, path: self.path.map { "\(path).\($0)" } ?? path)
    }

    /// `path: message`, or the message alone.
    public var description: String { path.map { "\($0): \(message)" } ?? message }
}
