import MQTTBridge

/// How a broker link hands a batch of publications to its broker, in their order. Where the
/// broker's plugin takes fan-outs, every run of publications with one payload (a message's
/// devices on this broker) goes as fan-outs (`MQTTFanOut`) of at most `topicsPerFanOut` topics
/// and the broker's packet limit each: a send to 10 000 devices is a few dozen PUBLISH packets
/// from the gateway, not 10 000, and a single device's push is a fan-out of one, so that pushes
/// reach the broker's queues in the order they were handed over. Where it does not, or for a
/// publication a fan-out cannot carry (a topic no device can hold, a payload too large for the
/// fan-out's few bytes more), each goes as its own PUBLISH. A publication over the broker's
/// packet limit is refused, never sent: the broker would drop the whole connection, and
/// libmosquitto would send it again after every reconnect.
struct PublicationPlan: Sendable, Equatable {
    enum Step: Sendable, Equatable {
        /// One PUBLISH to the publication's device topic.
        case direct(Int)
        /// One fan-out carrying the payload to the topics of these publications.
        case fanOut([Int])
        /// Never sent: a PUBLISH of `packetSize` bytes is over the broker's limit.
        case refused(Int, packetSize: Int)
    }

    let steps: [Step]

    init(
        _ publications: [DevicePublication], fanOut: Bool, maximumPacketSize: Int, topicsPerFanOut: Int = 1_000
    ) {
        var steps: [Step] = []
        var group: [Int] = []  // the fan-out being filled
        var groupSize = 0  // its packet's size so far
        func close() {
            if !group.isEmpty { steps.append(.fanOut(group)) }
            group = []
        }
        for (index, publication) in publications.enumerated() {
            let direct = MQTTPublication.packetSize(topic: publication.topic, payloadCount: publication.payload.count)
            guard direct <= maximumPacketSize else {
                close()
                steps.append(.refused(index, packetSize: direct))
                continue
            }
            let topicSize = MQTTFanOut.size(of: publication.topic)
            let alone = Self.fanOutPacketSize(payloadCount: publication.payload.count, topics: topicSize)
            guard fanOut, MQTTFanOut.carries(publication.topic), alone <= maximumPacketSize else {
                close()
                steps.append(.direct(index))
                continue
            }
            // Arrays compare their storage first: a message's publications share one payload.
            if let last = group.last,
                publications[last].payload == publication.payload, group.count < topicsPerFanOut,
                groupSize + topicSize <= maximumPacketSize
            {
                group.append(index)
                groupSize += topicSize
            } else {
                close()
                group = [index]
                groupSize = alone
            }
        }
        close()
        self.steps = steps
    }

    /// The PUBLISH packet of a fan-out of `payloadCount` bytes whose topics take `topics` bytes,
    /// counted as if its remaining length took the most bytes it can: a fan-out that grows past
    /// a length byte's boundary stays within the limit.
    static func fanOutPacketSize(payloadCount: Int, topics: Int) -> Int {
        MQTTPublication.packetSize(
            topic: MQTTFanOut.topic, payloadCount: MQTTFanOut.headerSize(payloadCount: payloadCount) + topics) + 3
    }
}
