public import Foundation
public import TraceFleet

/// Where a fleet store is: a `postgresql://` URL, with what it leaves out taken from the standard
/// `PG*` environment variables, as `psql` does.
///
/// `postgresql://user:password@host:port/database?sslmode=prefer`: each part is optional; missing ones
/// come from `PGUSER`, `PGPASSWORD`, `PGHOST` (a path is a Unix socket directory), `PGPORT`,
/// `PGDATABASE` and `PGSSLMODE`, then from the defaults (`localhost`, 5432, the login user, a database
/// named as the user, `prefer`).
public struct FleetStoreAddress: Sendable, Hashable {
    /// `sslmode`: what the connection does about TLS.
    public enum TLSMode: String, Sendable {
        /// Never TLS.
        case disable
        /// TLS when the server offers it, the certificate not checked (libpq's default).
        case prefer
        /// TLS or no connection, the certificate not checked.
        case require
        /// TLS with the certificate checked against the system's roots and the host name.
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode

    /// Parses a URL, filling the gaps from `environment`.
    ///
    /// - Throws: ``FleetError`` (`.invalidInput`) naming the part that is wrong.
    public init(_ url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(FleetError) {
        guard url.hasPrefix("postgresql://") || url.hasPrefix("postgres://"), let components = URLComponents(string: url) else {
            throw FleetError(.invalidInput, "\(Self.redact(url)): not a postgresql:// URL (postgresql://user:password@host:port/database)")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        host = components.host.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding } ?? query["host"] ?? environment["PGHOST"] ?? "localhost"
        if let port = components.port {
            self.port = port
        } else if let text = query["port"] ?? environment["PGPORT"] {
            guard let port = Int(text), (1...65_535).contains(port) else {
                throw FleetError(.invalidInput, "port \(text): not a TCP port")
            }
            self.port = port
        } else {
            port = 5432
        }
        user = components.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding } ?? environment["PGUSER"]
            ?? environment["USER"] ?? "postgres"
        password = components.password?.removingPercentEncoding ?? environment["PGPASSWORD"]
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? environment["PGDATABASE"] ?? user : path.removingPercentEncoding ?? path
        let mode = query["sslmode"] ?? environment["PGSSLMODE"] ?? "prefer"
        switch mode {
        case "disable": tls = .disable
        case "allow", "prefer": tls = .prefer
        case "require", "verify-ca": tls = .require
        case "verify-full": tls = .verifyFull
        default: throw FleetError(.invalidInput, "sslmode=\(mode): expected disable, prefer, require or verify-full")
        }
    }

    /// The address as it may be printed: no password.
    public var description: String {
        "postgresql://\(user)@\(host.hasPrefix("/") ? "[\(host)]" : host):\(port)/\(database)"
    }

    /// A URL with its password replaced, for error messages about a URL that did not parse.
    static func redact(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@"), let scheme = url.range(of: "://"), scheme.upperBound < at else { return url }
        let credentials = url[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}
