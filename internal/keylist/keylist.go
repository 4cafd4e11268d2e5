// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package keylist validates the lists of attribute or map keys that the
// processor and the connector accept in their configuration.
package keylist // import "github.com/xlaoom/xlaoomprocessor/internal/keylist"

import (
	"fmt"
	"strings"
)

// Validate returns one error per blank or repeated key, each naming the
// config field and the index, e.g. "body_keys[1]: must not be empty".
func Validate(field string, keys []string) []error {
	var errs []error
	seen := make(map[string]bool, len(keys))
	for i, k := range keys {
		switch {
		case strings.TrimSpace(k) == "":
			errs = append(errs, fmt.Errorf("%s[%d]: must not be empty", field, i))
		case seen[k]:
			errs = append(errs, fmt.Errorf("%s[%d]: %q is listed twice", field, i, k))
		}
		seen[k] = true
	}
	return errs
}
