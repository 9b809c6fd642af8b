/// How serious a finding is, the same three levels SARIF uses.
///
/// Ordered: `note < warning < error`, so `--min-severity warning` keeps warnings and errors.
public enum LeakSeverity: String, Sendable, CaseIterable, Codable, Comparable {
    /// Harmless on its own, shown because it reveals confusion about what is registered.
    case note
    /// Wasted or wrong work that does not keep anything alive: a handler running when
    /// its screen is covered, twice for one post, or a removal that leaves an observer behind.
    case warning
    /// A leak or a crash: an observer that outlives its owner, runs after it, keeps it alive,
    /// or would trap.
    case error

    private var rank: Int {
        switch self {
        case .note: 0
        case .warning: 1
        case .error: 2
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
}
