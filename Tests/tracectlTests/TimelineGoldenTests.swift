import Foundation
import Testing
import TestSupport

/// `tracectl timeline` writes exactly the page it wrote when its numbers were formatted as
/// `String`s and every event of the session was read as a whole event (issue 13): the golden
/// pages were made by that version. Deliveries and posts are now taken as integers inside the
/// walk and written as bytes, so these pin the page's data byte for byte.
@Suite struct TimelineGoldenTests {
    static let fixtures = ["events-golden/every-kind", "demo", "v2-keyboard-helper-leak"]

    @Test(arguments: fixtures)
    func timelineWritesTheGoldenPage(trace: String) throws {
        let dir = try Scratch()
        let page = dir.file("page.html")
        // Run from the repository with the fixture's relative path, which the page shows.
        let run = try tracectl(["timeline", "Tests/Fixtures/\(trace).trace", "-o", page], in: repositoryFile("").path)
        #expect(run.status == 0, "\(run.stderr)")
        let golden = trace.replacingOccurrences(of: "/", with: "-")
        let expected = try Data(contentsOf: repositoryFile("Tests/Fixtures/timeline-golden/\(golden).html"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: page)) == expected, "timeline \(trace) differs from timeline-golden/\(golden).html")
    }
}
