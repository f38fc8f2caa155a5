# TopicGate: `make run` and `make test` do all the set-up a fresh Debian/Ubuntu machine needs.

# System packages the build, the tests and the embedded broker need.
APT_PACKAGES := libsqlite3-dev libssl-dev libcjson-dev mosquitto mosquitto-clients mosquitto-dev libmosquitto-dev
SWIFT ?= swift
TOPICGATE := .build/debug/topicgate

.PHONY: run test build bench deps clean

## run: install what is missing, build, and serve on 127.0.0.1:8080 with ./data/topicgate.sqlite
##      and its own Mosquitto on 127.0.0.1:1883 (ARGS="--port 9090 --mqtt-port 11883" to change)
run: build
	$(TOPICGATE) serve $(ARGS)

## test: install what is missing, build everything, run the whole test suite
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## build: the topicgate executable and the broker plugin libTopicGateMosquittoAuth.so
build: deps
	$(SWIFT) build

## bench: a release build, then `topicgate bench` (its own gateway and broker; about a minute)
bench: deps
	$(SWIFT) build -c release
	.build/release/topicgate bench $(ARGS)

## deps: apt-get install the system packages that are not installed yet
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi; \
	  $$sudo apt-get update && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends $$missing; \
	fi

clean:
	rm -rf .build
