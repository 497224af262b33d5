package gateway

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/flight"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/mcp"
)

// Cache is the answer cache and the coalescing of identical calls, over a
// [Store]: with a [RedisStore] every replica shares both.
//
// # Identity
//
// Callers name an answer by its identity: opaque bytes that must cover
// every input that changes the answer (the tool, the normalised query or
// URL, every option that changes the result, the result format's version)
// and must hold nothing secret (no API key, no member token). The store
// sees only "c:" + hex(SHA-256(identity)), so keys are fixed-length and
// reveal nothing of the query either.
//
// # Entries
//
// An answer is stored with its expiry and an HMAC-SHA256 over it, its key
// and the expiry, under a key derived from CacheOptions.Secret. An entry
// that fails the check (written by someone who can write to the store but
// holds no secret, moved from another key, put back after it expired,
// larger than any answer the cache keeps) is a miss: it is logged (at most
// a line a minute) and the answer computed again replaces it. It is never
// an answer.
type Cache struct {
	store  Store
	opts   CacheOptions
	macKey []byte
	bad    *rareLog

	// flights are this replica's runs of work, by store key.
	flights flight.Group[string, answer]
}

// CacheOptions configures [NewCache]. The zero value is ready to use.
type CacheOptions struct {
	// LockTTL is how long a replica's claim to compute an answer lasts
	// unless renewed; the owner renews it every LockTTL/3 while it
	// works, so a replica that dies frees it within LockTTL. Zero means
	// 10 s.
	LockTTL time.Duration
	// WaitTimeout bounds how long a call waits for another replica's
	// answer before computing it itself. Zero means 60 s.
	WaitTimeout time.Duration
	// Poll is the first interval between checks for another replica's
	// answer; it grows by half each time up to 8×Poll. Zero means 10 ms.
	Poll time.Duration
	// Logf reports store errors and refused entries; nil means
	// log.Printf.
	Logf func(format string, args ...any)
	// Secret authenticates the entries: replicas sharing a store must
	// have the same one, and whoever may write to the store must not
	// (the gateway uses its DeepSeek API key). Only a key derived from it
	// is kept, and neither reaches the store. Nil means a random secret
	// of this process: only the Caches of this process share answers.
	Secret []byte
}

// Source says where [Cache.Do] got an answer.
type Source int

// The sources of an answer.
const (
	// Computed: this call ran the work (a DeepSeek request).
	Computed Source = iota
	// CacheHit: the answer was in the cache.
	CacheHit
	// Coalesced: an identical call in flight, on this replica or another,
	// computed it and this call shared the answer.
	Coalesced
)

func (s Source) String() string {
	switch s {
	case CacheHit:
		return "hit"
	case Coalesced:
		return "coalesced"
	}
	return "computed"
}

