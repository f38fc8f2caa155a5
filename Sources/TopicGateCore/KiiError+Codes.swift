/// The codes of Kii's error table (as its SDKs map them to exceptions) that TopicGate answers with,
/// plus the few of its own, each documented where it is thrown.
extension KiiError.Code {
    // 400
    public static let invalidJSON = Self(rawValue: "INVALID_JSON")
    public static let invalidInputData = Self(rawValue: "INVALID_INPUT_DATA")
    public static let invalidAccountStatus = Self(rawValue: "INVALID_ACCOUNT_STATUS")
    public static let passwordTooShort = Self(rawValue: "PASSWORD_TOO_SHORT")
    public static let passwordTooLong = Self(rawValue: "PASSWORD_TOO_LONG")
    public static let emptyBody = Self(rawValue: "EMPTY_BODY")
    /// OAuth failures on the token endpoint (with `error_description`).
    public static let invalidGrant = Self(rawValue: "invalid_grant")
    public static let invalidRequest = Self(rawValue: "invalid_request")
    public static let invalidClient = Self(rawValue: "invalid_client")
    public static let unsupportedGrantType = Self(rawValue: "unsupported_grant_type")
    // 401 for an anonymous caller, 403 for an authenticated one (Kii's UnauthorizedAccessException)
    public static let unauthorized = Self(rawValue: "UNAUTHORIZED")
    // 401
    public static let wrongPassword = Self(rawValue: "WRONG_PASSWORD")
    public static let userDisabled = Self(rawValue: "USER_DISABLED")
    public static let thingDisabled = Self(rawValue: "THING_DISABLED")
    // 403
    public static let wrongToken = Self(rawValue: "WRONG_TOKEN")
    // 404
    public static let notFound = Self(rawValue: "NOT_FOUND")
    public static let appNotFound = Self(rawValue: "APP_NOT_FOUND")
    public static let userNotFound = Self(rawValue: "USER_NOT_FOUND")
    public static let groupNotFound = Self(rawValue: "GROUP_NOT_FOUND")
    public static let thingNotFound = Self(rawValue: "THING_NOT_FOUND")
    public static let thingOwnershipNotFound = Self(rawValue: "THING_OWNERSHIP_NOT_FOUND")
    public static let groupMemberNotFound = Self(rawValue: "GROUP_MEMBER_NOT_FOUND")
    public static let topicNotFound = Self(rawValue: "TOPIC_NOT_FOUND")
    public static let aclNotFound = Self(rawValue: "ACL_NOT_FOUND")
    public static let pushSubscriptionNotFound = Self(rawValue: "PUSH_SUBSCRIPTION_NOT_FOUND")
    public static let installationNotFound = Self(rawValue: "INSTALLATION_NOT_FOUND")
    public static let commandNotFound = Self(rawValue: "COMMAND_NOT_FOUND")
    public static let stateNotFound = Self(rawValue: "STATE_NOT_FOUND")
    /// TopicGate's own: the thing is not an end node of that gateway.
    public static let endNodeNotFound = Self(rawValue: "END_NODE_NOT_FOUND")
    /// Thing-IF's: the thing has no thing type / no firmware version (GET answers 404).
    public static let thingWithoutThingType = Self(rawValue: "THING_WITHOUT_THING_TYPE")
    public static let thingWithoutFirmwareVersion = Self(rawValue: "THING_WITHOUT_FIRMWARE_VERSION")
    // 405
    public static let methodNotAllowed = Self(rawValue: "METHOD_NOT_ALLOWED")
    // 409
    public static let userAlreadyExists = Self(rawValue: "USER_ALREADY_EXISTS")
    public static let groupAlreadyExists = Self(rawValue: "GROUP_ALREADY_EXISTS")
    public static let thingAlreadyExists = Self(rawValue: "THING_ALREADY_EXISTS")
    public static let thingOwnershipAlreadyExists = Self(rawValue: "THING_OWNERSHIP_ALREADY_EXISTS")
    public static let operationNotAllowed = Self(rawValue: "OPERATION_NOT_ALLOWED")
    public static let topicAlreadyExists = Self(rawValue: "TOPIC_ALREADY_EXISTS")
    public static let aclAlreadyExists = Self(rawValue: "ACL_ALREADY_EXISTS")
    public static let pushSubscriptionAlreadyExists = Self(rawValue: "PUSH_SUBSCRIPTION_ALREADY_EXISTS")
    /// TopicGate's own: a thing's type is set once (Thing-IF answers 409 when it is set again).
    public static let thingTypeAlreadySet = Self(rawValue: "THING_TYPE_ALREADY_SET")
    /// TopicGate's own: the entry belongs to the topic's creator or scope owner and stays.
    public static let aclEntryNotRemovable = Self(rawValue: "ACL_ENTRY_NOT_REMOVABLE")
    // 413, 415
    public static let requestTooLarge = Self(rawValue: "REQUEST_ENTITY_TOO_LARGE")
    public static let unsupportedMediaType = Self(rawValue: "UNSUPPORTED_MEDIA_TYPE")
    // 500, 503
    public static let undefinedError = Self(rawValue: "UNDEFINED_ERROR")
    public static let temporarilyUnavailable = Self(rawValue: "RESOURCE_TEMPORARILY_UNAVAILABLE")
    public static let mqttEndpointNotReady = Self(rawValue: "MQTT_ENDPOINT_NOT_READY")
}

