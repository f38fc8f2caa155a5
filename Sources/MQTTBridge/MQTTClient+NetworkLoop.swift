internal import CMosquitto
import Foundation
import Glibc
import Synchronization

/// The client's own network loop, on a thread of its own, instead of libmosquitto's
/// `mosquitto_loop_start`: libmosquitto's loop waits with select(), which cannot watch a
/// descriptor numbered 1024 or more, so a gateway holding a thousand HTTP connections could
/// not reconnect to its broker. This one waits with poll() on the broker socket and a
/// `WakeSignal`, and drives libmosquitto with `mosquitto_loop_read`, `mosquitto_loop_write` and
/// `mosquitto_loop_misc` (the client is marked threaded, so calls from other threads queue
/// their packets). A caller writes what it queued itself when the loop is not inside
/// libmosquitto at that moment (`writeQueued`), and signals the loop otherwise: the loop's calls
/// that can close or open the socket hold `socketAccess`, so a caller never writes to a
/// descriptor that was closed meanwhile.
///
/// Only this thread connects and reconnects (first at once, then after the reconnect delay,
/// doubling up to its maximum), so a `connect()` never races with a reconnect. It ends when
/// `shutdown()` asks, within one poll: nothing is joined that could wait for ever.
extension MQTTClient {
    /// The loop's view of what the client wants.
    enum LoopIntent {
        /// Be connected (reconnect after a loss).
        case connect
        /// Stay disconnected (before `connect()`, after `disconnect()` or a refusal).
        case idle
        /// Disconnect and end the thread.
        case stop
    }

    func runNetworkLoop() {
        let minimum = Double(max(1, configuration.reconnectDelay.min))
        let maximum = Double(max(configuration.reconnectDelay.min, configuration.reconnectDelay.max))
        var delay = 0.0  // the first attempt goes at once
        var everConnected = false
        // The broker socket (set each turn) and the wake signal.
        var descriptors = [
            pollfd(fd: -1, events: 0, revents: 0), pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let intent = loopIntent
            if intent == .stop { break }
            let socket = mosquitto_socket(handle)
            if socket < 0 {
                guard intent == .connect else {
                    waitForWake(seconds: 1)
                    continue
                }
                if delay > 0 {
                    waitForWake(seconds: delay)
                    if loopIntent != .connect { continue }
                }
                let rc = socketAccess.withLock { _ in
                    if let renew = configuration.renewPassword {
                        _ = mosquitto_username_pw_set(handle, configuration.username, renew())
                    }
                    return everConnected
                        ? mosquitto_reconnect(handle)
                        : mosquitto_connect(
                            handle, configuration.host, Int32(configuration.port), Int32(configuration.keepAlive))
                }
                if rc == MOSQ_ERR_SUCCESS.rawValue {
                    everConnected = true
                    delay = 0
                } else {
                    delay = delay == 0 ? minimum : min(delay * 2, maximum)
                }
                continue
            }
            descriptors[0] = pollfd(
                fd: socket, events: Int16(POLLIN) | (mosquitto_want_write(handle) ? Int16(POLLOUT) : 0), revents: 0)
            _ = poll(&descriptors, 2, loopWait(upTo: .seconds(1)))
            expireDueAcknowledgements()
            if descriptors[1].revents != 0 { wake.drain() }
            let rc = socketAccess.withLock { _ in
                var rc = MOSQ_ERR_SUCCESS.rawValue
                if descriptors[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                    rc = mosquitto_loop_read(handle, 1)
                }
                if rc == MOSQ_ERR_SUCCESS.rawValue, mosquitto_want_write(handle) {
                    rc = mosquitto_loop_write(handle, 1)
                }
                if rc == MOSQ_ERR_SUCCESS.rawValue { rc = mosquitto_loop_misc(handle) }
                // Lost (libmosquitto closed the socket and reported the disconnect); a socket it
                // kept is closed here, so that the next turn reconnects after the delay.
                if rc != MOSQ_ERR_SUCCESS.rawValue, mosquitto_socket(handle) >= 0 { _ = mosquitto_disconnect(handle) }
                return rc
            }
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                delay = delay == 0 ? minimum : delay
            } else if isConnected {
                delay = 0
            }
        }
        // Say goodbye if still connected: the DISCONNECT goes out, then the socket closes.
        socketAccess.withLock { _ in
            if mosquitto_socket(handle) >= 0 {
                _ = mosquitto_disconnect(handle)
                _ = mosquitto_loop_write(handle, 1)
            }
        }
        loopEnded.signal()
    }

    /// Writes what a call just queued from the caller's thread, when the loop is not inside
    /// libmosquitto and the socket is open: the packet leaves without a wake-up of the loop's
    /// thread. Otherwise, or when the socket would block, the loop is signalled to write it.
    func writeQueued() {
        let written =
            socketAccess.withLockIfAvailable { _ -> Bool in
                guard mosquitto_socket(handle) >= 0 else { return false }
                let rc = mosquitto_loop_write(handle, 1)
                return rc == MOSQ_ERR_SUCCESS.rawValue && !mosquitto_want_write(handle)
            } ?? false
        if !written { wake.signal() }
    }

    /// Waits up to `seconds`, or until the client signals; gives up on the acknowledgements
    /// whose deadline passes meanwhile.
    private func waitForWake(seconds: Double) {
        let end = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < end {
            var descriptor = pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)
            let woken = poll(&descriptor, 1, loopWait(upTo: end - .now)) > 0
            expireDueAcknowledgements()
            if woken {
                wake.drain()
                return
            }
        }
    }
}
