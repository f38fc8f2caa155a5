import Hummingbird

/// A controller that declares its routes as a table: each one's path, what the OpenAPI
/// document says of it and the method that answers it. `APIRouter` registers the table;
/// the document, docs/api.md and the API fuzzer read the same table.
protocol RouteTable: Sendable {
    associatedtype Context: RequestContext
    /// The OpenAPI tag of the routes that name none.
    static var tag: String { get }
    /// Where the routes that name no root hang: `.app` unless the table says otherwise.
    static var root: APIRoot { get }
    static var routes: [APIRoute<Self>] { get }
}

extension RouteTable {
    static var root: APIRoot { .app }

    static var operations: [APIOperation] { routes.map(\.operation) }
}
