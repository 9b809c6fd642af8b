// libFuzzer target: arbitrary bytes as a Swift file, through the scanner.
//
// `ObserverScan.scan(source:path:)` must turn any input into a report: a file that is not
// UTF-8, does not parse, nests deeper than the parser allows, or models into a scenario,
// journeys and traces, ends in findings, notes or a warning, never a trap. A scenario the
// scanner generates that the scenario parser refuses is a scanner bug: it traps here on purpose.
// The same bytes scanned as the folder scan reads them (bodies with no observer word walked only
// when a lifecycle moment reaches them) must give the same report: a difference traps too.
// And read in outline with its function bodies blanked, the same bytes must give the facts that
// parsing them as they are gives (when they parse): a difference traps.
import Foundation
@_spi(Fuzzing) import ObserverScan

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScan(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    // Every other input under a legacy deployment target: the selector rules differ.
    let target: String? = data.first.map { $0 & 1 == 0 ? nil : "8.0" } ?? nil
    do {
        let report = try ObserverScan.scan(source: data, path: "fuzz.swift", deploymentTarget: target)
        for finding in report.findings where finding.location.line < 1 {
            fatalError("finding without a line: \(finding.text)")
        }
        let late = try ObserverScan.scan(source: data, path: "fuzz.swift", deploymentTarget: target, walksBodiesWhenReached: true)
        let (once, whenReached) = (report.json().rendered(pretty: true), late.json().rendered(pretty: true))
        if once != whenReached {
            fatalError("bodies walked when reached give another report:\n\(once)\n---\n\(whenReached)")
        }
        if let disagreement = outlineWithoutBodiesDisagreement(data).disagreement {
            fatalError("the outline without bodies reads other facts: \(disagreement)")
        }
    } catch {
        fatalError("the scanner's own scenario was refused: \(error)")
    }
    return 0
}
