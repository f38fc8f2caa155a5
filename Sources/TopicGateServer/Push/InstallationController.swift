import HTTPTypes
import Hummingbird
import TopicGateCore

/// `/api/apps/{appID}/installations…`: install a device, read or delete it, and get its MQTT
/// endpoint, in the shape Kii's SDKs parse (ebisu reads `X-MQTT-TTL` as a field and needs
/// every port; the Go SDK needs every field non-empty).
struct InstallationController<Context: CallerRequestContext>: Sendable {
    let installations: InstallationService
    let body: RequestBody
    let location: ResourceLocation

    func addRoutes(to group: RouterGroup<Context>) {
        group.post("installations") { request, context in
            let caller = try context.caller
            let installationRequest = try await body.decode(InstallationRequest.self, from: request)
            let installation = try await installations.install(caller: caller, request: installationRequest)
            return JSONResponse.created(
                [
                    "installationID": .string(installation.id.rawValue),
                    "installationRegistrationID": .string(installation.registrationID),
                ],
                mediaType: "application/vnd.kii.InstallationCreationResponse+json",
                location: location(
                    "/api/apps/\(caller.appID.rawValue)/installations/\(installation.id.rawValue)"))
        }
        group.get("installations/:installation") { request, context in
            let caller = try context.caller
            let installation = try await installations.find(
                caller: caller, reference: try context.parameters.installationReference())
            var json: [String: JSONValue] = [
                "installationID": .string(installation.id.rawValue),
                "installationRegistrationID": .string(installation.registrationID),
                "deviceType": .string(installation.deviceType),
                "development": .bool(installation.development),
                "createdAt": .int(installation.createdAt.rawValue),
            ]
            switch installation.principal {
            case .user(let id): json["userID"] = .string(id.rawValue)
            case .thing(let id): json["thingID"] = .string(id.rawValue)
            case .admin, .anonymous: break
            }
            return JSONResponse.ok(.object(json), mediaType: "application/vnd.kii.InstallationRetrievalResponse+json")
        }
        group.delete("installations/:installation") { request, context in
            let caller = try context.caller
            try await installations.delete(
                caller: caller, reference: try context.parameters.installationReference())
            return JSONResponse.noContent()
        }
        group.get("installations/:installation/mqtt-endpoint") { request, context in
            let caller = try context.caller
            let endpoint = try await installations.endpoint(
                caller: caller, reference: try context.parameters.installationReference())
            return JSONResponse.make(
                status: .ok, body: endpoint.json, mediaType: "application/vnd.kii.MQTTEndpointResponse+json",
                headers: [HTTPField.Name("X-MQTT-TTL")!: String(endpoint.ttl.components.seconds)])
        }
    }
}
