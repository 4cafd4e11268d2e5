// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// resourceKey identifies a resource: its schema URL and attributes encoded
// exactly (sorted keys, typed and length-prefixed values), so two resources
// share series only when equal, whatever the order of their attributes.
type resourceKey string

func resourceKeyOf(res pcommon.Resource, schemaURL string) resourceKey {
	var b strings.Builder
	writeString(&b, schemaURL)
	writeMap(&b, res.Attributes())
	return resourceKey(b.String())
}

func writeString(b *strings.Builder, s string) {
	b.WriteString(strconv.Itoa(len(s)))
	b.WriteByte(':')
	b.WriteString(s)
}

func writeMap(b *strings.Builder, m pcommon.Map) {
	keys := make([]string, 0, m.Len())
	for k := range m.All() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b.WriteByte('{')
	for _, k := range keys {
		v, _ := m.Get(k)
		writeString(b, k)
		writeValue(b, v)
	}
	b.WriteByte('}')
}

func writeValue(b *strings.Builder, v pcommon.Value) {
	b.WriteByte(byte('0' + v.Type()))
	switch v.Type() {
	case pcommon.ValueTypeMap:
		writeMap(b, v.Map())
	case pcommon.ValueTypeSlice:
		b.WriteByte('[')
		for _, e := range v.Slice().All() {
			writeValue(b, e)
		}
		b.WriteByte(']')
	default:
		writeString(b, v.AsString())
	}
}
