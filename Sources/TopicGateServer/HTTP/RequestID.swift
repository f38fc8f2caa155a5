import Logging
import Synchronization

/// The ID of the request the current task is serving (set by `RequestTracingMiddleware`).
enum RequestID {
    @TaskLocal static var current: String?

    /// A new ID: 16 hex digits, a random number drawn once per process plus the count of IDs
    /// made before, so that no two requests share one, across restarts too, without a call into
    /// the kernel for randomness per request.
    static func make() -> String {
        let number = idBase &+ issued.add(1, ordering: .relaxed).oldValue
        return String(unsafeUninitializedCapacity: 16) { buffer in
            for position in 0..<16 {
                let digit = UInt8(truncatingIfNeeded: number >> UInt64(60 - 4 * position)) & 0xF
                buffer[position] = digit < 10 ? 0x30 + digit : 0x57 + digit
            }
            return 16
        }
    }

    private static let idBase = UInt64.random(in: .min ... .max)
    private static let issued = Atomic<UInt64>(0)

    /// Adds `request.id` to every line logged while a request is served, by the request's logger
    /// and by the services alike. It is looked up only when a line is written, so a request
    /// whose code logs nothing pays nothing for it.
    static let metadataProvider = Logger.MetadataProvider {
        current.map { ["request.id": .string($0)] } ?? [:]
    }
}
