import MQTTBridge
import TopicGateCore
import TopicGateStore

/// Devices installed for push: install, read, delete (revoking at once), and the MQTT
/// endpoint with freshly signed credentials.
struct InstallationService: Sendable {
    let store: any InstallationStore & ThingStore & UserStore
    let time: TimeSource
    /// Nil when the server runs without push: installations are kept, endpoints are not ready.
    let push: PushConfiguration?
    /// The brokers devices are spread over (`push`'s; nil without push).
    var brokers: BrokerDirectory? { balancer?.directory }
    /// Picks the broker of a new installation (nil without push).
    let balancer: BrokerBalancer?
    let signer: MQTTCredentialSigner?
    let revocation: DeviceRevocation
    /// The most live installations one user or thing may have (nil: no cap).
    var installationLimit: Int?

    /// Installs a device for the calling user or thing (the admin names `thingID` or `userID`).
    func install(caller: Caller, request: InstallationRequest) async throws -> Installation {
        let principal: Principal
        var tokenHash: String?
        switch caller.principal {
        case .user, .thing:
            principal = caller.principal
            tokenHash = caller.tokenHash
        case .admin:
            if let thingID = request.thingID {
                guard try await store.thing(appID: caller.appID, reference: .id(thingID)) != nil else {
                    throw ThingReference.id(thingID).notFound(appID: caller.appID)
                }
                principal = .thing(thingID)
            } else if let userID = request.userID {
                guard try await store.user(appID: caller.appID, id: userID) != nil else {
                    throw KiiError.userNotFound(appID: caller.appID, field: "userID", value: userID.rawValue)
                }
                principal = .user(userID)
            } else {
                throw KiiError.invalidInput("The admin must name 'thingID' or 'userID'.", field: "thingID")
            }
        case .anonymous:
            throw caller.denied("install a device")
        }
        if let registrationID = request.registrationID,
            let existing = try await store.installation(
                appID: caller.appID, deviceType: request.deviceType, registrationID: registrationID,
                boundTo: principal)
        {
            // The same device installed again, as Kii's Android and iOS SDKs do at every start
            // with the token FCM or APNs gave them: the installation it has, so that a device
            // never reaches the quota by starting. One made with another token of the same
            // principal (it logged in again) is replaced: revoking that token must not end it.
            if existing.tokenHash == tokenHash && existing.development == request.development { return existing }
            try await revocation.revoke(appID: caller.appID, .one(existing.id))
        }
        // The quota counted in the same write as the insert (the admin has none).
        return try await insert(
            appID: caller.appID, principal: principal, deviceType: request.deviceType,
            registrationID: request.registrationID, development: request.development, tokenHash: tokenHash,
            limit: caller.principal == .admin ? nil : installationLimit)
    }

    /// The MQTT endpoint of a new installation of a thing for one onboarding, bound to the
    /// token that onboarding issued: revoking that token (a password change) revokes the device.
    ///
    /// It counts against the thing's installation quota (`--max-installations`) as any other:
    /// a thing at the quota makes room by revoking its oldest live installations (kicked, refused
    /// by the broker), so that a device that onboards at every start is never locked out and the
    /// thing never holds more than the quota. The oldest are chosen and revoked in the write that
    /// inserts, so onboardings racing for the room cannot end above the quota; one whose new
    /// installation a newer onboarding replaced before its credentials were signed is answered
    /// 409 `OPERATION_NOT_ALLOWED` (onboard again), never with credentials the broker refuses.
    func onboardingEndpoint(appID: AppID, thing: ThingID, token: String) async throws -> MQTTEndpoint {
        let installation = try await newInstallation(
            appID: appID, principal: .thing(thing), deviceType: "MQTT", registrationID: nil, development: false,
            tokenHash: Secrets.sha256(token))
        if let limit = installationLimit {
            let replaced = try await store.insertInstallation(installation, replacingOldestAt: limit, now: time.now())
            await revocation.revoked(replaced)
        } else {
            try await store.insertInstallation(installation)
        }
        do {
            return try await endpoint(for: installation)
        } catch let error as KiiError where error.code == .installationNotFound {
            throw KiiError(
                .operationNotAllowed,
                "A newer onboarding of thing \(thing.rawValue) replaced this one's installation: it holds at most "
                    + "\(installationLimit ?? 0). Onboard again.",
                context: ["thingID": .string(thing.rawValue), "quota": "installations"])
        }
    }

    /// Stores a new installation with a random ID, MQTT topic and (unless given) registration ID;
    /// `QUOTA_EXCEEDED` when `limit` is given and the principal holds that many.
    private func insert(
        appID: AppID, principal: Principal, deviceType: String, registrationID: String?, development: Bool,
        tokenHash: String?, limit: Int? = nil
    ) async throws -> Installation {
        let installation = try await newInstallation(
            appID: appID, principal: principal, deviceType: deviceType, registrationID: registrationID,
            development: development, tokenHash: tokenHash)
        switch try await store.insertInstallation(installation, limit: limit) {
        case .inserted: return installation
        // The same device, installed by a request racing this one: the one it has.
        case .existing(let same): return same
        case .limited(let held):
            try PrincipalQuota.installations.require(count: held, limit: limit, principal: principal)
            return installation
        }
    }

