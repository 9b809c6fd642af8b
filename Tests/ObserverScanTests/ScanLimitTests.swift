import Foundation
import NotifyBus
import ObserverScan
import Testing
import TestSupport
import TraceStore

/// What the scan cannot resolve is a note, never a finding; what it cannot read is a warning,
/// and the rest of the scan goes on; hostile input never traps.
@Suite struct ScanLimitTests {
    private func scan(_ files: [String: String], in directory: TemporaryDirectory, target: String? = nil) throws -> ScanReport {
        for (name, text) in files {
            let path = directory.file(name)
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
        return try ObserverScan.scan(ScanOptions(paths: [directory.path], sourceRoot: directory.path, deploymentTarget: target))
    }

    @Test func aHelperOutsideTheScannedCodeIsANoteNotAFinding() throws {
        let directory = try TemporaryDirectory()
        let report = try scan(["Chat.swift": """
            import UIKit
            final class ChatViewController: UIViewController {
                override func viewDidLoad() {
                    super.viewDidLoad()
                    registerForKeyboardNotifications()
                    NotificationCenter.default.removeObserver(self, name: UIResponder.keyboardWillShowNotification, object: nil)
                }
            }
            """], in: directory)
        #expect(report.findings.filter { $0.severity != .note }.isEmpty, "\(report.findings.map(\.text))")
        #expect(report.notes.contains { $0.text.contains("registerForKeyboardNotifications") && $0.location.line == 5 })
    }

    @Test func aComputedNameIsANote() throws {
        let directory = try TemporaryDirectory()
        let report = try scan(["Dynamic.swift": """
            import UIKit
            final class DynamicViewController: UIViewController {
                var eventName = "x"
                override func viewDidLoad() {
                    super.viewDidLoad()
                    NotificationCenter.default.addObserver(self, selector: #selector(handle), name: Notification.Name(eventName), object: nil)
                }
                @objc func handle() {}
            }
            """], in: directory)
        #expect(report.findings.isEmpty)
        #expect(report.notes.map(\.location.line) == [6])
        #expect(report.notes.first?.text.contains("cannot be resolved") == true)
    }

    @Test func objectiveCFilesAreNotedAndNotRead() throws {
        let directory = try TemporaryDirectory()
        let report = try scan(["Legacy.m": "@implementation Legacy\n@end\n", "Legacy.h": "@interface Legacy\n@end\n"], in: directory)
        #expect(report.files == 0)
        #expect(report.notes.contains { $0.text.contains("2 Objective-C file(s) not scanned") })
    }

    @Test func aFileThatDoesNotParseIsAWarningAndTheScanGoesOn() throws {
        let directory = try TemporaryDirectory()
        let report = try scan([
            "Broken.swift": "class Broken: UIViewController {\n    func viewDidLoad( {\n",
            "Good.swift": """
                import UIKit
                final class GoodViewController: UIViewController {
                    override func viewDidLoad() {
                        super.viewDidLoad()
                        NotificationCenter.default.addObserver(forName: .init("Refresh"), object: nil, queue: nil) { [weak self] _ in
                            self?.view.setNeedsLayout()
                        }
                    }
                }
                """,
        ], in: directory)
        #expect(report.warnings.map(\.path) == ["Broken.swift"])
        #expect(report.warnings.first?.text.contains("does not parse") == true)
        #expect(report.findings.map { "\($0.rule.rawValue) \($0.location)" }
                == ["delivery-after-owner-gone Good.swift:5", "observer-outlives-owner Good.swift:5"])
    }

    @Test func invalidUTF8IsAWarning() throws {
        let directory = try TemporaryDirectory()
        try Data([0x63, 0x6C, 0x61, 0x73, 0x73, 0x20, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: directory.file("Bad.swift")))
        let report = try ObserverScan.scan(ScanOptions(paths: [directory.path], sourceRoot: directory.path))
        #expect(report.warnings.map(\.text) == ["not valid UTF-8: skipped"])
    }

