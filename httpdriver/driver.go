package httpdriver

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/diskcache"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/flight"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/ledger"
)

// Driver runs operations on one engine for a native host that serves many
// calls at once (the MCP server). Beyond [Run], it
//
//   - waits for admission: a call the engine refuses as busy
//     ([core.CodeBusy]: maxCalls or maxHeldMB reached) waits until an
//     operation in flight ends and starts again, for at most the call's
//     timeoutMs, and honours ctx while it waits;
//   - coalesces identical calls in flight: a call whose [core.WorkKey]
//     equals one already running waits for that one's answer instead of
//     sending its own request (one request, one bill). The shared request
//     runs until every caller waiting for it has gone: cancelling one
//     caller does not cancel the others' request;
//   - with Shared and Ledger set, asks the machine's shared cache before
//     a request, records each request and saved call, and holds the
//     daily budget.
//
// A Driver is safe for concurrent use. Engine and Client must be set.
type Driver struct {
	Engine *core.Engine
	Client *http.Client

	// Shared, when set, is the cache every process of the machine shares
	// (package diskcache): asked when the engine's own cache has no answer
	// and a request would be sent, and given every answer a request
	// earned.
	Shared *diskcache.Cache
	// Ledger, when set, records every request sent and every call
	// answered without one, and refuses a request past the daily budget
	// (package ledger).
	Ledger *ledger.Ledger

	// flights are the runs identical calls share. When every caller of
	// one has gone, it is cancelled and forgotten at once, so the next
	// identical call starts afresh.
	flights flight.Group[core.WorkKey, core.Step]
}

// Progress is told about each retry: the next request and how the last
// attempt ended.
type Progress func(next *core.Request, last core.Reply)

// Run drives op to its end. progress (may be nil) hears about the retries
// of the request this call runs itself, not those of a call it follows.
// A follower's answer is marked Cached and carries no Usage: it cost
// nothing beyond the first call's request.
func (d *Driver) Run(ctx context.Context, op core.Operation, progress Progress) core.Step {
	key, ok := d.Engine.WorkKey(op)
	if !ok {
		return d.run(ctx, op, nil, progress)
	}
	step, leader, err := d.flights.Do(ctx, key, func(fctx context.Context) core.Step {
		return d.run(fctx, op, &key, progress)
	})
	switch {
	case err != nil:
		return core.Cancelled(op)
	case leader:
		return step
	}
	if d.Ledger != nil && step.Result != nil {
		d.Ledger.Saved(ctx, op.Kind, ledger.Coalesced)
	}
	return followed(step)
}

// followed is a copy of the step a follower is answered with.
func followed(s core.Step) core.Step {
	s.Handle = 0
	if s.Result == nil {
		return s
	}
	r := *s.Result
	if r.Search != nil {
		cp := *r.Search
		cp.Hits = slices.Clone(cp.Hits)
		cp.Notes = slices.Clone(cp.Notes)
		cp.Cached, cp.Usage = true, nil
		r.Search = &cp
	}
	if r.Fetch != nil {
		cp := *r.Fetch
		cp.Cached = true
		r.Fetch = &cp
	}
	s.Result = &r
	return s
}

// run drives op on the engine, waiting for admission first. key is op's
// work key (nil when op fails before any request): with it, the shared
// cache is asked before the first request and keeps the answer.
func (d *Driver) run(ctx context.Context, op core.Operation, key *core.WorkKey, progress Progress) core.Step {
	step := d.start(ctx, op)
	if step.Done {
		if d.Ledger != nil && cached(step.Result) {
			d.Ledger.Saved(ctx, op.Kind, ledger.Cached)
		}
		return step
	}
	if key != nil && d.Shared != nil {
		if r, ok := d.Shared.Get(ctx, *key, op.APIKey, op.Kind); ok {
			d.Engine.Cancel(step.Handle)
			if d.Ledger != nil {
				d.Ledger.Saved(ctx, op.Kind, ledger.Cached)
			}
			return core.Step{Done: true, Result: r}
		}
	}
	for !step.Done {
		var ticket *ledger.Ticket
		if d.Ledger != nil {
			t, refused := d.Ledger.Reserve(ctx, op.Kind)
			if refused != nil {
				d.Engine.Cancel(step.Handle)
				return core.Step{Done: true, Err: refused}
			}
			ticket = t
		}
		reply := Perform(ctx, d.Client, step.Request)
		ticket.Done(reply)
		if reply.Kind == core.ReplyCancelled {
			return d.Engine.Cancel(step.Handle)
		}
		step = d.Engine.Resume(step.Handle, reply)
		if !step.Done && progress != nil {
			progress(step.Request, reply)
		}
	}
	if key != nil && d.Shared != nil && step.Result != nil {
		d.Shared.Put(ctx, *key, op.APIKey, op.Kind, step.Result)
	}
	return step
}

// cached reports whether r came from the engine's cache.
func cached(r *core.Result) bool {
	return r != nil && ((r.Search != nil && r.Search.Cached) || (r.Fetch != nil && r.Fetch.Cached))
}

// start starts op, waiting while the engine is busy: at most op's
// timeoutMs, and no longer than ctx.
func (d *Driver) start(ctx context.Context, op core.Operation) core.Step {
	timeoutMs := int64(core.DefaultTimeoutMs)
	if op.Config != nil {
		timeoutMs = int64(op.Config.TimeoutMs)
	}
	var timer *time.Timer
	for {
		released := d.Engine.Released()
		step := d.Engine.Start(op)
		if step.Err == nil || step.Err.Code != core.CodeBusy {
			return step
		}
		if timer == nil {
			timer = time.NewTimer(time.Duration(timeoutMs) * time.Millisecond)
			defer timer.Stop()
		}
		select {
		case <-released:
		case <-ctx.Done():
			return core.Cancelled(op)
		case <-timer.C:
			step.Err = core.WaitedTooLong(step.Err, timeoutMs)
			return step
		}
	}
}
