// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/logheader"
)

// SizePattern matches every size spelling XLA prints: google3 (147.64M, 0B, -8E), TSL (6.00MiB), raw integers
// and thousands separators (554,696,704).
const SizePattern = `-?\d+(?:,\d{3})*(?:\.\d+)?(?:[KMGTPE](?:iB)?|B)?`

// ParseSize converts one size token to bytes, base 1024 (XLA's and google3's formatters), rounded to the
// nearest byte; false when unreadable or beyond int64, never wrapped. Hex is unsigned; all-ones means unknown.
func ParseSize(tok string) (int64, bool) {
	s := strings.TrimSpace(tok)
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		u, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil || u > math.MaxInt64 {
			return 0, false // includes the all-ones "size not set" sentinel
		}
		return int64(u), true
	}
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	var ip uint64
	i, digits := 0, 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == ',' {
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		hi, lo := bits.Mul64(ip, 10)
		if hi != 0 || lo+uint64(c-'0') < lo {
			return 0, false
		}
		ip = lo + uint64(c-'0')
		digits++
	}
	if digits == 0 {
		return 0, false
	}
	num, den := ip, uint64(1)
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if den >= 1e18 {
				continue // more precision than any formatter prints: ignore
			}
			hi, lo := bits.Mul64(num, 10)
			if hi != 0 || lo+uint64(s[i]-'0') < lo {
				return 0, false
			}
			num, den = lo+uint64(s[i]-'0'), den*10
		}
	}
	shift, ok := UnitShift(strings.TrimSpace(s[i:]))
	if !ok {
		return 0, false
	}
	// value = round(num * 2^shift / den), computed in 128 bits.
	hi, lo := bits.Mul64(num, 1<<shift)
	if hi >= den {
		return 0, false
	}
	q, r := bits.Div64(hi, lo, den)
	if r >= den-r { // r >= den/2, without overflow
		q++
	}
	if neg {
		if q > 1<<63 {
			return 0, false
		}
		return int64(-q), true // -2^63 (printed "-8E") is representable
	}
	if q > math.MaxInt64 {
		return 0, false
	}
	return int64(q), true
}

// UnitShift returns log2 of a unit's multiplier.
func UnitShift(u string) (uint, bool) {
	switch u {
	case "", "B", "bytes", "byte":
		return 0, true
	}
	k := strings.IndexByte("kKMGTPE", u[0]) // k and K are both kilo
	if k < 0 || u[1:] != "" && u[1:] != "B" && u[1:] != "iB" {
		return 0, false
	}
	return uint(10 * max(k, 1)), true
}

// ParseSizeToken reads tok into a Size; an unreadable token gives an unknown Size.
func ParseSizeToken(tok string) Size {
	if tok == "" {
		return Size{}
	}
	n, ok := ParseSize(tok)
	return Size{Bytes: n, Known: ok}
}

// FormatHuman formats n as XLA's HumanReadableNumBytes does, TSL ("1.97GiB") or google3 ("147.64M") style,
// so a rounded size can be matched with its exact figure.
func FormatHuman(n int64, tsl bool) string {
	if n == math.MinInt64 {
		return "-8E"
	}
	if n < 0 {
		return "-" + FormatHuman(-n, tsl)
	}
	if n < 1024 {
		return strconv.FormatInt(n, 10) + "B"
	}
	const units = "KMGTPE"
	u := 0
	for u < len(units)-1 && n >= 1024*1024 {
		n /= 1024
		u++
	}
	prec := 2
	if u == 0 {
		prec = 1
	}
	suffix := units[u : u+1]
	if tsl {
		suffix += "iB"
	}
	return strconv.FormatFloat(float64(n)/1024, 'f', prec, 64) + suffix
}

// IsExactToken reports whether a size token is an exact byte count (no fraction, no unit above bytes).
func IsExactToken(tok string) bool {
	_, ok := ParseSize(tok)
	return ok && !strings.ContainsAny(tok, ".KMGTPE")
}

// HumanBytes formats n in binary units, e.g. "49.34 GiB".
func HumanBytes(n int64) string {
	sign, m := "", uint64(n)
	if n < 0 {
		sign, m = "-", uint64(-n) // -MinInt64 wraps to 2^63, which uint64 holds
	}
	if m < 1024 {
		return sign + strconv.FormatUint(m, 10) + " B"
	}
	const units = "KMGTPE"
	v, u := float64(m)/1024, 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	return sign + strconv.FormatFloat(v, 'f', 2, 64) + " " + units[u:u+1] + "iB"
}

// SizeGroup is a named group that captures one size in any spelling.
func SizeGroup(name string) string { return `(?P<` + name + `>` + SizePattern + `)` }

// Exact prefers the exact byte count printed next to a rounded size ("1.97GiB (rounded to 2110783744)").
func Exact(human, bytes string) Size {
	if bytes != "" {
		return ParseSizeToken(bytes)
	}
	return ParseSizeToken(human)
}

// AddSizes adds two known sizes; the sum is unknown if either is, or if it overflows.
func AddSizes(a, b Size) Size {
	if !a.Known || !b.Known || (b.Bytes > 0 && a.Bytes > math.MaxInt64-b.Bytes) || (b.Bytes < 0 && a.Bytes < math.MinInt64-b.Bytes) {
		return Size{}
	}
	return KnownSize(a.Bytes + b.Bytes)
}

// AllocatorBackend reads the backend from an allocator name (GPU_0_bfc, gpu_async_1, cuda_host_bfc).
func AllocatorBackend(name string) string {
	l := strings.ToLower(name)
	switch {
	case strings.Contains(l, "gpu"), strings.Contains(l, "cuda"), strings.Contains(l, "rocm"), strings.Contains(l, "hip"):
		return BackendGPU
	case strings.Contains(l, "tpu"):
		return BackendTPU
	case strings.Contains(l, "cpu"):
		return BackendCPU
	}
	return ""
}

// AllocatorDevice reads the device ordinal from an allocator name: its first all-digit part (GPU_0_bfc -> 0).
func AllocatorDevice(name string) string {
	for part := range strings.SplitSeq(name, "_") {
		if part != "" && logheader.DigitsEnd(part, 0) == len(part) {
			return part
		}
	}
	return ""
}