    @Test func deepNestingAndLongChainsNeverTrap() throws {
        let directory = try TemporaryDirectory()
        let parentheses = String(repeating: "(", count: 50_000) + String(repeating: ")", count: 50_000)
        let chain = "let x = a" + String(repeating: ".b", count: 60_000)
        let closures = String(repeating: "{ ", count: 5_000) + String(repeating: "} ", count: 5_000)
        let report = try scan([
            "Parens.swift": "let p = \(parentheses)\n",
            "Chain.swift": "class C: UIView {\n func f() {\n \(chain)\n }\n}\n",
            "Closures.swift": "let c = \(closures)\n",
        ], in: directory)
        #expect(report.files == 3)
        #expect(Set(report.warnings.map(\.path)).isSubset(of: ["Parens.swift", "Chain.swift", "Closures.swift"]))
    }

    @Test func aHugeFileIsSkippedWithAWarning() throws {
        let directory = try TemporaryDirectory()
        let line = "// " + String(repeating: "x", count: 1_000) + "\n"
        let text = String(repeating: line, count: (ObserverScan.maximumFileSize / line.utf8.count) + 2)
        let report = try scan(["Huge.swift": text], in: directory)
        #expect(report.warnings.map(\.text) == ["larger than 8 MiB: skipped"])
    }

