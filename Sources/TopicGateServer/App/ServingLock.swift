import Foundation

/// A lock on `<data-dir>/serving.lock`: every gateway serving a data folder holds it shared
/// for its whole life, and `topicgate restore` takes it exclusively, so a database is never
/// replaced under a running gateway. The system releases it when the process ends, however it
/// ends.
public final class ServingLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// Held for as long as the gateway serves `dataDirectory` (several gateways may share it).
    public static func serving(_ dataDirectory: String) throws -> ServingLock {
        guard let lock = try take(dataDirectory, operation: LOCK_SH) else {
            throw ServingLockError("A restore into \(dataDirectory) is running; start the gateway after it.")
        }
        return lock
    }

    /// Held by a restore; nil when a gateway serves `dataDirectory` now.
    public static func exclusive(_ dataDirectory: String) throws -> ServingLock? {
        try take(dataDirectory, operation: LOCK_EX)
    }

    private static func take(_ dataDirectory: String, operation: Int32) throws -> ServingLock? {
        try FileManager.default.createDirectory(
            atPath: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = dataDirectory + "/serving.lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ServingLockError("Cannot open \(path) (errno \(errno)).") }
        guard flock(descriptor, operation | LOCK_NB) == 0 else {
            let failure = errno
            close(descriptor)
            if failure == EWOULDBLOCK { return nil }
            throw ServingLockError("Cannot lock \(path) (errno \(failure)).")
        }
        return ServingLock(descriptor: descriptor)
    }

    deinit { close(descriptor) }
}

/// Why the serving lock could not be taken.
public struct ServingLockError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
