public import Foundation
public import TraceStore

/// How a session ended: only `ended` sessions are complete; the others cover what was recorded.
public enum SessionState: String, Sendable, Codable, CaseIterable, Comparable {
    /// The recorder closed the session.
    case ended
    /// The recorder was killed; `tracectl finish` closed the file after it.
    case crashed
    /// Never ended: the recorder was killed and the file not finished, or it is still recording.
    case unfinished

    private var rank: Int { self == .ended ? 0 : self == .crashed ? 1 : 2 }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}

/// One fingerprint's findings in one session: the row of a session summary that a fleet joins.
public struct FleetFinding: Sendable, Codable, Hashable {
    public var fingerprint: String
    public var rule: String
    public var severity: LeakSeverity
    /// The observed message; `nil` for an observation of every message.
    public var message: String?
    public var ownerType: String?
    public var callSite: String
    /// Findings with this fingerprint in the session (one per observer, for most rules).
    public var count: Int
    /// Deliveries the findings are about, all counted.
    public var deliveries: Int
    /// Where the analysis saw the first few (``FleetFinding/evidenceLimit``), in `seq` order.
    public var evidence: [UInt64]

    /// How many evidence sequence numbers a summary keeps per fingerprint.
    public static let evidenceLimit = 10

    public init(fingerprint: String, rule: String, severity: LeakSeverity, message: String?, ownerType: String?,
                callSite: String, count: Int, deliveries: Int, evidence: [UInt64]) {
        self.fingerprint = fingerprint
        self.rule = rule
        self.severity = severity
        self.message = message
        self.ownerType = ownerType
        self.callSite = callSite
        self.count = count
        self.deliveries = deliveries
        self.evidence = evidence
    }

    /// The findings of a session, one entry per fingerprint, in fingerprint order.
    public static func summarize(_ findings: [LeakFinding]) -> [FleetFinding] {
        var byFingerprint: [String: FleetFinding] = [:]
        for finding in findings {
            if var known = byFingerprint[finding.fingerprint] {
                known.count += 1
                known.deliveries += finding.deliveryCount
                known.evidence.append(finding.seq)
                byFingerprint[finding.fingerprint] = known
            } else {
                byFingerprint[finding.fingerprint] = FleetFinding(
                    fingerprint: finding.fingerprint, rule: finding.rule.rawValue, severity: finding.rule.severity,
                    message: finding.message, ownerType: finding.ownerType, callSite: finding.callSite,
                    count: 1, deliveries: finding.deliveryCount, evidence: [finding.seq])
            }
        }
        return byFingerprint.values.map { entry in
            var entry = entry
            entry.evidence = Array(entry.evidence.sorted().prefix(evidenceLimit))
            return entry
        }.sorted { $0.fingerprint < $1.fingerprint }
    }
}

/// A session's summary: its metadata, its findings by fingerprint and its size; not its events.
///
/// What `tracectl report` joins across traces and `tracectl push` stores in PostgreSQL.
public struct FleetSession: Sendable, Codable, Hashable {
    public var uuid: UUID
    /// The trace file, as it was named (a path relative to where the report ran stays relative).
    public var trace: String
    /// The session's id inside its file.
    public var sessionID: Int64
    public var name: String
    public var app: String
    public var appVersion: String?
    public var build: String?
    public var os: String?
    public var deviceModel: String?
    public var testName: String?
    public var extra: [String: String]
    /// Wall-clock start, whole milliseconds (what the trace stores).
    public var startedAt: Date
    public var state: SessionState
    public var events: Int
    public var durationNanoseconds: UInt64
    public var findings: [FleetFinding]

    public init(uuid: UUID, trace: String, sessionID: Int64, name: String, app: String, appVersion: String? = nil,
                build: String? = nil, os: String? = nil, deviceModel: String? = nil, testName: String? = nil,
                extra: [String: String] = [:], startedAt: Date, state: SessionState, events: Int,
                durationNanoseconds: UInt64, findings: [FleetFinding]) {
        self.uuid = uuid
        self.trace = trace
        self.sessionID = sessionID
        self.name = name
        self.app = app
        self.appVersion = appVersion
        self.build = build
        self.os = os
        self.deviceModel = deviceModel
        self.testName = testName
        self.extra = extra
        self.startedAt = startedAt
        self.state = state
        self.events = events
        self.durationNanoseconds = durationNanoseconds
        self.findings = findings
    }

    /// The session's summary: reads its metadata and runs the leak analysis over it (one pass).
    public init(reader: TraceReader, session: SessionSummary, trace: String) throws {
        let metadata = try reader.metadata(of: session)
        let findings = try LeakAnalyzer.analyze(reader, session: session.id)
        self.init(uuid: metadata.uuid, trace: trace, sessionID: session.id, name: session.name, app: session.app,
                  appVersion: metadata.appVersion, build: metadata.build, os: metadata.os,
                  deviceModel: metadata.deviceModel, testName: metadata.testName, extra: metadata.extra,
                  startedAt: FleetTime.parse(session.startedAt), state: session.endedCleanly ? .ended
                      : session.crashedAt != nil ? .crashed : .unfinished,
                  events: session.eventCount, durationNanoseconds: session.duration,
                  findings: FleetFinding.summarize(findings))
    }
}

/// The one spelling of times in fleet reports: ISO 8601, UTC, milliseconds (as traces store them).
public enum FleetTime {
    /// Parses a trace's timestamp; one that does not parse reads as the epoch, so that it sorts first
    /// and shows as 1970 rather than vanishing.
    public static func parse(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return round(date) }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text).map(round) ?? Date(timeIntervalSince1970: 0)
    }

    /// Whole milliseconds: what PostgreSQL's `timestamptz` and the trace both keep exactly.
    public static func round(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    public static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
