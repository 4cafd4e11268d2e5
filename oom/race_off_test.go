//go:build !race

package oom

const raceEnabled = false