    @Test func aSymbolicLinkLoopEnds() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("a/b"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.file("a/b/loop"), withDestinationPath: directory.file("a"))
        try FileManager.default.createSymbolicLink(atPath: directory.file("a/self"), withDestinationPath: ".")
        try Data("final class A {}\n".utf8).write(to: URL(fileURLWithPath: directory.file("a/b/A.swift")))
        let report = try ObserverScan.scan(ScanOptions(paths: [directory.path], sourceRoot: directory.path))
        #expect(report.files == 1)
    }

    @Test func aFolderWithNoSwiftSaysSo() throws {
        let directory = try TemporaryDirectory()
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: directory.file("README.md")))
        let report = try ObserverScan.scan(ScanOptions(paths: [directory.path], sourceRoot: directory.path))
        #expect(report.files == 0 && report.findings.isEmpty)
        #expect(report.notes.map(\.text) == ["no Swift files to scan"])
    }

    @Test func aMissingPathIsAnError() throws {
        #expect(throws: ScanError.self) { try ObserverScan.scan(ScanOptions(paths: ["/nonexistent/path/x"])) }
    }

    @Test func theDeploymentTargetIsReadFromAnXcodeProject() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("App.xcodeproj"), withIntermediateDirectories: true)
        try Data("IPHONEOS_DEPLOYMENT_TARGET = 12.0;\nIPHONEOS_DEPLOYMENT_TARGET = 8.0;\n".utf8)
            .write(to: URL(fileURLWithPath: directory.file("App.xcodeproj/project.pbxproj")))
        let report = try scan(["Legacy.swift": """
            import UIKit
            final class LegacyViewController: UIViewController {
                override func viewDidLoad() {
                    super.viewDidLoad()
                    NotificationCenter.default.addObserver(self, selector: #selector(sync), name: .init("Sync"), object: nil)
                }
                @objc func sync() {}
            }
            """], in: directory)
        #expect(report.deploymentTarget?.version == "8.0")
        #expect(report.selectorSemantics == .legacy)
        #expect(report.findings.map(\.rule) == [.deliveryAfterOwnerGone, .observerOutlivesOwner])
    }

    @Test func theDeploymentTargetIsReadFromAPackageManifest() {
        let directory = try! TemporaryDirectory()
        try! Data("platforms: [.iOS(.v13), .macOS(.v12)]".utf8).write(to: URL(fileURLWithPath: directory.file("Package.swift")))
        #expect(DeploymentTarget.find(in: [directory.path])?.version == "13")
        #expect(DeploymentTarget.find(in: [directory.path])?.selectorSemantics == .modern)
    }

    /// The manifest and project are read by hand (no `Regex`): the forms Xcode and SwiftPM write,
    /// white space and newlines between the parts, and near misses that say nothing.
    @Test(arguments: [
        ("platforms: [.iOS(.v12_4)]", "12.4"), ("platforms: [.iOS( .v15\n )]", "15"), (".iOS(\"8.0\")", "8.0"),
        (".iOS( \"10.3.1\" ), .iOS(.v11)", "10.3.1"), (".iOS(.v12_)", nil), (".iOS(.v)", nil), (".iOS(\"9.\")", nil),
        (".iOS(.v13) .iOS(.v9)", "9"), (".iOS(v13)", nil), ("", nil),
    ] as [(String, String?)])
    func manifestForms(_ manifest: String, _ version: String?) throws {
        let directory = try TemporaryDirectory()
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: directory.file("Package.swift")))
        #expect(DeploymentTarget.find(in: [directory.path])?.version == version)
    }

    @Test(arguments: [
        ("IPHONEOS_DEPLOYMENT_TARGET = 12.0;", "12.0"), ("IPHONEOS_DEPLOYMENT_TARGET=\"9.3\";", "9.3"),
        ("IPHONEOS_DEPLOYMENT_TARGET =\n\t15;", "15"), ("IPHONEOS_DEPLOYMENT_TARGET = 12.0.;", nil),
        ("IPHONEOS_DEPLOYMENT_TARGET = $(INHERITED);", nil), ("IPHONEOS_DEPLOYMENT_TARGET = 14.0", nil),
        ("IPHONEOS_DEPLOYMENT_TARGET = 16.0; IPHONEOS_DEPLOYMENT_TARGET = 13.4;", "13.4"),
    ] as [(String, String?)])
    func projectForms(_ project: String, _ version: String?) throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("App.xcodeproj"), withIntermediateDirectories: true)
        try Data(project.utf8).write(to: URL(fileURLWithPath: directory.file("App.xcodeproj/project.pbxproj")))
        #expect(DeploymentTarget.find(in: [directory.path])?.version == version)
    }

    /// Classes that observe alike share their recorded journeys (in memory): each still gets its
    /// own findings at its own lines, and the report is the one of journeys recorded one by one.
    @Test func classesThatObserveAlikeEachKeepTheirOwnLines() throws {
        let screen = { (name: String) in """
            import UIKit
            final class \(name): UIViewController {
                override func viewDidLoad() {
                    super.viewDidLoad()
                    NotificationCenter.default.addObserver(forName: UIResponder.keyboardWillShowNotification, object: nil, queue: nil) { _ in
                        self.view.setNeedsLayout()
                    }
                }
            }
            """ }
        let directory = try TemporaryDirectory()
        let report = try scan(["A.swift": screen("FirstViewController"),
                               "B.swift": "// padding\n// padding\n" + screen("SecondViewController")], in: directory)
        let kept = try TemporaryDirectory()
        let recorded = try ObserverScan.scan(ScanOptions(paths: [directory.path], sourceRoot: directory.path, keepTraces: kept.path))
        #expect(report.findings.map { "\($0.type) \($0.location)" }.sorted()
                == recorded.findings.map { "\($0.type) \($0.location)" }.sorted())
        #expect(Set(report.findings.map { "\($0.type) \($0.location)" }) == [
            "FirstViewController A.swift:5", "SecondViewController B.swift:7",
        ])
        #expect(report.findings.count == recorded.findings.count)
        #expect(report.findings.count >= 4)
    }
}

