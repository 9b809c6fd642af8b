import Foundation
import NotifyBus
import Testing
@testable import tracectl

/// The timeline's axis marks the session's steps: container operations by the screen they move
/// ("pop Login") and the application's own events ("keyboard show"), read from the trace's lifecycle events.
@Suite struct TimelineStepTests {
    private func steps(_ page: String) throws -> [(seq: Int, label: String)] {
        let open = #"<script type="application/json" id="data">"#
        let start = try #require(page.range(of: open)).upperBound
        let end = try #require(page.range(of: "</script>", range: start..<page.endIndex)).lowerBound
        let data = try #require(try json(String(page[start..<end])) as? [String: Any])
        let list = try #require(data["steps"] as? [[Any]])
        return list.map { ($0[0] as? Int ?? -1, $0[1] as? String ?? "?") }
    }

    @Test func theDemosStepsAreOnItsTimelineInOrder() throws {
        let dir = try Scratch()
        let trace = dir.file("demo.trace")
        #expect(try tracectl("demo", "-o", trace).status == 0)
        #expect(try tracectl("timeline", trace, "-o", dir.file("demo.html")).status == 0)
        let found = try steps(try String(contentsOfFile: dir.file("demo.html"), encoding: .utf8))
        let labels = found.map(\.label)
        #expect(labels.first == "launch")
        for expected in ["push Login", "pop Login", "keyboard show", "keyboard hide", "selectTab Scan", "rotate landscapeLeft"] {
            #expect(labels.contains(expected), "\(labels)")
        }
        #expect(labels.firstIndex(of: "push Login")! < labels.firstIndex(of: "pop Login")!)
        #expect(found.map(\.seq) == found.map(\.seq).sorted())
        // A screen's own callbacks are its lane's, not steps.
        #expect(!labels.contains { $0.hasPrefix("viewWillAppear") || $0.hasPrefix("init") || $0.hasPrefix("deinit") })
    }

    /// The pop of Login is at the seq the events list gives it.
    @Test func aStepIsAtItsEventsSeq() throws {
        let dir = try Scratch()
        let trace = dir.file("demo.trace")
        #expect(try tracectl("demo", "-o", trace).status == 0)
        #expect(try tracectl("timeline", trace, "-o", dir.file("demo.html")).status == 0)
        let pop = try #require(try steps(try String(contentsOfFile: dir.file("demo.html"), encoding: .utf8))
            .first { $0.label == "pop Login" })
        let events = try tracectl("events", trace, "--kind", "lifecycle", "--owner", "Login", "--format", "json")
        let list = try #require(try json(events.stdout) as? [[String: Any]])
        let popSeq = list.first { $0["phase"] as? String == "pop" }?["seq"] as? Int
        #expect(popSeq == pop.seq, "\(events.stdout.prefix(400))")
    }

    @Test func aWindowHoldsOnlyItsSteps() throws {
        let dir = try Scratch()
        let trace = dir.file("demo.trace")
        #expect(try tracectl("demo", "-o", trace).status == 0)
        #expect(try tracectl("timeline", trace, "--since", "40", "--until", "80", "-o", dir.file("w.html")).status == 0)
        let found = try steps(try String(contentsOfFile: dir.file("w.html"), encoding: .utf8))
        #expect(!found.isEmpty)
        #expect(found.allSatisfy { (40...80).contains($0.seq) }, "\(found)")
    }

    @Test func labels() {
        #expect(TimelineStep.label(.pop, owner: "Login", detail: nil) == "pop Login")
        #expect(TimelineStep.label(.push, owner: "Login", detail: "onto Navigation(Home)") == "push Login")
        #expect(TimelineStep.label(.keyboard, owner: "Application", detail: "show 336.0") == "keyboard show")
        #expect(TimelineStep.label(.rotate, owner: "Application", detail: "device landscapeLeft interface landscapeRight")
                == "rotate landscapeLeft")
        #expect(TimelineStep.label(.launch, owner: "Application", detail: nil) == "launch")
    }
}
