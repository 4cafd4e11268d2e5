// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package verdict decides what each statement of a record is: the failure,
// an allocation attempt, a memory-pressure warning or nothing, in one table
// (table.go); then which candidate is the failure (candidates.go), how the
// others merge into it (merge.go) and how attempts are counted (attempts.go).
package verdict
