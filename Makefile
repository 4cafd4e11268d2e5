# The documented way to build, test and run xla_oom. Every target works on a fresh clone with only Go.
GO        ?= go
TOOLS     := $(GO) tool -modfile=$(CURDIR)/internal/tools/go.mod
MDATAGEN  := $(TOOLS) mdatagen
GOTESTSUM := $(TOOLS) gotestsum

.PHONY: all
all: generate lint test

## generate: regenerate internal/metadata, generated tests and documentation from metadata.yaml
.PHONY: generate
# mdatagen names the package of generated tests after the directory, so it runs
# through a link called xlaoomprocessor whatever the checkout is called.
generate:
	@link=$$(mktemp -d)/xlaoomprocessor && ln -s $(CURDIR) $$link && \
	  (cd $$link && $(MDATAGEN) $$link/metadata.yaml && \
	   if [ -f xlaoomconnector/metadata.yaml ]; then $(MDATAGEN) $$link/xlaoomconnector/metadata.yaml; fi) && \
	  rm $$link

## test: every test — component (race), distribution and end-to-end, benchmarks' harness,
## newest-collector compatibility, alert rules — with one summary at the end
.PHONY: test
test:
	$(GOTESTSUM) --format pkgname-and-test-fails --raw-command -- ./scripts/test-all.sh

## unit: the component module's tests only (fast inner loop)
.PHONY: unit
unit:
	$(GO) test -race -count=1 ./...

## compat: build and test the component against the newest collector core line
.PHONY: compat
compat:
	./scripts/compat.sh

## lint: gofmt, go vet and golangci-lint
.PHONY: lint
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	$(TOOLS) golangci-lint run ./...
