package gateway

// CallOutcome is how a call ended, or why a request was refused before
// any call: the audit line's "outcome", the dwr_calls_total label and
// what usage per member counts.
type CallOutcome string

// The outcomes of a tool call.
const (
	OutcomeOK        CallOutcome = "ok"
	OutcomeError     CallOutcome = "error"     // DeepSeek or the engine failed
	OutcomeQuota     CallOutcome = "quota"     // the member's day is spent
	OutcomeBusy      CallOutcome = "busy"      // the member's or the team's limits
	OutcomeCancelled CallOutcome = "cancelled" // the member went away
	OutcomeInvalid   CallOutcome = "invalid"   // arguments refused before any request
)

// The outcomes of a request refused before it reached a tool (their
// dwr_calls_total samples have an empty tool).
const (
	OutcomeUnauthorized  CallOutcome = "unauthorized"   // no valid token
	OutcomeForbidden     CallOutcome = "forbidden"      // an Origin not allowed
	OutcomeForbiddenHost CallOutcome = "forbidden_host" // a Host not served (DNS rebinding)
)

// Refused reports an outcome of the limits: the call never ran.
func (o CallOutcome) Refused() bool { return o == OutcomeQuota || o == OutcomeBusy }
