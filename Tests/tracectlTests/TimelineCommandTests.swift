import Foundation
import NotifyBus
import Testing
import TraceStore

/// Whether headless Chromium can be driven here (Debian's chromium and chromium-driver, selenium from PyPI).
private let chromiumInstalled = python([testScript("timeline_chromium.py"), "--check"]).status == 0

private struct Ping: BusMessage { var n: Int }

private final class Labeled: TraceLabeled, Sendable {
    let traceLabel: String
    init(_ label: String) { traceLabel = label }
}

/// `tracectl timeline`: the page's data, and the page in a real browser.
@Suite struct TimelineCommandTests {
    /// Opens `page` in headless Chromium and checks what it drew against `expected`
    /// (`Tests/Scripts/timeline_chromium.py` says what it may hold).
    private func expectInChromium(_ page: String, _ expected: String, _ dir: Scratch) throws {
        try expected.write(toFile: dir.file("expected.json"), atomically: true, encoding: .utf8)
        let run = python([testScript("timeline_chromium.py"), page, dir.file("expected.json")])
        #expect(run.status == 0, "\(run.output)")
    }

    /// The JSON a timeline page embeds.
    private func embeddedData(_ page: String) throws -> [String: Any] {
        let open = #"<script type="application/json" id="data">"#
        let start = try #require(page.range(of: open)).upperBound
        let end = try #require(page.range(of: "</script>", range: start..<page.endIndex)).lowerBound
        return try #require(try json(String(page[start..<end])) as? [String: Any])
    }

