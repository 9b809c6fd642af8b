/// Why a fleet operation failed: the one error type of TraceFleet and FleetPostgres.
public struct FleetError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A path named on the command line matches nothing.
        case missingInput
        /// A file or argument that cannot be used (a baseline that is not a list of fingerprints).
        case invalidInput
        /// The PostgreSQL server cannot be reached, or refuses the connection or the login.
        case serverUnavailable
        /// The server answered with an error to a statement.
        case server
        /// An output file cannot be written.
        case cannotCreate
    }

    public var kind: Kind
    /// One line, naming the path or server it concerns.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