// NewCache returns a Cache over store.
func NewCache(store Store, opts CacheOptions) *Cache {
	if opts.LockTTL <= 0 {
		opts.LockTTL = 10 * time.Second
	}
	if opts.WaitTimeout <= 0 {
		opts.WaitTimeout = 60 * time.Second
	}
	if opts.Poll <= 0 {
		opts.Poll = 10 * time.Millisecond
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	secret := opts.Secret
	if secret == nil {
		secret = processSecret()
	}
	opts.Secret = nil
	return &Cache{store: store, opts: opts, macKey: macKeyOf(secret), bad: newRareLog(opts.Logf, time.Minute)}
}

// cacheSecret is the secret a gateway's replicas share for its Cache: the
// DeepSeek API key as o reads it, which every replica holds and neither a
// member nor whoever can write to Redis does. Nil (a secret of this
// process) when no key is set at start.
func cacheSecret(o mcp.Options) []byte {
	if key := o.APIKey(); key != "" {
		return []byte(key)
	}
	return nil
}

// storeKey returns the store key of an identity: "c:" and the hex SHA-256.
func storeKey(identity []byte) string {
	sum := sha256.Sum256(identity)
	return "c:" + hex.EncodeToString(sum[:])
}

// get reads and checks the entry at key.
func (c *Cache) get(ctx context.Context, key string) ([]byte, bool) {
	e, ok, err := c.store.Get(ctx, key)
	if err != nil {
		c.opts.Logf("gateway: cache read failed, treated as a miss: %v", err)
		return nil, false
	}
	if !ok {
		return nil, false
	}
	v, err := openEntry(c.macKey, key, e, time.Now())
	if err != nil {
		kind := "entry"
		if ee, ok := err.(*entryError); ok {
			kind = ee.kind
		}
		c.bad.printf(kind, "gateway: cache entry %s %v; treated as a miss", shortKey(key), err)
		return nil, false
	}
	return v, true
}

// put stores answer at key for ttl (at least minTTL) as an entry. An
// answer over maxAnswerBytes is not cached.
func (c *Cache) put(ctx context.Context, key string, answer []byte, ttl time.Duration) {
	if ttl < minTTL {
		ttl = minTTL
	}
	if len(answer) > maxAnswerBytes {
		c.bad.printf("large", "gateway: an answer of %d bytes not cached: over the %d bytes an entry may hold", len(answer), maxAnswerBytes)
		return
	}
	e := sealEntry(c.macKey, key, answer, time.Now().Add(ttl))
	if err := c.store.Set(ctx, key, e, ttl); err != nil {
		c.opts.Logf("gateway: cache write failed, answer not cached: %v", err)
	}
}

// minTTL is the least time an answer is kept: long enough for the calls
// waiting on it to read it.
const minTTL = time.Second

// answer is what a run of [Cache.Do]'s work gives the calls sharing it.
type answer struct {
	val []byte
	src Source
	err error
}

// Do returns the answer for identity: from the cache, from an identical
// call in flight (on this replica or, through the store, on another), or
// by running work and caching a successful result for ttl (at least
// 1 s, so calls waiting on it can read it). Identical
// calls on one replica share one run of work; across replicas, one
// replica holds a lock (SET NX PX) while it works and the others poll
// for the answer, until the lock is gone (the owner failed or died: one
// of them takes over) or WaitTimeout passes (they run work themselves).
//
// work runs in a context that ends when every caller waiting for it has
// gone; a caller whose ctx ends gets ctx's error. Errors are not cached:
// callers sharing a run on this replica get its error, replicas waiting
// on the lock take over the work.
func (c *Cache) Do(ctx context.Context, identity []byte, ttl time.Duration, work func(context.Context) ([]byte, error)) ([]byte, Source, error) {
	if ttl < minTTL {
		ttl = minTTL
	}
	key := storeKey(identity)
	if v, ok := c.get(ctx, storeKey(identity)); ok {
		return v, CacheHit, nil
	}
	a, started, err := c.flights.Do(ctx, key, func(fctx context.Context) answer {
		v, src, err := c.run(fctx, key, ttl, work)
		return answer{v, src, err}
	})
	if err != nil {
		return nil, Computed, err
	}
	if !started {
		a.src = Coalesced
	}
	return a.val, a.src, a.err
}

// run computes key once across replicas; see [Cache.Do].
func (c *Cache) run(ctx context.Context, key string, ttl time.Duration, work func(context.Context) ([]byte, error)) ([]byte, Source, error) {
	lockKey := "l:" + key[len("c:"):]
	var owner [16]byte
	_, _ = rand.Read(owner[:])
	deadline := time.Now().Add(c.opts.WaitTimeout)
	poll := c.opts.Poll
	for {
		won, err := c.store.SetNX(ctx, lockKey, owner[:], c.opts.LockTTL)
		if err != nil {
			if ctx.Err() != nil {
				return nil, Computed, ctx.Err()
			}
			c.opts.Logf("gateway: coalescing lock failed, computing alone: %v", err)
			return c.compute(ctx, key, ttl, work)
		}
		if won {
			defer c.store.DelIf(context.WithoutCancel(ctx), lockKey, owner[:])
			// The owner before us may have stored the answer and let go
			// between our miss and our lock.
			if v, ok := c.get(ctx, key); ok {
				return v, Coalesced, nil
			}
			stop := c.renew(ctx, lockKey, owner[:])
			defer stop()
			return c.compute(ctx, key, ttl, work)
		}
		if !time.Now().Before(deadline) {
			return c.compute(ctx, key, ttl, work)
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, Computed, ctx.Err()
		case <-t.C:
		}
		if poll < 8*c.opts.Poll {
			poll += poll / 2
		}
		if v, ok := c.get(ctx, key); ok {
			return v, Coalesced, nil
		}
	}
}

// ErrWorkPanicked wraps a panic in the work of [Cache.Do]: it runs in a
// goroutine of its own, where a panic would end the process.
var ErrWorkPanicked = errors.New("cache: work panicked")

func (c *Cache) compute(ctx context.Context, key string, ttl time.Duration, work func(context.Context) ([]byte, error)) ([]byte, Source, error) {
	v, err := func() (v []byte, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("%w: %v", ErrWorkPanicked, p)
			}
		}()
		return work(ctx)
	}()
	if err != nil {
		return nil, Computed, err
	}
	c.put(context.WithoutCancel(ctx), key, v, ttl)
	return v, Computed, nil
}

// renew extends the lock every LockTTL/3 until stop is called.
func (c *Cache) renew(ctx context.Context, lockKey string, owner []byte) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(c.opts.LockTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := c.store.ExpireIf(ctx, lockKey, owner, c.opts.LockTTL); err != nil {
					c.opts.Logf("gateway: coalescing lock not renewed: %v", err)
				}
			}
		}
	}()
	return func() { close(done) }
}
