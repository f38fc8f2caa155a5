/// Every route table the router serves, in the order the API reference lists them: the
/// OpenAPI document, docs/api.md and the API fuzzer read their declarations. A test checks that
/// the router serves exactly these.
enum APIRoutes {
    typealias Context = TopicGateRequestContext

    static let tables: [any RouteTable.Type] = [
        HealthController<Context>.self, MetricsController<Context>.self, OpenAPIController<Context>.self,
        ConsoleController<Context>.self, OperationsController<Context>.self, PrincipalController<Context>.self,
        PushTraceController<Context>.self, TokenController<Context>.self, UserController<Context>.self,
        LinkController<Context>.self, GroupController<Context>.self, ThingController<Context>.self,
        GatewayController<Context>.self, InstallationController<Context>.self, OnboardingController<Context>.self,
        ThingIFController<Context>.self, TriggerController<Context>.self, TopicController<Context>.self,
    ]

    static var operations: [APIOperation] { tables.flatMap { $0.operations } }
}
