import TopicGateCore

extension KiiError {
    /// No user at what the request named (`field` = `value`): Kii's `USER_NOT_FOUND`, 404.
    static func userNotFound(appID: AppID, field: String, value: String) -> KiiError {
        KiiError(
            .userNotFound, "The user was not found.",
            context: [
                "field": .string(field), "value": .string(value), "appID": .string(appID.rawValue),
            ])
    }
}
