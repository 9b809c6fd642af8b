import ArgumentParser
import Testing
import TraceStore
@testable import tracectl

/// Every command's help: its prose is written as paragraphs, so ArgumentParser wraps it to the
/// terminal, and its examples fit in 80 columns, so nothing ArgumentParser cannot wrap breaks.
@Suite struct HelpTextTests {
    static let commands: [any ParsableCommand.Type] = [TraceCtl.self] + TraceCtl.configuration.subcommands

    /// A prose line (not indented, not a heading) followed by another in the same paragraph was
    /// broken by hand: printed at 80 columns it ends in mid-line.
    @Test(arguments: commands.map { $0._commandName })
    func proseIsOneLinePerParagraph(_ name: String) {
        let command = Self.commands.first { $0._commandName == name }!
        let lines = command.configuration.discussion.split(separator: "\n", omittingEmptySubsequences: false)
        func prose(_ line: Substring) -> Bool { !line.isEmpty && line.first != " " }
        for (line, next) in zip(lines, lines.dropFirst()) where prose(line) && prose(next) && !line.hasSuffix(":") {
            Issue.record("\(name): a paragraph broken by hand after \"\(line.suffix(30))\"")
        }
    }

    /// An indented line (an example, a table) is printed as it is: as wide as the 80 columns it is
    /// wrapped to, it breaks in the middle of a command.
    @Test(arguments: commands.map { $0._commandName })
    func indentedLinesFitInEightyColumns(_ name: String) {
        let command = Self.commands.first { $0._commandName == name }!
        for line in command.configuration.discussion.split(separator: "\n") where line.first == " " && line.count >= 80 {
            Issue.record("\(name): \(line.count) columns: \(line)")
        }
    }

    /// The leak rules' severities in `leaks --help` come from the rules, so a new rule is listed.
    @Test func leaksHelpNamesEveryRule() {
        let discussion = TraceCtl.Leaks.configuration.discussion
        for rule in LeakRule.allCases { #expect(discussion.contains(rule.rawValue), "\(rule)") }
    }

    /// `--help` shows each option's default as it would be typed (`default: note`), never the description
    /// of the Swift value behind it (`SeverityArgument(severity: …)`).
    @Test(arguments: commands.map { $0._commandName })
    func defaultsAreShownAsTyped(_ name: String) throws {
        let command = Self.commands.first { $0._commandName == name }!
        let help = TraceCtl.helpMessage(for: command, columns: 10_000)
        for match in help.matches(of: /default: ([^)\n]*)\)/) {
            let value = String(match.output.1)
            #expect(!value.contains("("), "\(name): default: \(value)")
        }
    }

    @Test func leaksHelpShowsTheSeverityDefaultByName() {
        let help = TraceCtl.helpMessage(for: TraceCtl.Leaks.self, columns: 10_000)
        #expect(help.contains("values: note, warning, error; default: note)"))
    }

    /// `replay` and `diff` name every exit code they can end with: 64 for a bad option or output,
    /// 66 for a missing file and 69 for a missing session among them.
    @Test func replayAndDiffHelpNameTheirExitCodes() {
        let replay = TraceCtl.Replay.configuration.discussion, diff = TraceCtl.Diff.configuration.discussion
        for code in [0, 1, 64, 65, 66, 69, 73] { #expect(replay.contains(" \(code) "), "replay: \(code)") }
        for code in [0, 1, 64, 65, 66, 69] { #expect(diff.contains(" \(code) "), "diff: \(code)") }
    }
}
