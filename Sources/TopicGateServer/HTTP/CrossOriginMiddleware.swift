import HTTPTypes
import Hummingbird

/// Applies `CrossOriginPolicy` to requests that carry `Origin`: answers preflights itself and
/// adds the CORS headers to every other response. It sits outside `KiiErrorMiddleware`, so an
/// error is already a Kii response when it gets here: same status and body as without
/// `Origin`, with the CORS headers that let the page read it. `/metrics` gets none.
struct CrossOriginMiddleware: RouterMiddleware {
    typealias Context = TopicGateRequestContext

    let policy: CrossOriginPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        // The metrics are for a scraper, never for a page of another origin: matched as the
        // router matches the route (`/metrics/`, `//metrics` reach it too).
        guard let origin = request.headers[.origin],
            !request.uri.path.split(separator: "/").elementsEqual(["metrics"])
        else {
            return try await next(request, context)
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var fields = policy.preflightFields(
                origin: origin, requestedHeaders: request.headers[.accessControlRequestHeaders])
            fields[.contentLength] = "0"
            return Response(status: .noContent, headers: fields)
        }
        var response = try await next(request, context)
        for field in policy.responseFields(origin: origin) {
            response.headers[field.name] = field.value
        }
        return response
    }
}
