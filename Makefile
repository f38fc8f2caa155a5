# TopicGate: `make run` and `make test` do all the set-up a fresh Debian/Ubuntu machine needs.

# System packages the build needs (the Dockerfile's build stage installs the same), and those
# the gateway runs with (its runtime stage installs these and the -dev packages' libraries; a
# test keeps the two files in step).
BUILD_APT_PACKAGES := libsqlite3-dev libssl-dev libcjson-dev mosquitto-dev libmosquitto-dev
RUN_APT_PACKAGES := mosquitto mosquitto-clients
APT_PACKAGES := $(BUILD_APT_PACKAGES) $(RUN_APT_PACKAGES)
# And what the tests need besides: Python (the API fuzzer, the browser test's page server),
# the openssl command (test certificates, a TLS client), Chromium and its WebDriver (the browser
# tests: a web app on another origin, and the operator console driven by keyboard and mouse),
# strace (which disk syncs a running gateway makes before it answers).
TEST_APT_PACKAGES := curl python3 python3-venv openssl chromium chromium-driver postgresql haproxy systemd strace
SWIFT ?= swift
TOPICGATE := .build/debug/topicgate
# The API fuzzer the tests run (PyPI), in a virtual environment of its own.
FUZZ_VENV := .build/fuzz-venv
SCHEMATHESIS_VERSION := 4.32.5
# docker-compose (PyPI), which checks docker-compose.yml in the tests (no Docker engine needed).
COMPOSE_VENV := .build/compose-venv
COMPOSE_VERSION := 1.29.2

# `make install`: where (PREFIX, and DESTDIR for a staging root), from which build.
PREFIX ?= /usr/local
DESTDIR ?=
CONFIGURATION ?= release
BUILT := .build/$(CONFIGURATION)
INSTALLED := $(DESTDIR)$(PREFIX)/bin/topicgate $(DESTDIR)$(PREFIX)/lib/topicgate/libTopicGateMosquittoAuth.so \
	$(DESTDIR)$(PREFIX)/share/topicgate/mosquitto.conf $(DESTDIR)$(PREFIX)/lib/systemd/system/topicgate.service

.PHONY: run test build bench fuzz lint format deps test-deps fuzz-deps compose-deps clean install uninstall

## install: copy a build (swift build -c release first) to PREFIX (/usr/local): the binary, the
##          broker plugin and template it finds from there, and a systemd unit
##          (systemctl enable --now topicgate); DESTDIR=/stage for a staging root
install:
	@test -x $(BUILT)/topicgate -a -f $(BUILT)/libTopicGateMosquittoAuth.so || \
		{ echo "No $(CONFIGURATION) build in $(BUILT): run swift build -c $(CONFIGURATION) first." >&2; exit 1; }
	install -D -m 0755 $(BUILT)/topicgate $(DESTDIR)$(PREFIX)/bin/topicgate
	install -D -m 0644 $(BUILT)/libTopicGateMosquittoAuth.so $(DESTDIR)$(PREFIX)/lib/topicgate/libTopicGateMosquittoAuth.so
	install -D -m 0644 broker-config/mosquitto.conf $(DESTDIR)$(PREFIX)/share/topicgate/mosquitto.conf
	mkdir -p $(DESTDIR)$(PREFIX)/lib/systemd/system
	sed 's|@bindir@|$(PREFIX)/bin|g' packaging/topicgate.service > $(DESTDIR)$(PREFIX)/lib/systemd/system/topicgate.service
	chmod 0644 $(DESTDIR)$(PREFIX)/lib/systemd/system/topicgate.service

## uninstall: remove what install copied (the data in /var/lib/topicgate stays)
uninstall:
	rm -f $(INSTALLED)
	-rmdir $(DESTDIR)$(PREFIX)/lib/topicgate $(DESTDIR)$(PREFIX)/share/topicgate 2>/dev/null

## run: install what is missing, build, and serve on 127.0.0.1:8080 with ./data/topicgate.sqlite
##      and its own Mosquitto on 127.0.0.1:1883 (ARGS="--port 9090 --mqtt-port 11883" to change)
run: build
	$(TOPICGATE) serve $(ARGS)

