import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import TopicGateCore
import TopicGateStore

/// Turns every error into a Kii-style body: `KiiError`s as they are, the framework's own
/// (unknown route, body too large) into the nearest Kii code, anything else into a logged
/// `UNDEFINED_ERROR` 500 that shows no internals.
struct KiiErrorMiddleware: RouterMiddleware {
    typealias Context = TopicGateRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as KiiError {
            if [401, 403, 429].contains(error.status.code) || error.code == .invalidGrant {
                context.logger.info(
                    "Refused",
                    metadata: [
                        "method": .string(request.method.rawValue), "path": .string(request.uri.path),
                        "errorCode": .string(error.code.rawValue), "reason": .string(error.message),
                    ])
            }
            return try error.response(from: request, context: context)
        } catch let error as StoreUnavailable {
            context.logger.warning("Database unavailable", metadata: ["error": "\(error)"])
            var unavailable = KiiError(.temporarilyUnavailable, "The service is temporarily unavailable; try again.")
            unavailable.setRetryAfter(.seconds(1))
            return try unavailable.response(from: request, context: context)
        } catch is NIOTooManyBytesError {
            return try KiiError(.requestTooLarge, "The request body is too large.").response(
                from: request, context: context)
        } catch let error as HTTPError {
            return try Self.kiiError(for: error).response(from: request, context: context)
        } catch {
            context.logger.error("Unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            return try KiiError(.undefinedError, "The server could not complete the request.")
                .response(from: request, context: context)
        }
    }

    static func kiiError(for error: HTTPError) -> KiiError {
        switch error.status {
        case .notFound: KiiError(.notFound, "No such resource.")
        case .methodNotAllowed: KiiError(.methodNotAllowed, "This method is not allowed here.")
        case .contentTooLarge: KiiError(.requestTooLarge, "The request body is too large.")
        case .unsupportedMediaType: KiiError(.unsupportedMediaType, "This content type is not supported here.")
        default:
            error.status.code >= 500
                ? KiiError(.undefinedError, "The server could not complete the request.")
                : KiiError(.invalidInputData, error.body ?? "The request is not valid.")
        }
    }
}
