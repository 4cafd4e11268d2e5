// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package tools pins the code generators and linters used by the Makefile.
// It lives in its own module so that users of the component never inherit them.
package tools
