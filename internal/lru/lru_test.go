// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package lru

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOrder(t *testing.T) {
	m := New[string, int]()
	for i, k := range []string{"a", "b", "c", "d"} {
		m.Put(k, i)
	}
	m.Touch("a") // b, c, d, a
	key, v, ok := m.Oldest()
	assert.True(t, ok)
	assert.Equal(t, "b", key)
	assert.Equal(t, 1, *v)

	m.Trim(3) // c, d, a
	_, gone := m.Get("b")
	assert.False(t, gone)
	assert.Equal(t, 3, m.Len())

	m.RemoveStale(func(v *int) bool { return *v >= 2 }) // c and d are, a is not: a
	assert.Equal(t, 1, m.Len())
	key, _, _ = m.Oldest()
	assert.Equal(t, "a", key)

	fresh := m.Touched("e", func(*int) bool { return false }) // a, e
	assert.Equal(t, 0, *fresh, "a new entry is a zero value")
	*fresh = 5
	assert.Equal(t, 0, *m.Touched("a", func(v *int) bool { return *v >= 0 }), "a stale one is replaced") // e, a
	key, _, _ = m.Oldest()
	assert.Equal(t, "e", key)
	assert.Equal(t, 5, *m.Touched("e", func(*int) bool { return false }), "a live one is kept") // a, e
	key, _, _ = m.Oldest()
	assert.Equal(t, "a", key)

	m.Trim(0)
	m.RemoveStale(func(*int) bool { return true })
	_, _, ok = m.Oldest()
	assert.False(t, ok)
}
