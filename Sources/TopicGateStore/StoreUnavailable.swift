/// The database cannot be reached (refused, closed, shutting down, out of connections): the
/// request may succeed if tried again; nothing it asked for was done.
public struct StoreUnavailable: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
