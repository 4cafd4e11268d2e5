// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package grammar is what a message family is and what it yields: the entry
// types (family.go), an entry's expression run around its anchor
// (pattern.go, match.go, truncation.go), the sizes (sizes.go), the facts read
// (Report in report.go, breakdowns in breakdown_report.go, warnings in
// warning_report.go), the OpenXLA catalog (catalog.go) and the compiled
// table (compiled.go). The entries themselves are in package families.
package grammar
