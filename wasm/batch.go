//go:build wasip1

package main

import (
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/abi"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/tool"
)

// A tool call of several queries or pages ("queries", "urls") runs as a
// batch: one engine operation per part, each admitted, cached and retried
// as a call of its own, driven by the host at once under the part's
// handle. The batch's "batch" step lists the parts that could start; the
// rest (the engine refused them as busy) start as running parts end. The
// part that ends last returns the batch's "done" step: the parts joined by
// tool.Join. The MCP server does the same with goroutines (mcp.runBatch).

// batch is one such call in flight.
type batch struct {
	handle uint32
	ops    []core.Operation
	// steps holds each part's done step, by index (a queued part's is the
	// engine's busy refusal until it starts).
	steps []core.Step
	// running maps the handles of the parts in flight to their index.
	running map[core.Handle]int
	// queued are the parts waiting for admission.
	queued []int
}

// batchBit marks a batch's handle, which the engine never hands out (its
// handles count up from 1).
const batchBit = 1 << 31

var (
	// partOf finds the batch of a part in flight.
	partOf    = map[core.Handle]*batch{}
	lastBatch uint32
)

// startBatch starts a call's parts. When none can start for the engine's
// limits, the call is refused as busy as a whole, so the host waits for
// another call to end and asks again, as it does for one operation.
func startBatch(ops []core.Operation) abi.Step {
	lastBatch++
	b := &batch{handle: batchBit | lastBatch&^batchBit, ops: ops, steps: make([]core.Step, len(ops)), running: map[core.Handle]int{}}
	var parts []abi.Step
	for i := range ops {
		parts = b.start(i, parts)
	}
	if len(b.running) == 0 && len(b.queued) > 0 {
		return render(abi.KindTool, b.steps[b.queued[0]])
	}
	return b.after(parts)
}

// start starts part i, appending its first step to parts when it asks for
// a request.
func (b *batch) start(i int, parts []abi.Step) []abi.Step {
	s := engine.Start(b.ops[i])
	b.steps[i] = s
	switch {
	case !s.Done:
		b.running[s.Handle] = i
		partOf[s.Handle] = b
		r := &abi.Request{}
		r.Set(s.Request)
		parts = append(parts, abi.Step{V: abi.Version, Handle: uint32(s.Handle), Step: abi.StepHTTP, Request: r})
	case s.Err != nil && s.Err.Code == core.CodeBusy:
		b.queued = append(b.queued, i)
	}
	return parts
}

// next is the reply to resuming or cancelling part h, whose engine step is
// s: the part's next request, or, when it ended, what the batch does next.
func (b *batch) next(h core.Handle, s core.Step) abi.Step {
	if !s.Done {
		return render("", s)
	}
	i := b.running[h]
	delete(b.running, h)
	delete(partOf, h)
	b.steps[i] = s
	queued := b.queued
	b.queued = nil
	var parts []abi.Step
	for _, q := range queued {
		if s.Err != nil && s.Err.Code == core.CodeCancelled {
			b.steps[q] = s // the call was cancelled: what waited is too
			continue
		}
		parts = b.start(q, parts)
	}
	return b.after(parts)
}

// after is the batch's step once parts have started: "batch" with them,
// "pending" while other parts run, or "done" when none runs. A part still
// queued then (other calls hold every place) ends with its busy refusal.
func (b *batch) after(parts []abi.Step) abi.Step {
	switch {
	case len(parts) > 0:
		return abi.Step{V: abi.Version, Handle: b.handle, Step: abi.StepBatch, Steps: parts}
	case len(b.running) > 0:
		return abi.Step{V: abi.Version, Handle: b.handle, Step: abi.StepPending}
	}
	out, err := tool.Join(b.ops, b.steps)
	if err != nil {
		return done(b.handle, nil, &abi.Error{Code: string(err.Code), Message: err.Message, Status: err.Status})
	}
	res := out.AppendJSON(reuse(scratch))
	if cap(res) <= reuseMax {
		scratch = res
	}
	return done(b.handle, res, nil)
}
