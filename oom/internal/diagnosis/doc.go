// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package diagnosis turns a recognised failure into its catalog names, cause
// and advice (finish.go): the advice tables by code and numbers
// (remediation*.go), the kind of the first step (actions.go), the retry
// verdict (retry.go) and the fit fraction (fit.go); and the warnings' advice
// (warning_advice.go).
package diagnosis
