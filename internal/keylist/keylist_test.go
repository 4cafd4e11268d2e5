// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package keylist

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValidate(t *testing.T) {
	assert.Empty(t, Validate("keys", nil))
	assert.Empty(t, Validate("keys", []string{"a", "b"}))
	err := errors.Join(Validate("keys", []string{"a", "", " ", "a"})...)
	assert.EqualError(t, err, "keys[1]: must not be empty\nkeys[2]: must not be empty\nkeys[3]: \"a\" is listed twice")
}
