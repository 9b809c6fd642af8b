#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread that made a single-threaded object, for the objects whose fields are not checked
/// for exclusivity at run time (`@exclusivity(unchecked)`, as one thread owns them).
///
/// The runtime's exclusivity check never saw other threads in any case; this sees them. In a
/// debug build, ``check(_:file:line:)`` stops the process when the object is used on another
/// thread; in a release build the type is empty and the check is nothing, so it can sit at coarse
/// points (a flush, a registration, a walk's row) without costing a release build anything.
package struct OwningThread {
    #if DEBUG
    private let thread = pthread_self()
    #endif

    /// The calling thread.
    package init() {}

    /// Stops the process (debug builds only) when called on another thread than the one that made this.
    @inline(__always)
    package func check(_ object: StaticString, file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        if pthread_equal(thread, pthread_self()) == 0 {
            fatalError("\(object) used on a thread other than the one that owns it; its fields are not checked for exclusivity at run time",
                       file: file, line: line)
        }
        #endif
    }
}
