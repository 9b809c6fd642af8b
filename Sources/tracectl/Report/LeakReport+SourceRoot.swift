import Foundation
import TraceStore

extension LeakReport {
    /// The SARIF log with every `%SRCROOT%` location made a path under `root`, so that code scanning
    /// annotates the file and line that added the observer: `App/Login.swift` (a `#fileID`) becomes
    /// `Sources/App/Login.swift`, a scenario recorded by its file name becomes `Examples/x.json` (the
    /// file under the root with the scenario text the session stored). A name that no file or several
    /// files fit is left as recorded. `%SRCROOT%` is described with the root's `file:` URI.
    func sarif(under root: SourceRoot, end: SessionEnd? = nil) -> JSON {
        var root = root
        var resolved: [String: String?] = [:]
        let scenario = session.scenario.map { Data($0.utf8) }
        func rewrite(_ json: JSON, scenarioLocation: Bool) -> JSON {
            switch json {
            case .array(let items):
                return .array(items.map { rewrite($0, scenarioLocation: scenarioLocation) })
            case .object(let fields):
                let keys = Set(fields.map(\.0))
                // A location with a logical location is a scenario's (LeakReport+SARIF).
                let isScenario = scenarioLocation || (keys.contains("physicalLocation") && keys.contains("logicalLocations"))
                if keys.contains("uriBaseId"), case .string(Self.sourceRoot)? = fields.first(where: { $0.0 == "uriBaseId" })?.1 {
                    return .object(fields.map { key, value in
                        guard key == "uri", case .string(let uri) = value else { return (key, value) }
                        let recorded = uri.removingPercentEncoding ?? uri
                        let cacheKey = (isScenario ? "s:" : "c:") + recorded
                        if resolved[cacheKey] == nil {
                            resolved[cacheKey] = .some(root.resolve(recorded, contents: isScenario ? scenario : nil))
                        }
                        guard let found = resolved[cacheKey] ?? nil else { return (key, value) }
                        return (key, .string(Self.uri(found)))
                    })
                }
                return .object(fields.map { key, value in
                    if key == "originalUriBaseIds" { return (key, sourceRootEntry(root)) }
                    return (key, rewrite(value, scenarioLocation: isScenario))
                })
            default:
                return json
            }
        }
        return rewrite(sarif(end: end), scenarioLocation: false)
    }

    /// `originalUriBaseIds` naming the root by its absolute `file:` URI (SARIF 2.1.0 §3.14.14: it ends with a slash).
    private func sourceRootEntry(_ root: SourceRoot) -> JSON {
        let uri = URL(fileURLWithPath: root.path, isDirectory: true).absoluteString
        return .object([(Self.sourceRoot, .object([
            ("uri", .string(uri.hasSuffix("/") ? uri : uri + "/")),
            ("description", .object([("text", .string("""
                The source root (\(root.origin)): each location is the path under it of the file that added \
                or removed the observer. Swift call sites are recorded as #fileID (Module/File.swift), scenarios by \
                the path tracectl record was given; each was looked up under the root by path, then by file name \
                (a Swift file in a folder named after its module, a scenario file with the text the session \
                recorded). One that no file or several files fit is left as recorded. \
                Choose the root with tracectl leaks --source-root DIR.
                """))])),
        ]))])
    }
}
