import Foundation
import NotifyBus
import Testing
@testable import TraceStore

@Suite struct DocumentationTests {
    /// Every SQL example in docs/TRACE_FORMAT.md runs against a real trace and returns rows.
    /// The queueing-delay example runs against a trace with queued deliveries.
    @Test func traceFormatExampleQueriesRun() async throws {
        let text = try String(contentsOf: repositoryFile("docs/TRACE_FORMAT.md"), encoding: .utf8)
        let blocks = text.components(separatedBy: "```sql\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        #expect(blocks.count == 6)
        let demo = try TraceReader(path: fixture("demo"))
        let dir = try TemporaryDirectory()
        try await recordQueuedDeliveries(at: dir.file("queued.trace"))
        let queued = try TraceReader(path: dir.file("queued.trace"))
        for sql in blocks {
            // The metadata example needs a schema-6 trace; the demo fixture is older.
            let reader = sql.contains("kind = 14") || sql.contains("session_meta") ? queued : demo
            var rows = 0
            try reader.query(sql, columns: { _ in }, row: { _ in rows += 1 })
            #expect(rows > 0, "no rows from:\n\(sql)")
        }
    }

    /// The documented kinds are the ones the schema writes.
    @Test func eventKindsTableMatchesTheEnum() throws {
        let dir = try TemporaryDirectory()
        try recordSample(at: dir.file("t.trace"))
        let reader = try TraceReader(path: dir.file("t.trace"))
        var names: [String] = []
        try reader.query("SELECT name FROM event_kinds ORDER BY id", columns: { _ in }, row: { names.append($0[0].description) })
        #expect(names == EventKind.allCases.map(\.name))
    }
}

/// Records a session in which an `async` observer receives three posts, each queued then delivered.
func recordQueuedDeliveries(at path: String) async throws {
    let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "queued", app: "tests"))
    let bus = Bus(sink: recorder)
    let seen = Log<Int>()
    let token = bus.observe(Ping.self) { ping async in seen.append(ping.n) }
    for n in 0..<3 { bus.post(Ping(n: n)) }
    while seen.all.count < 3 { await Task.yield() }
    bus.remove(token)
    try recorder.close()
}
