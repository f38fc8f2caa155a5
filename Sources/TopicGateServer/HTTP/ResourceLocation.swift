/// The `Location` of a created resource: its path under the server's public base URL
/// (`--public-url`; the path alone when unset).
struct ResourceLocation: Sendable {
    let baseURL: String?

    func callAsFunction(_ path: String) -> String {
        (baseURL ?? "") + path
    }
}
