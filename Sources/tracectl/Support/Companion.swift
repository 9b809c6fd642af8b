import ArgumentParser
import Foundation

/// A companion executable: a `tracectl` subcommand whose dependencies are too heavy for the main binary.
///
/// `tracectl scan` needs swift-syntax and `tracectl push` needs postgres-nio; linking either into
/// `tracectl` would make the first `swift run tracectl demo` build them too (minutes on two cores).
/// So each lives in its own product, `tracectl-NAME`, installed beside `tracectl`, and the subcommand
/// replaces the `tracectl` process with it (as `git` runs `git-NAME`). The companion is found next to
/// the running executable first (`.build/debug/`, or wherever both were copied), then on `PATH`.
enum Companion {
    /// The companion's file name for a subcommand: `tracectl-scan` for `scan`.
    static func executableName(_ subcommand: String) -> String { "tracectl-\(subcommand)" }

    /// Where the companion is, or `nil` when it is neither beside `tracectl` nor on `PATH`.
    static func locate(_ subcommand: String) -> String? {
        let name = executableName(subcommand)
        var candidates: [String] = []
        if let own = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            candidates.append(own.deletingLastPathComponent().appendingPathComponent(name).path)
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") where !directory.isEmpty {
            candidates.append(String(directory) + "/" + name)
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Replaces this process with the companion, handing it `arguments` (the subcommand's own, without
    /// `tracectl SUBCOMMAND`). Standard input, output, error and the environment carry over; the exit
    /// code is the companion's. When the companion is missing, one line says how to build it and the
    /// process exits 78 (`EX_CONFIG`).
    static func exec(_ subcommand: String, arguments: [String]) -> Never {
        let name = executableName(subcommand)
        guard let path = locate(subcommand) else {
            diagnose("`tracectl \(subcommand)` runs \(name), which is not beside tracectl or on PATH: "
                     + "build it with `swift build --product \(name)` (or `-c release`), "
                     + "or install it next to tracectl (README, \"Install tracectl\")")
            exit(Exit.companionMissing.rawValue)
        }
        // Whatever `print` buffered must be out before the process image is replaced.
        fflush(nil)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        diagnose("cannot run \(path): \(String(cString: strerror(errno)))")
        exit(Exit.companionMissing.rawValue)
    }
}
