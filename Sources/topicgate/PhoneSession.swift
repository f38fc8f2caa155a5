import ArgumentParser
import Foundation
import TopicGateCore

/// The phone emulator's user and device: loaded from its profile file, or created (a pseudo
/// user, then an MQTT installation) and saved on first use.
struct PhoneSession {
    let server: URL
    var profile: PhoneProfile
    let profilePath: String

    var appPath: String { "/api/apps/\(profile.appID)" }

    static func open(_ options: PhoneOptions) async throws -> PhoneSession {
        let (server, appID) = try options.target.resolved()
        let path = options.profile
        if var profile = PhoneProfile.load(path), profile.appID == appID, profile.server == server.absoluteString {
            // The same user as last time, if its token still works.
            let me = try await KiiHTTP.send(
                server: server, "GET", "/api/apps/\(appID)/users/me", token: profile.token, body: nil)
            if me.status == 200 {
                var session = PhoneSession(server: server, profile: profile, profilePath: path)
                try await session.ensureInstallation()
                return session
            }
            EmulatedDevice.say("the saved token no longer works (\(me.status)); creating a new pseudo user")
            profile.installationID = nil
        }
        let created =
            try await KiiHTTP.call(
                server: server, "POST", "/api/apps/\(appID)/users", token: nil,
                body: ["displayName": .string(options.name)],
                contentType: "application/vnd.kii.RegistrationAndAuthorizationRequest+json"
            ).objectValue ?? [:]
        guard let userID = created["userID"]?.stringValue, let token = created["_accessToken"]?.stringValue else {
            throw KiiHTTPError(status: 0, code: "NO_USER", message: "The server created no pseudo user.")
        }
        var session = PhoneSession(
            server: server,
            profile: PhoneProfile(server: server.absoluteString, appID: appID, userID: userID, token: token),
            profilePath: path)
        try session.profile.save(path)
        EmulatedDevice.say("new pseudo user \(userID) (token kept in \(path))")
        try await session.ensureInstallation()
        return session
    }

    mutating func ensureInstallation() async throws {
        if let id = profile.installationID,
            try await KiiHTTP.send(
                server: server, "GET", "\(appPath)/installations/\(id)", token: profile.token, body: nil
            ).status == 200
        {
            return
        }
        let installed = try await call(
            "POST", "/installations", body: ["deviceType": "MQTT", "development": true],
            contentType: "application/vnd.kii.InstallationCreationRequest+json")
        profile.installationID = installed.objectValue?["installationID"]?.stringValue
        try profile.save(profilePath)
    }

    /// Connects the device with a fresh endpoint.
    func connect() async throws -> EmulatedDevice {
        guard let id = profile.installationID else { throw ValidationError("No installation.") }
        let endpoint = try await call("GET", "/installations/\(id)/mqtt-endpoint")
        return try await EmulatedDevice.connect(endpoint: endpoint.objectValue ?? [:])
    }

    /// A call below `/api/apps/{appID}` with the user's token.
    @discardableResult
    func call(_ method: String, _ path: String, body: JSONValue? = nil, contentType: String = "application/json")
        async throws -> JSONValue
    {
        try await KiiHTTP.call(
            server: server, method, appPath + path, token: profile.token, body: body, contentType: contentType)
    }
}
