import ArgumentParser
import Foundation

/// "Did you mean …?" for a mistyped subcommand or option.
///
/// ArgumentParser answers `tracectl leak T` with "2 unexpected arguments" (the root takes none) and
/// suggests an option only within an edit distance of 3, so `--severity` got no hint although
/// `--min-severity` ends with it. These hints are computed only once parsing has failed: a valid
/// command line never reaches them.
enum UsageHints {
    /// The names a first argument may have: every subcommand's, and `help`.
    static var commandNames: [String] {
        TraceCtl.configuration.subcommands.map { $0._commandName } + ["help"]
    }

    /// The closest of `candidates` to `typed`, if one is close enough to be what was meant: one that
    /// contains what was typed or is contained in it (`leak` in `leaks`, `severity` in `min-severity`),
    /// or one within a third of its length in edits (at least 2: `evnets` for `events`).
    static func closest(to typed: String, in candidates: [String]) -> String? {
        let word = typed.lowercased()
        guard !word.isEmpty else { return nil }
        let scored = candidates.compactMap { candidate -> (String, Int, Int)? in
            let name = candidate.lowercased()
            if name == word { return nil }
            let distance = editDistance(word, name)
            if word.count >= 3 && (name.contains(word) || word.contains(name)) { return (candidate, 0, distance) }
            guard distance <= max(2, word.count / 3) else { return nil }
            return (candidate, 1, distance)
        }
        // Containment first, then fewest edits, then the order given (the help's order).
        return scored.enumerated().min { a, b in
            (a.element.1, a.element.2, a.offset) < (b.element.1, b.element.2, b.offset)
        }?.element.0
    }

    /// The message for an unknown first argument, or `nil` when it is a command or an option.
    static func unknownCommand(_ arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), !commandNames.contains(first) else { return nil }
        let hint = closest(to: first, in: commandNames.filter { $0 != "help" })
            .map { "Did you mean '\($0)'?" }
            ?? "Commands: " + commandNames.filter { $0 != "help" }.joined(separator: ", ") + "."
        return """
            Error: Unknown command '\(first)'. \(hint)
            Usage: tracectl <subcommand>
              See 'tracectl --help' for more information.
            """
    }

    /// ArgumentParser's `message` with a suggestion added to its "Unknown option" line, when the
    /// subcommand named first has an option close to the one typed and ArgumentParser found none.
    static func withOptionSuggestion(_ message: String, arguments: [String]) -> String {
        guard let range = message.range(of: #"Unknown option '(-[^']+)'"#, options: .regularExpression),
              !message[range.upperBound...].hasPrefix(". Did you mean") else { return message }
        let typed = String(message[range].dropFirst("Unknown option '".count).dropLast())
        let command = arguments.first.flatMap { name in
            TraceCtl.configuration.subcommands.first { $0._commandName == name }
        } ?? TraceCtl.self
        let options = optionNames(of: command)
        let bare = typed.drop { $0 == "-" }
        guard let found = closest(to: String(bare), in: options.map { String($0.drop { $0 == "-" }) }),
              let option = options.first(where: { $0.drop { $0 == "-" } == found }) else { return message }
        var result = message
        result.replaceSubrange(range, with: message[range] + ". Did you mean '\(option)'?")
        return result
    }

    /// The long options a command's help lists (`--min-severity`), in the help's order.
    static func optionNames(of command: any ParsableCommand.Type) -> [String] {
        let help = command.helpMessage(columns: 10_000)
        var names: [String] = []
        var index = help.startIndex
        while let range = help.range(of: #"--[a-z][a-z0-9-]*"#, options: .regularExpression, range: index..<help.endIndex) {
            let name = String(help[range])
            if !names.contains(name) { names.append(name) }
            index = range.upperBound
        }
        return names
    }

    /// Levenshtein distance between two strings, by characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = a[i - 1] == b[j - 1] ? previous[j - 1] : 1 + min(previous[j - 1], previous[j], current[j - 1])
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
