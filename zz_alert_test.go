package xlaoomprocessor
import ("testing";"fmt";"time";"context";"go.opentelemetry.io/collector/pdata/plog";"go.opentelemetry.io/collector/pdata/pcommon";"go.opentelemetry.io/collector/consumer/consumertest";"go.opentelemetry.io/collector/component/componenttest";"go.opentelemetry.io/collector/processor/processortest";"github.com/xlaoom/xlaoomprocessor/internal/metadata")
func TestZZAlert(t *testing.T){
 sink := new(consumertest.LogsSink)
 cfg := createDefaultConfig(); cfg.IncidentWindow = 3*time.Second
 proc, _ := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), cfg, sink)
 _ = proc.Start(context.Background(), componenttest.NewNopHost())
 send := func(h int, body string, at time.Time) { ld := plog.NewLogs(); rl := ld.ResourceLogs().AppendEmpty(); rl.Resource().Attributes().PutStr("service.name","trainer"); rl.Resource().Attributes().PutStr("host.name", fmt.Sprintf("h%d",h)); lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty(); lr.Body().SetStr(body); lr.SetTimestamp(pcommon.NewTimestampFromTime(at)); lr.Attributes().PutStr("log.file.path", fmt.Sprintf("/l/h%d/trainer.log",h)); lr.Attributes().PutStr("log.file.name", "trainer.log"); lr.Attributes().PutStr("written", "2026-11-29T08:02:20.000000000Z"); lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(time.Now())); if err := proc.ConsumeLogs(context.Background(), ld); err != nil { t.Fatal(err) } }
 now := time.Now()
 for h:=0; h<64; h++ { send(h, "I0912 06:58:05.118224    4412 train.py:118] process 0 of 64 starting", now) }
 for h:=0; h<64; h++ { send(h, "2026-11-29T08:02:20.000000000Z E0912 07:09:13.044581    4412 train.py:330] ValueError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 8.00G. That was not possible. There are 6.43G free.; (0x0x1_HBM0)", now.Add(20*time.Second)) }
 _ = proc.Shutdown(context.Background())
 p := &pipeline{t: t, sink: sink}
 fmt.Println(p.incidents(), len(p.failureRecords()))
 for _, f := range p.failureRecords()[:2] { fmt.Println(f.Attributes().AsRaw()) }
}
