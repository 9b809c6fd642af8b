internal import CSQLite

/// `SQLITE_TRANSIENT`: SQLite copies bound text before the call returns.
let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// An open SQLite connection. Owns its handle and closes it in `deinit`.
///
/// Not `Sendable`: a connection is used by one thread at a time (the
/// recorder's writer thread, or the reader's caller).
package final class Database {
    let handle: OpaquePointer
    package let path: String

    /// How to open the file.
    package enum Mode {
        /// Read-only; the file must exist and nothing can change it.
        case readOnly
        /// Read-write, creating the file if needed.
        case create
        /// Read-write; the file must exist.
        case readWrite
    }

    package init(path: String, mode: Mode) throws(TraceStoreError) {
        self.path = path
        var db: OpaquePointer?
        let flags: Int32
        let name: String
        switch mode {
        case .readOnly:
            flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
            name = Self.uri(path) + "?mode=ro"
        case .create:
            flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
            name = Self.literal(path)
        case .readWrite:
            flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
            name = Self.literal(path)
        }
        let code = sqlite3_open_v2(name, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            // A failed open still allocates a handle that must be closed.
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close_v2(db)
            if mode == .create {
                throw TraceStoreError(.cannotCreate, "\(path): cannot create or open for writing (\(message))")
            }
            throw TraceStoreError(.sqlite(.init(rawValue: code & 0xFF)), "\(message) (\(path))")
        }
        handle = db
        sqlite3_extended_result_codes(db, 0)
        sqlite3_busy_timeout(db, 5_000)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Checks an SQLite return code; every call into SQLite goes through here.
    @discardableResult
    func check(_ code: Int32, sql: String? = nil, allowed: Set<Int32> = []) throws(TraceStoreError) -> Int32 {
        if code == SQLITE_OK || code == SQLITE_ROW || code == SQLITE_DONE || allowed.contains(code) { return code }
        throw TraceStoreError(.sqlite(.init(rawValue: code & 0xFF)), String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Runs one or more statements that return no rows.
    package func execute(_ sql: String) throws(TraceStoreError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql: sql)
    }

    /// Compiles a statement.
    package func prepare(_ sql: String) throws(TraceStoreError) -> Statement {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), sql: sql)
        guard let statement else { throw TraceStoreError(.misuse, "empty SQL statement", sql: sql) }
        return Statement(handle: statement, database: self, sql: sql)
    }

    /// Compiles `sql`, which must be exactly one statement: what follows it may only be
    /// whitespace, comments and semicolons (SQLite compiles those to no statement).
    ///
    /// - Throws: `.invalidArgument` for empty SQL or more than one statement; SQLite's error for SQL that does not compile.
    package func prepareSingle(_ sql: String) throws(TraceStoreError) -> Statement {
        let (first, rest, code) = compileFirst(sql)
        try check(code, sql: sql)
        guard let first else { throw TraceStoreError(.invalidArgument, "empty SQL: give one statement") }
        let compiled = Statement(handle: first, database: self, sql: sql)
        var remaining = rest
        while !remaining.isEmpty {
            let (next, following, code) = compileFirst(remaining)
            sqlite3_finalize(next)
            guard code == SQLITE_OK, next == nil else {
                throw TraceStoreError(.invalidArgument, "only one statement can run at a time; found another after `\(String(decoding: sql.utf8.prefix(sql.utf8.count - rest.utf8.count), as: UTF8.self))`")
            }
            remaining = following
        }
        return compiled
    }

    /// Compiles the first statement of `sql` (`nil` when there is only whitespace or
    /// comments) and returns the text after it, with SQLite's result code.
    private func compileFirst(_ sql: String) -> (statement: OpaquePointer?, rest: String, code: Int32) {
        var statement: OpaquePointer?
        var rest = ""
        let code = sql.withCString { start -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(handle, start, -1, 0, &statement, &tail)
            if code == SQLITE_OK, let tail { rest = String(cString: tail) }
            return code
        }
        return (statement, rest, code)
    }

    /// Runs `body` in a transaction, committing if it returns and rolling back if it throws.
    package func transaction<T>(_ body: () throws(TraceStoreError) -> T) throws(TraceStoreError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The first column of the first row of `sql`, as an integer.
    package func scalar(_ sql: String, _ values: SQLValue...) throws(TraceStoreError) -> Int64? {
        let statement = try prepare(sql)
        try statement.bind(values)
        guard try statement.step() else { return nil }
        return statement.isNull(0) ? nil : statement.int64(0)
    }

    /// Whether the connection refuses writes.
    package var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// `path` as a file name SQLite cannot take for a URI. Builds of SQLite with URI file names
    /// enabled globally (`SQLITE_USE_URI`, as Debian's) read a name starting `file:` as a URI even
    /// without `SQLITE_OPEN_URI`; `./file:x.trace` names the same file and is no URI.
    static func literal(_ path: String) -> String {
        path.hasPrefix("file:") ? "./" + path : path
    }

    /// `path` as an SQLite URI: every byte but unreserved ASCII and `/` percent-encoded, so that any
    /// file name works (`café`, spaces, `%`, `?`, `#`); SQLite decodes the escapes back to the same bytes.
    /// An absolute path gets the empty authority (`file:///…`), so a path starting `//` is not read as a host.
    static func uri(_ path: String) -> String {
        var out = path.hasPrefix("/") ? "file://" : "file:"
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += byte < 0x10 ? "%0" + hex : "%" + hex
            }
        }
        return out
    }
}

