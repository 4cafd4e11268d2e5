// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import "container/list"

// lru is a map that remembers the order in which its entries were last
// touched, so the oldest can be found and dropped in O(1): the incident
// memory and the retired counters are bounded with it, and expire from its
// front without scanning.
type lru[K comparable, V any] struct {
	items map[K]*list.Element
	order list.List // front: touched longest ago
}

type lruEntry[K comparable, V any] struct {
	key   K
	value V
}

func newLRU[K comparable, V any]() *lru[K, V] {
	return &lru[K, V]{items: map[K]*list.Element{}}
}

func (l *lru[K, V]) len() int { return len(l.items) }

// get returns the entry of key without touching it.
func (l *lru[K, V]) get(key K) (*V, bool) {
	e, ok := l.items[key]
	if !ok {
		return nil, false
	}
	return &e.Value.(*lruEntry[K, V]).value, true
}

// put sets key to value and makes it the most recently touched entry.
func (l *lru[K, V]) put(key K, value V) {
	if e, ok := l.items[key]; ok {
		e.Value.(*lruEntry[K, V]).value = value
		l.order.MoveToBack(e)
		return
	}
	l.items[key] = l.order.PushBack(&lruEntry[K, V]{key: key, value: value})
}

// touch makes key the most recently touched entry.
func (l *lru[K, V]) touch(key K) {
	if e, ok := l.items[key]; ok {
		l.order.MoveToBack(e)
	}
}

// oldest returns the entry touched longest ago.
func (l *lru[K, V]) oldest() (K, *V, bool) {
	e := l.order.Front()
	if e == nil {
		var zero K
		return zero, nil, false
	}
	entry := e.Value.(*lruEntry[K, V])
	return entry.key, &entry.value, true
}

func (l *lru[K, V]) remove(key K) {
	if e, ok := l.items[key]; ok {
		l.order.Remove(e)
		delete(l.items, key)
	}
}
