#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The post being delivered on the current thread, so that a post made by a
/// handler is recorded with its parent. Only used while recording.
enum CurrentPost {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    static var value: UInt64? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return UInt64(UInt(bitPattern: pointer))
    }

    static func with(_ post: UInt64, _ body: () -> Void) {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: UInt(post)))
        defer { pthread_setspecific(key, previous) }
        body()
    }
}
