/// `OnboardingEndNodeWithGatewayResponse`: the end node and a token that acts as it.
struct EndNodeOnboardingAnswer: Encodable, Sendable {
    let endNodeThingID: String
    let accessToken: String
}
