package gateway

import (
	"context"
	"errors"
	"log"
	"sync"
	"time"
)

// FailoverStore is a [Store] that uses a primary store (a [RedisStore]) and,
// while the primary fails, a local [MemStore] instead: a Redis outage
// degrades to in-process behaviour, never to a failed call. It writes one
// log line when the primary starts failing and one when it answers again,
// and counts every operation the local store served
// (dwr_redis_fallbacks_total). After a failure the primary is left alone
// for RetryAfter, so calls during an outage do not each wait for a dial
// timeout.
//
// During an outage each replica counts alone: quotas, calls in flight and
// the team rate hold per replica, and answers are cached per replica,
// until Redis answers again (its counters then resume where Redis left
// them).
//
// Errors the caller caused (its context cancelled or past its deadline)
// are returned, not hidden behind the local store.
type FailoverStore struct {
	primary, local Store
	opts           FailoverOptions

	mu        sync.Mutex
	down      bool
	downUntil time.Time
}

// FailoverOptions configures [NewFailoverStore]. The zero value is ready to use.
type FailoverOptions struct {
	// RetryAfter is how long to serve from the local store after the
	// primary failed before trying it again. Zero means 1 s.
	RetryAfter time.Duration
	// Logf writes the outage and recovery lines; nil means log.Printf.
	// The lines hold Redis's error text, never a URL or a password.
	Logf func(format string, args ...any)
	// Metrics counts fallbacks; nil counts nothing.
	Metrics *Metrics
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// NewFailoverStore returns a FailoverStore over primary with local as the stand-in.
func NewFailoverStore(primary, local Store, opts FailoverOptions) *FailoverStore {
	if opts.RetryAfter <= 0 {
		opts.RetryAfter = time.Second
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &FailoverStore{primary: primary, local: local, opts: opts}
}

// Degraded reports whether the local store is standing in for the
// primary right now.
func (f *FailoverStore) Degraded() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.down
}

// usePrimary reports whether to try the primary now.
func (f *FailoverStore) usePrimary() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.down || !f.opts.Now().Before(f.downUntil)
}

// result records how the primary answered and reports whether its answer
// stands; when it does not, the caller uses the local store.
func (f *FailoverStore) result(ctx context.Context, err error) bool {
	if err == nil {
		f.mu.Lock()
		wasDown := f.down
		f.down = false
		f.mu.Unlock()
		if wasDown {
			f.opts.Logf("gateway: redis answers again; shared state is back in use")
		}
		return true
	}
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return true // the caller gave up; not an outage
	}
	f.mu.Lock()
	wasDown := f.down
	f.down = true
	f.downUntil = f.opts.Now().Add(f.opts.RetryAfter)
	f.mu.Unlock()
	if !wasDown {
		f.opts.Logf("gateway: redis failed (%v); using in-process state until it answers again", err)
	}
	return false
}

func (f *FailoverStore) fellBack() {
	if f.opts.Metrics != nil {
		f.opts.Metrics.RedisFallbacks.Inc()
	}
}

// do runs op on the primary, or on the local store when the primary is
// down or fails.
func fallbackDo[T any](f *FailoverStore, ctx context.Context, op func(Store) (T, error)) (T, error) {
	if f.usePrimary() {
		v, err := op(f.primary)
		if f.result(ctx, err) {
			return v, err
		}
	}
	f.fellBack()
	return op(f.local)
}

type pair[A, B any] struct {
	a A
	b B
}

// Get implements [Store].
func (f *FailoverStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	p, err := fallbackDo(f, ctx, func(s Store) (pair[[]byte, bool], error) {
		v, ok, err := s.Get(ctx, key)
		return pair[[]byte, bool]{v, ok}, err
	})
	return p.a, p.b, err
}

// Set implements [Store].
func (f *FailoverStore) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	_, err := fallbackDo(f, ctx, func(s Store) (struct{}, error) {
		return struct{}{}, s.Set(ctx, key, value, ttl)
	})
	return err
}

// SetNX implements [Store].
func (f *FailoverStore) SetNX(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	return fallbackDo(f, ctx, func(s Store) (bool, error) { return s.SetNX(ctx, key, value, ttl) })
}

// DelIf implements [Store]. It tries both stores: a lock taken on one
// store before an outage began or ended is released wherever it is.
func (f *FailoverStore) DelIf(ctx context.Context, key string, value []byte) (bool, error) {
	ok, err := fallbackDo(f, ctx, func(s Store) (bool, error) { return s.DelIf(ctx, key, value) })
	if s, _ := f.local.DelIf(ctx, key, value); s {
		ok = true
	}
	return ok, err
}

// ExpireIf implements [Store].
func (f *FailoverStore) ExpireIf(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	return fallbackDo(f, ctx, func(s Store) (bool, error) { return s.ExpireIf(ctx, key, value, ttl) })
}

// IncrUpTo implements [Store].
func (f *FailoverStore) IncrUpTo(ctx context.Context, key string, limit int64, expireAt time.Time) (int64, bool, error) {
	p, err := fallbackDo(f, ctx, func(s Store) (pair[int64, bool], error) {
		n, ok, err := s.IncrUpTo(ctx, key, limit, expireAt)
		return pair[int64, bool]{n, ok}, err
	})
	return p.a, p.b, err
}

// AcquireSlot implements [Store].
func (f *FailoverStore) AcquireSlot(ctx context.Context, key, id string, limit int, ttl time.Duration) (int, bool, error) {
	p, err := fallbackDo(f, ctx, func(s Store) (pair[int, bool], error) {
		n, ok, err := s.AcquireSlot(ctx, key, id, limit, ttl)
		return pair[int, bool]{n, ok}, err
	})
	return p.a, p.b, err
}

// ReleaseSlot implements [Store]. It releases id in both stores, since the
// slot may have been taken on either; a slot that cannot be released in
// Redis expires with its lease.
func (f *FailoverStore) ReleaseSlot(ctx context.Context, key, id string) error {
	_, err := fallbackDo(f, ctx, func(s Store) (struct{}, error) {
		return struct{}{}, s.ReleaseSlot(ctx, key, id)
	})
	if lerr := f.local.ReleaseSlot(ctx, key, id); err == nil {
		err = lerr
	}
	return err
}

// TakeRate implements [Store].
func (f *FailoverStore) TakeRate(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error) {
	p, err := fallbackDo(f, ctx, func(s Store) (pair[bool, time.Duration], error) {
		ok, d, err := s.TakeRate(ctx, key, limit, window)
		return pair[bool, time.Duration]{ok, d}, err
	})
	return p.a, p.b, err
}