    /// A label that would close the page's data element is written escaped, the page streamed to
    /// its file in blocks: the data still parses whole, with the label as recorded.
    @Test func aLabelThatClosesTheScriptIsEscapedInTheStreamedPage() throws {
        let dir = try Scratch()
        let trace = dir.file("hostile.trace")
        #expect(try tracectl("demo", "-o", trace).status == 0)
        let label = "Login</script><</x"
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", trace, "UPDATE strings SET value = '\(label)' WHERE value = 'Login'"]
        try sqlite.run()
        sqlite.waitUntilExit()
        #expect(sqlite.terminationStatus == 0)
        #expect(try tracectl("timeline", trace, "-o", dir.file("t.html")).status == 0)
        let page = try String(contentsOfFile: dir.file("t.html"), encoding: .utf8)
        #expect(page.contains("Login<\\/script><<\\/x"))
        let lanes = try #require(try embeddedData(page)["lanes"] as? [[String: Any]])
        #expect(lanes.contains { $0["label"] as? String == label })
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: dir.path)).contains { $0.contains(".partial-") })
    }

    /// The page's observer columns as one dictionary per observer, strings resolved.
    private func observerRows(_ data: [String: Any]) throws -> [[String: Any]] {
        let columns = try #require(data["observers"] as? [String: [Int]])
        let strings = try #require(data["strings"] as? [String])
        let count = columns["id"]?.count ?? 0
        return (0..<count).map { i in
            var row: [String: Any] = [:]
            for (name, values) in columns {
                row[name] = ["site", "kind", "capture", "ending"].contains(name) ? (values[i] >= 0 ? strings[values[i]] : nil) as Any
                    : values[i]
            }
            return row
        }
    }

    /// A trace recorded from Swift: a screen with a helper attached to it, both observing; the
    /// helper is let go while its token is still registered, and the next post finds it gone.
    private func attachedTrace(_ dir: Scratch) throws -> String {
        let trace = dir.file("attached.trace")
        let recorder = try TraceRecorder(path: trace, session: SessionInfo(name: "attached", app: "tests"))
        let bus = Bus(sink: recorder, clock: ManualClock().traceClock)
        let editor = Labeled("Editor")
        var helper: Labeled? = Labeled("KeyboardHelper")
        bus.attach(helper!, to: editor)
        let screenToken = bus.observe(Ping.self, owner: editor) { _ in }
        let helperToken = bus.observe(Ping.self, owner: helper!) { _ in }
        bus.post(Ping(n: 1))
        helper = nil
        bus.post(Ping(n: 2))
        bus.remove(screenToken)
        try recorder.close()
        _ = helperToken
        return trace
    }

    @Test func pageIsSelfContainedAndEmbedsLanesObserversPostsDeliveriesAndFindings() throws {
        let dir = try Scratch()
        let trace = dir.file("demo.trace")
        #expect(try tracectl("demo", "-o", trace).status == 0)
        let run = try tracectl("timeline", trace, "-o", dir.file("t.html"))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "wrote \(dir.file("t.html")): 7 owners, 10 observers, 25 posts, 11 deliveries, 6 findings in 2 groups\n")
        let page = try String(contentsOfFile: dir.file("t.html"), encoding: .utf8)
        // Nothing to fetch: no external script, style, font or image.
        for external in ["<script src", "<link", "@import", "url(", "http://", "https://"] {
            #expect(!page.contains(external), "the page refers to \(external)")
        }
        let data = try embeddedData(page)
        let lanes = try #require(data["lanes"] as? [[String: Any]])
        #expect(lanes.map { $0["label"] as? String } == ["Application", "Main", "Home", "Scan", "Login"])
        let login = try #require(lanes.last)
        #expect(login["gone"] as? Int == 67)
        #expect((login["visible"] as? [Int])?.count == 2, "Login was on screen once")
        let observers = try observerRows(data)
        let leaked = observers.filter { ($0["site"] as? String)?.hasPrefix("demo.json: screens.Login") == true }
        #expect(leaked.map { $0["end"] as? Int } == [74, 82], "removed only when the bus found the owner gone")
        #expect((data["posts"] as? [Int])?.count == 25 * 3)
        #expect((data["deliveries"] as? [Int])?.count == 11 * 4)
        let groups = try #require(data["groups"] as? [[String: Any]])
        #expect(groups.map { (($0["findings"] as? [String: Any])?["seq"] as? [Any])?.count } == [3, 3])
    }

    @Test func defaultOutputIsBesideTheTrace() throws {
        let dir = try Scratch()
        let trace = dir.file("demo.trace")
        #expect(try tracectl("demo", "-o", trace).status == 0)
        #expect(try tracectl("timeline", trace).status == 0)
        #expect(FileManager.default.fileExists(atPath: dir.file("demo.html")))
        #expect(try tracectl("timeline", dir.file("missing.trace")).status == 66)
        let unwritable = try tracectl("timeline", trace, "-o", dir.file("no/such/dir/t.html"))
        #expect(unwritable.status == 73)
        #expect(unwritable.stderr.split(separator: "\n").count == 1)
    }

    @Test func attachedObjectsAreNestedUnderTheirHost() throws {
        let dir = try Scratch()
        let trace = try attachedTrace(dir)
        #expect(try tracectl("timeline", trace, "-o", dir.file("a.html")).status == 0)
        let data = try embeddedData(try String(contentsOfFile: dir.file("a.html"), encoding: .utf8))
        let lanes = try #require(data["lanes"] as? [[String: Any]])
        #expect(lanes.map { "\($0["label"] as? String ?? "?")@\($0["depth"] as? Int ?? -1)" } == ["Editor@0", "KeyboardHelper@1"])
        let observers = try observerRows(data)
        #expect(observers.map { $0["lane"] as? Int } == [0, 1])
        #expect(observers.map { $0["ending"] as? String } == ["removed (explicit)", "removed (ownerGone)"],
                "the helper's token was never removed: the bus dropped it when it found the helper gone")
    }

    @Test(.enabled(if: chromiumInstalled,
                   "needs headless Chromium: apt-get install chromium chromium-driver; pip install selenium"))
    func demoTimelineLoadsInChromiumWithItsLanesAndMarkers() throws {
        let dir = try Scratch()
        let trace = dir.file("demo.trace")
        #expect(try tracectl("demo", "-o", trace).status == 0)
        #expect(try tracectl("timeline", trace, "-o", dir.file("demo.html")).status == 0)
        let expected = """
            {"lanes": [{"label": "Application", "depth": 0}, {"label": "Main", "depth": 0}, {"label": "Home", "depth": 0},
                       {"label": "Scan", "depth": 0}, {"label": "Login", "depth": 0}],
             "findings": 6, "groups": 2, "errorMarkers": true, "minObservers": 10, "minPosts": 25, "minDeliveries": 11,
             "rules": ["observer-outlives-owner", "delivery-after-owner-gone", "unbalanced-removal"],
             "steps": ["launch", "push Login", "pop Login"],
             "rowLabels": ["Login: keyboardWillShow · token", "Login: keyboardWillHide · token", "Home: keyboardWillShow · token  +2"]}
            """
        try expectInChromium(dir.file("demo.html"), expected, dir)
    }

    /// `--since`/`--until`: the page holds the window's posts and deliveries, starts its view at
    /// the window, and says so in its title; a reversed window is a usage error.
    @Test func aWindowDrawsThePartOfTheSessionItHolds() throws {
        let dir = try Scratch()
        let trace = dir.file("demo.trace")
        #expect(try tracectl("demo", "-o", trace).status == 0)
        let run = try tracectl("timeline", trace, "--since", "40", "--until", "80", "-o", dir.file("w.html"))
        #expect(run.status == 0, "\(run.stderr)")
        let data = try embeddedData(try String(contentsOfFile: dir.file("w.html"), encoding: .utf8))
        #expect(data["start"] as? Int == 40 && data["end"] as? Int == 81)
        #expect((data["title"] as? String)?.hasSuffix("seq 40–80") == true)
        let posts = try #require(data["posts"] as? [Int])
        #expect(!posts.isEmpty && stride(from: 0, to: posts.count, by: 3).allSatisfy { (40...80).contains(posts[$0]) })
        // A window past the session's end draws an empty page, and says why.
        let past = try tracectl("timeline", trace, "--since", "100000", "-o", dir.file("past.html"))
        #expect(past.status == 0)
        #expect(past.stderr.contains("holds no event: session 1 ends at seq"), "\(past.stderr)")
        #expect(try tracectl("timeline", trace, "--since", "40", "-o", dir.file("w2.html")).stderr.isEmpty)
        #expect(try tracectl("timeline", trace, "--since", "80", "--until", "40", "-o", dir.file("x.html")).status == 64)
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.html")))
    }

    @Test(.enabled(if: chromiumInstalled,
                   "needs headless Chromium: apt-get install chromium chromium-driver; pip install selenium"))
    func aWindowedTimelineOpensOnItsWindowInChromium() throws {
        let dir = try Scratch()
        let trace = dir.file("demo.trace")
        #expect(try tracectl("demo", "-o", trace).status == 0)
        #expect(try tracectl("timeline", trace, "--since", "40", "--until", "80", "-o", dir.file("w.html")).status == 0)
        let expected = """
            {"view": [40, 81], "minPosts": 10, "minDeliveries": 5, "minObservers": 5}
            """
        try expectInChromium(dir.file("w.html"), expected, dir)
    }

    @Test(.enabled(if: chromiumInstalled,
                   "needs headless Chromium: apt-get install chromium chromium-driver; pip install selenium"))
    func attachedTimelineShowsTheNestedLaneInChromium() throws {
        let dir = try Scratch()
        let trace = try attachedTrace(dir)
        #expect(try tracectl("timeline", trace, "-o", dir.file("a.html")).status == 0)
        let expected = """
            {"lanes": [{"label": "Editor", "depth": 0}, {"label": "KeyboardHelper", "depth": 1}],
             "findings": 2, "minObservers": 2, "minVisible": 0, "minPosts": 2, "minDeliveries": 2,
             "rules": ["observer-outlives-owner", "delivery-after-owner-gone"]}
            """
        try expectInChromium(dir.file("a.html"), expected, dir)
    }
}
