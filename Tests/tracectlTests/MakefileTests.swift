import Foundation
import Testing

/// Whether `make` is here to run the Makefile with.
private let makeInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/make")

/// `make install` and `make uninstall` (README, "Install tracectl"), run for real into a temporary prefix
/// with products already built: `SWIFT=true` stands in for the build, `BIN_PATH` says where the products are.
@Suite(.enabled(if: makeInstalled, "needs make")) struct MakefileTests {
    @discardableResult
    func make(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/make")
        process.arguments = ["-C", repositoryFile("").path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A products folder holding the built tracectl and, when asked, a companion beside it.
    func products(_ dir: Scratch, companion: Bool) throws -> String {
        let bin = dir.file("products")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: productsDirectory().appendingPathComponent("tracectl").path,
                                         toPath: bin + "/tracectl")
        if companion {
            try Data("#!/bin/sh\necho scan \"$@\"\n".utf8).write(to: URL(fileURLWithPath: bin + "/tracectl-scan"))
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/tracectl-scan")
        }
        return bin
    }

    @Test func installPutsTracectlAndTheBuiltCompanionsInThePrefixAndUninstallRemovesThem() throws {
        let dir = try Scratch()
        let bin = try products(dir, companion: true)
        let prefix = dir.file("prefix with space")
        let install = try make(["install", "PREFIX=\(prefix)", "BIN_PATH=\(bin)", "SWIFT=true"])
        #expect(install.status == 0, "\(install.output)")
        #expect(install.output.contains("tracectl-fleet not built: skipped"), "\(install.output)")
        let installed = prefix + "/bin/tracectl"
        #expect(FileManager.default.isExecutableFile(atPath: installed))
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/tracectl-scan"))
        #expect(!FileManager.default.fileExists(atPath: prefix + "/bin/tracectl-fleet"))

        // The installed tracectl runs, and finds its companion beside it.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: installed)
        process.arguments = ["scan", "x"]
        process.environment = ["PATH": "/usr/bin:/bin"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 0 {
            #expect(output == "scan x\n")
        } else {
            // No `scan` subcommand in this checkout yet: tracectl says so as a usage error.
            #expect(process.terminationStatus == 64)
        }

        let uninstall = try make(["uninstall", "PREFIX=\(prefix)", "BIN_PATH=\(bin)", "SWIFT=true"])
        #expect(uninstall.status == 0, "\(uninstall.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: prefix + "/bin").isEmpty)
    }

    @Test func destdirStagesTheInstall() throws {
        let dir = try Scratch()
        let bin = try products(dir, companion: false)
        let stage = dir.file("stage")
        let install = try make(["install", "PREFIX=/usr/local", "DESTDIR=\(stage)", "BIN_PATH=\(bin)", "SWIFT=true"])
        #expect(install.status == 0, "\(install.output)")
        #expect(FileManager.default.isExecutableFile(atPath: stage + "/usr/local/bin/tracectl"))
        #expect(install.output.contains("tracectl-scan not built: skipped"))
    }
}
