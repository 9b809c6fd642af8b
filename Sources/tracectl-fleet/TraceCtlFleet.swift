public import ArgumentParser
import FleetPostgres
import Foundation
public import TraceFleet
import TraceStore

/// `tracectl push` and `tracectl report --from`: the fleet's PostgreSQL side, kept out of `tracectl`
/// so that postgres-nio never slows its build (`tracectl` execs this; README, "Install tracectl").
@main
struct TraceCtlFleet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracectl-fleet",
        abstract: "Session summaries in PostgreSQL: push traces, report from the store (run by tracectl push / report --from).",
        subcommands: [Push.self, ServerReport.self]
    )
}

extension FleetSeverity: ExpressibleByArgument {}
extension FleetFormat: ExpressibleByArgument {}

/// Prints `error`'s line and exits with its code.
func fail(_ error: FleetError) -> Never {
    FileHandle.standardError.write(Data("tracectl: \(error.message)\n".utf8))
    exit(FleetExit.code(for: error))
}

struct Push: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Store each session's summary in PostgreSQL, idempotent by session UUID; a session is never split across transactions.")

    @Argument(help: "Trace files, directories or globs.")
    var paths: [String]

    @Option(help: "The store: postgresql://user:password@host:port/database (missing parts from PG* variables).")
    var to: String

    @Option(help: "Files analysed at once (default: one per core).")
    var jobs: Int?

    @Option(help: "Connections pushing at once.")
    var connections: Int = 2

    @Option(help: "Sessions written per transaction (1: each session in its own).")
    var batchSize: Int = FleetStore.defaultBatchSize

    @Flag(help: "Print to standard error how long the analysis and the upload took.")
    var timings = false

    func validate() throws {
        // Each connection is a server backend: past a few, they wait on one another and on 2 cores.
        if connections < 1 || connections > 32 { throw ValidationError("--connections must be from 1 to 32") }
        if batchSize < 1 { throw ValidationError("--batch-size must be 1 or more") }
    }

    func run() async throws {
        var unreadable = false
        do throws(FleetError) {
            let address = try FleetStoreAddress(to)
            let files = try FleetCollector.expand(paths)
            let workers = jobs ?? ProcessInfo.processInfo.activeProcessorCount
            let (connections, batchSize) = (connections, batchSize)
            let clock = ContinuousClock()
            let started = clock.now
            let (collected, outcome, connect, analysis, upload) = try await FleetStore.withConnection(to: address) { store throws(FleetError) in
                // Connected and migrated before the analysis: a server that is down fails the push at once.
                try await store.migrate()
                let analysisStart = clock.now
                let collected = FleetCollector.collect(files: files, workers: workers)
                for warning in collected.warnings {
                    FileHandle.standardError.write(Data("tracectl: warning: \(warning)\n".utf8))
                }
                let uploadStart = clock.now
                let outcome = try await store.push(collected.sessions, batchSize: batchSize, connections: connections)
                return (collected, outcome, analysisStart - started, uploadStart - analysisStart, clock.now - uploadStart)
            }
            if timings {
                func seconds(_ duration: Duration) -> String {
                    String(format: "%.3f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
                }
                let line = "tracectl: timings: connect and migrate \(seconds(connect)), analysis \(seconds(analysis)), upload \(seconds(upload)) (\(collected.sessions.count) sessions)\n"
                FileHandle.standardError.write(Data(line.utf8))
            }
            let (added, present, repeated) = (outcome.added, outcome.present, outcome.repeated)
            let asides = (present > 0 ? ["\(present) already there"] : [])
                + (repeated > 0 ? ["\(repeated) given more than once"] : [])
            print("pushed \(added) session\(added == 1 ? "" : "s") from \(collected.traces) trace\(collected.traces == 1 ? "" : "s") "
                  + "to \(address.description)" + (asides.isEmpty ? "" : " (" + asides.joined(separator: ", ") + ")"))
            unreadable = !collected.warnings.isEmpty
        } catch {
            fail(error)
        }
        if unreadable { throw ExitCode(FleetExit.invalidInput) }
    }
}

struct ServerReport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "The fleet report from a store filled by push: the same rows as the local report of the same traces.")

    @Option(help: "The store: postgresql://user:password@host:port/database.")
    var from: String

    @Option(help: "A JSON list of accepted fingerprints: the others are new.")
    var baseline: String?

    @Option(help: "The last build already reviewed: fingerprints first seen after it are new.")
    var sinceBuild: String?

    @Option(help: "Builds a fingerprint must be absent from before its return is a regression.")
    var gap: Int = 1

    @Option(help: "Leave out fingerprints below this severity: note, warning or error.")
    var minSeverity: FleetSeverity = .note

    @Option(help: "Output format: text, json or html.")
    var format: FleetFormat = .text

    func validate() throws {
        if baseline != nil && sinceBuild != nil { throw ValidationError("--baseline and --since-build are two ways of saying what is new: give one") }
        if gap < 1 { throw ValidationError("--gap must be 1 or more") }
    }

    func run() async throws {
        let code: Int32
        do throws(FleetError) {
            let address = try FleetStoreAddress(from)
            let accepted = try baseline.map { path throws(FleetError) in try FleetReport.loadBaseline(path) }
            let sessions = try await FleetStore.withConnection(to: address) { store throws(FleetError) in try await store.sessions() }
            let report = try FleetReport(sessions: sessions, options: .init(
                baseline: accepted, sinceBuild: sinceBuild, gap: gap, minSeverity: minSeverity.severity))
            let colored = isatty(STDOUT_FILENO) == 1 && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
            let text = format == .text ? report.text(color: colored) : report.rendered(format, source: address.description)
            FileHandle.standardOutput.write(Data(text.utf8))
            code = report.exitCode
        } catch {
            fail(error)
        }
        if code != 0 { throw ExitCode(code) }
    }
}
