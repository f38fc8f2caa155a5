import Hummingbird

/// The router with a group per root: route tables are added here, each route to its root's
/// group, where that root's middleware has put the caller in the context.
struct APIRouter<Context: CallerRequestContext> {
    let router: Router<Context>
    let login: RouterGroup<Context>
    let app: RouterGroup<Context>
    let thingIF: RouterGroup<Context>

    /// `authenticated` puts the caller its credentials name in the context; `anonymous`, the
    /// app's anonymous caller whatever the credentials.
    init(
        _ router: Router<Context>, authenticated: some RouterMiddleware<Context>,
        anonymous: some RouterMiddleware<Context>
    ) {
        self.router = router
        login = router.group("api/apps/:appID").add(middleware: anonymous)
        app = router.group("api/apps/:appID").add(middleware: authenticated)
        thingIF = router.group("thing-if/apps/:appID").add(middleware: authenticated)
    }

    func add<Table: RouteTable>(_ table: Table) where Table.Context == Context {
        for route in Table.routes {
            let handler = route.handler(table)
            switch route.root {
            case .open: router.on(route.routerPath, method: route.method, use: handler)
            case .login: login.on(route.routerPath, method: route.method, use: handler)
            case .app: app.on(route.routerPath, method: route.method, use: handler)
            case .thingIF: thingIF.on(route.routerPath, method: route.method, use: handler)
            }
        }
    }
}
