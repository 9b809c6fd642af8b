import Foundation
import TraceStore

extension FleetReport {
    /// The report as one self-contained HTML page (no script, no outside resource): the totals, a chart
    /// of fingerprints per build (those first seen there darker), the rows, incomplete sessions, warnings.
    public func html(title: String) -> String {
        var page = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
            <style>
            body{font:14px/1.4 -apple-system,"DejaVu Sans",sans-serif;margin:24px;color:#1d1d1f;background:#fff}
            h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:24px 0 8px}
            .sub{color:#555;margin:0 0 16px}
            table{border-collapse:collapse;width:100%;font-size:12px} th,td{text-align:left;padding:4px 6px;border-bottom:1px solid #e3e3e3;vertical-align:top}
            th{font-weight:600;background:#f5f5f7} td.n{text-align:right;font-variant-numeric:tabular-nums}
            code{font:12px ui-monospace,"DejaVu Sans Mono",monospace}
            .new{background:#d93025;color:#fff} .regressed{background:#8e24aa;color:#fff} .known{background:#e8e8ed;color:#333}
            .nw{white-space:nowrap} .badge{border-radius:4px;padding:1px 6px;font-size:12px;font-weight:600}
            .error{color:#b3261e} .warning{color:#a15c00} .note{color:#555}
            svg text{font:11px "DejaVu Sans",sans-serif;fill:#333}
            </style></head><body>
            <h1>\(escape(title))</h1>
            <p class="sub">\(escape(headline)); \(escape(comparison))</p>

            """
        page += chart()
        page += "<h2>Fingerprints (\(rows.count))</h2>\n<table><tr><th>status</th><th>severity</th><th>rule</th><th>message</th>"
            + "<th>owner type</th><th>call site</th><th>sessions</th><th>traces</th><th>first seen</th><th>last seen</th>"
            + "<th>builds</th><th>example</th></tr>\n"
        for row in rows {
            page += "<tr><td><span class=\"badge \(row.status.rawValue)\">\(row.status.rawValue)</span></td>"
                + "<td class=\"\(row.severity.rawValue)\">\(row.severity.rawValue)</td><td class=\"nw\">\(escape(row.rule))</td>"
                + "<td><code>\(escape(row.message ?? "every message"))</code></td><td>\(escape(row.ownerType ?? "-"))</td>"
                + "<td><code>\(escape(row.callSite))</code><br><code>\(row.fingerprint)</code></td>"
                + "<td class=\"n\">\(row.sessions)\(row.incompleteSessions > 0 ? " (\(row.incompleteSessions) incomplete)" : "")</td>"
                + "<td class=\"n\">\(row.traces)</td>"
                + "<td class=\"nw\">\(shortTime(row.firstSeen.time))<br>build \(escape(row.firstSeen.build ?? "-"))</td>"
                + "<td class=\"nw\">\(shortTime(row.lastSeen.time))<br>build \(escape(row.lastSeen.build ?? "-"))</td>"
                + "<td>\(escape(row.builds.joined(separator: ", ")))</td>"
                + "<td><code>\(escape(row.example.trace))</code> session \(row.example.session)<br>seq "
                + "\(row.example.evidence.map(String.init).joined(separator: ", "))</td></tr>\n"
        }
        page += "</table>\n"
        if !incomplete.isEmpty {
            page += "<h2>Sessions that did not end cleanly (\(incomplete.count))</h2>\n<table><tr><th>state</th><th>trace</th>"
                + "<th>session</th><th>name</th><th>build</th></tr>\n"
            for session in incomplete {
                page += "<tr><td>\(session.state.rawValue)</td><td><code>\(escape(session.trace))</code></td>"
                    + "<td class=\"n\">\(session.session)</td><td>\(escape(session.name))</td><td>\(escape(session.build ?? "-"))</td></tr>\n"
            }
            page += "</table>\n"
        }
        if !warnings.isEmpty {
            page += "<h2>Files not read (\(warnings.count))</h2>\n<ul>\n"
            for warning in warnings { page += "<li><code>\(escape(warning))</code></li>\n" }
            page += "</ul>\n"
        }
        return page + "</body></html>\n"
    }

    /// Fingerprints per build as an inline SVG bar chart: the darker part first seen in that build.
    private func chart() -> String {
        guard !builds.isEmpty else { return "<p class=\"sub\">No session names a build: no chart.</p>\n" }
        let height = 160.0, top = 16.0, bottom = 40.0, left = 36.0
        let step = max(18.0, min(56.0, 720.0 / Double(builds.count)))
        let width = left + step * Double(builds.count) + 8
        let peak = max(1, builds.map(\.fingerprints).max() ?? 1)
        func y(_ value: Int) -> Double { top + (height - top - bottom) * (1 - Double(value) / Double(peak)) }
        var svg = "<h2>Fingerprints per build</h2>\n<svg width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" "
            + "aria-label=\"fingerprints per build\">\n"
        svg += "<line x1=\"\(left)\" y1=\"\(y(0))\" x2=\"\(width - 4)\" y2=\"\(y(0))\" stroke=\"#999\"/>\n"
        svg += "<text x=\"\(left - 6)\" y=\"\(y(peak) + 4)\" text-anchor=\"end\">\(peak)</text>"
            + "<text x=\"\(left - 6)\" y=\"\(y(0) + 4)\" text-anchor=\"end\">0</text>\n"
        for (position, build) in builds.enumerated() {
            let x = left + step * Double(position) + step * 0.15, barWidth = step * 0.7
            let all = y(build.fingerprints), old = y(build.fingerprints - build.firstSeenHere)
            svg += "<rect x=\"\(x)\" y=\"\(all)\" width=\"\(barWidth)\" height=\"\(y(0) - all)\" fill=\"#9ab7e6\">"
                + "<title>build \(escape(build.build)): \(build.fingerprints) fingerprints, \(build.firstSeenHere) first seen here, "
                + "\(build.sessions) sessions</title></rect>\n"
            if build.firstSeenHere > 0 {
                svg += "<rect x=\"\(x)\" y=\"\(all)\" width=\"\(barWidth)\" height=\"\(old - all)\" fill=\"#d93025\"/>\n"
            }
            svg += "<text x=\"\(x + barWidth / 2)\" y=\"\(all - 3)\" text-anchor=\"middle\">\(build.fingerprints)</text>\n"
            svg += "<text x=\"\(x + barWidth / 2)\" y=\"\(y(0) + 14)\" text-anchor=\"middle\">\(escape(build.build))</text>\n"
            svg += "<text x=\"\(x + barWidth / 2)\" y=\"\(y(0) + 28)\" text-anchor=\"middle\" fill=\"#777\">\(build.sessions) sess.</text>\n"
        }
        svg += "</svg>\n<p class=\"sub\">Bar: fingerprints seen in the build (red: first seen there); under it, the build's sessions.</p>\n"
        return svg
    }

    /// `2026-11-26 13:57:52` for `2026-11-26T13:57:52.404Z`: the table's columns stay narrow (the JSON keeps the full time).
    private func shortTime(_ time: String) -> String {
        escape(String(time.prefix(19)).replacingOccurrences(of: "T", with: " "))
    }

    private func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
