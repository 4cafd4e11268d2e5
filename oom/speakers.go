// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "strconv"

// The speaker decides before the words (docs/recognition.md, "Who said
// it"): the hooks of statements.go's record into recognition.
//
//   - A match in a statement of a foreign program (CuPy, PyTorch, a
//     database, ...) is dropped: a family's, an attempt's, a warning's, a
//     code's and the last-resort layer's alike.
//   - An allocation attempt in a status XLA's stack raised is no attempt:
//     the program raised it, so it is the failure, read as the failure
//     family its words belong to (warningFamily.raised), else by the
//     last-resort layer.
//   - Elsewhere (bare messages, unknown speakers) the rules of words alone
//     hold.

// eachAttemptOrRaised is eachAttempt that also adds to cands the
// allocation attempts that lie in a status XLA's stack raised, as
// candidates of their raised family: one pass over the attempt patterns
// for both.
func (z *Recognizer) eachAttemptOrRaised(flat string, st *statements, cands []candidate, fn func(at int, r *Report, requested string)) []candidate {
	if !st.anyRaised() {
		z.eachAttempt(flat, st, fn)
		return cands
	}
	for k, i := range z.attempts {
		w := &z.warnings[i]
		f := z.raisedAs[k] // nil when the last-resort layer reads its raised form
		w.each(flat, func(m match) {
			at := m.start()
			if st.foreign(at) || st.raised(at) && (f == nil || len(cands) >= maxCandidates) {
				return
			}
			r := Report{Backend: w.backend}
			if st.raised(at) {
				r = Report{Family: f.id, Code: f.code, Phase: f.phase, Backend: f.backend}
			}
			readStandardGroups(&r, m)
			if w.read != nil && !w.read(&r, m) {
				return
			}
			if st.raised(at) {
				cands = append(cands, candidate{f: f, at: at, r: r, requestedToken: requestedToken(m)})
				return
			}
			fn(at, &r, requestedToken(m))
		})
	}
	return cands
}

// notAttempt reports whether an attempt's match at position i is no
// allocation attempt: another program's words, or a status XLA raised.
func (st *statements) notAttempt(i int) bool { return st.foreign(i) || st.raised(i) }

// withoutForeign drops the codes printed in foreign statements.
func withoutForeign(codes []codeAt, st *statements) []codeAt {
	if st == nil || st.n == 0 {
		return codes
	}
	kept := codes[:0]
	for _, c := range codes {
		if !st.foreign(c.at) {
			kept = append(kept, c)
		}
	}
	return kept
}

// resolveRaised finds, for each attempt, the failure family its raised
// form is read as (warningFamily.raised); it panics on an id that names
// none, as newRecognizer does on any malformed entry.
func (z *Recognizer) resolveRaised() {
	for _, i := range z.attempts {
		w := &z.warnings[i]
		f := z.family(w.raised)
		if w.raised != "" && f == nil {
			panic("oom: warning family " + w.id + " is raised as " + strconv.Quote(w.raised) + ", which is no failure family")
		}
		z.raisedAs = append(z.raisedAs, f)
	}
}

// family returns the failure family of an id, nil for "" or none.
func (z *Recognizer) family(id string) *family {
	if id == "" {
		return nil
	}
	for i := range z.families {
		if z.families[i].id == id {
			return &z.families[i]
		}
	}
	return nil
}
