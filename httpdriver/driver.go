package httpdriver

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/flight"
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
//     caller does not cancel the others' request.
//
// A Driver is safe for concurrent use. Engine and Client must be set.
type Driver struct {
	Engine *core.Engine
	Client *http.Client

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
		return d.run(ctx, op, progress)
	}
	step, leader, err := d.flights.Do(ctx, key, func(fctx context.Context) core.Step {
		return d.run(fctx, op, progress)
	})
	switch {
	case err != nil:
		return core.Cancelled(op)
	case leader:
		return step
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

// run drives op on the engine, waiting for admission first.
func (d *Driver) run(ctx context.Context, op core.Operation, progress Progress) core.Step {
	step := d.start(ctx, op)
	for !step.Done {
		reply := Perform(ctx, d.Client, step.Request)
		if reply.Kind == core.ReplyCancelled {
			return d.Engine.Cancel(step.Handle)
		}
		step = d.Engine.Resume(step.Handle, reply)
		if !step.Done && progress != nil {
			progress(step.Request, reply)
		}
	}
	return step
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
