// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command versionrefs writes the version in the VERSION file into every place
// that names it: the image tag of the Helm and Operator examples and of the
// deployment walk-through, the tagged module and the package file a release
// publishes, the ocb manifest's dist.version and the version a
// plain `go build` of the collectors reports. Release builds take the version from the git tag
// (.goreleaser.yaml, and the release workflow checks that the tag is
// v$(cat VERSION)); builds from a checkout are VERSION + "-dev". Run it from
// the repository root (make generate does):
//
//	go run ./scripts/versionrefs
//
// Its test fails when a committed file names another version.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A reference is one kind of place that names the version: the text around
// the version, in the files that match glob. The version is the first group.
type reference struct {
	glob string
	re   *regexp.Regexp
	dev  bool // a build from a checkout: VERSION-dev
}

const semver = `([0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.]+)?)`

// published is a semver other than v0.0.0, the placeholder a manifest entry
// with path: or replaces: carries (docs/deployment.md), which stays as it is.
const published = `((?:0\.0\.[1-9][0-9]*|0\.[1-9][0-9]*\.[0-9]+|[1-9][0-9]*\.[0-9]+\.[0-9]+)(?:-[0-9A-Za-z.]+)?)`

var references = []reference{
	{glob: "deploy/helm/*-values.yaml", re: regexp.MustCompile(`(?m)^  tag: "` + semver + `"`)},
	{glob: "deploy/helm/*-values.yaml", re: regexp.MustCompile(`--set image\.tag=` + semver)},
	{glob: "deploy/operator/*.yaml", re: regexp.MustCompile(`image: \S+/otelcol-xlaoom:` + semver)},
	// The walk-through's commands.
	{glob: "docs/deployment.md", re: regexp.MustCompile(`--set image\.tag=` + semver)},
	{glob: "docs/deployment.md", re: regexp.MustCompile(`make image VERSION=` + semver)},
	{glob: "docs/deployment.md", re: regexp.MustCompile(`(?:push |docker://\S+/)otelcol-xlaoom:` + semver)},
	{glob: "docs/deployment.md", re: regexp.MustCompile("`make image` builds `otelcol-xlaoom:" + semver), dev: true},
	// The tagged module in an ocb manifest, and the release's package.
	{glob: "docs/deployment.md", re: regexp.MustCompile(`gomod: github\.com/xlaoom/xlaoomprocessor v` + published)},
	{glob: "docs/deployment.md", re: regexp.MustCompile(`otelcol-xlaoom_` + semver + `_amd64\.deb`)},
	{glob: "docs/explain.md", re: regexp.MustCompile("the next will be `@v" + semver + "`")},
	{glob: "distribution/README.md", re: regexp.MustCompile(`otelcol-xlaoom:` + semver + ` validate`), dev: true},
	{glob: "distribution/builder-config.yaml", re: regexp.MustCompile(`(?m)^  version: ` + semver + `$`), dev: true},
	{glob: "distribution/cmd/otelcol-xlaoom*/main.go", re: regexp.MustCompile(`(?m)^var version = "` + semver + `"`), dev: true},
}

func main() {
	if err := run("."); err != nil {
		fmt.Fprintln(os.Stderr, "versionrefs:", err)
		os.Exit(1)
	}
}

// run rewrites every reference under root to the version in root/VERSION.
func run(root string) error {
	version, err := readVersion(root)
	if err != nil {
		return err
	}
	files, err := rewriteAll(root, version)
	if err != nil {
		return err
	}
	for path, content := range files {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

var versionFile = regexp.MustCompile(`^` + semver + `\n?$`)

// readVersion reads VERSION: one version without the leading v.
func readVersion(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		return "", err
	}
	m := versionFile.FindStringSubmatch(string(b))
	if m == nil {
		return "", fmt.Errorf("VERSION holds %q, want one version such as 0.1.0", strings.TrimSpace(string(b)))
	}
	return m[1], nil
}

// rewriteAll returns every file that names a version with that version set
// to version (VERSION-dev where the reference is a build from a checkout).
// A glob that matches no file, or a file without the reference, is an error:
// the place moved and the table above must follow it.
func rewriteAll(root, version string) (map[string]string, error) {
	files := map[string]string{}
	for _, ref := range references {
		paths, err := filepath.Glob(filepath.Join(root, ref.glob))
		if err != nil {
			return nil, err
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("no file matches %s", ref.glob)
		}
		want := version
		if ref.dev {
			want += "-dev"
		}
		for _, path := range paths {
			content, ok := files[path]
			if !ok {
				b, err := os.ReadFile(path)
				if err != nil {
					return nil, err
				}
				content = string(b)
			}
			updated, n := replaceVersion(content, ref.re, want)
			if n == 0 {
				return nil, fmt.Errorf("%s: nothing matches %s", path, ref.re)
			}
			files[path] = updated
		}
	}
	return files, nil
}

// replaceVersion sets the first group of every match of re to version and
// says how many matches there were.
func replaceVersion(content string, re *regexp.Regexp, version string) (string, int) {
	var b strings.Builder
	last, n := 0, 0
	for _, m := range re.FindAllStringSubmatchIndex(content, -1) {
		b.WriteString(content[last:m[2]])
		b.WriteString(version)
		last = m[3]
		n++
	}
	b.WriteString(content[last:])
	return b.String(), n
}
