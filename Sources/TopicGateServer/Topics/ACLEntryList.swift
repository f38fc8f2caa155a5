import TopicGateCore

/// `POST …/acl`: the entries a batch left (or, with `dryRun`, would leave).
struct ACLEntryList: Encodable, Sendable {
    let entries: [String]
    let dryRun: Bool?

    init(_ entries: [ACLEntry], dryRun: Bool) {
        self.entries = entries.map(\.description)
        self.dryRun = dryRun ? true : nil
    }
}
