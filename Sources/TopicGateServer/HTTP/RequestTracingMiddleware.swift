import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The outermost middleware: gives every request an ID (the client's `X-Request-ID` when it is
/// a sane token, else a new one) that goes into every line logged while it is served (a task
/// local that the gateway logger's metadata provider reads) and the response's `X-Request-ID`;
/// counts and times the request by route pattern; logs each request at debug
/// (`KiiErrorMiddleware`, inside it, logs refusals at info with their code and message under the
/// same ID).
struct RequestTracingMiddleware: RouterMiddleware {
    typealias Context = TopicGateRequestContext

    let metrics: ServerMetrics

    static var requestIDHeader: HTTPField.Name { HTTPField.Name("X-Request-ID")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let id = Self.acceptable(request.headers[Self.requestIDHeader]) ?? RequestID.make()
        let started = ContinuousClock.now
        var response = try await RequestID.$current.withValue(id) { try await next(request, context) }
        response.headers[Self.requestIDHeader] = id
        let route = context.endpointPath ?? "unmatched"
        metrics.request(
            route: route, method: request.method.rawValue, status: response.status.code,
            duration: ContinuousClock.now - started)
        context.logger.debug(
            "Answered",
            metadata: [
                "request.id": .string(id), "method": .string(request.method.rawValue),
                "path": .string(request.uri.path),
                "status": .stringConvertible(response.status.code),
            ])
        return response
    }

    /// A client-given ID: 1 to 64 letters, digits, `-`, `_` or `.`.
    static func acceptable(_ value: String?) -> String? {
        guard let value, (1...64).contains(value.utf8.count),
            value.utf8.allSatisfy({ $0.isASCIIAlphanumeric || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E })
        else { return nil }
        return value
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x5A) || (self >= 0x61 && self <= 0x7A)
    }
}
