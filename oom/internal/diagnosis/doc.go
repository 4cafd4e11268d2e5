// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package diagnosis turns a recognised failure into its catalog names,
// cause, advice, retry verdict and fit fraction, and gives warnings' advice.
package diagnosis
