package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import "time"

// expire drops the series that nothing updated for the expiry. A series with
// data not yet emitted is kept whatever its age, so nothing counted is lost.
func (st *state) expire(now time.Time) (expired int64) {
	st.expireIncidents(now)
	stale := func(s *series) bool { return !s.dirty && now.Sub(s.seen) >= st.expiry }
	for key, rs := range st.resources {
		for k, s := range rs.series {
			if stale(s) {
				delete(rs.series, k)
				st.counts[k.metric]--
				expired++
			}
		}
		if len(rs.series) == 0 {
			delete(st.resources, key)
		}
	}
	for id, s := range st.overflow {
		if s != nil && stale(s) {
			st.overflow[id] = nil
			expired++
		}
	}
	return expired
}
