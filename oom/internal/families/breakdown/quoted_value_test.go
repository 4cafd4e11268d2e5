// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package breakdown

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestQuotedValueEscapes(t *testing.T) {
	assert.Equal(t, "a'b\"c\nd", quotedValue(`op_name="a\'b\"c\nd" source_line=3`, `op_name="`))
	assert.Equal(t, "truncat", quotedValue(`op_name="truncat`, `op_name="`))
}
