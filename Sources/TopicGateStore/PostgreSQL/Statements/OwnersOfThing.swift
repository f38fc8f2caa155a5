internal import PostgresNIO
import TopicGateCore

/// The users and groups that own a thing.
struct OwnersOfThing: NamedStatement {
    static let sql = "SELECT owner_kind, owner_id FROM thing_owners WHERE app_id = $1 AND thing_id = $2"

    let appID: AppID
    let thing: ThingID

    func makeBindings() -> PostgresBindings { Self.bindings("\(appID)\(thing)") }
}
