import Foundation
import Testing

/// `tracectl export --format chrome-trace`: Trace Event JSON whose slices nest and whose flows bind.
@Suite struct ExportCommandTests {
    private struct Event {
        let ph: String
        let name: String
        let pid: Int
        let tid: Int?
        let ts: Double
        let dur: Double?
        let id: Int?
        let raw: [String: Any]

        init(_ raw: [String: Any]) {
            ph = raw["ph"] as? String ?? "?"
            name = raw["name"] as? String ?? "?"
            pid = raw["pid"] as? Int ?? -1
            tid = raw["tid"] as? Int
            ts = (raw["ts"] as? NSNumber)?.doubleValue ?? -1
            dur = (raw["dur"] as? NSNumber)?.doubleValue
            id = raw["id"] as? Int
            self.raw = raw
        }
    }

    private func demoExport(_ dir: Scratch) throws -> [Event] {
        let trace = dir.file("demo.trace")
        #expect(try tracectl("demo", "-o", trace).status == 0)
        let run = try tracectl("export", trace, "--format", "chrome-trace")
        #expect(run.status == 0, "\(run.stderr)")
        let root = try #require(try json(run.stdout) as? [String: Any])
        #expect(root["displayTimeUnit"] as? String == "ns")
        return try #require(root["traceEvents"] as? [[String: Any]]).map(Event.init)
    }

    /// `--since`/`--until`: the posts, deliveries and findings of the window, each delivery's flow
    /// still bound to its post, and the window named in `otherData`.
    @Test func aWindowExportsThePostsDeliveriesAndFindingsInIt() throws {
        let dir = try Scratch()
        let trace = dir.file("demo.trace")
        #expect(try tracectl("demo", "-o", trace).status == 0)
        let run = try tracectl("export", trace, "--format", "chrome-trace", "--since", "40", "--until", "80")
        #expect(run.status == 0, "\(run.stderr)")
        let root = try #require(try json(run.stdout) as? [String: Any])
        #expect((root["otherData"] as? [String: Any])?["window"] as? String == "seq 40–80")
        let events = try #require(root["traceEvents"] as? [[String: Any]]).map(Event.init)
        let posts = events.filter { $0.raw["cat"] as? String == "post" && $0.ph == "X" }
        let deliveries = events.filter { $0.raw["cat"] as? String == "delivery" && $0.ph == "X" }
        #expect(!posts.isEmpty && !deliveries.isEmpty)
        #expect((posts + deliveries).allSatisfy { (40...80).contains($0.ts) })
        // As many as the event log holds in the window.
        let log = try tracectl("events", trace, "--since", "40", "--until", "80", "--kind", "posted", "--format", "json")
        let logged = try #require(try json(log.stdout) as? [[String: Any]])
        #expect(posts.count == logged.count)
        // Each flow binds a delivery to its post; a delivery whose post came before the window has none.
        let starts = events.filter { $0.ph == "s" }, ends = events.filter { $0.ph == "f" }
        #expect(!starts.isEmpty && starts.count <= deliveries.count)
        #expect(Set(starts.compactMap(\.id)) == Set(ends.compactMap(\.id)) && starts.count == ends.count)
        #expect(starts.allSatisfy { (40...80).contains($0.ts) })
        #expect(events.filter { $0.ph == "i" }.allSatisfy { (40...80).contains($0.ts) })
        // A window out of order, or beyond what a trace stores, is a usage error.
        #expect(try tracectl("export", trace, "--format", "chrome-trace", "--since", "80", "--until", "40").status == 64)
        #expect(try tracectl("export", trace, "--format", "chrome-trace", "--since", "9223372036854775808").status == 64)
    }

