// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package assembly

import (
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// UserFrame returns the innermost `File "path", line N, in name` of a traceback in text whose path is the
// user's own code (not installed packages, the standard library or XLA's stack): the line that asked.
func UserFrame(text string) (oom.Site, bool) {
	var site oom.Site
	found := false
	for line := range strings.Lines(text) {
		f, ok := parseFrame(line)
		if ok && !library(f.File) {
			site, found = f, true
		}
	}
	return site, found
}

// parseFrame reads `  File "/x/train.py", line 194, in run_job`.
func parseFrame(line string) (oom.Site, bool) {
	before, rest, ok := strings.Cut(line, frameAnchor)
	if !ok || strings.TrimSpace(before) != "" {
		return oom.Site{}, false
	}
	path, rest, ok := strings.Cut(rest, `", line `)
	if !ok || path == "" {
		return oom.Site{}, false
	}
	num, fn, ok := strings.Cut(rest, ", in ")
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || n <= 0 {
		return oom.Site{}, false
	}
	return oom.Site{File: path, Line: n, Function: strings.TrimSpace(fn)}, true
}

// libraryDirs mark installed code and source checkouts of XLA's stack.
var libraryDirs = []string{
	"/site-packages/", "/dist-packages/",
	"/jax/_src/", "/jaxlib/", "/jax_plugins/", "/tensorflow/python/", "/torch_xla/",
}

// library reports whether a frame's path is not the user's own code: an
// installed package, the standard library (".../lib/python3.11/x.py"), a
// frozen or generated module ("<frozen runpy>", "<string>").
func library(path string) bool {
	if strings.HasPrefix(path, "<") {
		return true
	}
	for _, d := range libraryDirs {
		if strings.Contains(path, d) {
			return true
		}
	}
	_, rest, ok := strings.Cut(path, "/lib/python")
	return ok && rest != "" && rest[0] >= '0' && rest[0] <= '9'
}
