// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package speaker

import "strings"

// A failure's speaker from its traceback's frames: Python prints the frame
// that raised last, right before the exception. Where an exception's class,
// message and paths name no program (MemoryError, RuntimeError, ValueError),
// the package that innermost frame lies in names who raised it.
//
// Only an installed package is read ("…/site-packages/cupy/…",
// "…/dist-packages/torch/…", a compiled Cython module's own path
// "cupy/cuda/memory.pyx"): the user's own files can sit in a directory of
// any name, and JAX filters its own frames out, so the innermost frame of a
// JAX failure is often the user's. And frames only make a statement another
// program's, never XLA's: a status XLA's stack raised says so by its class
// or its words, and treating a plain ValueError as one would change which
// statement is the failure.

const frameStart = `File "`

// raisedIn gives s the owner of the innermost frame of tb, a traceback
// flattened ("Traceback (most recent call last): File "…", line 31, in
// empty …"), where that frame lies in a foreign program's installed package.
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

// installedPackage is the top-level package a frame's path lies in: the
// directory after site-packages or dist-packages, or the first directory of
// a compiled module's relative path ("cupy/cuda/memory.pyx"); "" for any
// other path.
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
