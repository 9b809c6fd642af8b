import ArgumentParser
import Foundation
import TraceStore

extension TraceCtl {
    struct Sessions: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the sessions of a trace: name, start, duration, events, ended cleanly or not, and each one's metadata.",
            discussion: """
                EXAMPLES:
                  tracectl sessions login.trace
                  tracectl sessions login.trace --format json
                """
        )

        @OptionGroup var options: TraceFileOptions

        func run() throws {
            let (trace, format) = (options.trace, options.format)
            let reader = try openTrace(trace)
            let (sessions, metadata) = try reportingErrors {
                let sessions = try reader.sessions()
                return (sessions, try sessions.map { session throws(TraceStoreError) in try reader.metadata(of: session) })
            }
            let out = Output()
            // Written out here, in the command, not when `out` is released: a failed write exits from here.
            defer { out.flush() }
            switch format {
            case .json:
                out.line(JSON.array(zip(sessions, metadata).map { session, meta in
                    .object([
                        ("id", .int(session.id)), ("name", .string(session.name)), ("app", .string(session.app)),
                        ("startedAt", .string(session.startedAt)), ("durationSeconds", .double(Double(session.duration) / 1e9)),
                        ("events", .int(Int64(session.eventCount))), ("endedCleanly", .bool(session.endedCleanly)),
                        ("endedAt", .from(session.endedAt)), ("crashedAt", .from(session.crashedAt)), ("toolVersion", .string(session.toolVersion)),
                        ("hasScenario", .bool(session.scenario != nil)),
                        ("uuid", .string(meta.uuid.uuidString.lowercased())), ("appVersion", .from(meta.appVersion)),
                        ("build", .from(meta.build)), ("os", .from(meta.os)), ("device", .from(meta.deviceModel)),
                        ("test", .from(meta.testName)),
                        ("meta", .object(meta.extra.sorted { $0.key < $1.key }.map { ($0.key, JSON.string($0.value)) })),
                    ])
                }).rendered)
            case .text:
                out.line("ID".leftPadded(4) + "  " + "NAME".padded(28) + "STARTED".padded(26) + "DURATION".leftPadded(10)
                         + "EVENTS".leftPadded(10) + "  ENDED")
                for (session, meta) in zip(sessions, metadata) {
                    let ended = session.endedCleanly ? "cleanly"
                        : session.crashedAt != nil ? Style.current.yellow("no (crashed; finished)")
                        : Style.current.yellow("no (crashed or still recording)")
                    out.line(String(session.id).leftPadded(4) + "  " + session.name.padded(28) + session.startedAt.padded(26)
                             + seconds(session.duration).leftPadded(10) + String(session.eventCount).leftPadded(10) + "  " + ended)
                    out.line("      " + Style.current.dim(Self.describe(meta, app: session.app)))
                }
            }
        }

        /// The metadata line under a session: `app Mail 2.4 (build 2417) · iOS 18.1 · iPhone16,2 · test Login · k=v · uuid …`.
        static func describe(_ meta: SessionMetadata, app: String) -> String {
            var parts = ["app " + ([app] + [meta.appVersion, meta.build.map { "(build \($0))" }].compactMap { $0 }).joined(separator: " ")]
            if let os = meta.os { parts.append(os) }
            if let device = meta.deviceModel { parts.append(device) }
            if let test = meta.testName { parts.append("test " + test) }
            parts += meta.extra.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            parts.append("uuid " + meta.uuid.uuidString.lowercased())
            return parts.joined(separator: " · ")
        }
    }
}
