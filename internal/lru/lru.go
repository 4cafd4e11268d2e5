// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package lru is a map that remembers the order its entries were last touched, so the oldest is found and
// dropped in O(1): every bounded memory of the component expires from its front without scanning.
package lru // import "github.com/xlaoom/xlaoomprocessor/internal/lru"

import "container/list"

// Map is the map; its zero value is not usable (see New) and it is not safe for concurrent use.
type Map[K comparable, V any] struct {
	items map[K]*list.Element
	order list.List // front: touched longest ago
}

type entry[K comparable, V any] struct {
	key   K
	value V
}

// New returns an empty map.
func New[K comparable, V any]() *Map[K, V] {
	return &Map[K, V]{items: map[K]*list.Element{}}
}

// Len is the number of entries.
func (l *Map[K, V]) Len() int { return len(l.items) }

// Get returns the entry of key without touching it.
func (l *Map[K, V]) Get(key K) (*V, bool) {
	e, ok := l.items[key]
	if !ok {
		return nil, false
	}
	return &e.Value.(*entry[K, V]).value, true
}

// Put sets key to value and makes it the most recently touched entry.
func (l *Map[K, V]) Put(key K, value V) {
	if e, ok := l.items[key]; ok {
		e.Value.(*entry[K, V]).value = value
		l.order.MoveToBack(e)
		return
	}
	l.items[key] = l.order.PushBack(&entry[K, V]{key: key, value: value})
}

// Touched returns the entry of key, made the most recently touched: zero in place of a missing or stale one.
func (l *Map[K, V]) Touched(key K, stale func(*V) bool) *V {
	if v, ok := l.Get(key); ok && !stale(v) {
		l.Touch(key)
		return v
	}
	l.Put(key, *new(V))
	v, _ := l.Get(key)
	return v
}

// Touch makes key the most recently touched entry.
func (l *Map[K, V]) Touch(key K) {
	if e, ok := l.items[key]; ok {
		l.order.MoveToBack(e)
	}
}

// Oldest returns the entry touched longest ago.
func (l *Map[K, V]) Oldest() (K, *V, bool) {
	e := l.order.Front()
	if e == nil {
		return *new(K), nil, false
	}
	ent := e.Value.(*entry[K, V])
	return ent.key, &ent.value, true
}

// Trim drops the entries touched longest ago until at most n are left.
func (l *Map[K, V]) Trim(n int) {
	for l.Len() > max(n, 0) {
		l.Remove(l.order.Front().Value.(*entry[K, V]).key)
	}
}

// RemoveStale drops the entries touched longest ago while stale says so of them.
func (l *Map[K, V]) RemoveStale(stale func(*V) bool) {
	for key, v, ok := l.Oldest(); ok && stale(v); key, v, ok = l.Oldest() {
		l.Remove(key)
	}
}

// Remove drops key.
func (l *Map[K, V]) Remove(key K) {
	if e, ok := l.items[key]; ok {
		l.order.Remove(e)
		delete(l.items, key)
	}
}
