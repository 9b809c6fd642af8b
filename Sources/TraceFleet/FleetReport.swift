import Foundation
public import TraceStore

/// One row per leak fingerprint across many sessions: where and when it was seen, and whether it is
/// new, back after a fix (regressed) or known.
///
/// Built from session summaries alone, whether they were read from trace files (``FleetCollector``)
/// or from a PostgreSQL store: the same summaries give the same rows, whatever their order.
///
/// Builds are ordered by when their first session started (a build number need not be a number),
/// ties by name. A fingerprint is **new** when it is outside the baseline, or first seen after
/// `--since-build` (by default: first seen in the newest build); **regressed** when it was seen,
/// then absent from at least ``Options/gap`` builds that had sessions, then seen again (after
/// `--since-build`, or anywhere for a baseline's fingerprint); **known** otherwise.
public struct FleetReport: Sendable {
    /// What to compare against and what to leave out.
    public struct Options: Sendable, Hashable {
        /// Fingerprints already accepted (a `leaks --write-baseline` file): the others are new.
        public var baseline: Set<String>?
        /// The last build already reviewed: fingerprints first seen after it are new.
        public var sinceBuild: String?
        /// Builds a fingerprint must be absent from before its return counts as a regression.
        public var gap: Int
        /// Leave out fingerprints below this severity.
        public var minSeverity: LeakSeverity

        public init(baseline: Set<String>? = nil, sinceBuild: String? = nil, gap: Int = 1, minSeverity: LeakSeverity = .note) {
            self.baseline = baseline
            self.sinceBuild = sinceBuild
            self.gap = gap
            self.minSeverity = minSeverity
        }
    }

    public enum Status: String, Sendable, Codable, Hashable, CaseIterable {
        case regressed, new, known
    }

    /// When and in which build a fingerprint was seen.
    public struct Sighting: Sendable, Codable, Hashable {
        public var time: String
        public var build: String?
    }

    /// A session that shows the fingerprint, to open with `tracectl leaks TRACE --session ID`.
    public struct Example: Sendable, Codable, Hashable {
        public var trace: String
        public var session: Int64
        public var uuid: String
        /// Where its findings were seen (the first few).
        public var evidence: [UInt64]
    }

    public struct Row: Sendable, Codable, Hashable {
        public var fingerprint: String
        public var status: Status
        public var rule: String
        public var severity: LeakSeverity
        public var message: String?
        public var ownerType: String?
        public var callSite: String
        /// Trace files and sessions that show it.
        public var traces: Int
        public var sessions: Int
        /// Of those sessions, how many did not end cleanly (their report covers what was recorded).
        public var incompleteSessions: Int
        /// Findings (one per observer for most rules) and the deliveries they are about, all sessions together.
        public var findings: Int
        public var deliveries: Int
        public var firstSeen: Sighting
        public var lastSeen: Sighting
        /// The builds that show it, in build order.
        public var builds: [String]
        /// The newest session that shows it.
        public var example: Example
    }

    /// One build's column of the chart.
    public struct BuildCount: Sendable, Codable, Hashable {
        public var build: String
        public var firstSeen: String
        public var sessions: Int
        /// Fingerprints seen in the build, and how many of them were seen there first.
        public var fingerprints: Int
        public var firstSeenHere: Int
    }

    /// A session that did not end cleanly: counted and listed, its findings included.
    public struct IncompleteSession: Sendable, Codable, Hashable {
        public var trace: String
        public var session: Int64
        public var uuid: String
        public var name: String
        public var build: String?
        public var state: SessionState
    }

    public struct Totals: Sendable, Codable, Hashable {
        public var traces: Int
        public var sessions: Int
        public var ended: Int
        public var crashed: Int
        public var unfinished: Int
        /// Files named that could not be read (each has a warning).
        public var unreadable: Int
    }

    public var rows: [Row]
    public var builds: [BuildCount]
    public var incomplete: [IncompleteSession]
    public var totals: Totals
    public var warnings: [String]
    /// The build new and regressed are counted after, when no baseline was given.
    public var sinceBuild: String?
    public var usesBaseline: Bool

    /// Rows that are new or regressed: what fails a CI gate.
    public var attentionCount: Int { rows.filter { $0.status != .known }.count }