/// The scanner reads node text with its own `trimmedText` (swift-syntax's `trimmedDescription`
/// copies the tree twice): the two agree on every node of every fixture, and of hostile text.
@Suite struct TrimmedTextTests {
    @Test func trimmedTextIsTrimmedDescriptionOnEveryFixtureNode() throws {
        let files = try FileManager.default.subpathsOfDirectory(atPath: fixtures).filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 30)
        for file in files {
            let source = try String(contentsOfFile: fixtures + "/" + file, encoding: .utf8)
            #expect(trimmedTextDisagreements(in: source).isEmpty, "\(file)")
        }
    }

    @Test(arguments: ["", "   ", "// only a comment\n", "class A { func f() { let x = [1, 2,", "}}}", "let é = \"ü\" /* ü */ + 😀 // end",
                      "#if os(iOS)\n  class B {}\n#else\n  struct C {}\n#endif\n", "NotificationCenter.default.addObserver(self, selector: #selector(f), name: .x, object: nil)"])
    func trimmedTextIsTrimmedDescriptionOnOddText(_ source: String) {
        #expect(trimmedTextDisagreements(in: source).isEmpty)
    }
}

/// swift-syntax 603's parser takes time that doubles with each `[` of a run (found by fuzzing the
/// scanner: 24 took 3 s, the fuzzer's inputs minutes): such a file is a warning, and the scan goes on.
@Suite(.timeLimit(.minutes(1))) struct BracketRunTests {
    @Test func aLongRunOfBracketsIsSkippedWithAWarning() throws {
        let source = "import UIKit\nlet x = " + String(repeating: "[ ", count: 40) + "\n"
        let report = try ObserverScan.scan(source: Data(source.utf8), path: "Brackets.swift")
        #expect(report.warnings.count == 1)
        #expect(report.warnings.first?.text.contains("40 `[` in a row") == true)
        #expect(report.exitCode(minimumSeverity: .note) == 3, "a file not read is never a clean scan")
    }

    @Test func nestedLiteralsAndTypesOfRealCodeAreRead() throws {
        let source = """
            import UIKit
            final class Grid: UIViewController {
                let cells: [[[String: [Int]]]] = [[[["a": [1, 2]]]]]
                override func viewDidLoad() {
                    super.viewDidLoad()
                    NotificationCenter.default.addObserver(self, selector: #selector(shown), name: UIResponder.keyboardWillShowNotification, object: nil)
                }
                @objc func shown() {}
            }
            """
        let report = try ObserverScan.scan(source: Data(source.utf8), path: "Grid.swift")
        #expect(report.warnings.isEmpty)
        #expect(report.modelled == 1)
    }
}

/// The scan's exit code says what it saw: 1 findings, 0 none, 3 when a file was not read (or there was
/// no Swift file), whatever the findings: a clean exit only for a scan that read everything.
@Suite struct ScanExitCodeTests {
    @Test func findingsOneNoneZero() throws {
        let bug = try ObserverScan.scan(ScanOptions(paths: [fixtures + "/strong-self-block.swift"], sourceRoot: fixtures))
        #expect(bug.exitCode(minimumSeverity: .note) == 1)
        let fixed = try ObserverScan.scan(ScanOptions(paths: [fixtures + "/strong-self-block-fixed.swift"], sourceRoot: fixtures))
        #expect(fixed.exitCode(minimumSeverity: .note) == 0)
    }

    @Test func aFileNotReadOrNoSwiftIsThree() throws {
        let directory = try TemporaryDirectory()
        let empty = try ObserverScan.scan(ScanOptions(paths: [directory.path], sourceRoot: directory.path))
        #expect(empty.exitCode(minimumSeverity: .note) == 3)
        try Data("class A {\n".utf8).write(to: URL(fileURLWithPath: directory.file("Broken.swift")))
        try FileManager.default.copyItem(atPath: fixtures + "/strong-self-block.swift", toPath: directory.file("Popup.swift"))
        let partial = try ObserverScan.scan(ScanOptions(paths: [directory.path], sourceRoot: directory.path))
        #expect(!partial.findings.isEmpty && partial.warnings.count == 1)
        #expect(partial.exitCode(minimumSeverity: .note) == 3)
    }
}
