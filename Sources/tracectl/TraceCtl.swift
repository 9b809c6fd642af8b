import ArgumentParser

@main
struct TraceCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracectl",
        abstract: "Record, inspect and replay NotifyBus traces: find observers that outlive their screen.",
        discussion: """
            A trace is an SQLite file holding every post, delivery, observer change and lifecycle step of a session.
            Start with `tracectl demo`, then `tracectl leaks TRACE`.

            Exit codes: 0 success; 1 leaks found (leaks), divergence (replay, diff) or problems (verify), and
            nothing else; 64 usage error (a bad option, query or output path); 65 input that is not a valid
            scenario, trace or baseline, or a damaged trace; 66 input file missing or unopenable; 69 no such
            session; 70 internal error; 73 output cannot be created; 74 I/O error; 75 trace locked by another
            process (try again).
            """,
        version: "0.1.0",
        subcommands: [
            Demo.self, Record.self, Leaks.self, Sessions.self, Events.self, Observers.self, Stats.self,
            SQL.self, Verify.self, Replay.self, Diff.self,
        ]
    )
}
