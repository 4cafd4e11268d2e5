# The documented way to build, test and run xla_oom (`make help` lists the targets). Building,
# `make run` and `make test` need only Go; a full `make test` also uses prometheus, VictoriaLogs,
# helm and buildah/podman when present (docs/testing.md), and `make image` needs buildah.
GO        ?= go
TOOLS     := $(GO) tool -modfile=$(CURDIR)/internal/tools/go.mod
MDATAGEN  := $(TOOLS) mdatagen
GOTESTSUM := $(TOOLS) gotestsum
# The version a build from a checkout reports: VERSION, marked -dev (a release: the tag).
VERSION   ?= $(shell cat VERSION)-dev

.PHONY: all
all: generate lint test xlaoom

##@ Try it, then run it on your logs

## run: build the demo's collector (only the components the demo uses) and run it on the bundled
## sample logs: incidents, early warnings, host-memory kills, metrics; ends by itself with what to try next
.PHONY: run
run:
	@$(MAKE) --no-print-directory -C distribution run PATHS_FROM=$(CURDIR)

## run-config: run the collector long-lived on CONFIG=your.yaml, or on LOGS='/var/log/xla/*/*.log'
.PHONY: run-config
run-config:
	@$(MAKE) --no-print-directory -C distribution run-config CONFIG="$(if $(CONFIG),$(abspath $(CONFIG)))" LOGS="$(if $(LOGS),$(abspath $(LOGS)))"

## xlaoom: build bin/xlaoom, the command that explains the XLA OOMs of a log file without a collector
## (`bin/xlaoom explain train.log`) and runs a job for a restart policy (`bin/xlaoom run -- python train.py`;
## docs/explain.md)
.PHONY: xlaoom
xlaoom:
	$(GO) build -trimpath -ldflags "-X github.com/xlaoom/xlaoomprocessor/cmd/xlaoom/internal/explain.buildVersion=$(VERSION)" -o bin/xlaoom ./cmd/xlaoom

## run-logstore: the demo, with the records sent to VictoriaLogs on 127.0.0.1:9428, left running
## with its web UI for exploring them (stop it with `make stop-logstore`)
.PHONY: run-logstore
run-logstore:
	$(MAKE) -C distribution run-logstore PATHS_FROM=$(CURDIR)

## stop-logstore: stop the VictoriaLogs that run-logstore started
.PHONY: stop-logstore
stop-logstore:
	$(MAKE) -C distribution stop-logstore

## install-victorialogs: install the pinned VictoriaLogs (v1.52.1, go install) into out/tools/victorialogs
.PHONY: install-victorialogs
install-victorialogs:
	./scripts/install-victorialogs.sh

## build-dist: build distribution/bin/otelcol-xlaoom from the hand-written main
.PHONY: build-dist
build-dist:
	$(MAKE) -C distribution build-dist

## image: build the container image otelcol-xlaoom:$(VERSION) (distribution/Dockerfile) with buildah,
## from build-dist's binary or IMAGE_BIN (a release: goreleaser's, as in the packages)
.PHONY: image
image:
	$(MAKE) -C distribution image VERSION=$(VERSION) $(if $(IMAGE),IMAGE=$(IMAGE)) $(if $(IMAGE_BIN),IMAGE_BIN=$(abspath $(IMAGE_BIN)))

