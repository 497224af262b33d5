// Package flight shares one run of work among the identical calls that
// want it at the same time, counting the callers who still wait for it.
//
// A run outlives the caller that started it: it ends when its work returns
// or when the last caller waiting for it leaves. In that second case the
// run is cancelled and forgotten in one step, under the group's lock, so a
// caller that arrives while the cancelled work unwinds (releasing a lock,
// say) starts a run of its own instead of joining one that can only end
// in "context canceled".
package flight

import (
	"context"
	"sync"
)

// Group runs work by key. The zero Group is ready to use; a Group must not
// be copied after first use. It is safe for concurrent use.
type Group[K comparable, V any] struct {
	mu   sync.Mutex
	runs map[K]*run[V]
}

// run is one run of work and the callers still waiting for it.
type run[V any] struct {
	done    chan struct{} // closed once val is set
	val     V
	waiting int // callers still waiting (Group.mu)
	cancel  context.CancelFunc
}

// Do returns the result of work for key: from the run already in flight
// for key if there is one, else from a new run of work in a goroutine of
// its own. started reports whether this call started the run.
//
// work gets a context that keeps ctx's values but not its cancellation:
// it ends when every caller waiting for the run has left (the run is then
// cancelled and forgotten at once) or when work returns. A caller whose
// ctx ends before the result leaves with ctx's error and the zero V; the
// others keep waiting. A ctx that has already ended starts nothing.
//
// work must not panic: it runs in a goroutine of its own, where a panic
// ends the process.
func (g *Group[K, V]) Do(ctx context.Context, key K, work func(context.Context) V) (v V, started bool, err error) {
	if err := ctx.Err(); err != nil {
		return v, false, err
	}
	g.mu.Lock()
	r, joined := g.runs[key]
	if !joined {
		wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		r = &run[V]{done: make(chan struct{}), cancel: cancel}
		if g.runs == nil {
			g.runs = map[K]*run[V]{}
		}
		g.runs[key] = r
		go g.start(wctx, key, r, work)
	}
	r.waiting++
	g.mu.Unlock()

	select {
	case <-r.done:
		return r.val, !joined, nil
	case <-ctx.Done():
		g.leave(key, r)
		return v, !joined, ctx.Err()
	}
}

// start runs work for r, forgets r (unless the last caller already did)
// and hands the result to the callers waiting.
func (g *Group[K, V]) start(ctx context.Context, key K, r *run[V], work func(context.Context) V) {
	defer r.cancel()
	val := work(ctx)
	g.mu.Lock()
	if g.runs[key] == r {
		delete(g.runs, key)
	}
	g.mu.Unlock()
	r.val = val
	close(r.done)
}

// leave is a caller giving up on r. The last one cancels r and forgets it
// in the same step: a caller arriving after this starts a new run.
func (g *Group[K, V]) leave(key K, r *run[V]) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r.waiting--
	if r.waiting > 0 {
		return
	}
	r.cancel()
	if g.runs[key] == r {
		delete(g.runs, key)
	}
}
