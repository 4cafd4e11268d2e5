// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package details reads what can surround any family's message: replica,
// program, device and allocator figures (details.go), the error-code tokens
// (codes.go), the BFC allocator's dump (allocator_summary.go), the guards that
// make a match a fallback and the evidence that reveals a backend.
package details
