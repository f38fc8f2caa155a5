/// A command that could not do its work for a reason the operator can act on: printed as
/// `Error: <description>` with exit status 1, without the usage text a `ValidationError` adds.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
