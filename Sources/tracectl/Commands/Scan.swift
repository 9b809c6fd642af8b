import ArgumentParser

extension TraceCtl {
    /// `tracectl scan`: runs the companion `tracectl-scan`, which links swift-syntax (docs/SCAN.md).
    struct Scan: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find observer bugs in Swift sources without running the app (runs tracectl-scan).",
            discussion: """
                tracectl scan PATH... [--format text|json|sarif] [--source-root DIR] [--keep-traces DIR] \
                [--ios-deployment-target X] [--min-severity note|warning|error]

                Reads the Swift files under each PATH with swift-syntax, models each class's observers against the \
                UIKit lifecycle, runs it through fixed journeys and reports the leak rules' findings at the line of \
                the registration or removal to fix. The work is done by the companion executable tracectl-scan \
                (build it with `swift build --product tracectl-scan`), so that tracectl itself never links \
                swift-syntax. `tracectl-scan --help` lists its options. docs/SCAN.md has the details.
                """
        )

        @Argument(parsing: .captureForPassthrough, help: "PATH... and tracectl-scan's options.")
        var arguments: [String] = []

        func run() throws {
            Companion.exec("scan", arguments: arguments)
        }
    }
}
