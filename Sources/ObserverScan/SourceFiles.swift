import Foundation

/// The files a scan reads, found under the paths it was given.
///
/// Directories are walked recursively; a symbolic link to a directory is followed once (a link
/// back to a directory already walked is skipped, so a loop ends); hidden folders and build or
/// dependency folders (`.build`, `Pods`, `Carthage`, `DerivedData`, `node_modules`) are skipped.
/// Objective-C files are counted, not read.
struct SourceFiles {
    /// Folders a scan does not enter: build products and third-party code.
    static let skippedFolders: Set<String> = [".build", "Pods", "Carthage", "DerivedData", "node_modules", "build"]
    /// Directory depth past which the walk stops (a warning says where).
    static let maximumDepth = 64

    /// Swift files, absolute paths, in a stable order.
    private(set) var swift: [String] = []
    /// Objective-C sources and headers seen.
    private(set) var objectiveC: [String] = []
    private(set) var warnings: [ScanWarning] = []
    private var visited: Set<String> = []

    /// Finds the files under `paths`.
    ///
    /// - Throws: ``ScanError`` `.missingInput` for a path that does not exist.
    init(paths: [String]) throws(ScanError) {
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw ScanError(.missingInput, "\(path): no such file or directory")
            }
            let absolute = Self.absolute(path)
            if isDirectory.boolValue {
                walk(absolute, depth: 0)
            } else {
                add(absolute, explicit: true)
            }
        }
        var seen = Set<String>()
        swift = swift.filter { seen.insert($0).inserted }
    }

    static func absolute(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.standardizedFileURL.path
    }

    private mutating func add(_ path: String, explicit: Bool) {
        let lower = path.lowercased()
        if lower.hasSuffix(".swift") {
            swift.append(path)
        } else if [".m", ".mm", ".h"].contains(where: lower.hasSuffix) {
            objectiveC.append(path)
        } else if explicit {
            warnings.append(ScanWarning(path: path, text: "not a Swift file: skipped"))
        }
    }

    private mutating func walk(_ directory: String, depth: Int) {
        guard depth < Self.maximumDepth else {
            warnings.append(ScanWarning(path: directory, text: "more than \(Self.maximumDepth) folders deep: not entered"))
            return
        }
        let real = (try? FileManager.default.destinationOfSymbolicLink(atPath: directory)).map { _ in
            URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        } ?? URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
        guard visited.insert(real).inserted else { return }   // a link back to a folder already walked
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            warnings.append(ScanWarning(path: directory, text: "cannot be listed: \(error.localizedDescription)"))
            return
        }
        for name in entries {
            let path = directory + "/" + name
            var isDirectory: ObjCBool = false
            // A dangling link or a file removed meanwhile: nothing to read.
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                if name.hasPrefix(".") || Self.skippedFolders.contains(name) || name.hasSuffix(".xcodeproj")
                    || name.hasSuffix(".xcassets") { continue }
                walk(path, depth: depth + 1)
            } else {
                add(path, explicit: false)
            }
        }
    }
}

/// A file the scan could not read, or read only in part: reported with its path, and the scan goes on.
public struct ScanWarning: Sendable, Hashable {
    public var path: String
    public var text: String
}
