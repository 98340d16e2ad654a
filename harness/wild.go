package harness

import (
	"fmt"

	"github.com/rsconform/rsconform/internal/words"
)

// Requirements of the scenarios of "Mistakes seen in the wild"
// (docs/wild.md).

// TokenSent: behind a bearer token, every request carries it.
var TokenSent = &Requirement{
	ID: "DEST-TOKEN", Section: "RFC 6750 2.1", Level: Should, Basis: FromLog,
	Title: "requests to a Source behind a token carry it",
	Quote: "Clients SHOULD make authenticated requests with a bearer token using the \"Authorization\" request header field with the \"Bearer\" HTTP authorization scheme.",
	Doc: "Judged in scenarios with bearer-token: the mock answers 401 to a request without \"Authorization: Bearer TOKEN\", and the " +
		"harness gives the token to the Destination as {token} in its arguments and RSCONFORM_TOKEN in its environment. " +
		"Fails on any request answered 401 (sent without the token, or with another). A Destination that sends none syncs " +
		"nothing, which DEST-PRESENT reports. Not observed in a run that made no request.",
	Passes: "In a scenario whose Source wants a bearer token, no request of the run is answered 401.",
	Fails:  "A request goes without the token (or with another) and is answered 401.",
	Check:  checkToken,
}

func checkToken(st *Step) Outcome {
	const want = "Authorization: Bearer with the token on every request"
	if st.Scenario == nil || st.Scenario.BearerToken == "" {
		return Outcome{Status: Skip, Expected: want, Actual: "the Source wants no token in this scenario"}
	}
	if len(st.Requests) == 0 {
		return Outcome{Status: NotObserved, Expected: want, Actual: "the Destination made no request in this run"}
	}
	var refused []string
	for _, r := range st.Requests {
		if r.Status == 401 {
			refused = append(refused, requestLine(r))
		}
	}
	if len(refused) > 0 {
		return Outcome{Status: Fail, Expected: want,
			Actual:   fmt.Sprintf("%s of %d without it (answered 401): %s", words.Count(len(refused), "request"), len(st.Requests), list(refused)),
			Evidence: refused}
	}
	return Outcome{Status: Pass, Expected: want, Actual: "all of them",
		Evidence: []string{fmt.Sprintf("%s in the run, none answered 401", words.Count(len(st.Requests), "request"))}}
}
