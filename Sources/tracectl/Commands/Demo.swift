import ArgumentParser
import Foundation
import TraceStore
import ScenarioTrace

extension TraceCtl {
    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Record a built-in session with seed 000's keyboard bug and show its leak report.",
            discussion: """
                The session models seed 002's app: a main screen over tabs with Home and Scan in navigation \
                stacks. A Login screen that adds its keyboard observers on become-active and removes them on \
                resign-active (seed 000) is pushed, used and popped; the app goes to the background and back, \
                the keyboard comes and goes, the device rotates. The popped Login keeps observing.

                EXAMPLES:
                  tracectl demo
                  tracectl demo -o demo.trace && tracectl events demo.trace --owner Login
                """
        )

        @Option(name: [.short, .customLong("output")], help: "Where to write the trace (default: a temporary file).")
        var output: String?

        @Flag(help: "Print the scenario file the demo runs, and exit.")
        var printScenario = false

        func run() throws {
            if printScenario {
                print(Self.scenario)
                return
            }
            let path = output ?? FileManager.default.temporaryDirectory
                .appendingPathComponent("notifybus-demo-\(ProcessInfo.processInfo.processIdentifier).trace").path
            let summary = try reportingErrors {
                try ScenarioRecording.record(scenario: Data(Self.scenario.utf8), file: "demo.json", to: path)
            }
            let style = Style.current
            let out = Output()
            // Written out here, in the command, not when `out` is released: a failed write exits from here.
            defer { out.flush() }
            out.line(style.bold("Recorded the demo session") + " ('\(summary.scenarioName)', \(summary.events) events) to \(path)")
            out.line()
            let reader = try openTrace(path)
            let findings = try reportingErrors { try LeakAnalyzer.analyze(reader, session: summary.sessionID) }
            let session = try reportingErrors { try reader.session(summary.sessionID) }
            LeakReport(trace: path, session: session, findings: findings, baseline: []).printText(to: out, style: style)
            out.line()
            out.line(style.bold("Explore it further:"))
            for command in [
                "tracectl events \(path) --owner Login",
                "tracectl observers \(path) --at \(findings.compactMap(\.ownerGoneAt).first ?? 1)",
                "tracectl stats \(path)",
                "tracectl leaks \(path) --format json",
                "tracectl leaks \(path) --format sarif > leaks.sarif",
                "tracectl export \(path) --format chrome-trace -o demo-perfetto.json   # open in ui.perfetto.dev",
                "tracectl sql \(path) \"SELECT owner_label, message, callsite, removal_reason FROM observers WHERE removed_seq IS NULL OR removal_reason = 'ownerGone'\"",
                "tracectl demo --print-scenario > demo.json   # then edit it and: tracectl record demo.json -o mine.trace",
            ] {
                out.line("  " + command)
            }
        }

        /// Seed 002's app with seed 000's Login screen.
        static let scenario = """
            {
              "name": "demo-main-tabs-login",
              "screens": {
                "Main": { "observers": [], "handles": ["didTapScan"] },
                "Home": {
                  "observers": [ { "message": "keyboardWillShow", "addOn": "viewWillAppear", "removeOn": "viewWillDisappear" } ]
                },
                "Scan": {
                  "observers": [ { "message": "orientationDidChange", "addOn": "viewDidAppear", "removeOn": "viewWillDisappear" } ],
                  "supportedOrientations": "allButUpsideDown"
                },
                "Login": {
                  "observers": [
                    { "message": "keyboardWillShow", "addOn": "didBecomeActive", "removeOn": "willResignActive" },
                    { "message": "keyboardWillHide", "addOn": "didBecomeActive", "removeOn": "willResignActive" }
                  ]
                }
              },
              "root": { "tabs": [ { "navigation": "Home" }, { "navigation": "Scan" } ], "selected": 0, "main": "Main" },
              "steps": [
                { "push": "Login" },
                { "background": {} },
                { "foreground": {} },
                { "keyboard": "show" },
                { "keyboard": "hide" },
                { "pop": {} },
                { "keyboard": "show" },
                { "keyboard": "hide" },
                { "action": "didTapScan", "from": "Home" },
                { "selectTab": 1 },
                { "rotate": "landscapeLeft" },
                { "rotate": "portrait" },
                { "selectTab": 0 },
                { "interrupt": {} }
              ]
            }
            """
    }
}
