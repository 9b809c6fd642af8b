import Foundation
public import NotifyBus

/// The iOS deployment target, which decides what a selector observer of a released target does:
/// before iOS 9 the center messaged the deallocated object (a crash), since then it drops it.
public struct DeploymentTarget: Sendable, Hashable {
    /// `9.0`, `15`: as written.
    public var version: String
    /// Where it was read: an option, a `Package.swift`, a `project.pbxproj`.
    public var source: String

    public init(version: String, source: String) {
        self.version = version
        self.source = source
    }

    /// The major version, if the text has one.
    public var major: Int? { version.split(separator: ".").first.flatMap { Int($0) } }

    /// Legacy before iOS 9, modern from it (and when unknown).
    public var selectorSemantics: SelectorSemantics { (major ?? 9) < 9 ? .legacy : .modern }

    /// Reads the target from a `Package.swift` (`.iOS(.v12)`, `.iOS("8.0")`) or an Xcode project's
    /// `IPHONEOS_DEPLOYMENT_TARGET` (the lowest, when configurations differ) in `folders` or one level
    /// below them; `nil` when none says.
    public static func find(in folders: [String]) -> DeploymentTarget? {
        var found: [DeploymentTarget] = []
        for folder in folders {
            var candidates = [folder]
            if let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) {
                candidates += entries.sorted().filter { !$0.hasPrefix(".") }.map { folder + "/" + $0 }
            }
            for candidate in candidates {
                found += fromPackage(candidate + "/Package.swift")
                found += fromProjects(in: candidate)
            }
            if !found.isEmpty { break }
        }
        return found.min { ($0.major ?? 99, $0.version) < ($1.major ?? 99, $1.version) }
    }

    private static func fromPackage(_ path: String) -> [DeploymentTarget] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        var result: [DeploymentTarget] = []
        for match in text.matches(of: /\.iOS\(\s*\.v(\d+)(?:_(\d+))?\s*\)/) {
            result.append(DeploymentTarget(version: match.2.map { "\(match.1).\($0)" } ?? String(match.1), source: path))
        }
        for match in text.matches(of: /\.iOS\(\s*"(\d+(?:\.\d+)*)"\s*\)/) {
            result.append(DeploymentTarget(version: String(match.1), source: path))
        }
        return result
    }

    private static func fromProjects(in folder: String) -> [DeploymentTarget] {
        guard folder.hasSuffix(".xcodeproj") else { return [] }
        let path = folder + "/project.pbxproj"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.matches(of: /IPHONEOS_DEPLOYMENT_TARGET\s*=\s*"?(\d+(?:\.\d+)*)"?\s*;/).map {
            DeploymentTarget(version: String($0.1), source: path)
        }
    }
}
