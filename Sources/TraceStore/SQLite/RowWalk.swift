internal import CSQLite

/// The arguments of one call of `notifybus_walk(...)`: a row's columns, as integers.
package struct WalkRow {
    let argv: UnsafeMutablePointer<OpaquePointer?>

    /// The argument at `index`; 0 for NULL.
    @inline(__always) package func int64(_ index: Int) -> Int64 { sqlite3_value_int64(argv[index]) }
    /// The argument at `index`, or `nil` for NULL.
    @inline(__always) package func optional(_ index: Int) -> Int64? {
        sqlite3_value_type(argv[index]) == SQLITE_NULL ? nil : sqlite3_value_int64(argv[index])
    }
    /// An id column: the stored integer's bit pattern.
    @inline(__always) package func id(_ index: Int) -> UInt64? { optional(index).map { UInt64(bitPattern: $0) } }
}

/// The SQL function `notifybus_walk(...)`, registered on a reader's connection, which
/// hands each row it is called on to a Swift closure and keeps the row when it returns `true`.
///
/// Called in a statement's `WHERE`, it folds every row inside SQLite's own loop (one
/// function call per row, no round trip to the caller), and only the rows the fold
/// wants come back: this is how `stats`, `verify`, `leaks` and `observers` stay close
/// to a plain scan. The rows come in the scan's order, which is `seq` order when the
/// plan walks the primary key without a sort (checked by `QueryPlanTests`); the closure
/// sees each row before the caller sees any later one.
package final class RowWalk {
    package typealias Body = (WalkRow) -> Bool

    /// The body, in a class so that the function can call it without retaining anything.
    private final class Fold {
        let apply: Body
        init(_ apply: @escaping Body) { self.apply = apply }
    }

    /// Keeps the current body alive while SQLite may call it.
    private var fold: Fold?
    /// The same body, read by the function on every row without a retain (a retain and a
    /// release of the walk and of the closure's context were ~5% of a walk, `BENCHMARKS.md`).
    /// Set and read on the reader's one thread, never while SQLite is inside the function:
    /// ``body``'s setter runs between statement steps. (No `@exclusivity(unchecked)` here or on
    /// `applying`: the optimizer drops the checks on these private fields by itself, the same
    /// instructions either way, `BENCHMARKS.md`, "Fourth session".)
    private var unretainedFold: Unmanaged<Fold>?
    /// Whether the function is running the body: replacing the body from inside it would free
    /// the closure that is running, so the setter refuses.
    private var applying = false
    #if DEBUG
    /// The thread that set the body, the only one the function may run it on: checked on every
    /// row in debug builds, with ``applying`` against a body that is called again while it runs
    /// (a statement stepped from inside it). Either would reach the folds' unchecked fields
    /// (`TraceStats`, `TraceVerification`, `LeakAnalyzer`) in a way their runtime checks would not stop.
    private var walker = OwningThread()
    #endif

    /// What the function does now; `nil` keeps every row.
    package var body: Body? {
        get { fold?.apply }
        set {
            precondition(!applying, "a walk's body cannot be replaced while it runs")
            #if DEBUG
            walker = OwningThread()
            #endif
            fold = newValue.map(Fold.init)
            unretainedFold = fold.map { Unmanaged.passUnretained($0) }
        }
    }

    /// The function's SQL name.
    package static let name = "notifybus_walk"

    func register(on db: Database) throws(TraceStoreError) {
        let callback: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, argv in
            let keep = Unmanaged<RowWalk>.fromOpaque(sqlite3_user_data(context))._withUnsafeGuaranteedRef { walk -> Bool in
                guard let fold = walk.unretainedFold, let argv else { return true }
                #if DEBUG
                walk.walker.check("A walk's body")
                precondition(!walk.applying, "a walk's body was called again while it runs (a statement stepped inside it)")
                #endif
                walk.applying = true
                defer { walk.applying = false }
                return fold._withUnsafeGuaranteedRef { $0.apply(WalkRow(argv: argv)) }
            }
            sqlite3_result_int(context, keep ? 1 : 0)
        }
        // The connection holds the pointer unretained: the reader keeps this object as long as the connection.
        try db.check(sqlite3_create_function_v2(db.handle, Self.name, -1, SQLITE_UTF8, Unmanaged.passUnretained(self).toOpaque(),
                                                 callback, nil, nil, nil))
    }

    /// Runs `statement` to its end with `body` as the function, calling `row` for each row it keeps.
    package func run(_ statement: Statement, body: @escaping Body, row: () throws -> Void) throws {
        self.body = body
        defer { self.body = nil }
        while try statement.step() { try row() }
    }
}
