/// Where a topic lives: the app, a group, a user or a thing.
public enum TopicScope: Sendable, Hashable, CustomStringConvertible {
    case app
    case group(GroupID)
    case user(UserID)
    case thing(ThingID)

    /// Kii's `objectScopeType` / `objectScope.type`.
    public var kiiType: String {
        switch self {
        case .app: "APP"
        case .group: "APP_AND_GROUP"
        case .user: "APP_AND_USER"
        case .thing: "APP_AND_THING"
        }
    }

    /// `app`, `group/ID`, `user/ID`, `thing/ID`: how operators name a scope.
    public var description: String {
        switch self {
        case .app: "app"
        case .group(let id): "group/\(id.rawValue)"
        case .user(let id): "user/\(id.rawValue)"
        case .thing(let id): "thing/\(id.rawValue)"
        }
    }

    /// The user or thing whose scope this is; nil for the app's and a group's.
    public var principal: Principal? {
        switch self {
        case .user(let id): .user(id)
        case .thing(let id): .thing(id)
        case .app, .group: nil
        }
    }

    /// Kii's `objectScope` object for error bodies.
    public func objectScope(appID: AppID) -> JSONValue {
        var members: [String: JSONValue] = ["appID": .string(appID.rawValue), "type": .string(kiiType)]
        switch self {
        case .app: break
        case .group(let id): members["groupID"] = .string(id.rawValue)
        case .user(let id): members["userID"] = .string(id.rawValue)
        case .thing(let id): members["thingID"] = .string(id.rawValue)
        }
        return .object(members)
    }
}
