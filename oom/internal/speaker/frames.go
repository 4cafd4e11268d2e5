// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package speaker

import "strings"

// Where an exception's class, message and paths name no program, the
// traceback's innermost frame (printed right before it) may. Only an
// installed package counts: the user's files can sit in a directory of any
// name, and JAX filters its own frames out, so a JAX failure's innermost
// frame is often the user's. Frames only make a statement foreign, never
// XLA's: a status XLA raised says so by its class or words.

const frameStart = `File "`

// raisedIn gives s the owner of the innermost frame of tb, a flattened
// traceback, where that frame lies in a foreign program's installed package.
func (s *Speaker) raisedIn(tb string) {
	k := strings.LastIndex(tb, frameStart)
	if k < 0 {
		return
	}
	path, _, ok := strings.Cut(tb[k+len(frameStart):], `"`)
	if !ok {
		return
	}
	if p, o := ownerOfName(installedPackage(path)); o == Foreign {
		s.File, s.Program, s.Owner = path, p, o
	}
}

// installedPackage is the top-level package of a frame's path under
// site-packages or dist-packages, or of a compiled module's relative path
// ("cupy/cuda/memory.pyx"); "" for any other path.
func installedPackage(path string) string {
	for _, dir := range []string{"/site-packages/", "/dist-packages/"} {
		if k := strings.LastIndex(path, dir); k >= 0 {
			pkg, _, _ := strings.Cut(path[k+len(dir):], "/")
			return pkg
		}
	}
	if !strings.HasPrefix(path, "/") && (strings.HasSuffix(path, ".pyx") || strings.HasSuffix(path, ".pxd")) {
		pkg, _, _ := strings.Cut(path, "/")
		return pkg
	}
	return ""
}
