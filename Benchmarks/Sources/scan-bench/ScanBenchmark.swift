// tracectl scan against swift-syntax parsing the same files alone, side by side in one run.
//
//   swift run -c release --package-path Benchmarks scan-bench PATH [ROUNDS]
//
// Baseline: every .swift file the scan reads (the same walk) read and parsed by SwiftParser on
// one thread per core, nothing else. Measured: ObserverScan.scan on the same PATH (walk, read,
// parse, facts, model, journeys recorded into traces, leak rules). Rounds alternate the two;
// the figure is the median of each and their ratio (issue 24: at most 1.5).
import Foundation
import ObserverScan
import SwiftParser
import SwiftSyntax
import Synchronization

@inline(__always)
func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The Swift files the scan reads under `root`, with its own folder rules.
func swiftFiles(_ root: String) -> [String] {
    let skipped: Set<String> = [".build", "Pods", "Carthage", "DerivedData", "node_modules", "build"]
    var result: [String] = []
    var stack = [root]
    while let folder = stack.popLast() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
        for name in names.sorted() {
            let path = folder + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                if !name.hasPrefix("."), !skipped.contains(name), !name.hasSuffix(".xcodeproj"), !name.hasSuffix(".xcassets") {
                    stack.append(path)
                }
            } else if name.hasSuffix(".swift") {
                result.append(path)
            }
        }
    }
    return result
}

final class Work: Sendable {
    let next = Atomic<Int>(0)
    let nodes = Atomic<Int>(0)
}

/// Reads and parses every file on one thread per core; returns the nodes seen (so nothing is optimised away).
func parseAlone(_ files: [String]) -> Int {
    let work = Work()
    let threads = ProcessInfo.processInfo.activeProcessorCount
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<threads {
        let thread = Thread {
            while true {
                let index = work.next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < files.count else { break }
                guard let data = FileManager.default.contents(atPath: files[index]) else { continue }
                let tree = data.withUnsafeBytes { Parser.parse(source: $0.bindMemory(to: UInt8.self), maximumNestingLevel: 256) }
                work.nodes.wrappingAdd(tree.statements.count + (tree.hasError ? 1 : 0), ordering: .relaxed)
            }
            done.signal()
        }
        thread.stackSize = 256 << 20
        thread.start()
    }
    for _ in 0..<threads { done.wait() }
    return work.nodes.load(ordering: .relaxed)
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--report", arguments.count >= 2 {
    // The scan alone, in release mode, its JSON report on standard output (docs/SCAN.md's
    // real-app runs): `scan-bench --report PATH [DEPLOYMENT_TARGET]`.
    let report = try ObserverScan.scan(ScanOptions(paths: [arguments[1]], sourceRoot: arguments[1],
                                                   deploymentTarget: arguments.count > 2 ? arguments[2] : nil))
    print(report.json().rendered(pretty: true))
    exit(0)
}
guard let root = arguments.first else {
    FileHandle.standardError.write(Data("usage: scan-bench PATH [ROUNDS]\n".utf8))
    exit(64)
}
let rounds = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
let files = swiftFiles(root)
let lines = files.reduce(0) { total, path in
    total + (FileManager.default.contents(atPath: path)?.reduce(into: 0) { if $1 == 0x0A { $0 += 1 } } ?? 0)
}
var parseTimes: [Double] = [], scanTimes: [Double] = []
var findings = 0, modelled = 0
// One round of each first, unmeasured: the page cache and the allocator warm up for both.
_ = parseAlone(files)
_ = try ObserverScan.scan(ScanOptions(paths: [root], sourceRoot: root))
for _ in 0..<rounds {
    let p0 = monotonic()
    _ = parseAlone(files)
    let p1 = monotonic()
    let report = try ObserverScan.scan(ScanOptions(paths: [root], sourceRoot: root))
    let p2 = monotonic()
    parseTimes.append(p1 - p0)
    scanTimes.append(p2 - p1)
    findings = report.findings.count
    modelled = report.modelled
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let parse = median(parseTimes), scan = median(scanTimes)
print("scan-bench: \(root)")
print("  files \(files.count), lines \(lines), cores \(ProcessInfo.processInfo.activeProcessorCount), rounds \(rounds)")
print(String(format: "  swift-syntax parse alone  %.3f s (median)", parse))
print(String(format: "  tracectl scan             %.3f s (median; %d classes run through the journeys, %d findings)", scan, modelled, findings))
print(String(format: "  ratio scan / parse        %.2f", scan / parse))
