// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package families holds one entry per message format XLA (or a runtime under
// it) prints when memory runs out or runs short; families.go lists the groups
// in matching order. Adding a family touches this package only.
package families
