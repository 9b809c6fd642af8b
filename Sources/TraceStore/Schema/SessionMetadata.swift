public import Foundation

/// Who and what a session recorded: the build, the platform and the test, for joining many traces.
///
/// Stored in the trace's `session_meta` table (schema 6, `docs/TRACE_FORMAT.md`), one row per
/// key. Set it on ``SessionInfo/metadata`` before opening a ``TraceRecorder``, or with
/// `tracectl record --meta key=value`.
///
/// ```swift
/// var info = SessionInfo(name: "login", app: "Mail")
/// info.metadata = SessionMetadata(appVersion: "2.4", build: "2417", os: "iOS 18.1",
///                                 deviceModel: "iPhone16,2", testName: "LoginTests.testLogout")
/// let recorder = try TraceRecorder(path: "login.trace", session: info)
/// ```
public struct SessionMetadata: Sendable, Hashable, Codable {
    /// The session's identity across copies of its file: pushing it twice to a store is pushing it once.
    ///
    /// A new random UUID unless given; a session of a trace older than schema 6 reads with one
    /// derived from its `sessions` row, the same on every read (``derivedUUID(parts:)``).
    public var uuid: UUID
    /// The app's marketing version (`CFBundleShortVersionString`), such as `2.4`.
    public var appVersion: String?
    /// The build (`CFBundleVersion`, a CI build number): what reports order sessions by.
    public var build: String?
    /// The operating system and its version, such as `iOS 18.1`.
    public var os: String?
    /// The device model, such as `iPhone16,2`.
    public var deviceModel: String?
    /// The test or scenario that drove the session.
    public var testName: String?
    /// Any other facts, `key=value`.
    public var extra: [String: String]

    public init(uuid: UUID = UUID(), appVersion: String? = nil, build: String? = nil, os: String? = nil,
                deviceModel: String? = nil, testName: String? = nil, extra: [String: String] = [:]) {
        self.uuid = uuid
        self.appVersion = appVersion
        self.build = build
        self.os = os
        self.deviceModel = deviceModel
        self.testName = testName
        self.extra = extra
    }

    /// The keys `--meta` and the `session_meta` table give the named fields; any other key is one of ``extra``
    /// (stored as `meta.KEY`).
    public static let fieldKeys = ["uuid", "version", "build", "os", "device", "test"]

    /// Sets a field by its key (``fieldKeys``), or an ``extra`` entry for any other key.
    ///
    /// - Throws: ``TraceStoreError`` (`.invalidArgument`) for an empty key or a `uuid` that is not a UUID.
    public mutating func set(_ key: String, to value: String) throws(TraceStoreError) {
        switch key {
        case "uuid":
            guard let uuid = UUID(uuidString: value) else {
                throw TraceStoreError(.invalidArgument, "--meta uuid=\(value): not a UUID (such as \(UUID().uuidString))")
            }
            self.uuid = uuid
        case "version": appVersion = value
        case "build": build = value
        case "os": os = value
        case "device": deviceModel = value
        case "test": testName = value
        case "": throw TraceStoreError(.invalidArgument, "--meta =\(value): the key is empty (expected key=value)")
        default: extra[key] = value
        }
    }

    /// Parses `key=value` arguments (`tracectl record --meta`); a later key replaces an earlier one.
    ///
    /// - Throws: ``TraceStoreError`` (`.invalidArgument`) naming the first argument that is not `key=value`.
    public init(arguments: [String], uuid: UUID = UUID()) throws(TraceStoreError) {
        self.init(uuid: uuid)
        for argument in arguments {
            guard let equals = argument.firstIndex(of: "=") else {
                throw TraceStoreError(.invalidArgument, "--meta \(argument): expected key=value (such as build=2417)")
            }
            try set(String(argument[..<equals]), to: String(argument[argument.index(after: equals)...]))
        }
    }

    /// The rows of `session_meta`, in key order.
    var rows: [(key: String, value: String)] {
        var rows: [(String, String)] = [("uuid", uuid.uuidString.lowercased())]
        for (key, value) in [("version", appVersion), ("build", build), ("os", os), ("device", deviceModel), ("test", testName)] {
            if let value { rows.append((key, value)) }
        }
        rows += extra.map { ("meta." + $0.key, $0.value) }
        return rows.sorted { $0.0 < $1.0 }
    }

    /// A UUID made from a session's row by FNV-1a (two 64-bit halves), for sessions recorded before
    /// schema 6: the same file gives the same UUID on every machine, so pushing it twice is idempotent.
    public static func derivedUUID(parts: [String]) -> UUID {
        func fnv(_ seed: UInt64) -> UInt64 {
            var hash = seed
            for byte in parts.joined(separator: "\u{1F}").utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            return hash
        }
        let high = fnv(0xcbf2_9ce4_8422_2325), low = fnv(0x6c62_272e_07bb_0142)
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(i)))
            bytes[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(i)))
        }
        // RFC 9562 version 8 (custom), variant 10.
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// Writes the metadata of a new session (in the writer's connection, when the session is created).
    package func write(session: Int64, to db: Database) throws(TraceStoreError) {
        let insert = try db.prepare("INSERT OR REPLACE INTO session_meta(session, key, value) VALUES (?1, ?2, ?3)")
        for row in rows {
            try insert.bind([.integer(session), .text(row.key), .text(row.value)])
            try insert.run()
        }
    }
}

extension TraceReader {
    /// The metadata of a session: read from `session_meta`, or for a trace older than schema 6 (or a
    /// session without a row there) a derived, stable UUID and no other field.
    public func metadata(of session: SessionSummary) throws(TraceStoreError) -> SessionMetadata {
        var metadata = SessionMetadata(uuid: SessionMetadata.derivedUUID(parts: [
            "notifybus-session", String(session.id), session.name, session.app, session.startedAt, session.toolVersion,
        ]))
        guard try db.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'session_meta'") == 1 else {
            return metadata
        }
        let statement = try db.prepare("SELECT key, value FROM session_meta WHERE session = ?1 ORDER BY key")
        try statement.bind([.integer(session.id)])
        while try statement.step() {
            let key = statement.text(0) ?? "", value = statement.text(1) ?? ""
            if key.hasPrefix("meta.") {
                metadata.extra[String(key.dropFirst(5))] = value
            } else if SessionMetadata.fieldKeys.contains(key) {
                // A uuid that does not parse keeps the derived one: a damaged row is not a new identity per read.
                try? metadata.set(key, to: value)
            }
        }
        return metadata
    }
}
