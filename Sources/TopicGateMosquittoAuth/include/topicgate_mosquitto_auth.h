/* TopicGate's Mosquitto 2.0 plugin (plugin API v5). It exports only the three entry points
 * Mosquitto looks up: mosquitto_plugin_version, mosquitto_plugin_init, mosquitto_plugin_cleanup.
 * Load it with
 *     plugin /path/to/libTopicGateMosquittoAuth.so
 *     plugin_opt_secret_file /path/to/mqtt-secret
 *     plugin_opt_gateway_username topicgate        (optional; this is the default)
 * See broker-config/README.md. */
#ifndef TOPICGATE_MOSQUITTO_AUTH_H
#define TOPICGATE_MOSQUITTO_AUTH_H
#endif
