// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// stampFlag is how the Makefile and .goreleaser.yaml set buildVersion.
const stampFlag = "-X github.com/xlaoom/xlaoomprocessor/cmd/xlaoom/internal/explain.buildVersion="

var repoRoot = filepath.Join("..", "..", "..", "..")

func TestVersionStamped(t *testing.T) {
	defer func(v string) { buildVersion = v }(buildVersion)
	buildVersion = "0.1.0-dev"
	var out bytes.Buffer
	if status := Main([]string{"--version"}, nil, &out, &out); status != ExitNone || out.String() != "xlaoom 0.1.0-dev\n" {
		t.Errorf("status %d: %q", status, out.String())
	}
}

func TestVersionFallback(t *testing.T) {
	for _, tt := range []struct {
		info debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v0.1.0"}}, "v0.1.0"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "10eaefb0123456789"}}}, "(devel) 10eaefb01234"},
		{debug.BuildInfo{}, "(devel)"},
	} {
		if got := mainVersion(&tt.info); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.info.Main, got, tt.want)
		}
	}
}

// TestVersionBuilds: `make xlaoom` stamps VERSION-dev, and goreleaser the
// release's version, into buildVersion.
func TestVersionBuilds(t *testing.T) {
	version, err := os.ReadFile(filepath.Join(repoRoot, "VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	out, err := exec.Command("make", "-n", "-C", repoRoot, "xlaoom").CombinedOutput()
	if want := stampFlag + strings.TrimSpace(string(version)) + "-dev"; err != nil || !strings.Contains(string(out), want) {
		t.Errorf("make -n xlaoom (%v) does not hold %q:\n%s", err, want, out)
	}
	goreleaser, err := os.ReadFile(filepath.Join(repoRoot, ".goreleaser.yaml"))
	if want := stampFlag + "{{ .Version }}"; err != nil || !strings.Contains(string(goreleaser), want) {
		t.Errorf(".goreleaser.yaml (%v) does not hold %q", err, want)
	}
}
