import ArgumentParser

@main
struct TraceCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tracectl",
        abstract: "Record, inspect and replay NotifyBus traces.",
        version: "0.1.0",
        subcommands: []
    )
}