## test: install what is missing, build everything, run the whole test suite, then the router
##       tests again on PostgreSQL (the store contract runs on both engines in the first pass),
##       one test at a time: a hundred at once, each with its own database and pool, starved
##       PostgreSQL on two cores until pools handed out no connection within their 5 s (503s);
##       one at a time it takes no longer.
##       Some tests run on their own afterwards: the descriptor test holds 1100 descriptors
##       (Foundation's Process crashes when another test spawns a process meanwhile), the
##       connection flood test times /health under its flood (the whole suite at once loads two
##       cores far past what that asks), the broker-save and gateway-password tests hold the
##       plugin's 5 s patience and a 2 s password lifetime to their promised times (which a broker
##       starved by the whole suite misses), the flood of thing states through a broker link loads
##       both cores for about 20 s, and the API fuzzing test loads both cores for minutes.
test: deps test-deps fuzz-deps compose-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip "APIFuzzTests|MQTTClientDescriptorTests|ConnectionFloodTests|BrokerSaveTests|GatewayPasswordTests|BrokerLinkStatesTests"
	TOPICGATE_TEST_STORE=postgres $(SWIFT) test --skip-build --no-parallel --filter TopicGateServerTests --skip BrokerLinkStatesTests
	$(SWIFT) test --skip-build --filter MQTTClientDescriptorTests
	$(SWIFT) test --skip-build --filter BrokerLinkStatesTests
	$(SWIFT) test --skip-build --filter ConnectionFloodTests
	$(SWIFT) test --skip-build --filter "BrokerSaveTests|GatewayPasswordTests"
	$(SWIFT) test --skip-build --filter APIFuzzTests

## fuzz: the API fuzzing test, longer than in `make test` (150 cases per operation and credential)
fuzz: deps test-deps fuzz-deps
	$(SWIFT) build --build-tests
	TOPICGATE_FUZZ_EXAMPLES=$${TOPICGATE_FUZZ_EXAMPLES:-150} $(SWIFT) test --skip-build --filter APIFuzzTests

## lint: the house format (.swift-format: 4 spaces, 120 columns), as CI checks it
lint:
	$(SWIFT) format lint --strict --recursive --parallel Sources Tests Package.swift

## format: rewrite the sources in the house format
format:
	$(SWIFT) format format --in-place --recursive --parallel Sources Tests Package.swift

## build: the topicgate executable and the broker plugin libTopicGateMosquittoAuth.so
build: deps
	$(SWIFT) build

## bench: a release build, then `topicgate bench` (its own gateway and broker; about a minute)
bench: deps
	$(SWIFT) build -c release
	.build/release/topicgate bench $(ARGS)

## deps: apt-get install the system packages that are not installed yet
deps:
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(APT_PACKAGES)"

## test-deps: the same for the packages only the tests need
test-deps:
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(TEST_APT_PACKAGES)"

apt-install:
	@missing=""; \
	for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi; \
	  $$sudo apt-get update && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y --no-install-recommends $$missing; \
	fi

## fuzz-deps: schemathesis (PyPI) in .build/fuzz-venv, for the API fuzzing test
fuzz-deps:
	@if [ ! -x $(FUZZ_VENV)/bin/schemathesis ]; then \
	  echo "Installing schemathesis $(SCHEMATHESIS_VERSION) into $(FUZZ_VENV)"; \
	  python3 -m venv $(FUZZ_VENV) && $(FUZZ_VENV)/bin/pip install -q schemathesis==$(SCHEMATHESIS_VERSION); \
	fi

## compose-deps: docker-compose in .build/compose-venv, for the test that checks docker-compose.yml
##   (its PyYAML 5.4 builds only with Cython < 3, hence the first two steps)
compose-deps:
	@if [ ! -x $(COMPOSE_VENV)/bin/docker-compose ]; then \
	  echo "Installing docker-compose $(COMPOSE_VERSION) into $(COMPOSE_VENV)"; \
	  python3 -m venv $(COMPOSE_VENV) \
	    && $(COMPOSE_VENV)/bin/pip install -q "cython<3" wheel \
	    && $(COMPOSE_VENV)/bin/pip install -q --no-build-isolation "pyyaml==5.4.1" \
	    && $(COMPOSE_VENV)/bin/pip install -q docker-compose==$(COMPOSE_VERSION); \
	fi

clean:
	rm -rf .build
