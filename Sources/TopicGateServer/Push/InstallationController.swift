import HTTPTypes
import Hummingbird
import TopicGateCore

/// `/api/apps/{appID}/installations…`: install a device, read or delete it, and get its MQTT
/// endpoint, in the shape Kii's SDKs parse (ebisu reads `X-MQTT-TTL` as a field and needs
/// every port; the Go SDK needs every field non-empty).
struct InstallationController<Context: CallerRequestContext>: RouteTable {
    let installations: InstallationService
    let body: RequestBody
    let location: ResourceLocation

    static var tag: String { "Push" }

    static var routes: [APIRoute<Self>] {
        let installation = "installations/{installation}"
        return [
            .post(
                "installations", "Install a device for push",
                body: APISchema.json(
                    APISchema.object([
                        "deviceType": APISchema.oneOf(["MQTT", "ANDROID", "IOS", "JPUSH"]),
                        "development": APISchema.flag,
                        "installationRegistrationID": APISchema.string, "thingID": APISchema.string,
                        "userID": APISchema.string,
                    ]), "application/vnd.kii.InstallationCreationRequest+json"), success: [201], Self.install),
            .get(installation, "An installation (ID or deviceType:registrationID)", Self.read),
            .delete(installation, "Delete (and revoke) an installation", Self.delete),
            .get(installation + "/mqtt-endpoint", "MQTT credentials and where to connect", Self.endpoint),
        ]
    }

    func install(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let installationRequest = try await body.decode(InstallationRequest.self, from: request)
        let installation = try await installations.install(caller: caller, request: installationRequest)
        return try JSONResponse.created(
            encoding: InstallationCreation(installation),
            mediaType: "application/vnd.kii.InstallationCreationResponse+json",
            location: location("/api/apps/\(caller.appID.rawValue)/installations/\(installation.id.rawValue)"))
    }

    func read(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let installation = try await installations.find(
            caller: caller, reference: try context.parameters.installationReference())
        return try JSONResponse.ok(
            encoding: InstallationRecord(installation),
            mediaType: "application/vnd.kii.InstallationRetrievalResponse+json")
    }

    func delete(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        try await installations.delete(caller: caller, reference: try context.parameters.installationReference())
        return JSONResponse.noContent()
    }

    func endpoint(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let endpoint = try await installations.endpoint(
            caller: caller, reference: try context.parameters.installationReference())
        return try JSONResponse.make(
            status: .ok, encoding: endpoint, mediaType: "application/vnd.kii.MQTTEndpointResponse+json",
            headers: [HTTPField.Name("X-MQTT-TTL")!: String(endpoint.ttl.components.seconds)])
    }
}
