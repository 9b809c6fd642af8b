import Foundation
@_spi(Fuzzing) import ObserverScan
import Testing
import TestSupport
import TraceStore

/// A file with no observer code is read in outline (its bodies not walked) unless a class the
/// journeys run needs it: the report must be the one that walking every body gives.
@Suite struct OutlineTests {
    private func write(_ files: [String: String], in directory: TemporaryDirectory) throws {
        for (name, text) in files {
            try Data(text.utf8).write(to: URL(fileURLWithPath: directory.file(name)))
        }
    }

    private func reports(_ path: String, root: String) throws -> (outlines: String, budgetless: String, whole: String) {
        var options = ScanOptions(paths: [path], sourceRoot: root)
        let outlines = try ObserverScan.scan(options).json().rendered(pretty: true)
        options.outlineTreeBudget = 0   // every outline wanted whole is parsed again from its file
        let budgetless = try ObserverScan.scan(options).json().rendered(pretty: true)
        options.readsOutlines = false
        let whole = try ObserverScan.scan(options).json().rendered(pretty: true)
        return (outlines, budgetless, whole)
    }

    /// A base class that registers, its subclass, an extension and a protocol extension in files of
    /// their own with no observer word in them: each changes what the subclass's journeys record.
    static let linkedFiles: [String: String] = [
        "Base.swift": """
            import UIKit
            class BaseViewController: UIViewController {
                override func viewWillAppear(_ animated: Bool) {
                    super.viewWillAppear(animated)
                    NotificationCenter.default.addObserver(self, selector: #selector(shown), name: UIResponder.keyboardWillShowNotification, object: nil)
                    startListening()
                }
                override func viewWillDisappear(_ animated: Bool) {
                    super.viewWillDisappear(animated)
                    stopListening()
                }
                func startListening() {}
                func stopListening() {
                    NotificationCenter.default.removeObserver(self, name: UIResponder.keyboardWillShowNotification, object: nil)
                }
                @objc func shown() {}
            }
            """,
        // Never calls super: the base's registration never happens for this screen.
        "Quiet.swift": """
            import UIKit
            final class QuietViewController: BaseViewController {
                override func viewWillAppear(_ animated: Bool) {
                    title = "Quiet"
                }
            }
            """,
        // Overrides the removal with nothing, in an extension of its own file: the observer stays.
        "Sticky.swift": """
            import UIKit
            final class StickyViewController: BaseViewController, Refreshing {
                override func stopListening() {
                    timer = nil
                }
                var timer: Timer?
            }
            """,
        "Refreshing.swift": """
            protocol Refreshing: AnyObject {}
            extension Refreshing {
                func refresh() { print("refresh") }
            }
            """,
        // Two subclasses down, in files of their own: the first inherits the class that observes and
        // keeps its tree; the second is not guessed to matter while the files are read, and is parsed
        // again when the model wants it. It overrides the removal with nothing, as Sticky does.
        "Middle.swift": """
            import UIKit
            class MiddleViewController: BaseViewController {}
            """,
        "Deep.swift": """
            import UIKit
            final class DeepViewController: MiddleViewController {
                override func stopListening() {}
            }
            """,
        // Nothing to do with observers at all.
        "Plain.swift": """
            struct Plain { var value = 1 }
            final class Cache { var items: [Int] = []; func clear() { items = [] } }
            """,
    ]

