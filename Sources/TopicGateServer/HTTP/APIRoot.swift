/// Where a route hangs, which decides who its caller is before its handler runs.
enum APIRoot: Sendable, CaseIterable {
    /// Outside any app (health, metrics, the console, `POST /api/oauth2/token`): no caller.
    case open
    /// Under `/api/apps/{appID}`, for logging in: the caller is the app's anonymous one,
    /// whatever credentials come with the request.
    case login
    /// Under `/api/apps/{appID}`: the caller the credentials name.
    case app
    /// Under `/thing-if/apps/{appID}`: the caller the credentials name.
    case thingIF

    /// The path in front of the route's own, in OpenAPI form.
    var prefix: String {
        switch self {
        case .open: ""
        case .login, .app: "/api/apps/{appID}"
        case .thingIF: "/thing-if/apps/{appID}"
        }
    }
}
