import Foundation
import HTTPTypes
import TestSupport
import Testing
import TopicGateCore

/// Secrets are stored only as hashes: after a gateway made and used every kind of secret, none
/// of them is found in its data folder, read byte by byte (the SQLite file, its WAL, the broker's
/// files).
@Suite("Secrets at rest")
struct SecretsAtRestTests {
    @Test(
        "Passwords, tokens, the client secret, account-link secrets and MQTT passwords appear nowhere in the data folder"
    )
    func onlyHashes() async throws {
        let world = try await PushWorld.started(embedded: true)
        var secrets: [String: String] = [:]
        do {
            secrets["the client secret"] = try world.server.adminCredentials().clientSecret
            secrets["an admin token"] = try await world.adminToken()
            let password = "correct horse battery staple"
            let user = try await world.normalUser("ann", password: password)
            secrets["a user's password"] = password
            secrets["a user's registration token"] = user.token
            secrets["a user's login token"] = try await world.login("ann", password: password)
            secrets["a pseudo user's token"] = try await world.pseudoUser().token
            let linkSecret = "9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c"
            try await world.call(
                .post, "\(world.app)/users/me/links", token: user.token,
                json: ["provider": "icloud", "externalID": "_ann-at-rest", "secret": .string(linkSecret)]
            ).expect(.created)
            secrets["an account link's secret"] = linkSecret
            let endpoint = try await world.install(token: user.token)
            secrets["an MQTT password"] = try #require(endpoint.object["password"]?.stringValue)
            let thingPassword = "lamp-password-at-rest"
            let thing = try await world.call(
                .post, "\(world.app)/things",
                contentType: "application/vnd.kii.ThingRegistrationAndAuthorizationRequest+json",
                json: ["_vendorThingID": "lamp-at-rest", "_password": .string(thingPassword)]
            ).expect(.created)
            secrets["a thing's password"] = thingPassword
            secrets["a thing's token"] = try thing.require("_accessToken")
            // Used once more each, so that any cache written back would be on disk too.
            try await world.call(.get, "\(world.app)/users/me", token: user.token).expect(.ok)
            _ = try await world.login("ann", password: password)
        } catch {
            try await world.stop()
            throw error
        }
        // Stopped, its files kept for reading (the WAL checkpointed or not, as it left them).
        _ = try await world.server.stop(signal: SIGTERM)
        defer {
            try? FileManager.default.removeItem(atPath: world.directory)
            try? FileManager.default.removeItem(atPath: world.server.outputPath)
        }
        var files: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: world.directory)
        while let name = enumerator?.nextObject() as? String { files.append(world.directory + "/" + name) }
        let contents = files.compactMap { path -> (String, Data)? in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: path)
            else { return nil }
            return (path, data)
        }
        #expect(contents.contains { $0.0.hasSuffix("topicgate.sqlite") && $0.1.count > 0 }, "\(files)")
        for (what, secret) in secrets {
            for (path, data) in contents {
                #expect(data.range(of: Data(secret.utf8)) == nil, "\(what) is in \(path)")
            }
        }
    }
}