extension KiiError {
    /// 400 `INVALID_INPUT_DATA` naming the offending field.
    public static func invalidInput(_ message: String, field: String? = nil) -> KiiError {
        KiiError(.invalidInputData, message, context: field.map { ["field": .string($0)] } ?? [:])
    }

    /// 401 `USER_DISABLED`: the user's token is refused while an admin has it disabled.
    public static func userDisabled(_ id: UserID) -> KiiError {
        KiiError(.userDisabled, "The user is disabled.", context: ["userID": .string(id.rawValue)])
    }

    /// 401 `THING_DISABLED`: a disabled thing's token, onboarding or end-node token is refused.
    public static func thingDisabled(_ id: ThingID) -> KiiError {
        KiiError(.thingDisabled, "The thing is disabled.", context: ["thingID": .string(id.rawValue)])
    }

    /// `UNAUTHORIZED` in the shape of Kii's UnauthorizedAccessException: the caller may not do
    /// what it asked (an anonymous caller is told to authenticate first).
    public static func accessDenied(_ message: String, appID: AppID, principal: Principal) -> KiiError {
        KiiError(
            .unauthorized, message,
            context: [
                "authenticatedAppID": .string(appID.rawValue),
                "authenticatedPrincipalID": .string(principal.principalID),
            ])
    }
}

extension KiiError.Code {
    public static let tooManyRequests = Self(rawValue: "TOO_MANY_REQUESTS")
    /// 403: a user or thing holds as many installations, topics or subscriptions as it may.
    public static let quotaExceeded = Self(rawValue: "QUOTA_EXCEEDED")
    public static let linkAlreadyExists = Self(rawValue: "LINK_ALREADY_EXISTS")
    public static let linkSecretMismatch = Self(rawValue: "LINK_SECRET_MISMATCH")
    public static let linkNotFound = Self(rawValue: "LINK_NOT_FOUND")
    /// 409: a state history query on a thing that never reported a state.
    public static let stateHistoryNotAvailable = Self(rawValue: "STATE_HISTORY_NOT_AVAILABLE")
    /// 404: a state history query on an alias the thing never reported.
    public static let traitAliasNotFound = Self(rawValue: "TRAIT_ALIAS_NOT_FOUND")
    /// 400: a trigger's predicate is not one TopicGate can evaluate (a bad cron, clause, time).
    public static let wrongPredicate = Self(rawValue: "WRONG_PREDICATE")
    /// 400: a trigger that is not valid as a whole (what it triggers, its command).
    public static let wrongTrigger = Self(rawValue: "WRONG_TRIGGER")
    public static let triggerNotFound = Self(rawValue: "TRIGGER_NOT_FOUND")
}

extension KiiError {
    /// 429: too many requests from one client address or for one app; `retryAfter` (seconds)
    /// goes into the body and the `Retry-After` header.
    public static func tooManyRequests(_ message: String, retryAfter: Duration) -> KiiError {
        var error = KiiError(.tooManyRequests, message)
        error.setRetryAfter(retryAfter)
        return error
    }

    /// Tells the client to wait `span` (in whole seconds rounded up, at least one) before trying
    /// again.
    public mutating func setRetryAfter(_ span: Duration) {
        context["retryAfter"] = .int(max(1, (span.wholeMilliseconds + 999) / 1000))
    }

    /// Seconds the client should wait before trying again, when the error says so.
    public var retryAfterSeconds: Int64? { context["retryAfter"]?.intValue }
}

extension KiiError {
    /// An OAuth error: Kii's `errorCode` and `message`, plus OAuth's `error` and `error_description`.
    public static func oauth(_ code: KiiError.Code, _ description: String) -> KiiError {
        KiiError(
            code, description, context: ["error": .string(code.rawValue), "error_description": .string(description)])
    }
}
