import ArgumentParser

@main
struct TraceCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracectl",
        abstract: "Record, inspect and replay NotifyBus traces: find observers that outlive their screen.",
        discussion: """
            A trace is an SQLite file holding every post, delivery, observer change and lifecycle step of a session. \
            Start with `tracectl demo`, then `tracectl leaks TRACE`. Reference: docs/CLI.md; recording on a \
            device: docs/DEVICE.md.

            Exit codes:
              0   success
              1   findings only: leaks, a divergence (replay, diff), problems (verify)
              3   the session crashed or was cut short: only what was recorded is reported
              64  usage error: a bad option, query or output path
              65  not a valid scenario, trace or baseline, or a damaged trace
              66  an input file missing, a directory, or unopenable
              69  no such session in the trace
              70  internal error
              73  an output file cannot be created
              74  I/O error
              75  the trace is locked by another process: try again
              78  a companion executable (tracectl-scan, tracectl-fleet) is not installed
            """,
        version: "0.1.0",
        subcommands: [
            Demo.self, Record.self, Leaks.self, Sessions.self, Events.self, Observers.self, Stats.self,
            SQL.self, Verify.self, Replay.self, Diff.self, Finish.self,
            Timeline.self, Export.self, Scan.self, Report.self, Push.self,
        ]
    )
}
