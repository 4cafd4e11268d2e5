// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package explain is the `xlaoom explain` command: it groups a log's lines
// into records as the agent does, recognises each as the xla_oom processor
// does, and prints every OOM failure and warning found, as text or JSON.
package explain

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"strings"
)

// Exit statuses.
const (
	ExitNone  = 0 // no OOM found
	ExitFound = 1 // at least one OOM failure found
	ExitError = 2 // a usage error, or an input that could not be read
	// ExitFutile: the last failure found (latest in the last input that has
	// one) is futile: running the same program again fails the same way.
	ExitFutile = 3
)

const usage = `Usage: xlaoom explain [--json] [FILE...]

Finds XLA out-of-memory failures, memory-pressure warnings and host-memory
kills in logs and explains each: error code and name, category, phase,
sizes, cause, program, device and replica, the culprit and largest
allocations of a memory breakdown, what to do, and the documentation link.

A host-memory kill is the kernel's OOM killer (or systemd-oomd, earlyoom,
Kubernetes, Slurm, Ray) ending a process because the node or its cgroup ran
out of RAM, read from a saved "dmesg", "journalctl -k" or the job's log. It
is not an XLA failure: it has no error code, and a retry verdict of its own
(its cgroup's own limit: futile; the node's memory: may help).

FILE is a log file (a .gz file is read decompressed); with no FILE, or
when FILE is -, standard input is read: a pasted traceback, a job log, a
"kubectl logs" dump. Lines are grouped into records as the xla_oom agent
does: a record starts at a line with a log header and takes the lines
after it that have none. A record over 1 MiB is not read, as the
processor does not read it.

Flags:
  --json   print one JSON object per finding, one per line, with the
           attributes the xla_oom processor writes on the record
           ("attributes"), its file and line, and the severity; the
           summary goes to standard error
  -h       print this help

Exit status:
  0  no OOM failure and no host-memory kill found
  1  an OOM failure or a host-memory kill found
  2  a usage error, or an input that could not be read
  3  the last OOM failure found (the latest in the last input that has
     one), or the last host-memory kill, is futile: running the same
     program again, unchanged, fails the same way

"xlaoom --version" prints the version.

xlaoom run [flags] -- COMMAND runs a job and, when it fails, exits with a
status a restart policy acts on: see "xlaoom run -h".
`

// Main runs xlaoom with args (without the program name); it returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		_, _ = fmt.Fprint(stderr, usage)
		return ExitError
	}
	switch args[0] {
	case "explain":
		return explain(args[1:], stdin, stdout, stderr)
	case "version", "--version", "-version":
		_, _ = fmt.Fprintln(stdout, "xlaoom", version())
		return ExitNone
	case "help", "-h", "--help", "-help":
		_, _ = fmt.Fprint(stdout, usage)
		return ExitNone
	}
	_, _ = fmt.Fprintf(stderr, "xlaoom: unknown command %q\n\n%s", args[0], usage)
	return ExitError
}

// buildVersion is set by -ldflags "-X …/explain.buildVersion=…" (Makefile, .goreleaser.yaml).
var buildVersion string

// version is the stamped version, else the build's (mainVersion).
func version() string {
	if buildVersion != "" {
		return buildVersion
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	return mainVersion(info)
}

// mainVersion is a `go install …@vX.Y.Z` build's version, else "(devel)",
// with the commit when the build knows it.
func mainVersion(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}

// printer writes findings.
type printer interface {
	finding(*Finding) error
}

func explain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("xlaoom explain", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	jsonOut := flags.Bool("json", false, "")
	// Flags may follow file names; after "--" every argument is a file.
	var flagArgs, files []string
	for i, a := range args {
		if a == "--" {
			files = append(files, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			flagArgs = append(flagArgs, a)
		} else {
			files = append(files, a)
		}
	}
	if err := flags.Parse(flagArgs); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, _ = fmt.Fprint(stdout, usage)
			return ExitNone
		}
		_, _ = fmt.Fprintf(stderr, "xlaoom explain: %v\n\n%s", err, usage)
		return ExitError
	}
	if len(files) == 0 {
		files = []string{"-"}
	}

	var p printer = &textPrinter{w: stdout}
	summaryTo := stdout
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false) // shapes and operators hold < and >; keep them readable
		p, summaryTo = &jsonPrinter{enc}, stderr
	}
	var t Totals
	for _, name := range files {
		err := explainInput(name, stdin, p, &t, stderr)
		var out outputError
		switch {
		case errors.As(err, &out): // stdout is gone: nothing more can be said
			_, _ = fmt.Fprintf(stderr, "xlaoom: %v\n", out.err)
			return ExitError
		case err != nil:
			t.Unreadable++
			_, _ = fmt.Fprintf(stderr, "xlaoom: %s: %v\n", displayName(name), err)
		}
	}
	if err := summary(summaryTo, &t); err != nil {
		_, _ = fmt.Fprintf(stderr, "xlaoom: %v\n", err)
		return ExitError
	}
	return exitStatus(&t)
}

func displayName(name string) string {
	if name == "-" {
		return "stdin"
	}
	return name
}

// explainInput scans one input, with notes that are not errors on stderr.
func explainInput(name string, stdin io.Reader, p printer, t *Totals, stderr io.Writer) error {
	r := stdin
	if name == "-" {
		if f, ok := stdin.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				_, _ = fmt.Fprintln(stderr, "xlaoom: reading standard input: paste the log, then press Ctrl-D")
			}
		}
	} else {
		f, err := openInput(name)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }() // read only: closing loses nothing
		r = f
	}
	shown := displayName(name)
	notes, err := scan(shown, r, t, nil, func(f *Finding) error {
		if err := p.finding(f); err != nil {
			return outputError{err}
		}
		return nil
	})
	if herr := printHostKills(p, shown, notes.host.kills, t); herr != nil { // hostkill.go
		return herr
	}
	if notes.empty && err == nil {
		_, _ = fmt.Fprintf(stderr, "xlaoom: %s: empty, nothing to explain\n", shown)
	}
	if notes.invalidAt > 0 {
		_, _ = fmt.Fprintf(stderr, "xlaoom: %s: not valid UTF-8 (first seen at line %d); invalid bytes are read as U+FFFD, as the agent's decoder reads them\n",
			shown, notes.invalidAt)
	}
	return err
}

// outputError is a failure to write the findings, not to read an input.
type outputError struct{ err error }

func (e outputError) Error() string { return e.err.Error() }

// openInput opens a named file, with messages a person can act on.
func openInput(name string) (*os.File, error) {
	f, err := os.Open(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errors.New("no such file")
	case errors.Is(err, fs.ErrPermission):
		return nil, errors.New("permission denied")
	case err != nil:
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	if st.IsDir() {
		_ = f.Close()
		return nil, fmt.Errorf("is a directory: name the log files in it, e.g. %s", strings.TrimSuffix(name, "/")+"/*.log")
	}
	return f, nil
}
