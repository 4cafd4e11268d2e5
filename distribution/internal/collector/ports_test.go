// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package collector

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// serveEnv makes the test binary a server for the tests below: it listens on
// the address in the variable until SIGTERM, or prints the listen error and
// exits.
const serveEnv = "XLAOOM_COLLECTOR_TEST_SERVE"

func TestMain(m *testing.M) {
	if addr := os.Getenv(serveEnv); addr != "" {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM)
		<-stop
		l.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestStartOnFreePortsRetriesATakenPort: the first attempt's port is taken
// (held here) before the server binds it; the server fails to bind, and the
// second attempt, on a new port, starts.
func TestStartOnFreePortsRetriesATakenPort(t *testing.T) {
	held := hold(t)
	attempts := 0
	p, ports, err := startServer(t, func(ports *Ports) {
		attempts++
		if attempts == 1 {
			ports.addrs = map[string]string{"web": held.Addr().String()} // lost to another process
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(10 * time.Second) //nolint:errcheck // the test is over
	if attempts != 2 {
		t.Errorf("started after %d attempts, want 2", attempts)
	}
	if addr, _ := ports.lookup("web"); addr == held.Addr().String() {
		t.Errorf("the server reports the taken address %s", addr)
	}
	if mine, known := listenedBy(p.cmd.Process.Pid, ports.Addr("web")); known && !mine {
		t.Errorf("the server does not listen on %s", ports.Addr("web"))
	}
}

// TestStartOnFreePortsGivesUp: a port lost on every attempt ends in
// ErrAddrInUse after maxStartAttempts, not in a loop.
func TestStartOnFreePortsGivesUp(t *testing.T) {
	held := hold(t)
	attempts := 0
	_, _, err := startServer(t, func(ports *Ports) {
		attempts++
		ports.addrs = map[string]string{"web": held.Addr().String()}
	})
	if !errors.Is(err, ErrAddrInUse) || attempts != maxStartAttempts {
		t.Errorf("after %d attempts: %v; want ErrAddrInUse after %d", attempts, err, maxStartAttempts)
	}
}

// TestWaitListeningIgnoresAnotherProcess: a port that another process (here
// the test itself) listens on does not make the started process ready.
func TestWaitListeningIgnoresAnotherProcess(t *testing.T) {
	held := hold(t)
	if mine, known := listenedBy(os.Getpid(), held.Addr().String()); !known {
		t.Skip("/proc cannot tell which process listens here")
	} else if !mine {
		t.Fatalf("listenedBy does not see this process listening on %s", held.Addr())
	}
	p, err := StartCommand("/bin/sleep", []string{"30"}, filepath.Join(t.TempDir(), "sleep.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	if err := p.WaitListening(held.Addr().String(), time.Second); err == nil {
		t.Errorf("a process that listens nowhere is reported listening on %s", held.Addr())
	}
}

// hold listens on a free port until the test ends: a port another process took.
func hold(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// startServer starts the test binary as a server on the port "web"; before
// each attempt, choose may set the attempt's ports.
func startServer(t *testing.T, choose func(*Ports)) (*Process, *Ports, error) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return StartOnFreePorts(Command{
		Binary: self,
		Env: func(ports *Ports) []string {
			choose(ports)
			return []string{serveEnv + "=" + ports.Addr("web")}
		},
		Log:     filepath.Join(t.TempDir(), "server.log"),
		Ready:   []string{"web"},
		Timeout: 30 * time.Second,
	})
}
