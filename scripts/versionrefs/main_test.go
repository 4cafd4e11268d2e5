// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository root, seen from this package's directory.
const root = "../.."

// TestReferencesAreCurrent fails when a file names another version than
// VERSION: run make generate and commit the result.
func TestReferencesAreCurrent(t *testing.T) {
	version, err := readVersion(root)
	if err != nil {
		t.Fatal(err)
	}
	files, err := rewriteAll(root, version)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range files {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s does not name version %s: run make generate", path, version)
		}
	}
}

func TestRewriteSetsEveryReference(t *testing.T) {
	dir := t.TempDir()
	write := func(path, content string) {
		t.Helper()
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("VERSION", "1.2.3\n")
	write("deploy/helm/agent-values.yaml", "#   --set image.tag=0.1.0\nimage:\n  repository: r/otelcol-xlaoom\n  tag: \"0.1.0\"\n")
	write("deploy/operator/c.yaml", "  image: registry.example.com/otelcol-xlaoom:0.1.0\n---\n  image: r.example/otelcol-xlaoom:0.1.0\n")
	write("docs/deployment.md", "make image VERSION=0.1.0\nbuildah push otelcol-xlaoom:0.1.0 docker://r.example/otelcol-xlaoom:0.1.0\n--set image.tag=0.1.0\n`make image` builds `otelcol-xlaoom:0.1.0-dev`\n"+
		deploymentModules("0.1.0"))
	write("docs/explain.md", "`@vX.Y.Z` (the next will be `@v0.1.0`).\n")
	write("distribution/README.md", "podman run otelcol-xlaoom:0.1.0-dev validate --config\n")
	write("distribution/builder-config.yaml", "dist:\n  version: 0.1.0-dev\n")
	write("distribution/cmd/otelcol-xlaoom/main.go", "package main\n\nvar version = \"0.1.0-dev\"\n")
	if err := run(dir); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"deploy/helm/agent-values.yaml": "#   --set image.tag=1.2.3\nimage:\n  repository: r/otelcol-xlaoom\n  tag: \"1.2.3\"\n",
		"deploy/operator/c.yaml":        "  image: registry.example.com/otelcol-xlaoom:1.2.3\n---\n  image: r.example/otelcol-xlaoom:1.2.3\n",
		"docs/deployment.md": "make image VERSION=1.2.3\nbuildah push otelcol-xlaoom:1.2.3 docker://r.example/otelcol-xlaoom:1.2.3\n--set image.tag=1.2.3\n`make image` builds `otelcol-xlaoom:1.2.3-dev`\n" +
			deploymentModules("1.2.3"),
		"docs/explain.md":                         "`@vX.Y.Z` (the next will be `@v1.2.3`).\n",
		"distribution/README.md":                  "podman run otelcol-xlaoom:1.2.3-dev validate --config\n",
		"distribution/builder-config.yaml":        "dist:\n  version: 1.2.3-dev\n",
		"distribution/cmd/otelcol-xlaoom/main.go": "package main\n\nvar version = \"1.2.3-dev\"\n",
	} {
		got, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s:\ngot  %q\nwant %q", path, got, want)
		}
	}
}

// deploymentModules is the part of docs/deployment.md that names the module
// and the package: the tagged entry and the .deb follow VERSION, the v0.0.0
// placeholder of an entry with path: stays.
func deploymentModules(version string) string {
	return "  - gomod: github.com/xlaoom/xlaoomprocessor v0.0.0\n    path: ../xlaoomprocessor\n" +
		"  - gomod: github.com/xlaoom/xlaoomprocessor v" + version + "\n" +
		"sudo apt install ./otelcol-xlaoom_" + version + "_amd64.deb\n"
}

func TestRewriteRejects(t *testing.T) {
	for name, version := range map[string]string{"empty": "", "leading v": "v0.1.0\n", "two lines": "0.1.0\n0.2.0\n"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "VERSION"), []byte(version), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := run(dir); err == nil || !strings.Contains(err.Error(), "VERSION") {
			t.Errorf("%s: got %v, want an error naming VERSION", name, err)
		}
	}
	// A place that no longer names the version is an error, not a silent skip.
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "VERSION"), []byte("1.0.0\n"), 0o644)
	_ = os.MkdirAll(filepath.Join(dir, "deploy", "helm"), 0o755)
	_ = os.WriteFile(filepath.Join(dir, "deploy", "helm", "x-values.yaml"), []byte("image: {}\n"), 0o644)
	if err := run(dir); err == nil {
		t.Error("a values file without an image tag was accepted")
	}
}
