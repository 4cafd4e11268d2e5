// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/promtext"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// TestSDKClient sends log records the way an instrumented training service
// does -- the OpenTelemetry Go log SDK, OTLP/HTTP, a short body and the XLA
// error text in exception.message (what the Python logging handler does with
// exc_info) -- to the gateway of examples/gateway.yaml, and checks that they
// come out tagged and counted.
func TestSDKClient(t *testing.T) {
	dir := t.TempDir()
	gwRecords := filepath.Join(dir, "records.json")
	pki := newTestPKI(t) // the gateway serves OTLP over TLS only
	_, ports := startCollector(t, "gateway", filepath.Join(examplesDir, "gateway.yaml"), func(p *collector.Ports) []string {
		return gatewayEnv(p, gwRecords, pki.gatewayTLSEnv(false))
	}, "http", "prom")
	gwHTTP, gwProm := ports.Addr("http"), ports.Addr("prom")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	exp, err := otlploghttp.New(ctx, otlploghttp.WithEndpoint(gwHTTP), otlploghttp.WithTLSClientConfig(pki.clientTLS(t, false)),
		otlploghttp.WithTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "trainer"), attribute.String("host.name", "tpu-client-0"))
	lp := sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(sdklog.NewBatchProcessor(exp)))
	logger := lp.Logger("train")

	emit := func(sev otellog.Severity, body string, attrs ...otellog.KeyValue) {
		var r otellog.Record
		r.SetTimestamp(time.Now())
		r.SetSeverity(sev)
		r.SetSeverityText(sev.String())
		r.SetBody(otellog.StringValue(body))
		r.AddAttributes(attrs...)
		logger.Emit(ctx, r)
	}
	exc := func(typ, msg string) []otellog.KeyValue {
		return []otellog.KeyValue{
			otellog.String("exception.type", typ),
			otellog.String("exception.message", msg),
			otellog.String("exception.stacktrace", "Traceback (most recent call last):\n  File \"/app/train.py\", line 241, in main\n    state, metrics = train_step(state, batch)\n"+typ+": "+msg),
		}
	}
	emit(otellog.SeverityInfo, "step 12000 done", otellog.Int("step", 12000))
	emit(otellog.SeverityError, "train step failed", exc("JaxRuntimeError",
		"RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00G. That was not possible. There are 6.43G free.; (0x0x1_HBM0)")...)
	emit(otellog.SeverityError, "train step failed", exc("JaxRuntimeError",
		"RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:\nRan out of memory in memory space hbm. Used 118.42G of 95.74G hbm. Exceeded hbm capacity by 22.68G.\nSee https://openxla.org/xla/errors/error_1000 for more details.")...)
	emit(otellog.SeverityError, "eval step failed", exc("XlaRuntimeError",
		"RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2110783616 bytes. [tf-allocator-allocation-error=''] [executable_name='jit_eval_step']")...)
	emit(otellog.SeverityWarn, "metrics upload failed", exc("_InactiveRpcError",
		"RESOURCE_EXHAUSTED: grpc: received message larger than max (8388608 vs. 4194304)")...)
	if err := lp.ForceFlush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := lp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	var got []records.Record
	eventually(t, 30*time.Second, func() string {
		got, err = records.ReadFile(gwRecords)
		if err != nil {
			return err.Error()
		}
		got, _ = records.Split(got) // the lines; the processor's failure records are not

		if len(got) != 5 {
			return fmt.Sprintf("gateway wrote %d records, want 5", len(got))
		}
		return ""
	})
	var tagged []string
	for _, r := range got {
		if r.ResourceStr("service.name") != "trainer" || r.ResourceStr("host.name") != "tpu-client-0" {
			t.Errorf("resource lost: %v", r.Resource.AsRaw())
		}
		code := r.Str("xla.error.code")
		switch r.Body {
		case "train step failed", "eval step failed":
			if code == "" {
				t.Errorf("OOM record not tagged: %s", r.Str("exception.message"))
				continue
			}
			tagged = append(tagged, code)
			if len(r.Strings("xla.remediation")) == 0 || r.Str("xla.error.category") == "" {
				t.Errorf("%s record lacks category or remediation", code)
			}
		default:
			if code != "" {
				t.Errorf("%q (%s) tagged %s", r.Body, r.Str("exception.message"), code)
			}
		}
	}
	sort.Strings(tagged)
	if fmt.Sprint(tagged) != "[E0007 E0100 E1000]" {
		t.Errorf("tagged codes %v, want [E0007 E0100 E1000]", tagged)
	}
	for _, r := range got {
		if r.Str("xla.error.code") == "E0100" {
			if v, _ := r.Int("xla.oom.requested.size"); v != 8<<30 {
				t.Errorf("E0100 xla.oom.requested.size = %d, want %d", v, 8<<30)
			}
			if r.Str("xla.oom.cause") != "exhaustion" {
				t.Errorf("E0100 xla.oom.cause = %q", r.Str("xla.oom.cause"))
			}
		}
		if r.Str("xla.error.code") == "E0007" && r.Str("xla.program.name") != "jit_eval_step" {
			t.Errorf("E0007 xla.program.name = %q, want jit_eval_step", r.Str("xla.program.name"))
		}
	}
	eventually(t, 30*time.Second, func() string {
		m, err := promtext.Scrape("http://"+gwProm+"/metrics", 5*time.Second)
		if err != nil {
			return err.Error()
		}
		if v := promtext.Sum(m, "xla_oom_errors_total", map[string]string{"service_name": "trainer", "host_name": "tpu-client-0"}); v != 3 {
			return fmt.Sprintf("xla_oom_errors_total{service_name=trainer,host_name=tpu-client-0} = %v, want 3", v)
		}
		return ""
	})
	_ = os.Remove(gwRecords)
}
