# TopicGate's container image: the gateway, its broker plugin and Mosquitto, on Debian slim.
#
#   docker build -t topicgate .
#   docker run -p 8080:8080 -p 1883:1883 -v topicgate-data:/data \
#     -e TOPICGATE_MQTT_PUBLIC_HOST=mqtt.example.com topicgate
#
# TOPICGATE_MQTT_PUBLIC_HOST is the host devices are told to connect to (without it, the
# container's hostname, which they cannot reach).
#
# With no --broker the gateway starts the image's Mosquitto as its child (the embedded
# default); docker-compose.yml runs the broker as a service of its own from this same image.
# The packages of each stage are the Makefile's (BUILD_APT_PACKAGES, RUN_APT_PACKAGES); a test
# keeps them the same.

# --- build: the official Swift image ---------------------------------------------------------
FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       libsqlite3-dev libssl-dev libcjson-dev mosquitto-dev libmosquitto-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /build
# Dependencies first, in a layer of their own: a change to the sources does not fetch them again.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
# The manifest names the test targets' folders; they are not built.
COPY Tests ./Tests
COPY broker-config ./broker-config
# The Swift runtime linked in (the plugin links it statically whatever the flags: Package.swift),
# so the runtime stage needs no Swift; FoundationNetworking still needs libcurl4.
RUN swift build -c release --static-swift-stdlib \
    && bin="$(swift build -c release --static-swift-stdlib --show-bin-path)" \
    && install -D -m 0755 "$bin/topicgate" /staging/usr/bin/topicgate \
    && install -D -m 0644 "$bin/libTopicGateMosquittoAuth.so" /staging/usr/lib/topicgate/libTopicGateMosquittoAuth.so \
    && install -D -m 0644 broker-config/mosquitto.conf /staging/usr/share/topicgate/mosquitto.conf

# --- runtime: Debian slim with Mosquitto --------------------------------------------------------
FROM debian:bookworm-slim AS runtime
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
       mosquitto mosquitto-clients libsqlite3-0 libssl3 libcjson1 libmosquitto1 \
       libstdc++6 libcurl4 ca-certificates tzdata curl \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /staging/ /
# One account for the gateway and, when it runs in this image, the broker. The folders exist
# in the image with their owner, so named volumes mounted on them start out owned by it.
RUN useradd --system --uid 10001 --user-group --home-dir /data --shell /usr/sbin/nologin topicgate \
    && mkdir -p /data /secrets /broker \
    && chown topicgate:topicgate /data /secrets /broker \
    && chmod 0700 /data /secrets /broker
USER topicgate
WORKDIR /data
ENV TOPICGATE_HOST=0.0.0.0 \
    TOPICGATE_MQTT_HOST=0.0.0.0 \
    TOPICGATE_DATA_DIR=/data
EXPOSE 8080 1883 12470 12473
VOLUME ["/data"]
# Ready: the database answers and the broker link is up.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/ready || curl -fsSk https://127.0.0.1:8080/ready || exit 1
ENTRYPOINT ["/usr/bin/topicgate"]
CMD ["serve"]
