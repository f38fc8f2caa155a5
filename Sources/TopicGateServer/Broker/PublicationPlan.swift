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
/// libmosquitto would send it again after every reconnect. Where the plugin takes batches of
/// fan-outs (`MQTTFanOutBatch`), consecutive fan-outs of several payloads (the messages one
/// group commit wrote) share one PUBLISH within the same caps: one packet and one PUBACK for
/// the batch, not one per message.
struct PublicationPlan: Sendable, Equatable {
    enum Step: Sendable, Equatable {
        /// One PUBLISH to the publication's device topic.
        case direct(Int)
        /// One fan-out carrying the payload to the topics of these publications.
        case fanOut([Int])
        /// One batch of fan-outs, each carrying its payload to the topics of its publications.
        case fanOutBatch([[Int]])
        /// Never sent: a PUBLISH of `packetSize` bytes is over the broker's limit.
        case refused(Int, packetSize: Int)
    }

    let steps: [Step]

    init(
        _ publications: [DevicePublication], fanOut: Bool, batches: Bool = false, maximumPacketSize: Int,
        topicsPerFanOut: Int = 1_000
    ) {
        let batches = fanOut && batches
        let topicsPerPacket = batches ? min(topicsPerFanOut, MQTTFanOutBatch.topicsPerFanOut) : topicsPerFanOut
        var steps: [Step] = []
        var packet: [[Int]] = []  // the fan-outs of the packet being filled (one without batches)
        var body = 0  // its payload's size so far
        var topics = 0  // its topics so far
        func close() {
            if let only = packet.first, !batches {
                steps.append(.fanOut(only))
            } else if !packet.isEmpty {
                steps.append(.fanOutBatch(packet))
            }
            packet = []
        }
        func fits(_ size: Int) -> Bool {
            topics < topicsPerPacket && Self.fanOutPacketSize(body: size) <= maximumPacketSize
        }
        for (index, publication) in publications.enumerated() {
            let direct = MQTTPublication.packetSize(topic: publication.topic, payloadCount: publication.payload.count)
            guard direct <= maximumPacketSize else {
                close()
                steps.append(.refused(index, packetSize: direct))
                continue
            }
            let topicSize = MQTTFanOut.size(of: publication.topic)
            let section =
                batches
                ? MQTTFanOutBatch.sectionSize(payloadCount: publication.payload.count)
                : MQTTFanOut.headerSize(payloadCount: publication.payload.count)
            let alone = (batches ? MQTTFanOutBatch.headerSize : 0) + section + topicSize
            guard fanOut, MQTTFanOut.carries(publication.topic), Self.fanOutPacketSize(body: alone) <= maximumPacketSize
            else {
                close()
                steps.append(.direct(index))
                continue
            }
            // Arrays compare their storage first: a message's publications share one payload.
            if let last = packet.last?.last, publications[last].payload == publication.payload,
                fits(body + topicSize)
            {
                packet[packet.count - 1].append(index)
                body += topicSize
            } else if batches, !packet.isEmpty, fits(body + section + topicSize) {
                packet.append([index])
                body += section + topicSize
            } else {
                close()
                packet = [[index]]
                body = alone
                topics = 0
            }
            topics += 1
        }
        close()
        self.steps = steps
    }

    /// The PUBLISH packet of a fan-out, or a batch of them, whose payload takes `body` bytes,
    /// counted as if its remaining length took the most bytes it can: a fan-out that grows past
    /// a length byte's boundary stays within the limit.
    static func fanOutPacketSize(body: Int) -> Int {
        MQTTPublication.packetSize(topic: MQTTFanOut.topic, payloadCount: body) + 3
    }
}
