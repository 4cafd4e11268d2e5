// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestInvalidUTF8(t *testing.T) {
	tests := []struct {
		in       string
		complete bool
		want     int
	}{
		{"plain ascii", true, -1},
		{"café ∑ 🙂", true, -1},
		{"caf\xe9 latin-1", true, 3},
		{"ok \xff", false, 3},
		{"cut \xe2\x88", false, -1}, // the window ends inside a rune
		{"cut \xe2\x88", true, 4},   // the input ends inside a rune
		{"\xe2\x88x", false, 0},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, invalidUTF8([]byte(tt.in), tt.complete), "%q", tt.in)
	}
}
