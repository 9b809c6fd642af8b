import Foundation
import Testing
@testable import tracectl

/// `EventPrinter` keeps its fields and its names' without the runtime's exclusivity checks
/// (`@exclusivity(unchecked)`), on the claim that the command's one thread owns them; `Output`,
/// which it writes through, is as single-threaded. In a debug build each checks that claim
/// (`OwningThread`): used on a second thread, it stops the process with a message naming it.
/// Exit tests: each runs in a child process of its own.
@Suite struct SingleThreadOwnershipTests {
    #if DEBUG
    @Test func anOutputFlushedOnAnotherThreadStopsTheProcess() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let out = Output(FileHandle.nullDevice)
            out.line("written on the thread that made it")
            onAnotherThread(Unchecked(out)) { $0.value.flush() }
        }
        let said = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(said.contains("Output used on a thread other than the one that owns it"), "\(said)")
    }

    @Test func anEventPrinterUsedOnAnotherThreadStopsTheProcess() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let out = Output(FileHandle.nullDevice)
            let printer = EventPrinter(strings: [1: "Ping"], format: .json, style: Style(enabled: false), to: out)
            printer.begin()
            onAnotherThread(Unchecked(printer)) { $0.value.end() }
        }
        let said = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(said.contains("EventPrinter used on a thread other than the one that owns it"), "\(said)")
    }
    #endif

    /// The same calls on the owning thread run on (the control for the tests above).
    @Test func onTheThreadThatMadeThemTheyRunOn() throws {
        let pipe = Pipe()
        let out = Output(pipe.fileHandleForWriting)
        let printer = EventPrinter(strings: [1: "Ping"], format: .json, style: Style(enabled: false), to: out)
        printer.begin()
        printer.end()
        out.flush()
        try pipe.fileHandleForWriting.close()
        #expect(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "[]\n")
    }
}

/// A value handed to another thread on purpose, to misuse it there.
private struct Unchecked<Value>: @unchecked Sendable {
    // @unchecked: the tests above send a single-threaded object across threads to see it refuse.
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Runs `body(value)` on a new thread and waits for it.
private func onAnotherThread<Value>(_ value: Unchecked<Value>, _ body: @escaping @Sendable (Unchecked<Value>) -> Void) {
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        body(value)
        done.signal()
    }
    done.wait()
}
