/// The ID of the request the current task is serving (set by `RequestTracingMiddleware`), for
/// services that log without the request's logger.
enum RequestID {
    @TaskLocal static var current: String?
}