    @Test func filesReadInOutlineGiveTheReportOfEveryBodyWalked() throws {
        let directory = try TemporaryDirectory()
        try write(Self.linkedFiles, in: directory)
        let (outlines, budgetless, whole) = try reports(directory.path, root: directory.path)
        #expect(outlines == whole)
        #expect(budgetless == whole)
        // The test means something only if the subclasses differ from their base.
        let report = try ObserverScan.scan(ScanOptions(paths: [directory.path], sourceRoot: directory.path))
        let found = Set(report.findings.flatMap { finding in
            ([finding.type] + finding.alsoIn).map { "\($0) \(finding.rule.rawValue) \(finding.location)" }
        })
        #expect(found == [
            "StickyViewController delivery-while-offscreen Base.swift:5",
            "StickyViewController duplicate-registration Base.swift:5",
            "DeepViewController delivery-while-offscreen Base.swift:5",
            "DeepViewController duplicate-registration Base.swift:5",
            "QuietViewController removal-misses-observer Base.swift:14",
        ])
        // `Cache` lets a collection go, which is no observer code: it is not modelled.
        #expect(report.types == 5)
    }

    /// A body walked late (no observer word in it, reached from a moment) that is deeper than the
    /// walk reads says so, as a body walked at once does.
    @Test func aBodyWalkedLateThatIsTooDeepIsReadInPart() throws {
        let directory = try TemporaryDirectory()
        let chain = "let x = a" + String(repeating: ".b", count: 3_000)
        try write(["Deep.swift": """
            import UIKit
            final class DeepViewController: UIViewController {
                override func viewDidLoad() {
                    super.viewDidLoad()
                    NotificationCenter.default.addObserver(self, selector: #selector(shown), name: UIResponder.keyboardWillShowNotification, object: nil)
                }
                override func viewWillAppear(_ animated: Bool) {
                    \(chain)
                }
                @objc func shown() {}
            }
            """], in: directory)
        var options = ScanOptions(paths: [directory.path], sourceRoot: directory.path)
        let late = try ObserverScan.scan(options)
        options.readsOutlines = false
        let atOnce = try ObserverScan.scan(options)
        #expect(atOnce.warnings.map(\.text) == ["nested deeper than the scan reads: read in part"])
        #expect(late.warnings.map(\.text) == atOnce.warnings.map(\.text))
        #expect(late.json().rendered() == atOnce.json().rendered())
    }

    /// A struct's or enum's bodies and properties are not read (the model runs classes), but the
    /// name constants it declares are: removed by the constant's value, the observer is matched.
    @Test func nameConstantsInAStructAreRead() throws {
        let directory = try TemporaryDirectory()
        let screen = """
            import UIKit
            final class LoginViewController: UIViewController {
                override func viewWillAppear(_ animated: Bool) {
                    super.viewWillAppear(animated)
                    NotificationCenter.default.addObserver(self, selector: #selector(loggedIn), name: AppNames.loginName, object: nil)
                }
                override func viewWillDisappear(_ animated: Bool) {
                    super.viewWillDisappear(animated)
                    NotificationCenter.default.removeObserver(self, name: Notification.Name("login"), object: nil)
                }
                @objc func loggedIn() {}
            }
            """
        try write(["Screen.swift": screen], in: directory)
        let alone = try ObserverScan.scan(ScanOptions(paths: [directory.path], sourceRoot: directory.path))
        #expect(alone.findings.map(\.rule) == [.duplicateRegistration, .removalMissesObserver])
        try write(["Names.swift": """
            import Foundation
            struct AppNames {
                static let loginName = Notification.Name("login")
                var cache: [Int] = []
                func helper() { print("helper") }
            }
            """], in: directory)
        let (outlines, budgetless, whole) = try reports(directory.path, root: directory.path)
        #expect(outlines == whole && budgetless == whole)
        let withConstants = try ObserverScan.scan(ScanOptions(paths: [directory.path], sourceRoot: directory.path))
        #expect(withConstants.findings.isEmpty)
    }

    /// One file alone (the fuzz target's entry), walked as read and walked when reached: one report.
    @Test func everyFixtureFileAloneReadsTheSameWhenBodiesWaitTillReached() throws {
        let names = try FileManager.default.subpathsOfDirectory(atPath: fixtures).filter { $0.hasSuffix(".swift") }
        for name in names {
            let data = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/" + name))
            for target in [nil, "8.0"] {
                let once = try ObserverScan.scan(source: data, path: name, deploymentTarget: target)
                let late = try ObserverScan.scan(source: data, path: name, deploymentTarget: target, walksBodiesWhenReached: true)
                #expect(once.json().rendered() == late.json().rendered(), "\(name) \(target ?? "modern")")
            }
        }
    }

    /// Classes that observe alike are recorded once, found alike by their builders' identity: it must
    /// be the same exactly when their scenarios are, on every fixture and on classes linked across files.
    @Test func identityIsWhatTheScenariosAreMadeOf() throws {
        #expect(try scenarioIdentityDisagreements(paths: [fixtures]) == [])
        let directory = try TemporaryDirectory()
        try write(Self.linkedFiles, in: directory)
        #expect(try scenarioIdentityDisagreements(paths: [directory.path]) == [])
    }

    /// A file with no observer word is parsed with its function bodies blanked: the same facts as
    /// parsing it as it is, on every fixture and linked file.
    @Test func everyFixtureReadsTheSameWithoutBodies() throws {
        let names = try FileManager.default.subpathsOfDirectory(atPath: fixtures).filter { $0.hasSuffix(".swift") }
        var used = 0
        for name in names {
            let result = outlineWithoutBodiesDisagreement(try Data(contentsOf: URL(fileURLWithPath: fixtures + "/" + name)))
            #expect(result.disagreement == nil, "\(name)")
            if result.used { used += 1 }
        }
        for (name, text) in Self.linkedFiles {
            let result = outlineWithoutBodiesDisagreement(Data(text.utf8))
            #expect(result.disagreement == nil, "\(name)")
        }
        #expect(used > names.count / 2)
    }

    /// What the blanker must read past to find a body's end, and what makes it give up (then the file
    /// is parsed as it is): the facts are the same either way.
    @Test(arguments: [
        ("class A { func f() { let s = \"}\" } }", true),
        ("class A { func f() { let s = \"\\(g(\"}\")) }\" } }", true),
        ("class A { func f() { let s = #\"}\\(x)\"# } }", true),
        ("class A { func f() { let s = ##\"\"#}\"## } }", true),
        ("class A {\n func f() {\n let s = \"\"\"\n }\n \"\"\"\n }\n}", true),
        ("class A { func f() { /* } /* { */ } */ } }", true),
        ("class A { func f() { // }\n } }", true),
        ("class A { func f() { let r = #/}/# } }", true),
        // A regex literal inside an interpolation: the interpolation is walked as a body's braces are.
        ("class A { func f() { let s = \"\\(g(#/)}/#))\" } }", true),
        ("class A {\n init?(x: Int = { 1 }()) { }\n deinit { print(1) }\n}", true),
        ("protocol P { func f()\n func g() -> Int }\nextension P { func f() { } }", true),
        ("class A { static let n = Notification.Name(\"n\"); func f() { g(func: 1) } }", true),
        ("class A {\n var x: Int { get { 1 } }\n func f<T>(_ t: T) where T: Equatable { }\n}", true),
        ("class A {\n lazy var x: Int = { func g() -> Int { 2 }; return g() }()\n func f() { print(x) }\n}", true),
        ("class A { func f() { let r = /}/ } }", false),
        ("class A { func f() { let s = \"\\(\" }", false),
        ("class A { func f() {", false),
        ("class A { func `f", false),   // found by Scripts/fuzz.sh scan: the text ends in a backtick name
        // Found by the fuzzer too: a free function's body is read for its registrations, blanked or not.
        ("func setUp() {\n NotificationCenter.default.addObserver(forName: .init(\"x\"), object: nil, queue: nil) { _ in }\n}", true),
        ("struct S { let x = 1 }", true),
    ])
    func theBlankerReadsPastWhatHidesABrace(_ source: String, used: Bool) {
        let result = outlineWithoutBodiesDisagreement(Data(source.utf8))
        #expect(result.disagreement == nil)
        #expect(result.used == used)
    }

    @Test func everyFixtureReadsTheSameInOutline() throws {
        let (outlines, budgetless, whole) = try reports(fixtures, root: fixtures)
        #expect(outlines == whole)
        #expect(budgetless == whole)
    }

    /// The scanner trims text without Foundation's `trimmingCharacters` (through `NSString` here):
    /// the same result on what conditions and types are made of.
    @Test(arguments: ["  a b \t", "\u{00A0}x\u{2003}", "", "   ", "é ", "\tif x {\u{3000}"])
    func trimmingIsFoundations(_ text: String) {
        #expect(trimmedWhiteSpace(text) == text.trimmingCharacters(in: .whitespaces))
    }

    @Test(arguments: [
        "a\nb\r\nc\rd\n\n\r\r\ne", "", "\n", "\r", "\r\n", "let x = 1", "/* a\r\nb */ let y = \"\"\"\nz\r\n\"\"\"\n",
        "let é = \"ü\" // 😀\r\nlet f = 2\u{2028}let g = 3\n",
    ])
    func sourceLinesAgreeWithTheConverter(_ source: String) {
        #expect(sourceLineDisagreements(in: source) == [])
    }

    @Test func sourceLinesAgreeWithTheConverterOnEveryFixture() throws {
        let names = try FileManager.default.subpathsOfDirectory(atPath: fixtures).filter { $0.hasSuffix(".swift") }
        #expect(!names.isEmpty)
        for name in names {
            let text = try String(contentsOfFile: fixtures + "/" + name, encoding: .utf8)
            #expect(sourceLineDisagreements(in: text) == [], "\(name)")
        }
    }
}