## release-snapshot: build every release artifact offline with goreleaser (.goreleaser.yaml; pinned
## v2.15.1, installed into out/tools on first use, ~10 min): otelcol-xlaoom and xlaoom archives,
## .deb/.rpm packages and checksums into dist/, version VERSION-dev (all platforms: ~10 min each warm)
.PHONY: release-snapshot
release-snapshot:
	@gr=$$(./scripts/install-goreleaser.sh) && $$gr release --snapshot --clean && \
	  ls -l dist/*.tar.gz dist/*.deb dist/*.rpm dist/checksums.txt

##@ Develop, test and release

## test: every test — component (race), distribution and end-to-end, benchmarks' harness,
## newest-collector compatibility, alert rules — with one summary at the end
.PHONY: test
test:
	$(GOTESTSUM) --format pkgname-and-test-fails --raw-command -- ./scripts/test-all.sh

## unit: the component module's tests only (fast inner loop)
.PHONY: unit
unit:
	$(GO) test -race -count=1 ./...

## lint: gofmt, go vet (every module), golangci-lint and actionlint (pinned v1.7.12, installed into
## out/tools on first use) of .github/workflows
.PHONY: lint
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	cd distribution && CGO_ENABLED=0 $(GO) vet -trimpath ./...  # build-dist's flags: one build cache
	cd distribution/cmd/otelcol-xlaoom-demo && CGO_ENABLED=0 $(GO) vet -trimpath ./...
	cd bench && $(GO) vet ./...
	$(TOOLS) golangci-lint run ./...
	$$(./scripts/install-actionlint.sh) .github/workflows/*.yml

## generate: regenerate internal/metadata, generated tests and documentation from metadata.yaml,
## docs/message-formats.md plus docs/recognition.md's family table from the oom family entries, and
## examples/prometheus/prometheusrule.yaml from alerts.yaml, docs/xla-coverage.md from the coverage table,
## and the version of VERSION into the Helm/Operator examples, the ocb manifest and the mains
.PHONY: generate
# mdatagen names the package of generated tests after the directory, so it runs
# through a link called xlaoomprocessor whatever the checkout is called.
generate:
	@link=$$(mktemp -d)/xlaoomprocessor && ln -s $(CURDIR) $$link && \
	  (cd $$link && $(MDATAGEN) $$link/metadata.yaml && \
	   if [ -f xlaoomconnector/metadata.yaml ]; then $(MDATAGEN) $$link/xlaoomconnector/metadata.yaml; fi) && \
	  rm $$link
	@# mdatagen links only the OpenTelemetry project's distributions; ours is in distribution/.
	sed 's|^\[otelcol-xlaoom\]: $$|[otelcol-xlaoom]: distribution/|' README.md >README.md.tmp && mv README.md.tmp README.md
	$(GO) run ./oom/internal/gendocs
	$(GO) run ./scripts/prometheusrule
	$(GO) run ./scripts/coveragetable
	$(GO) run ./scripts/versionrefs

## e2e: the distribution's end-to-end tests only (Prometheus, log store, agent→gateway, SDK client, demo)
.PHONY: e2e
e2e:
	$(MAKE) -C distribution test e2e

## compat: the component against the newest collector release (core v0.165.0): its tests, a smaller
## collector built with builder v0.165.0, and one OTLP -> processor + connector -> metrics pipeline through it
.PHONY: compat
compat:
	./scripts/compat.sh

## fuzz: every fuzz target for FUZZTIME each (default 10s; HARDENING.md's long runs: FUZZTIME=31m),
## or only those named in FUZZ='FuzzParseSize FuzzRecognize'
.PHONY: fuzz
fuzz:
	./scripts/fuzz.sh $(FUZZ)

## bench: the benchmarks of BENCHMARKS.md (component, side by side with the transform peer, ratios)
.PHONY: bench
bench:
	$(MAKE) -C bench bench

## bench-alternate: old and new builds of the processor alternated in one run, medians
## (BASE=ref, default main; ROUNDS, default 7; BENCH, a -test.bench pattern)
.PHONY: bench-alternate
bench-alternate:
	./scripts/bench-alternate.sh $(or $(BASE),main) $(or $(ROUNDS),7) $(if $(BENCH),'$(BENCH)')

## measure-first-run: time `make run` as a newcomer meets it: a clone of HEAD into a temporary directory
## with empty Go caches (download, compile + run, peak memory, disk, a second run; RUNS=3 for a median)
.PHONY: measure-first-run
measure-first-run:
	./scripts/measure-first-run.sh

## coverage-table: scan a source snapshot (SRC=checkout or bare git dir, REF=ref, SOURCE=xla|jax|pytorch-xla)
## for OOM-like message templates into oom/testdata/coverage/templates.tsv; the git diff is what changed
.PHONY: coverage-table
coverage-table:
	@test -n "$(SRC)" || { echo "set SRC to a checkout or bare git directory of XLA, jaxlib or PyTorch/XLA"; exit 2; }
	$(GO) run ./scripts/coveragetable -src $(abspath $(SRC)) -ref $(or $(REF),HEAD) -source $(or $(SOURCE),xla)

## build-ocb: build the same collector from distribution/builder-config.yaml with the collector builder
.PHONY: build-ocb
build-ocb:
	$(MAKE) -C distribution build-ocb

## install-helm: install the pinned helm (v3.22.0) into bin/
.PHONY: install-helm
install-helm:
	./scripts/install-helm.sh

## helm-test: helm lint + template of deploy/helm with the chart in XLAOOM_HELM_CHART, and
## `otelcol-xlaoom validate` of every rendered config and of deploy/operator
.PHONY: helm-test
helm-test:
	@test -n "$(XLAOOM_HELM_CHART)" || { echo "set XLAOOM_HELM_CHART to the opentelemetry-collector chart (directory or .tgz)"; exit 2; }
	$(MAKE) -C distribution build-dist
	cd distribution && HELM=$${HELM:-$$(../scripts/install-helm.sh)} XLAOOM_HELM_CHART=$(abspath $(XLAOOM_HELM_CHART)) \
	  OTELCOL_XLAOOM=bin/otelcol-xlaoom CGO_ENABLED=0 $(GO) test -trimpath -count=1 -v -run 'TestHelmValues|TestOperatorResources' ./e2e/

## install-prometheus3: build the pinned Prometheus 3 into out/tools/prometheus3 (about 4 min)
.PHONY: install-prometheus3
install-prometheus3:
	./scripts/install-prometheus3.sh

## package-test: a snapshot of this machine's platform only (out/packages; goreleaser installed into
## out/tools on first use, ~10 min), checks of its .deb and .rpm (files, unit, config marking, --version,
## validate of both configs; the .rpm's skipped, saying so, without rpm: apt-get install -y rpm), then the .deb booted in Debian 12 under systemd-nspawn: installed, switched
## to the single-machine config, an incident on 127.0.0.1:9464, restart, upgrade, purge (needs root,
## mmdebstrap and systemd-container; skipped, saying so, without them)
.PHONY: package-test
package-test:
	@gr=$$(./scripts/install-goreleaser.sh) && GORELEASER=$$gr ./scripts/test-packages.sh && \
	  missing=$$(GORELEASER=$$gr ./scripts/test-package-boot.sh --missing) && \
	  if [ -z "$$missing" ]; then GORELEASER=$$gr ./scripts/test-package-boot.sh; \
	  elif [ "$$CI" = true ]; then echo "FAIL: the boot test needs: $$missing"; exit 1; \
	  else echo "SKIPPED the boot test: not installed: $$missing. Install: apt-get install -y mmdebstrap debian-archive-keyring systemd-container (as root)"; fi

## release: the release of the tag at HEAD (vX.Y.Z = v$(cat VERSION)) with goreleaser: builds every
## artifact and publishes them as a GitHub release (needs GITHUB_TOKEN; .github/workflows/release.yml)
.PHONY: release
release:
	@gr=$$(./scripts/install-goreleaser.sh) && v=$$(tr -d '[:space:]' <VERSION) && mkdir -p out && \
	  awk -v h="## v$$v " 'index($$0, h) == 1 {on = 1; next} on && /^## / {exit} on' CHANGELOG.md >out/release-notes.md && \
	  test -s out/release-notes.md || { echo "CHANGELOG.md has no section '## v$$v — date'"; exit 1; }; \
	  $$gr release --clean --release-notes out/release-notes.md

## help: list the targets with what each does, the users' first
.PHONY: help
help:
	@awk '/^##@ / { sub(/^##@ /, ""); printf "\n%s:\n", $$0; next } /^## / { sub(/^## /, ""); if (match($$0, /^[a-z0-9-]+: /)) printf "\n  %-21s %s\n", substr($$0, 1, RLENGTH - 2), substr($$0, RLENGTH + 1); else printf "  %-21s %s\n", "", $$0 }' $(MAKEFILE_LIST); echo
