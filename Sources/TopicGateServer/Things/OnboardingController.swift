import Hummingbird
import TopicGateCore

/// `POST /thing-if/apps/{appID}/onboardings`, the variant chosen by the media type
/// (matched case-insensitively: Go sends `onboardingWith…` with a lower-case o).
struct OnboardingController<Context: CallerRequestContext>: RouteTable {
    let onboarding: OnboardingService
    let body: RequestBody

    static var tag: String { "Thing-IF" }
    static var root: APIRoot { .thingIF }

    static var routes: [APIRoute<Self>] {
        let request = APISchema.object(
            [
                "vendorThingID": APISchema.string, "thingID": APISchema.string, "thingPassword": APISchema.string,
                "owner": APISchema.string, "thingType": APISchema.string, "firmwareVersion": APISchema.string,
                "layoutPosition": APISchema.string, "thingProperties": APISchema.anyObject,
                "gatewayThingID": APISchema.string, "gatewayVendorThingID": APISchema.string,
                "endNodeVendorThingID": APISchema.string, "endNodePassword": APISchema.string,
                "endNodeThingType": APISchema.string, "endNodeFirmwareVersion": APISchema.string,
                "endNodeThingProperties": ["type": ["object", "string"]],
            ])
        return [
            .post(
                "onboardings", "Onboard a thing",
                body: APIOperation.Body(
                    mediaTypes: [
                        "application/vnd.kii.OnboardingWithVendorThingIDByOwner+json",
                        "application/vnd.kii.OnboardingWithThingIDByOwner+json",
                        "application/vnd.kii.OnboardingWithVendorThingIDByThing+json",
                        "application/vnd.kii.OnboardingWithThingIDByThing+json",
                        "application/vnd.kii.OnboardingEndNodeWithGatewayThingID+json",
                        "application/vnd.kii.OnboardingEndNodeWithGatewayVendorThingID+json",
                    ], schema: request), Self.onboard)
        ]
    }

    func onboard(_ request: Request, _ context: Context) async throws -> Response {
        let caller = try context.caller
        let mediaType = MediaTypeName(request)
        if mediaType.contains("onboardingendnodewithgateway") {
            let endNodeRequest = try EndNodeOnboardingRequest(
                gatewayByVendorThingID: mediaType.contains("withgatewayvendorthingid"),
                body: try await body.object(request))
            return try JSONResponse.ok(
                encoding: try await onboarding.onboardEndNode(caller: caller, request: endNodeRequest),
                mediaType: "application/vnd.kii.OnboardingEndNodeWithGatewayResponse+json")
        }
        let onboardingRequest = try OnboardingRequest(try Self.variant(mediaType), body: try await body.object(request))
        return try JSONResponse.ok(
            encoding: try await onboarding.onboard(caller: caller, request: onboardingRequest),
            mediaType: "application/vnd.kii.OnboardingResponse+json")
    }

    static func variant(_ mediaType: MediaTypeName) throws -> OnboardingRequest.Variant {
        if mediaType.contains("onboardingwithvendorthingidbyowner") { return .vendorThingIDByOwner }
        if mediaType.contains("onboardingwiththingidbyowner") { return .thingIDByOwner }
        if mediaType.contains("onboardingwithvendorthingidbything") { return .vendorThingIDByThing }
        if mediaType.contains("onboardingwiththingidbything") { return .thingIDByThing }
        throw KiiError(
            .unsupportedMediaType,
            "Onboarding takes application/vnd.kii.OnboardingWithVendorThingIDByOwner+json, "
                + "OnboardingWithThingIDByOwner+json, OnboardingWithVendorThingIDByThing+json, "
                + "OnboardingWithThingIDByThing+json, OnboardingEndNodeWithGatewayThingID+json or "
                + "OnboardingEndNodeWithGatewayVendorThingID+json.")
    }
}