    /// Builds the report.
    ///
    /// - Throws: ``FleetError`` (`.invalidInput`) when `--since-build` names a build no session has.
    public init(sessions unordered: [FleetSession], warnings: [String] = [], options: Options = Options()) throws(FleetError) {
        // One order whatever the source: by start, then identity.
        // Each UUID's text made once, not in every comparison.
        let identities = unordered.map(\.uuid.uuidString)
        let sessions = unordered.indices.sorted {
            (unordered[$0].startedAt, identities[$0]) < (unordered[$1].startedAt, identities[$1])
        }.map { unordered[$0] }
        self.warnings = warnings
        usesBaseline = options.baseline != nil

        // Builds, by their first session.
        var buildStart: [String: Date] = [:]
        var buildSessions: [String: Int] = [:]
        for session in sessions {
            guard let build = session.build else { continue }
            buildStart[build] = min(buildStart[build] ?? session.startedAt, session.startedAt)
            buildSessions[build, default: 0] += 1
        }
        let order = buildStart.keys.sorted { (buildStart[$0]!, $0) < (buildStart[$1]!, $1) }
        let index = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })

        var sinceIndex: Int
        if let since = options.sinceBuild {
            guard let found = index[since] else {
                let known = order.isEmpty ? "no session has a build" : "builds: " + order.joined(separator: ", ")
                throw FleetError(.invalidInput, "--since-build \(since): no session has that build (\(known))")
            }
            sinceIndex = found
            sinceBuild = since
        } else {
            sinceIndex = order.count - 2
            sinceBuild = sinceIndex >= 0 ? order[sinceIndex] : nil
        }

        struct Accumulator {
            var first: FleetFinding
            var traces: Set<String> = []
            var sessions = 0
            var incomplete = 0
            var findings = 0
            var deliveries = 0
            var firstSession: FleetSession
            var lastSession: FleetSession
            var lastEvidence: [UInt64]
            var builds: Set<Int> = []

            mutating func add(_ finding: FleetFinding, of session: FleetSession, buildIndex: Int?) {
                traces.insert(session.trace)
                sessions += 1
                if session.state != .ended { incomplete += 1 }
                findings += finding.count
                deliveries += finding.deliveries
                // Sessions come in start order: the last one seen is the newest.
                lastSession = session
                lastEvidence = finding.evidence
                if let buildIndex { builds.insert(buildIndex) }
            }
        }
        var rowsByFingerprint: [String: Accumulator] = [:]
        for session in sessions {
            for finding in session.findings where finding.severity >= options.minSeverity {
                // Changed in place: a copy taken out and stored back would copy its sets at every session.
                rowsByFingerprint[finding.fingerprint, default: Accumulator(
                    first: finding, firstSession: session, lastSession: session, lastEvidence: finding.evidence)
                ].add(finding, of: session, buildIndex: session.build.flatMap { index[$0] })
            }
        }

        rows = rowsByFingerprint.map { fingerprint, entry in
            let seen = entry.builds.sorted()
            // The index of each return after a gap of at least `gap` builds.
            var returns: [Int] = []
            for (previous, current) in zip(seen, seen.dropFirst()) where current - previous - 1 >= options.gap {
                returns.append(current)
            }
            let status: Status
            if let baseline = options.baseline {
                status = !baseline.contains(fingerprint) ? .new : returns.isEmpty ? .known : .regressed
            } else if let first = seen.first, first > sinceIndex {
                status = .new
            } else if let last = returns.last, last > sinceIndex {
                status = .regressed
            } else {
                status = .known
            }
            let f = entry.first
            return Row(fingerprint: fingerprint, status: status, rule: f.rule, severity: f.severity, message: f.message,
                       ownerType: f.ownerType, callSite: f.callSite, traces: entry.traces.count, sessions: entry.sessions,
                       incompleteSessions: entry.incomplete, findings: entry.findings, deliveries: entry.deliveries,
                       firstSeen: Sighting(time: FleetTime.format(entry.firstSession.startedAt), build: entry.firstSession.build),
                       lastSeen: Sighting(time: FleetTime.format(entry.lastSession.startedAt), build: entry.lastSession.build),
                       builds: seen.map { order[$0] },
                       example: Example(trace: entry.lastSession.trace, session: entry.lastSession.sessionID,
                                        uuid: entry.lastSession.uuid.uuidString.lowercased(), evidence: entry.lastEvidence))
        }.sorted { a, b in
            func rank(_ status: Status) -> Int { Status.allCases.firstIndex(of: status)! }
            return (rank(a.status), b.severity, b.sessions, a.fingerprint) < (rank(b.status), a.severity, a.sessions, b.fingerprint)
        }

        var perBuild: [Int: (fingerprints: Int, firstHere: Int)] = [:]
        for row in rows {
            let positions = row.builds.compactMap { index[$0] }
            for position in positions { perBuild[position, default: (0, 0)].fingerprints += 1 }
            if let first = positions.first { perBuild[first, default: (0, 0)].firstHere += 1 }
        }
        builds = order.enumerated().map { position, build in
            BuildCount(build: build, firstSeen: FleetTime.format(buildStart[build]!), sessions: buildSessions[build] ?? 0,
                       fingerprints: perBuild[position]?.fingerprints ?? 0, firstSeenHere: perBuild[position]?.firstHere ?? 0)
        }

        incomplete = sessions.filter { $0.state != .ended }.map {
            IncompleteSession(trace: $0.trace, session: $0.sessionID, uuid: $0.uuid.uuidString.lowercased(), name: $0.name,
                              build: $0.build, state: $0.state)
        }
        totals = Totals(traces: Set(sessions.map(\.trace)).count, sessions: sessions.count,
                        ended: sessions.filter { $0.state == .ended }.count,
                        crashed: sessions.filter { $0.state == .crashed }.count,
                        unfinished: sessions.filter { $0.state == .unfinished }.count,
                        unreadable: warnings.count)
    }
}
