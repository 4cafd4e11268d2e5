//go:build race

package oom

// raceEnabled: the race detector slows code unevenly, so timing-ratio tests
// skip under it (they still run in the non-race compat stage of make test).
const raceEnabled = true
