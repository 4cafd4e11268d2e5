// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package families holds the message families, one self-contained entry per
// message format XLA (or a runtime under it) prints when memory runs out or
// runs short: families_<group>.go hold the entries, families.go lists the
// groups in matching order. Adding a family touches this package only
// (CONTRIBUTING.md); the entry types are in package grammar.
package families
