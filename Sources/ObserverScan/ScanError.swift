/// Why a scan could not run at all (a file it cannot read is a ``ScanWarning`` instead).
public struct ScanError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// A path given does not exist: exit 66.
        case missingInput
        /// `--keep-traces` names a folder that cannot be made: exit 73.
        case cannotCreate
        /// A bad option value: exit 64.
        case usage
        /// The scanner's own scenario was refused, or a trace could not be written or read: exit 70.
        case `internal`
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
