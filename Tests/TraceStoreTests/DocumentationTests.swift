import Foundation
import Testing
@testable import TraceStore

@Suite struct DocumentationTests {
    /// Every SQL example in docs/TRACE_FORMAT.md runs against a real trace and returns rows.
    @Test func traceFormatExampleQueriesRun() throws {
        let text = try String(contentsOf: repositoryFile("docs/TRACE_FORMAT.md"), encoding: .utf8)
        let blocks = text.components(separatedBy: "```sql\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        #expect(blocks.count == 4)
        let reader = try TraceReader(path: fixture("demo"))
        for sql in blocks {
            var rows = 0
            try reader.query(sql, columns: { _ in }, row: { _ in rows += 1 })
            #expect(rows > 0, "no rows from:\n\(sql)")
        }
    }

    /// The documented kinds are the ones the schema writes.
    @Test func eventKindsTableMatchesTheEnum() throws {
        let reader = try TraceReader(path: fixture("demo"))
        var names: [String] = []
        try reader.query("SELECT name FROM event_kinds ORDER BY id", columns: { _ in }, row: { names.append($0[0].description) })
        #expect(names == EventKind.allCases.map(\.name))
    }
}
