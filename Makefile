# The documented way to build, test and run xla_oom. Every target works on a fresh clone with only Go.
GO       ?= go
TOOLS    := $(GO) tool -modfile=$(CURDIR)/internal/tools/go.mod
MDATAGEN := $(TOOLS) mdatagen

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

## test: every test of the component module (race detector on)
.PHONY: test
test:
	$(GO) test -race -count=1 ./...

## lint: gofmt, go vet and golangci-lint
.PHONY: lint
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	$(TOOLS) golangci-lint run ./...
