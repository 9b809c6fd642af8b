/// A recorded call site read back as a place to point at: a line of Swift code, a path into a
/// scenario file, or text that is neither.
///
/// The bus records `#fileID:#line` for Swift code; a recorded scenario records
/// `FILE: json.path` with line 0, which the bus writes as the path alone.
public enum CallSiteLocation: Sendable, Hashable {
    /// `#fileID` and `#line` of Swift code: `App/LoginViewController.swift:42`.
    case source(file: String, line: Int)
    /// A scenario file and the path of the observer in it: `demo.json: screens.Login.observers[0]`.
    case scenario(file: String, path: String)
    /// A call site in neither form (`-` when none was recorded).
    case unknown(String)

    /// Reads a recorded call site.
    public init(_ callSite: String) {
        if let colon = callSite.lastIndex(of: ":"),
           let line = Int(callSite[callSite.index(after: colon)...]), line > 0, colon > callSite.startIndex {
            self = .source(file: String(callSite[..<colon]), line: line)
        } else if let colon = callSite.firstIndex(of: ":"), colon > callSite.startIndex,
                  callSite[callSite.index(after: colon)...].first == " ",
                  callSite.index(colon, offsetBy: 2) < callSite.endIndex {
            self = .scenario(file: String(callSite[..<colon]), path: String(callSite[callSite.index(colon, offsetBy: 2)...]))
        } else {
            self = .unknown(callSite)
        }
    }

    /// The file, if the call site names one.
    public var file: String? {
        switch self {
        case .source(let file, _), .scenario(let file, _): file
        case .unknown: nil
        }
    }
}