    @Test func screensAreProcessesWithVisibleAndObserverTracks() throws {
        let dir = try Scratch()
        let events = try demoExport(dir)
        let processes = events.filter { $0.ph == "M" && $0.name == "process_name" }
            .map { ($0.raw["args"] as? [String: Any])?["name"] as? String }
        #expect(processes == ["posts", "Application (ApplicationObject)", "Main (MainViewController)",
                              "Home (HomeViewController)", "Scan (ScanViewController)", "Login (LoginViewController)"])
        let loginPid = try #require(events.first {
            $0.name == "process_name" && ($0.raw["args"] as? [String: Any])?["name"] as? String == "Login (LoginViewController)"
        }?.pid)
        let loginTracks = events.filter { $0.ph == "M" && $0.name == "thread_name" && $0.pid == loginPid }
            .map { ($0.raw["args"] as? [String: Any])?["name"] as? String ?? "?" }
        #expect(loginTracks.prefix(2) == ["visible", "in hierarchy"])
        #expect(loginTracks.dropFirst(2).allSatisfy { $0.hasPrefix("observers ") })
        // Observer lifetimes: one slice per observer, ten in the demo; posts: 25; deliveries: 11, each with a flow.
        #expect(events.filter { $0.raw["cat"] as? String == "observer" }.count == 10)
        #expect(events.filter { $0.raw["cat"] as? String == "post" && $0.ph == "X" }.count == 25)
        #expect(events.filter { $0.raw["cat"] as? String == "delivery" && $0.ph == "X" }.count == 11)
        #expect(events.filter { $0.ph == "s" }.count == 11)
        #expect(events.filter { $0.ph == "f" }.count == 11)
        let findings = events.filter { $0.ph == "i" }
        #expect(findings.count == 6)
        #expect(Set(findings.map(\.name)) == ["error observer-outlives-owner", "error delivery-after-owner-gone", "note unbalanced-removal"])
        #expect(findings.allSatisfy { $0.pid == loginPid })
    }

    @Test func slicesNestOnEveryTrackAndFlowsBindToThem() throws {
        let dir = try Scratch()
        let events = try demoExport(dir)
        var tracks: [String: [Event]] = [:]
        for event in events where event.ph == "X" { tracks["\(event.pid)/\(event.tid ?? -1)", default: []].append(event) }
        // On one track, two slices are disjoint or one holds the other: what both viewers require.
        for (track, slices) in tracks {
            for a in slices {
                for b in slices where a.ts < b.ts || (a.ts == b.ts && (a.dur ?? 0) > (b.dur ?? 0)) {
                    let aEnd = a.ts + (a.dur ?? 0), bEnd = b.ts + (b.dur ?? 0)
                    #expect(bEnd <= aEnd || b.ts >= aEnd, "\(track): \(a.name) [\(a.ts), \(aEnd)) overlaps \(b.name) [\(b.ts), \(bEnd))")
                }
            }
        }
        // A flow starts inside its post's slice and ends where a delivery slice starts ("bp": "e").
        func enclosing(_ event: Event) -> [Event] {
            tracks["\(event.pid)/\(event.tid ?? -1)", default: []].filter { $0.ts <= event.ts && event.ts < $0.ts + max($0.dur ?? 0, 0.5) }
        }
        for start in events where start.ph == "s" {
            #expect(enclosing(start).contains { $0.raw["cat"] as? String == "post" }, "flow \(start.id ?? -1) starts outside a post")
            let end = try #require(events.first { $0.ph == "f" && $0.id == start.id })
            #expect(end.raw["bp"] as? String == "e")
            #expect(end.ts > start.ts)
            #expect(enclosing(end).contains { $0.raw["cat"] as? String == "delivery" && $0.ts == end.ts })
        }
    }

    @Test func unknownFormatIsAUsageError() throws {
        let dir = try Scratch()
        let trace = dir.file("demo.trace")
        #expect(try tracectl("demo", "-o", trace).status == 0)
        #expect(try tracectl("export", trace, "--format", "svg").status == 64)
        #expect(try tracectl("export", trace).status == 64)
        #expect(try tracectl("export", dir.file("none.trace"), "--format", "chrome-trace").status == 66)
        #expect(try tracectl("export", trace, "--format", "chrome-trace", "-o", dir.file("no/dir/x.json")).status == 73)
    }
}
