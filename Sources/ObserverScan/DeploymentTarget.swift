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
        // `.iOS(.v12)`, `.iOS(.v12_4)`, `.iOS("8.0")`: read by hand, as Swift's `Regex` took a tenth of
        // a scan's serial time on a large project file.
        return versions(in: Array(text.utf8), after: ".iOS(") { reader in
            reader.skipSpace()
            if reader.take(".v") {
                guard let major = reader.digits() else { return nil }
                let minor = reader.take("_") ? reader.digits() : nil
                if minor == nil, reader.previous == UInt8(ascii: "_") { return nil }
                reader.skipSpace()
                return reader.take(")") ? minor.map { "\(major).\($0)" } ?? major : nil
            }
            guard reader.take("\""), let version = reader.dottedDigits(), reader.take("\"") else { return nil }
            reader.skipSpace()
            return reader.take(")") ? version : nil
        }.map { DeploymentTarget(version: $0, source: path) }
    }

    private static func fromProjects(in folder: String) -> [DeploymentTarget] {
        guard folder.hasSuffix(".xcodeproj") else { return [] }
        let path = folder + "/project.pbxproj"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        // `IPHONEOS_DEPLOYMENT_TARGET = 12.0;`, quoted or not.
        return versions(in: Array(text.utf8), after: "IPHONEOS_DEPLOYMENT_TARGET") { reader in
            reader.skipSpace()
            guard reader.take("=") else { return nil }
            reader.skipSpace()
            _ = reader.take("\"")
            guard let version = reader.dottedDigits() else { return nil }
            _ = reader.take("\"")
            reader.skipSpace()
            return reader.take(";") ? version : nil
        }.map { DeploymentTarget(version: $0, source: path) }
    }

    /// What `read` makes of the text after each place `marker` stands, where it makes something.
    private static func versions(in bytes: [UInt8], after marker: String, _ read: (inout Reader) -> String?) -> [String] {
        let pattern = Array(marker.utf8)
        var result: [String] = []
        var index = 0
        while index + pattern.count <= bytes.count {
            if bytes[index] == pattern[0], bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
                var reader = Reader(bytes: bytes, index: index + pattern.count)
                if let version = read(&reader) { result.append(version) }
                index += pattern.count
            } else {
                index += 1
            }
        }
        return result
    }

    /// A cursor over a manifest's or project's bytes.
    struct Reader {
        let bytes: [UInt8]
        var index: Int

        var previous: UInt8? { index > 0 ? bytes[index - 1] : nil }

        /// White space, newlines included (as the patterns' `\s*`).
        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C].contains(bytes[index]) { index += 1 }
        }

        mutating func take(_ text: String) -> Bool {
            let pattern = Array(text.utf8)
            guard index + pattern.count <= bytes.count, bytes[index..<(index + pattern.count)].elementsEqual(pattern) else {
                return false
            }
            index += pattern.count
            return true
        }

        mutating func digits() -> String? {
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }

        /// `12`, `12.4`, `8.0.1`.
        mutating func dottedDigits() -> String? {
            guard var text = digits() else { return nil }
            while index + 1 < bytes.count, bytes[index] == UInt8(ascii: "."), (0x30...0x39).contains(bytes[index + 1]) {
                index += 1
                text += "." + digits()!
            }
            return text
        }
    }
}
