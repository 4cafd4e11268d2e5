// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"math"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Property fuzz targets (hardening). Seeds come from every fixture table and
// every text under testdata; `go test` runs the seeds as ordinary tests, and
// `go test -run=^$ -fuzz=<target> ./oom` explores beyond them.

// fuzzSeeds returns the fixture texts, lookalikes, testdata/messages,
// testdata/negative, the real negative captures, ordinary.txt lines and
// testdata/real/*.exception.txt.
func fuzzSeeds(tb testing.TB) []string {
	var seeds []string
	for _, fx := range fixtures {
		seeds = append(seeds, fx.body(tb))
	}
	for _, c := range lookalikes {
		seeds = append(seeds, c.text)
	}
	globs := []string{"testdata/messages/*", "testdata/negative/*", filepath.Join(realDir, "*.exception.txt")}
	for _, name := range realNegatives {
		globs = append(globs, filepath.Join(realDir, name))
	}
	for _, glob := range globs {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err == nil {
				seeds = append(seeds, string(b))
			}
		}
	}
	if b, err := os.ReadFile("testdata/ordinary.txt"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if l != "" {
				seeds = append(seeds, l)
			}
		}
	}
	seeds = append(seeds,
		"Attempting to allocate 99999999999999T. That was not possible. There are 1.00G free.; (0x0x1_HBM0)",
		"RESOURCE_EXHAUSTED: Out of memory while trying to allocate 99999999999999999999999 bytes.",
		"RESOURCE_EXHAUSTED: Out of memory while trying to allocate -8E bytes.",
		"Out of memory allocating 12345 bytes.",
		"RESOURCE_EXHAUSTED: \x00\xff\xfe Out of memory while trying to allocate 1 bytes.",
	)
	return seeds
}

// sizesOf collects every Size reachable from v (Report fields, breakdown
// entries), with its path for error messages.
func sizesOf(v reflect.Value, path string, out map[string]grammar.Size) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[grammar.Size]() {
			out[path] = v.Interface().(grammar.Size)
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				sizesOf(v.Field(i), path+"."+v.Type().Field(i).Name, out)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			sizesOf(v.Index(i), path+"[]", out)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			sizesOf(v.Elem(), path, out)
		}
	}
}

// FuzzRecognizeProperties checks properties of Recognize on any text:
// deterministic; a negative size only when the text holds a '-'; MayContain's
// documented contract (it may miss only a status-less headline: any text that
// names RESOURCE_EXHAUSTED / Resource exhausted and is recognised passes it).
func FuzzRecognizeProperties(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r1, ok1 := Recognize(text)
		r2, ok2 := Recognize(text)
		if ok1 != ok2 || !reflect.DeepEqual(r1, r2) {
			t.Fatalf("Recognize not deterministic on %q:\n%+v %v\n%+v %v", text, r1, ok1, r2, ok2)
		}
		may := MayContain(text)
		if may != MayContain(text) {
			t.Fatalf("MayContain not deterministic on %q", text)
		}
		if !ok1 {
			return
		}
		if !may && (strings.Contains(text, "RESOURCE_EXHAUSTED") || strings.Contains(text, "Resource exhausted")) {
			t.Errorf("MayContain=false but Recognize=true on a status-bearing text %q (code %s, family %s)", text, r1.Code, r1.Family)
		}
		sizes := map[string]grammar.Size{}
		sizesOf(reflect.ValueOf(r1), "Report", sizes)
		for p, s := range sizes {
			if !s.Known && s.Bytes != 0 {
				t.Errorf("%s: unknown size with bytes %d", p, s.Bytes)
			}
			if s.Bytes < 0 && !strings.Contains(text, "-") {
				t.Errorf("%s = %d negative, but the text has no '-': %q", p, s.Bytes, text)
			}
		}
	})
}

