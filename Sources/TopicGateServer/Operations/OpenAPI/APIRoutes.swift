/// Every route table the router serves, in the order the API reference lists them: the
/// OpenAPI document, docs/api.md and the API fuzzer read their declarations. A test checks that
/// the router serves exactly these.
enum APIRoutes {
    typealias Context = TopicGateRequestContext

    static let tables: [any RouteTable.Type] = [
        GroupController<Context>.self, TopicController<Context>.self,
    ]

    static var operations: [APIOperation] { APICatalogue.operations + tables.flatMap { $0.operations } }
}
