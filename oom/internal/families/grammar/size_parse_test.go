// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"math"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		// google3 (TPU) style, base 1024, rounded to the nearest byte
		{"147.64M", 154811761, true},
		{"29.49G", 31664646390, true},
		{"1.7K", 1741, true},
		{"4.0K", 4096, true},
		{"1024.0K", 1048576, true}, // the mantissa can reach 1024
		{"0B", 0, true},
		{"512B", 512, true},
		{"3.84T", 4222124650660, true},
		{"3.47E", 4000637620985759007, true},
		{"-2.55G", -2738041651, true},
		{"-1B", -1, true},
		{"-8E", math.MinInt64, true}, // INT64_MIN as both formatters print it
		{"8E", 0, false},             // 2^63 does not fit
		// TSL (GPU/CPU) style
		{"6.00MiB", 6291456, true},
		{"384.0KiB", 393216, true},
		{"1.97GiB", 2115271393, true},
		{"154.06GiB", 165420665405, true},
		{"12.50GiB", 13421772800, true},
		// raw bytes and exact companions
		{"6291456", 6291456, true},
		{"6291456 bytes", 6291456, true},
		{"33554432B", 33554432, true},
		{"554,696,704", 554696704, true},
		{"-2,735,391,744", -2735391744, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"9223372036854775808", 0, false},
		{"1.5", 2, true}, // half rounds up
		// hex descriptors; the all-ones sentinel means unknown
		{"0x8000000", 134217728, true},
		{"0xffffffffffffffff", 0, false},
		// overflow and garbage are left out, never wrapped
		{"99999999999999T", 0, false},
		{"99999999999999999999", 0, false},
		{"16E", 0, false},
		{"", 0, false},
		{"G", 0, false},
		{"12X", 0, false},
		{"1.2.3M", 0, false},
		{"5Mi", 0, false},
	} {
		got, ok := ParseSize(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestSizeUnknownToken(t *testing.T) {
	if s := ParseSizeToken(""); s.Known {
		t.Errorf("parseSizeToken(\"\") = %+v", s)
	}
	if s := ParseSizeToken("99999999999999T"); s.Known {
		t.Errorf("overflow gave %+v", s)
	}
}

func TestHumanBytes(t *testing.T) {
	for in, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.00 KiB", 6742344: "6.43 MiB", 34359738368: "32.00 GiB", -2738041651: "-2.55 GiB", math.MinInt64: "-8.00 EiB"} {
		if got := HumanBytes(in); got != want {
			t.Errorf("HumanBytes(%d) = %q, want %q", in, got, want)
		}
	}
}

// Values checked against real logs (docs/message-formats.md, "Sizes").
func TestFormatHuman(t *testing.T) {
	for _, c := range []struct {
		n       int64
		g3, tsl string
	}{
		{553648128, "528.00M", "528.00MiB"}, {171573248, "163.62M", "163.62MiB"}, {10830902272, "10.09G", "10.09GiB"},
		{11996954624, "11.17G", "11.17GiB"}, {2110783744, "1.97G", "1.97GiB"}, {48803099904, "45.45G", "45.45GiB"},
		{165425291480, "154.06G", "154.06GiB"}, {30979129344, "28.85G", "28.85GiB"}, {33554432, "32.00M", "32.00MiB"},
		{393216, "384.0K", "384.0KiB"}, {554696704, "529.00M", "529.00MiB"}, {6532939776, "6.08G", "6.08GiB"},
		{4237689856, "3.95G", "3.95GiB"}, {-2735391744, "-2.55G", "-2.55GiB"}, {1741, "1.7K", "1.7KiB"},
		{107374182400, "100.00G", "100.00GiB"}, {1048575, "1024.0K", "1024.0KiB"}, {1073741823, "1024.00M", "1024.00MiB"},
		{0, "0B", "0B"}, {512, "512B", "512B"}, {math.MinInt64, "-8E", "-8E"}, {100000000000, "93.13G", "93.13GiB"},
	} {
		if got := FormatHuman(c.n, false); got != c.g3 {
			t.Errorf("formatHuman(%d, g3) = %q, want %q", c.n, got, c.g3)
		}
		if got := FormatHuman(c.n, true); got != c.tsl {
			t.Errorf("formatHuman(%d, tsl) = %q, want %q", c.n, got, c.tsl)
		}
	}
	for tok, want := range map[string]bool{"6291456": true, "0B": true, "33554432B": true, "554,696,704": true, "1.97GiB": false, "4.0K": false, "8E": false, "x": false} {
		if got := IsExactToken(tok); got != want {
			t.Errorf("isExactToken(%q) = %v", tok, got)
		}
	}
}
