// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package speaker says who printed a statement of a log record: its form, names and owner (XLA's stack, a
// foreign program or unknown), decided by one table (docs/recognition.md, "Who said it").
package speaker

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// Form is the shape of a statement, which says where its speaker's name is.
type Form uint8

// The forms.
const (
	Bare      Form = iota // a message that names no speaker
	Exception             // a raised exception (Python, Java, or a C++ terminate)
	Native                // a native log line (glog/absl, TSL) or a program's own tag
	Logger                // a line of Python's logging module, named by its logger
)

func (f Form) String() string {
	if n := [...]string{"bare", "exception", "native", "logger"}; int(f) < len(n) {
		return n[f]
	}
	return "bare"
}

// Owner is whose statement it is.
type Owner uint8

// The owners.
const (
	Unknown Owner = iota // no row of the table names the speaker
	XLA                  // XLA's stack (xla, tsl, jax, jaxlib, TensorFlow, PyTorch/XLA)
	Foreign              // another program, library or runtime
)

func (o Owner) String() string {
	if n := [...]string{"unknown", "xla", "foreign"}; int(o) < len(n) {
		return n[o]
	}
	return "unknown"
}

// Speaker is who printed one statement; its strings are substrings of what Of was given.
type Speaker struct {
	Form Form
	// Module and Class name an exception (a C++ namespace is its module); Module is "" when unqualified.
	Module, Class string
	// File is a native header's source file, a path the exception's message names, or the deciding frame.
	File    string
	Level   byte   // the header's level letter (I, W, E, F, D), 0 for none
	Logger  string // a Python logger's name ("jax._src.xla_bridge")
	Program string // the owner's name from the table ("jax", "cupy"); "" when Unknown
	Owner   Owner

	cpp bool // a C++ exception: its namespace is joined by "::"
}

// Raised reports whether the statement is a status XLA's stack raised: the failure, whatever words it carries.
func (s Speaker) Raised() bool { return s.Form == Exception && s.Owner == XLA }

// Type is an exception's fully qualified class name, as exception.type wants it ("" for none).
func (s Speaker) Type() string {
	if s.Form != Exception || s.Class == "" {
		return ""
	}
	if s.Module == "" {
		return s.Class
	}
	if s.cpp {
		return s.Module + "::" + s.Class
	}
	return s.Module + "." + s.Class
}

// Undecided reports whether more than the first line may decide the owner (MemoryError may name its file later).
func (s Speaker) Undecided() bool { return s.Form == Exception && s.Owner == Unknown }

// Of says who printed statement (its first line or all of it) under header ("" for none).
func Of(header, statement string) Speaker {
	var s Speaker
	if e, ok := exceptionAt(statement); ok {
		s.Form, s.Module, s.Class, s.cpp = Exception, e.module, e.class, e.cpp
		s.Level = logtext.HeaderLevel(header)
		s.decideException(statement[e.end:])
		return s
	}
	if name, level, ok := loggerHeader(header); ok {
		s.Form, s.Logger, s.Level = Logger, name, level // the innermost header is a logger's
		s.Program, s.Owner = ownerOfName(name)
	} else if file, level, ok := nativeHeader(header); ok {
		s.Form, s.File, s.Level = Native, file, level
		s.Program, s.Owner = ownerOfSource(file)
	} else if strings.HasPrefix(statement, logtext.TracebackHead) {
		return s // a traceback's head names no program
	} else if name, level, ok := enclosedLogger(statement); ok {
		s.Form, s.Logger, s.Level = Logger, name, level // "[trainer] ERROR:numba...:", {"log":"ERROR:...
		s.Program, s.Owner = ownerOfName(name)
	} else if file, level, ok := enclosedNative(statement); ok {
		// "[trainer] E0101 ... bfc_arena.cc:376] ": only where it names a program.
		if p, o := ownerOfSource(file); o != Unknown {
			s.Form, s.File, s.Level, s.Program, s.Owner = Native, file, level, p, o
		}
	}
	if s.Owner == Unknown {
		if file, p, o := fileMark(statement); o != Unknown {
			s.Program, s.Owner = p, o // TensorRT's "[defaultAllocator.cpp::allocate::20]"
			if s.Form == Bare {
				s.Form, s.File = Native, file
			}
			return s
		}
	}
	if s.Owner == Unknown && (s.Form != Native || strings.HasSuffix(s.File, ".py")) {
		// An application's line may carry another program's exception or tag; a C++ line is not read for them.
		if e, ok := embeddedException(statement); ok {
			s.Module, s.Class = e.module, e.class
			s.Program, s.Owner = ownerOfName(e.module)
		} else if p, o := ownerOfTag(statement); o != Unknown {
			s.Program, s.Owner = p, o
			if s.Form == Bare {
				s.Form = Native
			}
		}
	}
	return s
}

// decideException finds an exception's owner by module, class, how its message starts, else a path it names.
func (s *Speaker) decideException(message string) {
	if s.Program, s.Owner = ownerOfName(s.Module); s.Owner != Unknown {
		return
	}
	if s.Program, s.Owner = ownerOfClass(s.Class); s.Owner != Unknown {
		return
	}
	if s.Program, s.Owner = ownerOfStatus(message); s.Owner != Unknown {
		return
	}
	s.File, s.Program, s.Owner = pathInMessage(message)
}

// StartsStatement reports whether a headerless line starts a statement: an exception, a traceback or a start
// row's tag (other tags are read on first lines only: every continuation line would cost).
func StartsStatement(line string) bool {
	if strings.HasPrefix(line, logtext.TracebackHead) || startsTagged(line) {
		return true
	}
	_, ok := exceptionAt(line) // a C++ exception's "terminate called ..." too
	return ok
}

const (
	cppTerminate = "terminate called after throwing an instance of '"
	javaThread   = "Exception in thread \""
)
