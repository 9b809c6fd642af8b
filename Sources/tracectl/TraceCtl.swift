import ArgumentParser

@main
struct TraceCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracectl",
        abstract: "Record, inspect and replay NotifyBus traces: find observers that outlive their screen.",
        discussion: """
            A trace is an SQLite file holding every post, delivery, observer change and lifecycle step of a session.
            Start with `tracectl demo`, then `tracectl leaks TRACE`.

            Exit codes: 0 success; 1 leaks found (leaks), divergence (replay, diff) or problems (verify);
            64 usage error; 65 input that is not a valid scenario or trace; 66 input file missing.
            """,
        version: "0.1.0",
        subcommands: [
            Demo.self, Record.self, Leaks.self, Sessions.self, Events.self, Observers.self, Stats.self,
            SQL.self, Verify.self, Replay.self, Diff.self, Finish.self,
        ]
    )
}
