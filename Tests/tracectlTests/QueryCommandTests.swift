import Foundation
import Testing

@Suite struct QueryCommandTests {
    func demoTrace(_ dir: Scratch) throws -> String {
        let trace = dir.file("demo.trace")
        let run = try tracectl("demo", "-o", trace)
        #expect(run.status == 0, "\(run.stderr)")
        return trace
    }

    @Test func demoPrintsTheLeakReportAndNextCommands() throws {
        let dir = try Scratch()
        let trace = dir.file("demo.trace")
        let run = try tracectl("demo", "-o", trace)
        #expect(run.status == 0)
        #expect(run.stdout.contains("error    demo.json: screens.Login.observers[0]  LoginViewController\n"
            + "  error    observer-outlives-owner    keyboardWillShow  owner Login"))
        #expect(run.stdout.contains("2 bugs (2 errors), 6 findings: "))
        #expect(run.stdout.contains("tracectl timeline \(trace) -o timeline.html"))
        #expect(run.stdout.contains("tracectl events \(trace) --owner Login"))
        #expect(run.stdout.contains("2 observer-outlives-owner"))
    }

    @Test func demoWithoutOutputWritesATemporaryTrace() throws {
        let run = try tracectl("demo")
        #expect(run.status == 0)
        let path = try #require(run.stdout.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        #expect(try tracectl("verify", path).status == 0)
        try? FileManager.default.removeItem(atPath: path)
    }

    @Test func eventsFilterAndJSONCarryTheContractFields() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        let run = try tracectl("events", trace, "--owner", "Login", "--kind", "lifecycle", "--format", "json")
        #expect(run.status == 0)
        let events = try #require(try json(run.stdout) as? [[String: Any]])
        #expect(events.first?["phase"] as? String == "init")
        #expect(events.allSatisfy { $0["kind"] as? String == "lifecycle" && $0["owner"] as? String == "Login" && $0["seq"] is Int })
        #expect(events.compactMap { $0["phase"] as? String }.suffix(2) == ["removedFromHierarchy", "deinit"])
        let limited = try #require(try json(try tracectl("events", trace, "--since", "10", "--until", "20", "--limit", "3", "--format", "json").stdout) as? [[String: Any]])
        #expect(limited.compactMap { $0["seq"] as? Int } == [10, 11, 12])
        let posts = try #require(try json(try tracectl("events", trace, "--kind", "posted", "--message", "keyboardWillShow", "--format", "json").stdout) as? [[String: Any]])
        #expect(posts.count == 2)
        #expect((posts.first?["payload"] as? [String: Any])?["curve"] as? Int == 7)
        #expect(try tracectl("events", trace, "--since", "20", "--until", "10").status == 64)
    }

    /// A filter that matches nothing still exits 0 with an empty log, and says so on stderr, as
    /// `timeline` does for an empty window; for an owner label no owner has, it names the label that
    /// differs only in case.
    @Test func eventsMatchingNothingSaySoOnStderr() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        let login = try tracectl("events", trace, "--owner", "login")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.isEmpty)
        #expect(login.stderr == "tracectl: note: no event of session 1 matches --owner login; no owner is labelled 'login' "
                + "(labels match case: did you mean 'Login'?)\n")
        let json = try tracectl("events", trace, "--kind", "posted", "--owner", "Nobody", "--format", "json")
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout == "[]\n")
        #expect(json.stderr == "tracectl: note: no event of session 1 matches --kind posted --owner Nobody; no owner is labelled 'Nobody'\n")
        let late = try tracectl("events", trace, "--since", "5000")
        #expect(late.status == 0 && late.stdout.isEmpty)
        #expect(late.stderr == "tracectl: note: no event of session 1 matches --since 5000\n")
        // Something printed, or nothing asked for: no note.
        let some = try tracectl("events", trace, "--owner", "Login", "--limit", "1")
        #expect(some.status == 0 && !some.stdout.isEmpty && some.stderr.isEmpty, "\(some.stderr)")
        let none = try tracectl("events", trace, "--limit", "0")
        #expect(none.status == 0 && none.stdout.isEmpty && none.stderr.isEmpty, "\(none.stderr)")
    }

    @Test func observersAtAPointAreRebuiltFromTheLog() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        let leaks = try #require(try json(try tracectl("leaks", trace, "--format", "json").stdout) as? [String: Any])
        let gone = try #require((leaks["leaks"] as? [[String: Any]])?.compactMap { $0["ownerGoneAt"] as? Int }.first)
        let run = try tracectl("observers", trace, "--at", String(gone), "--format", "json")
        let state = try #require(try json(run.stdout) as? [String: Any])
        let observers = try #require(state["observers"] as? [[String: Any]])
        let login = observers.filter { $0["owner"] as? String == "Login" }
        #expect(login.map { $0["message"] as? String } == ["keyboardWillShow", "keyboardWillHide"])
        #expect(login.allSatisfy { $0["ownerGone"] as? Bool == true })
        let before = try #require(try json(try tracectl("observers", trace, "--at", "5", "--format", "json").stdout) as? [String: Any])
        #expect((before["observers"] as? [Any])?.isEmpty == true)
    }

    @Test func sqlIsReadOnly() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        let count = try tracectl("sql", trace, "SELECT count(*) AS n FROM events")
        #expect(count.status == 0)
        let write = try tracectl("sql", trace, "DELETE FROM events")
        #expect(write.status == 64)
        #expect(write.stderr.contains("read-only"))
        #expect(try tracectl("sql", trace, "SELECT count(*) AS n FROM events").stdout == count.stdout)
        let live = try #require(try json(try tracectl("sql", trace, "SELECT message, owner_label FROM observers WHERE removed_seq IS NULL", "--format", "json").stdout) as? [[String: Any]])
        #expect(live.map { $0["owner_label"] as? String } == ["Home"])
        // The popped Login's observers were removed by the bus when a post found Login gone.
        let gone = try #require(try json(try tracectl("sql", trace, "SELECT message, owner_label FROM observers WHERE removal_reason = 'ownerGone' ORDER BY observer", "--format", "json").stdout) as? [[String: Any]])
        #expect(gone.map { $0["message"] as? String } == ["keyboardWillShow", "keyboardWillHide"])
    }

    /// A statement that writes nothing but is not a query either is refused before it runs, as a usage
    /// error: ATTACH would open another file (and exit 66 when it cannot), the others change the connection.
    @Test func sqlRefusesStatementsThatReturnNoColumns() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        let attached = dir.file("attached.db")
        for statement in ["ATTACH '\(attached)' AS x", "ATTACH '\(trace)' AS x", "DETACH x", "BEGIN", "PRAGMA query_only = 0"] {
            for format in ["text", "json"] {
                let run = try tracectl("sql", trace, statement, "--format", format)
                #expect(run.status == 64, "\(statement): \(run.stderr)")
                #expect(run.stderr == "tracectl: only queries are allowed, and `\(statement)` returns no columns "
                        + "(ATTACH, DETACH, transactions and PRAGMAs that set are refused)\n")
                #expect(run.stdout.isEmpty, "\(statement): \(run.stdout)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: attached))
        // A PRAGMA that reads is a query.
        let read = try tracectl("sql", trace, "PRAGMA user_version")
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout == "user_version\n0\n")
    }

    @Test func statsAndVerifyAndSessions() throws {
        let dir = try Scratch()
        let trace = try demoTrace(dir)
        let stats = try #require(try json(try tracectl("stats", trace, "--format", "json").stdout) as? [String: Any])
        let kinds = try #require(stats["kinds"] as? [String: Int])
        #expect(kinds["skipped"] == 2)
        #expect((stats["postsWithNoObserver"] as? [String: Int])?["keyboardWillChangeFrame"] == 4)
        let verify = try tracectl("verify", trace)
        #expect(verify.status == 0)
        #expect(verify.stdout.contains("ended cleanly: ok"))
        #expect(try tracectl("sessions", trace).stdout.contains("demo-main-tabs-login"))
    }

    @Test func everyCommandHasHelpWithExamples() throws {
        for command in ["demo", "record", "leaks", "sessions", "events", "observers", "stats", "sql", "verify"] {
            let run = try tracectl("help", command)
            #expect(run.status == 0)
            #expect(run.stdout.contains("EXAMPLES:"), "\(command)")
        }
    }
}
