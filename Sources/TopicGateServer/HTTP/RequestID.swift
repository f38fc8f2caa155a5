import Logging

/// The ID of the request the current task is serving (set by `RequestTracingMiddleware`).
enum RequestID {
    @TaskLocal static var current: String?

    /// Adds `request.id` to every line logged while a request is served, by the request's logger
    /// and by the services alike. It is looked up only when a line is written, so a request
    /// whose code logs nothing pays nothing for it.
    static let metadataProvider = Logger.MetadataProvider {
        current.map { ["request.id": .string($0)] } ?? [:]
    }
}
