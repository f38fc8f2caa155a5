/// The body of `POST …/pseudo-user-cleanup`: how many idle days make a pseudo user removable,
/// and whether to only report.
public struct PseudoUserCleanupRequest: JSONRequestBody, Hashable {
    public var idleDays: Int
    public var dryRun: Bool

    public init(body: [String: JSONValue]) throws(KiiError) {
        guard let idleDays = body["idleDays"]?.intValue, idleDays >= 1, idleDays <= 36_500 else {
            throw KiiError.invalidInput("'idleDays' must be a whole number of days from 1.", field: "idleDays")
        }
        if body["dryRun"] != nil && body["dryRun"]?.boolValue == nil {
            throw KiiError.invalidInput("'dryRun' must be true or false.", field: "dryRun")
        }
        self.idleDays = Int(idleDays)
        dryRun = body["dryRun"]?.boolValue ?? false
    }
}
