/* libmosquitto's client API, for MQTTBridge only (the one importer of this module). */
#include <mosquitto.h>
#include <mqtt_protocol.h>
