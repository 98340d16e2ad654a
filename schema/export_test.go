package schema

// LivePasses is the number of C passes not yet freed.
var LivePasses = livePasses