    /// An installation not stored yet, with a random ID, MQTT topic and (unless given)
    /// registration ID, on the broker the balancer picks for an MQTT device.
    private func newInstallation(
        appID: AppID, principal: Principal, deviceType: String, registrationID: String?, development: Bool,
        tokenHash: String?
    ) async throws -> Installation {
        Installation(
            id: InstallationID(Secrets.randomAlphanumeric(25)), appID: appID, principal: principal,
            deviceType: deviceType, registrationID: registrationID ?? Secrets.randomAlphanumeric(25),
            mqttTopic: Secrets.randomAlphanumeric(25), development: development, createdAt: time.now(),
            tokenHash: tokenHash, broker: deviceType == "MQTT" ? try await newBroker() : nil)
    }

    /// An installation by `{installationID}` or `{deviceType}:{registrationID}`, if the caller
    /// is the one it is bound to, or the admin.
    func find(caller: Caller, reference: InstallationReference) async throws -> Installation {
        let found: Installation?
        switch reference {
        case .registration(let deviceType, let registrationID):
            // The caller's own: another's with the same registration ID must not hide it.
            found = try await store.installation(
                appID: caller.appID, deviceType: deviceType, registrationID: registrationID,
                boundTo: caller.principal == .admin ? nil : caller.principal)
        case .id(let id):
            found = try await store.installation(appID: caller.appID, id: id)
        }
        guard let installation = found else { throw Self.notFound(appID: caller.appID, reference) }
        guard caller.principal == .admin || caller.principal == installation.principal else {
            throw caller.denied("use this installation")
        }
        return installation
    }

    /// Deletes the installation: nothing is routed to it from now on and its MQTT connection
    /// is kicked.
    func delete(caller: Caller, reference: InstallationReference) async throws {
        let installation = try await find(caller: caller, reference: reference)
        try await revocation.revoke(appID: caller.appID, .one(installation.id))
    }

    func endpoint(caller: Caller, reference: InstallationReference) async throws -> MQTTEndpoint {
        let installation = try await find(caller: caller, reference: reference)
        guard installation.receivesPushes else {
            throw KiiError.invalidInput(
                "The installation's deviceType is \(installation.deviceType), not MQTT.", field: "deviceType")
        }
        return try await endpoint(for: installation)
    }

    /// Signs fresh credentials for `installation` and records their expiry.
    func endpoint(for installation: Installation) async throws -> MQTTEndpoint {
        guard let push, let signer, let brokers else {
            throw KiiError(
                .mqttEndpointNotReady, "This server runs without an MQTT broker.",
                context: ["installationID": .string(installation.id.rawValue), "retryAfter": 5])
        }
        let now = time.seconds()
        let expiresAt = now + push.credentialTTL
        guard try await store.recordCredentials(appID: installation.appID, id: installation.id, expiresAt: expiresAt)
        else {
            // Revoked while this request ran: the broker refuses only the credentials it knew.
            throw Self.notFound(appID: installation.appID, .id(installation.id))
        }
        let broker = try await broker(serving: installation, in: brokers)
        let ports = broker.publicPorts
        return MQTTEndpoint(
            installationID: installation.id, username: installation.mqttTopic,
            password: signer.devicePassword(
                topic: installation.mqttTopic, issuedAt: now, expiresAt: expiresAt),
            mqttTopic: installation.mqttTopic, host: broker.publicHost, portTCP: ports.tcp, portSSL: ports.ssl,
            portWS: ports.ws, portWSS: ports.wss, ttl: push.credentialTTL)
    }

    /// The broker for a new MQTT installation: none with a single broker; of several, the one
    /// serving fewest installations now.
    private func newBroker() async throws -> String? {
        try await balancer?.assign()
    }

    /// The broker an endpoint names: the installation's own; a new one (the least loaded) when
    /// its broker was taken out of the configuration, so that the device moves on its next
    /// connect.
    private func broker(serving installation: Installation, in brokers: BrokerDirectory) async throws
        -> BrokerAddress
    {
        if installation.broker != nil, brokers.configured(installation.broker) == nil,
            let moved = try await newBroker(),
            let address = brokers.configured(moved)
        {
            try await store.assignBroker(appID: installation.appID, id: installation.id, broker: moved)
            return address
        }
        return brokers.broker(serving: installation)
    }

    static func notFound(appID: AppID, _ reference: InstallationReference) -> KiiError {
        KiiError(
            .installationNotFound, "The installation \(reference) was not found.",
            context: ["installationID": .string(reference.description), "appID": .string(appID.rawValue)])
    }
}