// refParseSize is an independent reference for parseSize, computed with
// arbitrary precision: it returns the exact value (rounded half up to the
// byte) and whether the token is syntactically a size. Like parseSize it
// ignores fraction digits beyond the 18th.
func refParseSize(tok string) (*big.Int, bool) {
	s := strings.TrimSpace(tok)
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		h := s[2:]
		if h == "" || strings.ContainsAny(h, "+-_") {
			return nil, false
		}
		v, ok := new(big.Int).SetString(h, 16)
		return v, ok
	}
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	i := 0
	var ip strings.Builder
	for ; i < len(s) && (s[i] == ',' || (s[i] >= '0' && s[i] <= '9')); i++ {
		if s[i] != ',' {
			ip.WriteByte(s[i])
		}
	}
	if ip.Len() == 0 {
		return nil, false
	}
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		j := i
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		}
		frac = s[j:i]
		if len(frac) > 18 {
			frac = frac[:18]
		}
	}
	shift, ok := grammar.UnitShift(strings.TrimSpace(s[i:]))
	if !ok {
		return nil, false
	}
	num, _ := new(big.Int).SetString(ip.String()+frac, 10)
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	num.Lsh(num, shift)
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Lsh(r, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return q, true
}

// mantissaFits reports whether the token's digits (int and up to 18 fraction
// digits, commas and sign dropped) fit in a uint64.
func mantissaFits(tok string) bool {
	s := strings.TrimPrefix(strings.TrimSpace(tok), "-")
	var d strings.Builder
	frac, nf := false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ',' && !frac:
		case c == '.' && !frac:
			frac = true
		case c >= '0' && c <= '9':
			if frac {
				if nf == 18 {
					continue
				}
				nf++
			}
			d.WriteByte(c)
		default:
			i = len(s)
		}
	}
	v, ok := new(big.Int).SetString(d.String(), 10)
	return ok && v.IsUint64()
}

// FuzzParseSize compares parseSize with the big.Int reference: a size it
// returns is exactly the reference value (never wrapped), negative only for a
// token with '-', and it refuses only what is unreadable or outside int64.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{
		"147.64M", "1.7K", "0B", "3.47E", "-2.55G", "-8E", "8E", "7.99E", "6.00MiB", "384.0KiB", "6291456",
		"554,696,704", "99999999999999T", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"0xffffffffffffffff", "0x7fffffffffffffff", "1.5", "0.5B", "1.0000000000000000000001K", " 12 bytes ",
		"18446744073709551615", "18446744073709551616", "1,", ",1", "-", "K", "1KB", "1kiB", "1.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		got, ok := grammar.ParseSize(tok)
		want, wantOK := refParseSize(tok)
		inRange := wantOK && want.IsInt64()
		if strings.HasPrefix(strings.TrimSpace(tok), "0x") || strings.HasPrefix(strings.TrimSpace(tok), "0X") {
			inRange = wantOK && want.Sign() >= 0 && want.Cmp(big.NewInt(math.MaxInt64)) <= 0
		}
		if ok && !inRange {
			t.Fatalf("parseSize(%q) = %d, but the reference says %v (syntax ok %v)", tok, got, want, wantOK)
		}
		if ok && got != want.Int64() {
			t.Fatalf("parseSize(%q) = %d, want %v (wrapped or misrounded)", tok, got, want)
		}
		// parseSize keeps int and fraction digits in one uint64 (exact, no
		// float): a mantissa beyond 2^64 is refused, never wrapped. That is
		// the only representable value it may refuse.
		if !ok && inRange && mantissaFits(tok) {
			t.Fatalf("parseSize(%q) refused a representable size %v", tok, want)
		}
		if ok && got < 0 && !strings.Contains(tok, "-") {
			t.Fatalf("parseSize(%q) = %d negative without '-'", tok, got)
		}
		s := grammar.ParseSizeToken(tok)
		if s.Known != (ok && tok != "") || (s.Known && s.Bytes != got) {
			t.Fatalf("parseSizeToken(%q) = %+v, parseSize = %d, %v", tok, s, got, ok)
		}
	})
}
