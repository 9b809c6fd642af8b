import Foundation

/// Writes a file through `body` into a partial file beside `path`, moved into place when
/// complete: a failed write never leaves a file that looks finished, and nothing is held whole.
///
/// - Parameter what: What is being written, for the one-line error ("the timeline", "the export").
/// - Throws: ``Exit/cannotCreate`` (73) when the partial file cannot be made or moved.
func writeThroughPartialFile(_ path: String, what: String, _ body: (Output) -> Void) throws {
    let partial = path + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
    guard FileManager.default.createFile(atPath: partial, contents: nil),
          let handle = FileHandle(forWritingAtPath: partial) else {
        diagnose("\(path): cannot write \(what) (cannot create \(partial))")
        throw Exit.cannotCreate
    }
    let out = Output(handle)
    body(out)
    out.flush()
    try? handle.close()
    guard rename(partial, path) == 0 else {
        let reason = String(cString: strerror(errno))
        try? FileManager.default.removeItem(atPath: partial)
        diagnose("\(path): cannot write \(what) (\(reason))")
        throw Exit.cannotCreate
    }
}
