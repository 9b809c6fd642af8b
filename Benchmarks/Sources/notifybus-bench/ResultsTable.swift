import Foundation

/// BENCHMARKS.md's results table, between its two markers: one row per measurement, each with the
/// command that reproduces it and the day it was measured.
///
/// A run replaces the rows it measured (matched by measurement name) and keeps every other row as
/// it was, with its own date and command: a group that was not run stays, clearly dated. A group
/// of benchmarks contributes rows by calling ``Report/add(_:subject:baseline:ratio:target:met:)``
/// inside ``Report/group(_:_:)``; nothing here names a group.
///
///     Scripts/benchmarks.sh            # every group, the table updated in place
///     Scripts/benchmarks.sh bus store  # those groups' rows only
enum ResultsTable {
    static let begin = "<!-- results:begin (Scripts/benchmarks.sh writes this table) -->"
    static let end = "<!-- results:end -->"
    static let header = [
        "| measurement | NotifyBus | baseline | ratio | target | measured | command |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]

    /// The day, `YYYY-MM-DD` (UTC).
    static var today: String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }

    /// A row as the table shows it.
    static func line(_ row: Row, date: String) -> String {
        let target = row.target.isEmpty ? "" : row.target + (row.met.map { $0 ? " ✓" : " ✗" } ?? "")
        let command = row.command.isEmpty ? "" : "`\(row.command)`"
        return "| \(cell(row.name)) | \(cell(row.subject)) | \(cell(row.baseline)) | \(cell(row.ratio)) | \(cell(target)) | \(date) | \(command) |"
    }

    private static func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }

    /// The measurement a table line is about: its first cell.
    static func name(of line: String) -> String? {
        let cells = line.split(separator: "|", omittingEmptySubsequences: false)
        guard line.hasPrefix("|"), cells.count > 2 else { return nil }
        return cells[1].trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\\", with: "")
    }

    /// `document` with the table between the markers updated with `rows`: rows measured now replace
    /// theirs in place, new ones are added after the rows of their group, the others are kept.
    static func update(_ document: String, with rows: [Row], date: String = today) throws -> String {
        guard let start = document.range(of: begin), let stop = document.range(of: end), start.upperBound <= stop.lowerBound else {
            throw BenchError("the document has no results markers (\(begin) … \(end))")
        }
        var lines = document[start.upperBound..<stop.lowerBound].split(separator: "\n", omittingEmptySubsequences: true)
            .map(String.init).filter { $0.hasPrefix("|") }
        if lines.count >= 2 { lines.removeFirst(2) }   // the header
        var fresh = Dictionary(rows.map { (cell($0.name).replacingOccurrences(of: "\\", with: ""), $0) }, uniquingKeysWith: { first, _ in first })
        var order = rows.map { cell($0.name).replacingOccurrences(of: "\\", with: "") }
        var kept: [String] = []
        for line in lines {
            if let name = name(of: line), let row = fresh.removeValue(forKey: name) {
                kept.append(self.line(row, date: date))
            } else {
                kept.append(line)
            }
        }
        // New measurements: after the last row of the same command, or at the end.
        order.removeAll { fresh[$0] == nil }
        for name in order {
            guard let row = fresh[name] else { continue }
            let line = self.line(row, date: date)
            if !row.command.isEmpty, let last = kept.lastIndex(where: { $0.hasSuffix("`\(row.command)` |") }) {
                kept.insert(line, at: last + 1)
            } else {
                kept.append(line)
            }
        }
        let table = "\n" + (header + kept).joined(separator: "\n") + "\n"
        return String(document[..<start.upperBound]) + table + String(document[stop.lowerBound...])
    }

    /// Reads `path`, updates its table with `rows`, writes it back.
    static func update(file path: String, with rows: [Row]) throws {
        let document = try String(contentsOfFile: path, encoding: .utf8)
        try update(document, with: rows).write(toFile: path, atomically: true, encoding: .utf8)
    }
}
