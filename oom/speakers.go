// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

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

// raisedCandidates adds to cands the allocation attempts that lie in a
// status XLA's stack raised, as candidates of their raised family.
func (z *Recognizer) raisedCandidates(flat string, st *statements, cands []candidate) []candidate {
	if st == nil || st.n == 0 {
		return cands
	}
	for _, i := range z.attempts {
		w := &z.warnings[i]
		if w.raised == "" {
			continue
		}
		f := z.family(w.raised)
		w.each(flat, func(m match) {
			if !st.raised(m.start()) || len(cands) >= maxCandidates {
				return
			}
			r := Report{Family: f.id, Code: f.code, Phase: f.phase, Backend: f.backend}
			readStandardGroups(&r, m)
			if w.read == nil || w.read(&r, m) {
				cands = append(cands, candidate{f: f, at: m.start(), r: r, requestedToken: requestedToken(m)})
			}
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

// family returns the failure family of an id (newRecognizer checks that
// every warningFamily.raised names one).
func (z *Recognizer) family(id string) *family {
	for i := range z.families {
		if z.families[i].id == id {
			return &z.families[i]
		}
	}
	return nil
}
