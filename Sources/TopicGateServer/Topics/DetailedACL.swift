import TopicGateCore

/// `GET …/acl?detailed=true`: each entry with whether it is a default one and may be removed,
/// and its subject's name (login name, group name, vendor thing ID) when it has one.
struct DetailedACL: Encodable, Sendable {
    struct Entry: Encodable, Sendable {
        let action: String
        let subject: String
        let `default`: Bool
        let removable: Bool
        let name: String?
    }

    let entries: [Entry]

    init(_ loaded: TopicService.LoadedTopic, names: [ACLSubject: String]) {
        entries = loaded.entries.map { entry in
            Entry(
                action: entry.action.rawValue, subject: entry.subject.description, default: entry.isDefault,
                removable: !loaded.isProtected(entry), name: names[entry.subject])
        }
    }
}
