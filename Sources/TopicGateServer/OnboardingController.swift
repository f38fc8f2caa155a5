import HTTPTypes
import Hummingbird
import TopicGateCore
import TopicGateStore

/// `POST /thing-if/apps/{appID}/onboardings`, the variant chosen by the media type
/// (matched case-insensitively: Go sends `onboardingWith…` with a lower-case o).
struct OnboardingController<Context: RequestContext>: Sendable {
    let environment: ServerEnvironment

    func addRoutes(to router: Router<Context>) {
        router.post("thing-if/apps/:appID/onboardings") { request, context in
            let caller = try await environment.authenticator.caller(request, context, appID: try context.parameters.appID())
            let mediaType = MediaTypeName(request)
            let variant: OnboardingService.Variant
            if mediaType.contains("onboardingwithvendorthingidbyowner") {
                variant = .vendorThingIDByOwner
            } else if mediaType.contains("onboardingwiththingidbyowner") {
                variant = .thingIDByOwner
            } else if mediaType.contains("onboardingwithvendorthingidbything") {
                variant = .vendorThingIDByThing
            } else {
                throw KiiError(
                    .unsupportedMediaType,
                    "Onboarding takes application/vnd.kii.OnboardingWithVendorThingIDByOwner+json, "
                        + "OnboardingWithThingIDByOwner+json or OnboardingWithVendorThingIDByThing+json.")
            }
            let body = try await environment.body.object(request)
            return JSONResponse.ok(
                try await environment.onboarding.onboard(caller: caller, variant: variant, body: body),
                mediaType: "application/vnd.kii.OnboardingResponse+json")
        }
    }
}
