// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/distribution/demo"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// Daemon-less container tools as the Makefile runs them: vfs storage, chroot
// isolation for builds, runc and cgroupfs for runs (no systemd, no overlayfs).
var (
	buildahArgs = []string{"--storage-driver", "vfs"}
	podmanArgs  = []string{"--storage-driver", "vfs", "--cgroup-manager=cgroupfs"}
	podmanRun   = []string{"run", "--rm", "--runtime", "runc", "--network", "none",
		"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"}
)

// TestContainerImage builds the image from distribution/Dockerfile around the
// tested binary, checks that it runs as UID 10001 with the config at
// /etc/otelcol-xlaoom/config.yaml, runs `validate` on the built-in config and
// on the example configs inside it, and runs a short pipeline in it: the demo
// logs mounted in, file_log -> xla_oom processor -> file exporter and xla_oom
// connector -> file exporter, read back here. Skipped, saying how to install
// them, when buildah, podman or runc are missing.
func TestContainerImage(t *testing.T) {
	for _, tool := range []string{"buildah", "podman", "runc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed: apt-get install -y buildah podman runc (Debian/Ubuntu)", tool)
		}
	}
	started := time.Now()
	ctxDir := t.TempDir()
	copyFile(t, collectorBin, filepath.Join(ctxDir, "otelcol-xlaoom"), 0o755)
	copyFile(t, "/etc/ssl/certs/ca-certificates.crt", filepath.Join(ctxDir, "ca-certificates.crt"), 0o644)
	copyFile(t, filepath.Join(examplesDir, "gateway.yaml"), filepath.Join(ctxDir, "config.yaml"), 0o644)
	image := fmt.Sprintf("localhost/otelcol-xlaoom-e2e:%d", time.Now().UnixNano())
	runTool(t, "buildah", append(buildahArgs, "bud", "--isolation", "chroot", "--layers=false",
		"-f", filepath.Join(distDir, "Dockerfile"), "-t", image, ctxDir)...)
	t.Cleanup(func() {
		if out, err := exec.Command("buildah", append(buildahArgs, "rmi", image)...).CombinedOutput(); err != nil {
			t.Logf("buildah rmi %s: %v\n%s", image, err, out)
		}
	})
	built := time.Since(started)
	size := strings.TrimSpace(runTool(t, "buildah", append(buildahArgs, "images", "--format", "{{.Size}}", image)...))
	user := strings.TrimSpace(runTool(t, "buildah", append(buildahArgs, "inspect", "--format", "{{.OCIv1.Config.User}} {{.OCIv1.Config.Entrypoint}} {{.OCIv1.Config.Cmd}}", image)...))
	if user != "10001:10001 [/otelcol-xlaoom] [--config /etc/otelcol-xlaoom/config.yaml]" {
		t.Errorf("image config: %q", user)
	}

	// validate: the built-in config, and the examples mounted in.
	podman := func(args ...string) string {
		return runTool(t, "podman", append(append(append([]string{}, podmanArgs...), podmanRun...), args...)...)
	}
	podman(image, "validate", "--config", "/etc/otelcol-xlaoom/config.yaml")
	examples, err := filepath.Abs(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	podman("-v", examples+":/examples:ro", image, "validate", "--config", "/examples/agent.yaml")

	// A short pipeline: the demo's config, logs and an output directory the
	// image's user (10001) may write to.
	work := t.TempDir()
	out := filepath.Join(work, "out")
	if err := os.MkdirAll(out, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(out, 0o777); err != nil {
		t.Fatal(err)
	}
	logsDir, err := filepath.Abs(filepath.Join(demoDir, "logs"))
	if err != nil {
		t.Fatal(err)
	}
	demoConfig, err := filepath.Abs(filepath.Join(demoDir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("xlaoom-e2e-%d", time.Now().UnixNano())
	cmd := exec.Command("podman", append(append(append([]string{}, podmanArgs...), podmanRun...),
		"--name", name, "-v", logsDir+":/logs:ro", "-v", out+":/out", "-v", demoConfig+":/etc/otelcol-xlaoom/demo.yaml:ro",
		"-e", "XLAOOM_LOGS=/logs/*/*.log", "-e", "XLAOOM_OUT=/out", "-e", "XLAOOM_PROMETHEUS=127.0.0.1:9464",
		image, "--config", "/etc/otelcol-xlaoom/demo.yaml")...)
	logFile, err := os.Create(filepath.Join(work, "container.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = exec.Command("podman", append(append([]string{}, podmanArgs...), "stop", "-t", "10", name)...).Run()
		_ = cmd.Wait()
	}
	t.Cleanup(stop)

	want := demo.ExpectedTotal()
	var tagged int
	eventually(t, 90*time.Second, func() string {
		recs, err := records.ReadFile(filepath.Join(out, "records.json"))
		if err != nil {
			return err.Error()
		}
		tagged = 0
		for _, r := range recs {
			if r.Str("xla.error.code") != "" {
				tagged++
			}
		}
		if tagged != want {
			b, _ := os.ReadFile(logFile.Name())
			return fmt.Sprintf("the container tagged %d records, want %d\n%s", tagged, want, tail(string(b), 2000))
		}
		return ""
	})
	eventually(t, 30*time.Second, func() string {
		b, _ := os.ReadFile(filepath.Join(out, "metrics.json"))
		if !strings.Contains(string(b), `"xla.oom.errors"`) {
			return "the container's connector wrote no xla.oom.errors to metrics.json"
		}
		return ""
	})
	stop()
	t.Logf("image %s: %s, built in %.1fs; validate + pipeline (%d OOMs tagged) in %.1fs total",
		image, size, built.Seconds(), tagged, time.Since(started).Seconds())
}

func runTool(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(string(out), 4000))
	}
	return string(out)
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
