import TopicGateCore

/// `OnboardingResponse`: the thing, its token and, with push, the MQTT endpoint of the
/// installation this onboarding made.
struct OnboardingAnswer: Encodable, Sendable {
    let thingID: String
    let accessToken: String
    let mqttEndpoint: MQTTEndpoint?
}
