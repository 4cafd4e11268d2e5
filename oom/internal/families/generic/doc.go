// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package generic is the last-resort layer: a memory failure no family knows,
// stated in an error context (family "generic", xla.oom.generic).
package generic
