/// Every error TraceStore throws.
///
/// SQLite failures carry the result code, SQLite's message and the SQL that
/// failed (never its bound values). Trace-level problems — a file that is not
/// SQLite, not a trace, or of a newer schema — have cases of their own so that
/// tools can map them to exit codes.
public struct TraceStoreError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public var kind: Kind
    /// A human-readable explanation.
    public var message: String
    /// The SQL being executed, if any.
    public var sql: String?

    public enum Kind: Sendable, Equatable {
        /// SQLite returned an error code.
        case sqlite(ResultCode)
        /// The file is missing.
        case fileNotFound
        /// The file is not an SQLite database, or is damaged.
        case notATrace
        /// The file is an SQLite database but not a NotifyBus trace.
        case foreignDatabase
        /// The trace was written by a newer, or unknown, schema version.
        case unsupportedSchema(Int)
        /// A bad argument or a state that does not allow the operation.
        case misuse
        /// The trace holds no session with this id.
        case noSuchSession(Int64)
        /// An argument the caller gave cannot be used: SQL that is not one read-only
        /// statement, a replay's output that is the trace being replayed.
        case invalidArgument
        /// An output file cannot be created or moved into place.
        case cannotCreate
    }

    public init(_ kind: Kind, _ message: String, sql: String? = nil) {
        self.kind = kind
        self.message = message
        self.sql = sql
    }

    /// Whether the error means the input is not a usable trace (exit code 65 in `tracectl`).
    public var isInvalidInput: Bool {
        switch kind {
        case .notATrace, .foreignDatabase, .unsupportedSchema: true
        case .sqlite(let code): code == .corrupt || code == .notADatabase
        default: false
        }
    }

    /// Whether another connection holds the file locked (`SQLITE_BUSY` or `SQLITE_LOCKED`).
    public var isBusy: Bool {
        kind == .sqlite(.busy) || kind == .sqlite(.locked)
    }

    /// Whether the operating system failed to read or write the file (`SQLITE_IOERR`, `SQLITE_FULL`).
    public var isIOFailure: Bool {
        kind == .sqlite(.ioError) || kind == .sqlite(.full)
    }

    public var description: String {
        switch kind {
        case .sqlite(let code):
            var text = "SQLite error \(code.rawValue): \(message)"
            if let sql {
                // One line: the SQL's own line breaks and indentation are folded.
                let folded = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
                text += " - while executing `\(folded)`"
            }
            return text
        default:
            return message
        }
    }
}

extension TraceStoreError {
    /// An SQLite primary result code, with Swift names. Each case's doc gives the C name.
    public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `SQLITE_ERROR`
        public static let error = ResultCode(rawValue: 1)
        /// `SQLITE_INTERNAL`
        public static let `internal` = ResultCode(rawValue: 2)
        /// `SQLITE_PERM`
        public static let permission = ResultCode(rawValue: 3)
        /// `SQLITE_ABORT`
        public static let abort = ResultCode(rawValue: 4)
        /// `SQLITE_BUSY`
        public static let busy = ResultCode(rawValue: 5)
        /// `SQLITE_LOCKED`
        public static let locked = ResultCode(rawValue: 6)
        /// `SQLITE_NOMEM`
        public static let noMemory = ResultCode(rawValue: 7)
        /// `SQLITE_READONLY`
        public static let readOnly = ResultCode(rawValue: 8)
        /// `SQLITE_INTERRUPT`
        public static let interrupted = ResultCode(rawValue: 9)
        /// `SQLITE_IOERR`
        public static let ioError = ResultCode(rawValue: 10)
        /// `SQLITE_CORRUPT`
        public static let corrupt = ResultCode(rawValue: 11)
        /// `SQLITE_NOTFOUND`
        public static let notFound = ResultCode(rawValue: 12)
        /// `SQLITE_FULL`
        public static let full = ResultCode(rawValue: 13)
        /// `SQLITE_CANTOPEN`
        public static let cannotOpen = ResultCode(rawValue: 14)
        /// `SQLITE_PROTOCOL`
        public static let lockProtocol = ResultCode(rawValue: 15)
        /// `SQLITE_SCHEMA`
        public static let schemaChanged = ResultCode(rawValue: 17)
        /// `SQLITE_TOOBIG`
        public static let tooBig = ResultCode(rawValue: 18)
        /// `SQLITE_CONSTRAINT`
        public static let constraint = ResultCode(rawValue: 19)
        /// `SQLITE_MISMATCH`
        public static let mismatch = ResultCode(rawValue: 20)
        /// `SQLITE_MISUSE`
        public static let misuse = ResultCode(rawValue: 21)
        /// `SQLITE_AUTH`
        public static let authorization = ResultCode(rawValue: 23)
        /// `SQLITE_RANGE`
        public static let range = ResultCode(rawValue: 25)
        /// `SQLITE_NOTADB`
        public static let notADatabase = ResultCode(rawValue: 26)

        public var description: String { "\(rawValue)" }
    }
}
