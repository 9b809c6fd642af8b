import ArgumentParser
import TraceStore

extension TraceCtl {
    struct Observers: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the observers registered at a point of the log, rebuilt by folding it.",
            discussion: """
                Also shows the application state and the screens in the hierarchy at that point.

                EXAMPLES:
                  tracectl observers login.trace --at 120
                  tracectl observers login.trace --format json
                """
        )

        @OptionGroup var options: TraceOptions

        @Option(help: "The sequence number (default: the end of the session).")
        var at: UInt64?

        func validate() throws {
            try checkStoredRange(at, option: "--at")
        }

        func run() throws {
            let reader = try openTrace(options.trace)
            let state = try reportingErrors {
                let session = try reader.session(options.session)
                return try reader.state(session: session.id, at: at)
            }
            let out = Output()
            // Written out here, in the command, not when `out` is released: a failed write exits from here.
            defer { out.flush() }
            let live = state.liveObservers
            switch options.format {
            case .json:
                out.line(JSON.object([
                    ("seq", .from(state.seq)),
                    ("applicationState", .string(state.applicationState.rawValue)),
                    ("hierarchy", .array(state.hierarchy.map { owner in
                        .object([("owner", .string(owner.label)), ("ownerId", .from(owner.id)), ("visible", .bool(owner.visible))])
                    })),
                    ("observers", .array(live.map { observer in
                        .object([
                            ("observer", .from(observer.id)), ("message", .from(observer.message)),
                            ("owner", .from(state.label(of: observer.owner))), ("ownerId", .from(observer.owner)),
                            ("ownerGone", .bool(observer.owner.flatMap { state.owners[$0]?.goneAt } != nil)),
                            ("callsite", .string(observer.callSite)), ("addedAt", .from(observer.addedAt)),
                        ])
                    })),
                ]).rendered)
            case .text:
                let style = Style.current
                out.line(style.bold("at seq \(state.seq)") + ": application \(state.applicationState.rawValue)")
                let screens = state.hierarchy.map { $0.visible ? $0.label : style.dim($0.label + " (hidden)") }
                out.line("hierarchy: " + (screens.isEmpty ? "-" : screens.joined(separator: ", ")))
                out.line("\(live.count) observer\(live.count == 1 ? "" : "s") registered")
                for observer in live {
                    let gone = observer.owner.flatMap { state.owners[$0]?.goneAt } != nil
                    let owner = (state.label(of: observer.owner) ?? "-") + (gone ? style.red(" (gone)") : "")
                    out.line("  " + String(observer.id).leftPadded(6) + "  " + (observer.message ?? "every message").padded(24)
                             + owner.padded(16) + "  added at seq \(observer.addedAt)  " + style.dim(observer.callSite))
                }
            }
        }
    }
}
