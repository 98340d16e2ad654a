// Package sourcehttp is the one HTTP client rsconform uses to talk to a
// ResourceSync Source: 'validate URL', 'crawl', 'sync' and the suites all
// fetch through it, so they agree on what a Source is asked and how its
// answers are read.
//
// It owns the politeness and the safety of every request: the User-Agent,
// a rate per host (golang.org/x/time/rate), the requests in flight, a
// time-out per attempt (body included), retries with exponential back-off
// and Retry-After (one parser, capped), redirects under an origin policy
// (scheme, host and port: see Origins), a byte budget, gzip, conditional
// GET, the user's extra headers (--header, sent to the Source's origins
// only and never printed), and the Link header (RFC 8288).
//
// The clock is injectable (Config.Clock) so tests never wait on real time.
// The package prints nothing.
package sourcehttp
