extension KiiError {
    /// 404 `TOPIC_NOT_FOUND` for the topic at `address`, with Kii's `topicID` and `objectScope`.
    public static func topicNotFound(appID: AppID, _ address: TopicAddress) -> KiiError {
        KiiError(
            .topicNotFound, "Topic \(address) was not found.",
            context: [
                "topicID": .string(address.name.rawValue), "objectScope": address.scope.objectScope(appID: appID),
            ])
    }
}
