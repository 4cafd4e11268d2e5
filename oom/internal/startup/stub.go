// Package startup is a stub until the real package lands.
package startup

import "github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"

var Cues = []string{"for BFCAllocator", "MB memory", "iB freeMemory", "MiB /", "MiB |"}

type Process struct{ d Device }

func (p *Process) Read(text string) bool     { return false }
func (p *Process) Ended()                    {}
func (p *Process) Device(ordinal int) Device { return p.d }

type Device struct {
	Model               string
	Capacity            grammar.Size
	CapacitySource      string
	Free, FreeTotal     grammar.Size
	FreeSource          string
	Holders             []string
	Pool                grammar.Size
	PoolBasis           string
	PlanPeak, PlanLimit grammar.Size
	PlanSource          string
}

func (d Device) Held() (grammar.Size, bool) {
	if !d.Free.Known || !d.FreeTotal.Known {
		return grammar.Size{}, false
	}
	h := d.FreeTotal.Bytes - d.Free.Bytes
	return grammar.KnownSize(h), h > max(1<<30, d.FreeTotal.Bytes/20)
}
func (d Device) WholeFree() bool {
	_, held := d.Held()
	return d.Free.Known && !held
}
func ModelMemory(name string) (grammar.Size, bool) { return grammar.Size{}, false }

const (
	BasisShare       = "share"
	BasisFreeAtStart = "free_at_start"
	PlanScheduler    = "scheduler"
	PlanRemat        = "rematerialization"
)
