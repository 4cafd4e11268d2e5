// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package collector

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// A port found free and released can be taken by anything (another test's
// server, the local end of an outgoing connection) before the process we
// start binds it. A process cannot inherit a listener from us, so instead
// every start is checked: the process must listen on its ports itself, and a
// start that lost a port is repeated on new ones.

// maxStartAttempts bounds the starts of one process. Losing a port is rare
// (a few ports among ~28000 ephemeral ones), so five attempts all losing one
// means something else is wrong.
const maxStartAttempts = 5

// ErrAddrInUse says that a start failed because a port chosen for it was
// taken before the process bound it.
var ErrAddrInUse = errors.New("a port chosen for the process was taken before it bound it")

// Ports are the loopback addresses of one start attempt, by name. The first
// Addr or Port of a name takes a port that is free at that moment.
type Ports struct {
	addrs map[string]string
	err   error
}

// Addr returns 127.0.0.1:<port> for name.
func (p *Ports) Addr(name string) string {
	if p.addrs == nil {
		p.addrs = map[string]string{}
	}
	if a, ok := p.addrs[name]; ok {
		return a
	}
	port, err := FreePort()
	if err != nil && p.err == nil {
		p.err = err
	}
	a := Addr(port)
	p.addrs[name] = a
	return a
}

// Port returns the port of Addr(name), as a string.
func (p *Ports) Port(name string) string {
	a := p.Addr(name)
	return a[strings.LastIndexByte(a, ':')+1:]
}

// lookup returns the address already given out for name.
func (p *Ports) lookup(name string) (string, bool) {
	a, ok := p.addrs[name]
	return a, ok
}

// Command is a process to run on ports chosen for each attempt.
type Command struct {
	Binary string
	Args   func(*Ports) []string // command-line arguments
	Env    func(*Ports) []string // extra environment ("KEY=value")
	Log    string                // file for its stdout and stderr
	// Ready names the ports the process must listen on before it counts as
	// started; each must be one that Args or Env asked for.
	Ready   []string
	Timeout time.Duration // for each attempt to be listening on Ready
}

// StartOnFreePorts starts c and waits until the process itself listens on
// every Ready port. When the process could not bind a port (its output says
// "address already in use"), it is started again on new ports.
func StartOnFreePorts(c Command) (*Process, *Ports, error) {
	var p *Process
	ports, err := OnFreePorts(func(ports *Ports) error {
		var args, env []string
		if c.Args != nil {
			args = c.Args(ports)
		}
		if c.Env != nil {
			env = c.Env(ports)
		}
		if ports.err != nil {
			return ports.err
		}
		var err error
		if p, err = StartCommand(c.Binary, args, c.Log, env...); err != nil {
			return err
		}
		for _, name := range c.Ready {
			addr, ok := ports.lookup(name)
			if !ok {
				_ = p.Stop(10 * time.Second)
				return fmt.Errorf("ready port %q is not used by the command", name)
			}
			if err := p.WaitListening(addr, c.Timeout); err != nil {
				_ = p.Stop(10 * time.Second)
				if p.LostPort() {
					return fmt.Errorf("%w: %v", ErrAddrInUse, err)
				}
				return fmt.Errorf("%w\n%s", err, p.Tail(4000))
			}
		}
		return nil
	})
	return p, ports, err
}

// OnFreePorts calls start with new Ports until it succeeds or fails for
// another reason than ErrAddrInUse, at most maxStartAttempts times. Servers
// started other than by StartOnFreePorts use it directly.
func OnFreePorts(start func(*Ports) error) (*Ports, error) {
	var err error
	for range maxStartAttempts {
		ports := &Ports{}
		if err = start(ports); err == nil || !errors.Is(err, ErrAddrInUse) {
			return ports, err
		}
	}
	return nil, fmt.Errorf("%d attempts: %w", maxStartAttempts, err)
}

// LostPort reports whether the process has ended because a port it was to
// listen on was taken.
func (p *Process) LostPort() bool {
	done, _ := p.Exited()
	return done && strings.Contains(p.Tail(64<<10), "address already in use")
}

// listenedBy reports whether process pid listens on 127.0.0.1:port, from
// /proc (Linux). ok is false where /proc cannot tell.
func listenedBy(pid int, addr string) (listening, ok bool) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" {
		return false, false
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return false, false
	}
	table, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return false, false
	}
	// sl local_address rem_address st ... inode: 127.0.0.1 is 0100007F in
	// the kernel's byte order, state 0A is LISTEN.
	local := fmt.Sprintf("0100007F:%04X", port)
	inode := ""
	for _, line := range strings.Split(string(table), "\n") {
		f := strings.Fields(line)
		if len(f) > 9 && f[1] == local && f[3] == "0A" {
			inode = f[9]
			break
		}
	}
	if inode == "" {
		return false, true
	}
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, err := os.ReadDir(fdDir)
	if err != nil {
		return false, true // it has ended (a zombie's fds cannot be read)
	}
	want := "socket:[" + inode + "]"
	for _, fd := range fds {
		if target, err := os.Readlink(fdDir + "/" + fd.Name()); err == nil && target == want {
			return true, true
		}
	}
	return false, true
}
