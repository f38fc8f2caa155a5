public import TopicGateCore

/// Which gateway each end node is attached to (at most one), and what its gateway reported of
/// its connection. Deleting either thing removes the attachment.
public protocol EndNodeStore: Sendable {
    /// Attaches `endNode` to `gateway`, moving it from any other gateway (its connection report
    /// is forgotten then); false when it was attached to `gateway` already.
    func attachEndNode(appID: AppID, gateway: ThingID, endNode: ThingID, at: UnixMillis) async throws -> Bool
    /// False when `endNode` was not attached to `gateway`.
    func detachEndNode(appID: AppID, gateway: ThingID, endNode: ThingID) async throws -> Bool
    /// A page of the gateway's end nodes in thing-ID order, after the page key `after`; the next
    /// page's key when there is more.
    func endNodes(appID: AppID, gateway: ThingID, limit: Int, after: String?) async throws
        -> (endNodes: [EndNode], next: String?)
    /// The thing as an end node; nil when it is attached to no gateway.
    func endNode(appID: AppID, id: ThingID) async throws -> EndNode?
    /// Records a connection report; false when `endNode` is not attached to `gateway`.
    func setEndNodeConnection(appID: AppID, gateway: ThingID, endNode: ThingID, online: Bool, at: UnixMillis)
        async throws -> Bool
}
