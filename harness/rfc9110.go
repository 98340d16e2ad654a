package harness

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rsconform/rsconform/internal/words"
)

// RFC 9110 (HTTP Semantics), section 10.2.3, Retry-After.

// RetryAfterHonoured: after a 503 or 429 with Retry-After, the same URI is
// not asked again before the time given.
var RetryAfterHonoured = &Requirement{
	ID: "DEST-RETRY-AFTER", Section: "RFC 9110 10.2.3", Level: Should, Basis: FromLog,
	Title: "Retry-After is honoured",
	Quote: `Servers send the "Retry-After" header field to indicate how long the user agent ought to wait before making a follow-up request.`,
	Reading: "\"Ought to\" is not one of the BCP 14 keywords RFC 9110 uses for requirements; it states what the " +
		"server asks of the client, which the harness reads as a recommendation: SHOULD, failing only under --strict.",
	Passes: "The log shows a follow-up request for the same URI no earlier than the Retry-After asked.",
	Fails:  "The same URI is asked again before the time the Retry-After gave (100 ms slack).",
	Doc: "Judged from the log, which records the Retry-After the mock sent. Passes only when the log shows a " +
		"follow-up request for the same path no earlier than the time asked (100 ms slack); a Retry-After " +
		"that no request followed in the run is not observed.",
	Check: checkRetryAfter,
}

func checkRetryAfter(st *Step) Outcome {
	const slack = 100 * time.Millisecond
	const want = "a follow-up request no earlier than Retry-After"
	served := 0
	var early, honoured, unfollowed []string
	for i, r := range st.Requests {
		if r.RetryAfter == "" {
			continue
		}
		secs, err := strconv.Atoi(r.RetryAfter)
		if err != nil {
			continue
		}
		served++
		wait := time.Duration(secs) * time.Second
		followed := false
		for _, n := range st.Requests[i+1:] {
			if requestKey(n) != requestKey(r) {
				continue
			}
			followed = true
			gap := n.Received.Sub(r.Received.Add(r.Duration))
			line := fmt.Sprintf("%s %d with Retry-After %s, asked again %.2fs later", r.Path, r.Status, r.RetryAfter, gap.Seconds())
			if gap < wait-slack {
				early = append(early, line)
			} else {
				honoured = append(honoured, line)
			}
			break
		}
		if !followed {
			unfollowed = append(unfollowed, fmt.Sprintf("%s %d with Retry-After %s, not asked again in the run", r.Path, r.Status, r.RetryAfter))
		}
	}
	switch {
	case served == 0:
		return Outcome{Status: Skip, Expected: want, Actual: "no Retry-After was served in this run"}
	case len(early) > 0:
		return Outcome{Status: Fail, Expected: want, Actual: fmt.Sprintf("%d asked again too early: %s", len(early), list(early)), Evidence: append(early, honoured...)}
	case len(honoured) == 0:
		return Outcome{Status: NotObserved, Expected: want, Actual: fmt.Sprintf("%s served, no follow-up request", words.Count(served, "Retry-After")), Evidence: unfollowed}
	}
	return Outcome{Status: Pass, Expected: want, Actual: fmt.Sprintf("%d honoured", len(honoured)), Evidence: append(honoured, unfollowed...)}
}
