import ArgumentParser
import Foundation
import TraceStore

extension TraceCtl {
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Count events per kind and message: fan-out, most-delivered observers, posts nobody heard.",
            discussion: """
                EXAMPLES:
                  tracectl stats login.trace
                  tracectl stats login.trace --format json
                """
        )

        @OptionGroup var options: TraceOptions

        func run() throws {
            let reader = try openTrace(options.trace)
            let stats = try reportingErrors {
                try TraceStats.compute(reader, session: try reader.session(options.session).id)
            }
            let out = Output()
            // Written out here, in the command, not when `out` is released: a failed write exits from here.
            defer { out.flush() }
            switch options.format {
            case .json:
                out.line(JSON.object([
                    ("kinds", .object(stats.kinds.map { ($0.kind.name, .int(Int64($0.count))) })),
                    ("messages", .array(stats.messages.map { m in
                        .object([("message", .string(m.message)), ("posts", .int(Int64(m.posts))),
                                 ("deliveries", .int(Int64(m.deliveries))), ("skips", .int(Int64(m.skips))),
                                 ("fanOut", .double(m.fanOut))])
                    })),
                    ("topObservers", .array(stats.topObservers.map { o in
                        .object([("observer", .from(o.observer)), ("message", .from(o.message)), ("owner", .from(o.owner)),
                                 ("callsite", .from(o.callSite)), ("deliveries", .int(Int64(o.deliveries)))])
                    })),
                    ("postsWithNoObserver", .object(stats.unheard.map { ($0.message, .int(Int64($0.posts))) })),
                ]).rendered)
            case .text:
                let style = Style.current
                out.line(style.bold("events by kind"))
                for (kind, count) in stats.kinds { out.line("  " + kind.name.padded(18) + String(count).leftPadded(10)) }
                out.line(style.bold("messages") + style.dim("  (posts, deliveries, skips, deliveries per post)"))
                for m in stats.messages {
                    out.line("  " + m.message.padded(26) + String(m.posts).leftPadded(8) + String(m.deliveries).leftPadded(10)
                             + String(m.skips).leftPadded(8) + String(format: "%10.2f", m.fanOut))
                }
                out.line(style.bold("most-delivered observers"))
                for o in stats.topObservers {
                    out.line("  " + String(o.observer).leftPadded(6) + "  " + (o.message ?? "every message").padded(24)
                             + (o.owner ?? "-").padded(14) + String(o.deliveries).leftPadded(8) + "  " + style.dim(o.callSite ?? ""))
                }
                out.line(style.bold("posts with no observer"))
                if stats.unheard.isEmpty { out.line("  none") }
                for (message, posts) in stats.unheard { out.line("  " + message.padded(26) + String(posts).leftPadded(8)) }
            }
        }
    }
}
