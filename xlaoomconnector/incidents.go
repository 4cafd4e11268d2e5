package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import "time"

// maxIncidents bounds the incidents remembered for deduplication.
const maxIncidents = 10000

// newIncident reports whether key was not seen within the expiry, and
// remembers it. When the set is full the oldest entry is forgotten (a copy of
// it arriving later would count again).
func (st *state) newIncident(key string, now time.Time) bool {
	if seen, ok := st.incidents[key]; ok && now.Sub(seen) < st.expiry {
		st.incidents[key] = now
		return false
	}
	if len(st.incidents) >= maxIncidents {
		st.expireIncidents(now)
	}
	if len(st.incidents) >= maxIncidents {
		oldest, at := "", now
		for k, t := range st.incidents {
			if oldest == "" || t.Before(at) {
				oldest, at = k, t
			}
		}
		delete(st.incidents, oldest)
	}
	st.incidents[key] = now
	return true
}

func (st *state) expireIncidents(now time.Time) {
	for k, t := range st.incidents {
		if now.Sub(t) >= st.expiry {
			delete(st.incidents, k)
		}
	}
}
