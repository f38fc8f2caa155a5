import HTTPTypes
import Hummingbird
import TopicGateCore

/// The status of each error code, as Kii's SDKs expect it (the JavaScript SDK's
/// `KiiErrorParser` table): 400 bad input, 401/403 refusals (below), 403 a wrong token,
/// 404 not found, 409 conflicts, 429 limits, 503 not ready.
extension KiiError: HTTPResponseError {
    public var status: HTTPResponse.Status {
        switch code {
        case .unauthorized:
            // Kii's UnauthorizedAccessException: ask an anonymous caller to authenticate,
            // refuse an authenticated one.
            context["authenticatedPrincipalID"] == .string(Principal.anonymous.principalID) ? .unauthorized : .forbidden
        case .wrongPassword, .userDisabled, .thingDisabled: .unauthorized
        case .wrongToken, .quotaExceeded: .forbidden
        case .notFound, .appNotFound, .userNotFound, .groupNotFound, .thingNotFound, .thingOwnershipNotFound,
            .groupMemberNotFound, .topicNotFound, .aclNotFound, .pushSubscriptionNotFound, .installationNotFound,
            .commandNotFound, .stateNotFound, .linkNotFound, .endNodeNotFound, .thingWithoutThingType,
            .thingWithoutFirmwareVersion, .traitAliasNotFound, .triggerNotFound:
            .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .userAlreadyExists, .groupAlreadyExists, .thingAlreadyExists, .thingOwnershipAlreadyExists,
            .operationNotAllowed, .topicAlreadyExists, .aclAlreadyExists, .pushSubscriptionAlreadyExists,
            .aclEntryNotRemovable, .linkAlreadyExists, .linkSecretMismatch, .thingTypeAlreadySet,
            .stateHistoryNotAvailable:
            .conflict
        case .tooManyRequests: .tooManyRequests
        case .requestTooLarge: .contentTooLarge
        case .unsupportedMediaType: .unsupportedMediaType
        case .undefinedError: .internalServerError
        case .temporarilyUnavailable, .mqttEndpointNotReady: .serviceUnavailable
        default: .badRequest
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONResponse.make(status: status, body: body, mediaType: "application/json")
        if let seconds = retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
        return response
    }
}
