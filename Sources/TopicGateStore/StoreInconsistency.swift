/// What a store found that its own writes never leave (a bug, or rows edited by hand): the write
/// that found it rolls back, and its request fails as an internal error.
struct StoreInconsistency: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
