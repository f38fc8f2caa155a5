import Foundation
import HTTPTypes
import Synchronization
import TestSupport
import Testing
import TopicGateCore

/// A stream of writes through a gateway's API, each recorded with the instant its 2xx arrived:
/// a user, a topic in its scope, an ACL grant on it, an installation and a command. Used to
/// show that a backup or a dump taken under load has every write accepted before it began.
final class AcceptedWrites: Sendable {
    struct Write: Sendable {
        let user: (id: String, token: String)
        let topic: String
        let grant: String
        let installationID: String
        let commandID: String
        let accepted: ContinuousClock.Instant
    }

    private let writes = Mutex<[Write]>([])
    private let stopped = Atomic<Bool>(false)

    var all: [Write] { writes.withLock { $0 } }

    /// Writes until `stop()`: `api` is the gateway, `grantee` the user each topic is granted to,
    /// `thing` a thing `owner` owns, to which each round sends a command.
    func run(
        through api: some KiiAPI & Sendable, grantee: String, thing: String, owner: (id: String, token: String)
    ) async throws {
        var round = 0
        while !stopped.load(ordering: .relaxed) {
            round += 1
            let user = try await api.pseudoUser()
            let topic = "\(api.app)/users/\(user.id)/topics/load-\(round)"
            try await api.call(.put, topic, token: user.token).expect(.noContent)
            let grant = "\(topic)/acl/SEND_MESSAGE_TO_TOPIC/UserID:\(grantee)"
            try await api.call(.put, grant, token: user.token).expect(.noContent)
            let installation = try await api.call(
                .post, "\(api.app)/installations", token: user.token,
                contentType: "application/vnd.kii.InstallationCreationRequest+json",
                json: ["deviceType": "MQTT", "development": false]
            ).expect(.created).require("installationID")
            let command = try await api.call(
                .post, "/thing-if/apps/\(api.appID)/targets/thing:\(thing)/commands", token: owner.token,
                contentType: "application/json",
                json: [
                    "actions": [["turnPower": ["power": .bool(round % 2 == 0)]]], "issuer": .string("user:\(owner.id)"),
                ]
            ).expect(.created).require("commandID")
            let write = Write(
                user: user, topic: topic, grant: grant, installationID: installation, commandID: command,
                accepted: .now)
            writes.withLock { $0.append(write) }
        }
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    /// Expects every write accepted before `instant` to be served by `api`, as it was accepted.
    static func expectPresent(
        _ writes: [Write], acceptedBefore instant: ContinuousClock.Instant, in api: some KiiAPI,
        thing: String, owner: (id: String, token: String)
    ) async throws {
        let before = writes.filter { $0.accepted < instant }
        #expect(!before.isEmpty, "the load wrote nothing before the copy began")
        for write in before {
            try await api.call(.get, "\(api.app)/users/me", token: write.user.token).expect(.ok)
            try await api.call(.head, write.topic, token: write.user.token).expect(.noContent)
            try await api.call(.get, write.grant, token: write.user.token).expect(.ok)
            try await api.call(.get, "\(api.app)/installations/\(write.installationID)", token: write.user.token)
                .expect(.ok)
            try await api.call(
                .get, "/thing-if/apps/\(api.appID)/targets/thing:\(thing)/commands/\(write.commandID)",
                token: owner.token
            ).expect(.ok)
        }
    }
}
