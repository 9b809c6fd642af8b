import Foundation

/// The fleet store's tables, documented in `docs/FLEET.md`.
///
/// `sessions` holds one row per session (its UUID the key), `fingerprints` one row per leak fingerprint
/// (what it means: rule, message, owner type, call site), `findings` one row per fingerprint per
/// session, range-partitioned by the session's start month (`findings_y2026m11`), each partition made
/// by the first push that needs it. ``migrations`` lists each version's statements; a store at version
/// *n* runs the ones after *n*.
enum FleetSchema {
    static let version = 1

    /// The advisory lock key that orders two pushes creating the schema or the same partition ("NBFLEET").
    static let lockKey: Int64 = 0x4E42_464C_4545_54

    static let migrations: [String] = [
        """
        CREATE TABLE IF NOT EXISTS notifybus_fleet_schema(version integer NOT NULL);
        CREATE TABLE IF NOT EXISTS sessions(
            uuid uuid PRIMARY KEY,
            trace text NOT NULL,
            session_id bigint NOT NULL,
            name text NOT NULL,
            app text NOT NULL,
            app_version text,
            build text,
            os text,
            device text,
            test text,
            extra jsonb NOT NULL DEFAULT '{}',
            started_at timestamptz NOT NULL,
            state text NOT NULL CHECK (state IN ('ended', 'crashed', 'unfinished')),
            events bigint NOT NULL,
            duration_ns bigint NOT NULL,
            pushed_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX IF NOT EXISTS sessions_by_build ON sessions(build, started_at);
        CREATE TABLE IF NOT EXISTS fingerprints(
            fingerprint text PRIMARY KEY,
            rule text NOT NULL,
            severity text NOT NULL,
            message text,
            owner_type text,
            call_site text NOT NULL
        );
        CREATE TABLE IF NOT EXISTS findings(
            started_at timestamptz NOT NULL,
            session_uuid uuid NOT NULL REFERENCES sessions(uuid) ON DELETE CASCADE,
            fingerprint text NOT NULL REFERENCES fingerprints(fingerprint),
            count bigint NOT NULL,
            deliveries bigint NOT NULL,
            evidence bigint[] NOT NULL,
            PRIMARY KEY (started_at, session_uuid, fingerprint)
        ) PARTITION BY RANGE (started_at);
        CREATE INDEX IF NOT EXISTS findings_by_fingerprint ON findings(fingerprint, started_at);
        """,
    ]

    /// The statements of a migration step, one by one.
    static func statements(_ step: String) -> [String] {
        step.components(separatedBy: ";\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .map { $0.hasSuffix(";") ? String($0.dropLast()) : $0 }.filter { !$0.isEmpty }
    }

    /// The month partition of `findings` that a session started at `date` goes into, and its DDL.
    static func partition(of date: Date) -> (name: String, create: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month], from: date)
        let year = parts.year ?? 1970, month = parts.month ?? 1
        let next = month == 12 ? (year + 1, 1) : (year, month + 1)
        func day(_ y: Int, _ m: Int) -> String { String(format: "%04d-%02d-01 00:00:00+00", y, m) }
        let name = String(format: "findings_y%04dm%02d", year, month)
        return (name, "CREATE TABLE IF NOT EXISTS \(name) PARTITION OF findings FOR VALUES FROM ('\(day(year, month))') TO ('\(day(next.0, next.1))')")
    }
}
