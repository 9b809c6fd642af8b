public import ArgumentParser
import Foundation
import TraceStore
public import TraceFleet

/// `report --format text|json|html`.
extension FleetFormat: ExpressibleByArgument {}

extension TraceCtl {
    struct Report: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "One row per leak fingerprint across many traces: new, regressed or known, on which builds.",
            discussion: """
                Reads every session of every trace named (files, directories walked for *.trace, *.sqlite and *.db, \
                globs), both cores at once, and joins their findings by fingerprint: rule, severity, message, owner \
                type, call site, the traces and sessions that show it, first and last seen (time and build), the \
                builds, and an example session. Builds are ordered by their first session's start.

                A fingerprint is new when it is outside --baseline, or first seen after --since-build (default: first \
                seen in the newest build); regressed when it was seen, then absent from --gap builds or more, then \
                back; known otherwise. Sessions that crashed or never ended are counted and listed (their findings \
                are included); a file that cannot be read is one warning line, and the rest goes on.

                --from postgresql://... reports from a store filled by `tracectl push` instead of files (it runs \
                tracectl-fleet): the same sessions give the same rows. docs/FLEET.md.

                Exit codes: 65 when a file could not be read, else 3 when a session crashed or never ended, else 1 when \
                a fingerprint is new or regressed, else 0 (the report is printed in full first); 66 when a path matches \
                nothing; 76 when the server is down or refuses.

                EXAMPLES:
                  tracectl report traces/
                  tracectl report 'ci/**/*.trace' --since-build 2417 --format html > fleet.html
                  tracectl report traces/ --baseline leaks-baseline.json --format json
                  tracectl report --from postgresql://ci@db.example/nb --since-build 2417
                """
        )

        @Argument(help: "Trace files, directories or globs.", completion: .file(extensions: ["trace", "sqlite"]))
        var paths: [String] = []

        @Option(help: "Report from this PostgreSQL store (postgresql://user@host/db) instead of files.")
        var from: String?

        @Option(help: "A JSON list of accepted fingerprints (tracectl leaks --write-baseline): the others are new.",
                completion: .file(extensions: ["json"]))
        var baseline: String?

        @Option(help: "The last build already reviewed: fingerprints first seen after it are new.")
        var sinceBuild: String?

        @Option(help: "Builds a fingerprint must be absent from before its return is a regression.")
        var gap: Int = 1

        @Option(help: "Leave out fingerprints below this severity: note, warning or error.")
        var minSeverity = SeverityArgument(.note)

        @Option(help: "Output format: text, json or html (a self-contained page).")
        var format: FleetFormat = .text

        @Option(help: "Files analysed at once (default: one per core).")
        var jobs: Int?

        func validate() throws {
            if from == nil && paths.isEmpty { throw ValidationError("name trace files, directories or globs, or --from postgresql://...") }
            if from != nil && !paths.isEmpty { throw ValidationError("--from reads the store: name no trace paths with it") }
            if baseline != nil && sinceBuild != nil { throw ValidationError("--baseline and --since-build are two ways of saying what is new: give one") }
            if gap < 1 { throw ValidationError("--gap must be 1 or more") }
            if let jobs, jobs < 1 { throw ValidationError("--jobs must be 1 or more") }
        }

        func run() throws {
            if let from {
                var arguments = ["report", "--from", from, "--gap", String(gap), "--min-severity", minSeverity.severity.rawValue,
                                 "--format", format.rawValue]
                if let baseline { arguments += ["--baseline", baseline] }
                if let sinceBuild { arguments += ["--since-build", sinceBuild] }
                Companion.exec("fleet", arguments: arguments)
            }
            let code: Int32
            do throws(FleetError) {
                let accepted = try baseline.map { path throws(FleetError) in try FleetReport.loadBaseline(path) }
                let collected = try FleetCollector.collect(paths, workers: jobs ?? ProcessInfo.processInfo.activeProcessorCount)
                for warning in collected.warnings { diagnose("warning: \(warning)") }
                let report = try FleetReport(sessions: collected.sessions, warnings: collected.warnings,
                                             options: .init(baseline: accepted, sinceBuild: sinceBuild, gap: gap,
                                                            minSeverity: minSeverity.severity))
                let out = Output()
                out.write(format == .text ? report.text(color: Style.current.enabled) : report.rendered(format, source: paths.joined(separator: " ")))
                out.flush()
                code = report.exitCode
            } catch {
                diagnose(error.message)
                code = FleetExit.code(for: error)
            }
            if code != 0 { throw ExitCode(code) }
        }
    }

    struct Push: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store each session's summary (metadata, findings by fingerprint, counts) in PostgreSQL.",
            discussion: """
                Runs tracectl-fleet (postgres-nio lives there, not in tracectl). Sessions are keyed by their UUID: \
                pushing the same trace twice changes nothing. They are written --batch-size to a transaction \
                (default 500), a session never split across two, so a push cut short leaves each session whole or \
                absent and pushing again completes the rest. The schema (docs/FLEET.md) is created or migrated by the push. Credentials \
                come from the URL or PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE; TLS is used when the server \
                offers it (?sslmode=disable|prefer|require).

                Exit codes: 0 pushed; 65 when a file could not be read (the others were pushed); 66 when a path matches \
                nothing; 76 when the server is down, unreachable or refuses.

                EXAMPLES:
                  tracectl push traces/ --to postgresql://ci:secret@db.example/notifybus
                  PGHOST=db.example PGUSER=ci \\
                    tracectl push 'build-2417/*.trace' --to postgresql:///notifybus
                """
        )

        @Argument(help: "Trace files, directories or globs.", completion: .file(extensions: ["trace", "sqlite"]))
        var paths: [String]

        @Option(help: "The store: postgresql://user:password@host:port/database (missing parts from PG* variables).")
        var to: String

        @Option(help: "Files analysed at once (default: one per core).")
        var jobs: Int?

        @Option(help: "Connections pushing at once (default 2).")
        var connections: Int?

        @Option(help: "Sessions written per transaction (default 500; 1: each session in its own).")
        var batchSize: Int?

        @Flag(help: "Print to standard error how long the analysis and the upload took.")
        var timings = false

        func run() throws {
            var arguments = ["push"] + paths + ["--to", to]
            if let jobs { arguments += ["--jobs", String(jobs)] }
            if let connections { arguments += ["--connections", String(connections)] }
            if let batchSize { arguments += ["--batch-size", String(batchSize)] }
            if timings { arguments.append("--timings") }
            Companion.exec("fleet", arguments: arguments)
        }
    }
}
