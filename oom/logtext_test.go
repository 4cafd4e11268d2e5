// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRaised(t *testing.T) {
	for text, want := range map[string]bool{
		"Traceback (most recent call last):\n  File \"a.py\", line 1, in f":                                                   true,
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory":                                                       true,
		"XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory":                                                                  true,
		"tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM":                                                 true,
		"W1126 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory":                                                 false,
		"E0912 07:09:13.044581 train.py:330] Failed to stage\nValueError: RESOURCE_EXHAUSTED: Error allocating device buffer": true,
		"E0912 07:02:44.1 x.cc:1] Status: RESOURCE_EXHAUSTED: Out of memory (see the Error: above)":                           false,
		"2Error: x":      false,
		"Error code: 12": false,
		// An indented exception line, and a traceback head cut before its colon.
		"  File \"a.py\", line 1, in f\n    jax.errors.JaxRuntimeError: x": true,
		"Traceback (most recent call last)":                                true,
		".Error: x":                                                        false,
	} {
		assert.Equal(t, want, Raised(text), text)
	}
}

func TestHeaderTime(t *testing.T) {
	for text, want := range map[string]string{
		"E1126 11:16:29.817943     786 cuda_executor.cc:1365] x":                  "11-26 11:16:29.817943",
		"W0912 07:00:09 bfc_allocator.cc:380] retrying":                           "09-12 07:00:09",
		"2025-09-12 07:02:43.112233: W external/xla/bfc.cc:291] x":                "09-12 07:02:43.112233",
		"2025-09-12T07:02:43Z x":                                                  "09-12 07:02:43",
		"2025-09-12 07:05:41,118 - ERROR - train step failed":                     "09-12 07:05:41.118",
		"ERROR 09-12 07:23:02 [core.py:7] x":                                      "09-12 07:23:02",
		"(EngineCore_DP0 pid=896988) ERROR 09-12 07:23:02 [core.py] x":            "09-12 07:23:02",
		"INFO 09-12 07:20:14 [api_server.py:1000] vLLM API server version 0.10.1": "09-12 07:20:14",
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: x":                       "",
		"Traceback (most recent call last):":                                      "",
		"E0912 a glog letter without a time":                                      "",
		"E11 26 x":                                                                "",
		"":                                                                        "",
	} {
		got, ok := HeaderTime(text)
		if want == "" {
			assert.False(t, ok, text)
			continue
		}
		require.True(t, ok, text)
		assert.Equal(t, 2000, got.Year(), text)
		assert.Equal(t, want, got.Format("01-02 15:04:05.999999999"), text)
	}
	a, _ := HeaderTime("E0131 23:59:50.0 x")
	b, _ := HeaderTime("E0201 00:00:10.0 x")
	assert.Equal(t, 20*time.Second, b.Sub(a), "across a month end")
}