/// A value bound to, or read from, a statement.
public enum SQLValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): value
        case .blob(let bytes): "x'" + bytes.map { String($0, radix: 16).leftPadded(2) }.joined() + "'"
        }
    }
}

extension String {
    func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

/// A compiled statement. Explicitly not `Sendable`: it belongs to its connection's thread.
package final class Statement {
    let handle: OpaquePointer
    let database: Database
    let sql: String

    init(handle: OpaquePointer, database: Database, sql: String) {
        self.handle = handle
        self.database = database
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds values to the parameters `?1`, `?2`, … after clearing the previous run.
    package func bind(_ values: [SQLValue]) throws(TraceStoreError) {
        try database.check(sqlite3_reset(handle), sql: sql)
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    func bind(_ value: SQLValue, at index: Int32) throws(TraceStoreError) {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let value): code = sqlite3_bind_int64(handle, index, value)
        case .real(let value): code = sqlite3_bind_double(handle, index, value)
        case .text(let value):
            // By length, not as a C string: a NUL inside the text is kept, not an end.
            var value = value
            code = value.withUTF8 { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text(handle, index, "", 0, transientDestructor)
                }
                return UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    // 64-bit length: text past 2 GiB is SQLite's "too big", not a trap converting its length.
                    sqlite3_bind_text64(handle, index, $0, sqlite3_uint64(bytes.count), transientDestructor, UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { sqlite3_bind_blob64(handle, index, $0.baseAddress, sqlite3_uint64($0.count), transientDestructor) }
        }
        try database.check(code, sql: sql)
    }

    /// Binds an integer or NULL without building an `SQLValue`: the recorder's hot path.
    @inline(__always)
    func bind(_ value: Int64?, at index: Int32) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    /// Runs the statement to its next row. Returns `false` when it is done.
    package func step() throws(TraceStoreError) -> Bool {
        try database.check(sqlite3_step(handle), sql: sql) == SQLITE_ROW
    }

    /// Runs a statement that returns no rows, then resets it for reuse.
    package func run() throws(TraceStoreError) {
        _ = try step()
        sqlite3_reset(handle)
    }

    package var columnCount: Int { Int(sqlite3_column_count(handle)) }
    package func columnName(_ index: Int) -> String { String(cString: sqlite3_column_name(handle, Int32(index))) }
    package func isNull(_ index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }
    package func int64(_ index: Int) -> Int64 { sqlite3_column_int64(handle, Int32(index)) }
    package func optionalInt64(_ index: Int) -> Int64? { isNull(index) ? nil : int64(index) }
    package func text(_ index: Int) -> String? {
        guard let pointer = sqlite3_column_text(handle, Int32(index)) else { return nil }
        // By length: a NUL stored inside the text is part of it.
        return String(decoding: UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, Int32(index)))), as: UTF8.self)
    }

    /// The column as a typed value.
    package func value(_ index: Int) -> SQLValue {
        let column = Int32(index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: return .text(text(index) ?? "")
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let base = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: base, count: count)))
        default: return .null
        }
    }

    /// Whether the statement only reads (SQLite's own judgement).
    package var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }
}
