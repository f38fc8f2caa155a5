import Hummingbird
import TopicGateCore

/// `POST /thing-if/apps/{appID}/onboardings`, the variant chosen by the media type
/// (matched case-insensitively: Go sends `onboardingWith…` with a lower-case o).
struct OnboardingController<Context: CallerRequestContext>: Sendable {
    let onboarding: OnboardingService
    let body: RequestBody

    func addRoutes(to group: RouterGroup<Context>) {
        group.post("onboardings") { request, context in
            let caller = try context.caller
            let mediaType = MediaTypeName(request)
            if mediaType.contains("onboardingendnodewithgateway") {
                let endNodeRequest = try EndNodeOnboardingRequest(
                    gatewayByVendorThingID: mediaType.contains("withgatewayvendorthingid"),
                    body: try await body.object(request))
                return JSONResponse.ok(
                    try await onboarding.onboardEndNode(caller: caller, request: endNodeRequest),
                    mediaType: "application/vnd.kii.OnboardingEndNodeWithGatewayResponse+json")
            }
            let onboardingRequest = try OnboardingRequest(
                try Self.variant(mediaType), body: try await body.object(request))
            return JSONResponse.ok(
                try await onboarding.onboard(caller: caller, request: onboardingRequest),
                mediaType: "application/vnd.kii.OnboardingResponse+json")
        }
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
