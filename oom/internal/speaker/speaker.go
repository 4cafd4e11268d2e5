// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package speaker says who printed a statement of a log record: the form it
// has (an exception, a native log line, a Python logger's line, or a bare
// message), the names it carries (the exception's module and class, the
// C++ source file and level, the logger's name) and the program those names
// belong to: XLA's stack (xla, jax/jaxlib, TensorFlow, PyTorch/XLA), a named
// foreign program (CuPy, PyTorch, a database, ...) or unknown.
//
// The recogniser asks it before it reads any words: a statement of a foreign
// program is never an XLA OOM, whatever it says, and a status XLA's stack
// raised is the failure, whatever allocator wording it carries. The owners
// are decided by one table (table.go). The package knows no message family
// and no collector type.
package speaker

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// Form is the shape of a statement, which says where its speaker's name is.
type Form uint8

const (
	// Bare is a message with no name of its speaker: a continuation, a
	// message printed alone.
	Bare Form = iota
	// Exception is a raised exception: "module.Class: message", "Exception
	// in thread "main" java.lang.OutOfMemoryError: ...", or a C++ exception
	// that terminated the program.
	Exception
	// Native is a native program's log line: a glog/absl or TSL header with
	// its source file, or a program's own tag ("NCCL WARN", "[TRT]").
	Native
	// Logger is a line of Python's logging module, named by its logger.
	Logger
)

func (f Form) String() string {
	switch f {
	case Exception:
		return "exception"
	case Native:
		return "native"
	case Logger:
		return "logger"
	}
	return "bare"
}

// Owner is whose statement it is.
type Owner uint8

const (
	// Unknown means no row of the table names the speaker; the recogniser keeps
	// its rules for words alone.
	Unknown Owner = iota
	// XLA is XLA's stack (xla, tsl, jax, jaxlib, TensorFlow, PyTorch/XLA).
	XLA
	// Foreign is another program, library or runtime.
	Foreign
)

func (o Owner) String() string {
	switch o {
	case XLA:
		return "xla"
	case Foreign:
		return "foreign"
	}
	return "unknown"
}

// Speaker is who printed one statement. Its strings are substrings of what
// Of was given (no copy).
type Speaker struct {
	Form Form
	// Module and Class name an exception: "jax.errors" and
	// "JaxRuntimeError"; Module is "" for an unqualified class
	// ("XlaRuntimeError", "MemoryError"). A C++ exception's namespace is its
	// module ("rmm", "out_of_memory").
	Module, Class string
	// File is the source file of a native log line as its header prints it
	// ("external/xla/xla/stream_executor/cuda/cuda_executor.cc",
	// "cuda_executor.cc"), the source path an exception's message names, or
	// the path of the innermost traceback frame that decided its owner.
	File string
	// Level is the level letter of a native or logger header ('I', 'W',
	// 'E', 'F', 'D'); 0 when none is printed.
	Level byte
	// Logger is a Python logger's name ("jax._src.xla_bridge").
	Logger string
	// Program is the owner's name from the table ("jax", "cupy",
	// "pytorch"); "" when Unknown.
	Program string
	Owner   Owner

	cpp bool // a C++ exception: its namespace is joined by "::"
}

// Raised reports whether the statement is a status that XLA's stack raised:
// an exception of xla, jax, TensorFlow or PyTorch/XLA. Such a statement is
// the failure, whatever allocator words it carries.
func (s Speaker) Raised() bool { return s.Form == Exception && s.Owner == XLA }

// Type is an exception's type as the semantic conventions' exception.type
// asks for it: the fully qualified class name ("jax.errors.JaxRuntimeError",
// "rmm::out_of_memory"); "" for a statement that is not an exception.
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

// Undecided reports whether reading more of the statement than its first
// line may decide its owner: an exception of a class that names no program
// (MemoryError, RuntimeError, ResourceExhaustedError) whose message may
// name the source file that raised it.
func (s Speaker) Undecided() bool { return s.Form == Exception && s.Owner == Unknown }

// Of says who printed statement, a log entry's text with its header
// removed, where header is the log header that stood before it ("" for
// none; nested headers whole). statement may be the first line alone or the
// whole statement; only an Undecided exception reads past its first line.
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
		// "[trainer] E0101 ... bfc_arena.cc:376] ": taken where it names a
		// program; otherwise the statement stays bare, read as before.
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
		// What an application logs may be another program's words: its
		// exception ("Batch failed: cupy.cuda.memory.OutOfMemoryError:
		// ..."), its own tagged line. A C++ log line carries neither: its
		// lines (the BFC dump's) are not read for them.
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

// decideException finds the owner of an exception: its module, else its
// class, else how its message starts, else the source path its message
// names (message is what follows "Class: ").
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

// StartsStatement reports whether a line with no log header starts a
// statement of its own rather than continuing the one above: an exception,
// a traceback, a C++ exception that terminated the program, a start row's
// tag (Chainer's "Exception in main training loop: "). (Other tags are read
// on a statement's first line only: looking for them anywhere in every
// continuation line would cost every multi-line record.)
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
