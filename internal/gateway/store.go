package gateway

import (
	"bytes"
	"context"
	"math/rand/v2"
	"sort"
	"sync"
	"time"
)

// Store holds the state that gateway replicas share: cached answers,
// single-flight locks, quota counters, in-flight slots and rate windows.
// [MemStore] keeps it in process (one replica is the deployment);
// [RedisStore] keeps it in Redis or Valkey so any number of replicas agree;
// [FailoverStore] puts a MemStore behind a RedisStore for Redis outages.
//
// Keys are plain strings chosen by [Limiter] and [Cache]; they never hold
// an API key or a member token. Every method is safe for concurrent use.
type Store interface {
	// Get returns the value at key; ok is false when it is absent or
	// expired.
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)
	// Set stores value at key for ttl (> 0).
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// SetNX stores value at key for ttl only if key is absent, and
	// reports whether it did (a lock: SET NX PX).
	SetNX(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error)
	// DelIf deletes key if it holds value (releasing a lock one owns).
	DelIf(ctx context.Context, key string, value []byte) (bool, error)
	// ExpireIf sets key's time to live to ttl if it holds value
	// (extending a lock one owns).
	ExpireIf(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error)
	// IncrUpTo adds one to the counter at key if it is below limit,
	// creating it to expire at expireAt. It returns the count after the
	// call and whether it added one; a limit of 0 only reads the count.
	IncrUpTo(ctx context.Context, key string, limit int64, expireAt time.Time) (n int64, ok bool, err error)
	// AcquireSlot adds id to the set at key if the set has fewer than
	// limit live members; a member lives for ttl unless released. It
	// returns the number of live members after the call and whether id
	// was added.
	AcquireSlot(ctx context.Context, key, id string, limit int, ttl time.Duration) (n int, ok bool, err error)
	// ReleaseSlot removes id from the set at key; removing an absent id
	// is not an error.
	ReleaseSlot(ctx context.Context, key, id string) error
	// TakeRate records one event in the sliding window of length window
	// at key if fewer than limit events happened in it. When it does
	// not, retryIn is how long until the oldest event leaves the window.
	TakeRate(ctx context.Context, key string, limit int, window time.Duration) (ok bool, retryIn time.Duration, err error)
}

// MemStore is the in-process [Store]. Its zero value is not usable; call
// [NewMemStore].
type MemStore struct {
	now func() time.Time

	mu       sync.Mutex
	values   map[string]memValue
	counters map[string]memCounter
	slots    map[string]map[string]time.Time // key → id → expiry
	windows  map[string][]time.Time          // key → event times, oldest first
	bytes    int64
	maxBytes int64
	lastGC   time.Time
}

type memValue struct {
	v       []byte
	expires time.Time
	added   uint64
}

type memCounter struct {
	n       int64
	expires time.Time
}

// MemStoreOptions configures a [MemStore]. The zero value is ready to use.
type MemStoreOptions struct {
	// MaxBytes bounds the bytes of values (cached answers and locks) held;
	// when a Set passes it, the values closest to expiry go first until
	// 7/8 of it is used. Zero means 256 MiB.
	MaxBytes int64
	// Now is the clock; nil means time.Now. Tests set it.
	Now func() time.Time
}

// NewMemStore returns an empty in-process store.
func NewMemStore(opts MemStoreOptions) *MemStore {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 256 << 20
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &MemStore{
		now:      opts.Now,
		values:   map[string]memValue{},
		counters: map[string]memCounter{},
		slots:    map[string]map[string]time.Time{},
		windows:  map[string][]time.Time{},
		maxBytes: opts.MaxBytes,
	}
}

// gc drops expired entries at most once a second; the caller holds mu.
func (m *MemStore) gc(now time.Time) {
	if now.Sub(m.lastGC) < time.Second {
		return
	}
	m.lastGC = now
	for k, v := range m.values {
		if !now.Before(v.expires) {
			m.bytes -= int64(len(k) + len(v.v))
			delete(m.values, k)
		}
	}
	for k, c := range m.counters {
		if !now.Before(c.expires) {
			delete(m.counters, k)
		}
	}
	for k, set := range m.slots {
		for id, exp := range set {
			if !now.Before(exp) {
				delete(set, id)
			}
		}
		if len(set) == 0 {
			delete(m.slots, k)
		}
	}
	for k, w := range m.windows {
		if len(w) == 0 || now.Sub(w[len(w)-1]) > time.Minute {
			delete(m.windows, k)
		}
	}
}

// value returns the live value at key; the caller holds mu.
func (m *MemStore) value(key string, now time.Time) (memValue, bool) {
	v, ok := m.values[key]
	if !ok || !now.Before(v.expires) {
		return memValue{}, false
	}
	return v, true
}

// put stores a value and evicts to stay under maxBytes; the caller holds mu.
func (m *MemStore) put(key string, value []byte, expires time.Time) {
	if old, ok := m.values[key]; ok {
		m.bytes -= int64(len(key) + len(old.v))
	}
	m.values[key] = memValue{v: bytes.Clone(value), expires: expires}
	m.bytes += int64(len(key) + len(value))
	if m.bytes <= m.maxBytes {
		return
	}
	type entry struct {
		k   string
		exp time.Time
	}
	all := make([]entry, 0, len(m.values))
	for k, v := range m.values {
		if k != key {
			all = append(all, entry{k, v.expires})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].exp.Before(all[j].exp) })
	// Evict down to 7/8 of the budget, so the sort is paid once per
	// eighth of the budget written, not on every Set past it.
	for _, e := range all {
		if m.bytes <= m.maxBytes-m.maxBytes/8 {
			break
		}
		m.bytes -= int64(len(e.k) + len(m.values[e.k].v))
		delete(m.values, e.k)
	}
}

// Get implements [Store].
func (m *MemStore) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.value(key, m.now())
	if !ok {
		return nil, false, nil
	}
	return bytes.Clone(v.v), true, nil
}

// Set implements [Store].
func (m *MemStore) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.gc(now)
	m.put(key, value, now.Add(ttl))
	return nil
}

// SetNX implements [Store].
func (m *MemStore) SetNX(_ context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.gc(now)
	if _, ok := m.value(key, now); ok {
		return false, nil
	}
	m.put(key, value, now.Add(ttl))
	return true, nil
}

// DelIf implements [Store].
func (m *MemStore) DelIf(_ context.Context, key string, value []byte) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.value(key, m.now())
	if !ok || !bytes.Equal(v.v, value) {
		return false, nil
	}
	m.bytes -= int64(len(key) + len(v.v))
	delete(m.values, key)
	return true, nil
}

// ExpireIf implements [Store].
func (m *MemStore) ExpireIf(_ context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	v, ok := m.value(key, now)
	if !ok || !bytes.Equal(v.v, value) {
		return false, nil
	}
	v.expires = now.Add(ttl)
	m.values[key] = v
	return true, nil
}

// IncrUpTo implements [Store].
func (m *MemStore) IncrUpTo(_ context.Context, key string, limit int64, expireAt time.Time) (int64, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.gc(now)
	c, ok := m.counters[key]
	if !ok || !now.Before(c.expires) {
		c = memCounter{expires: expireAt}
	}
	if c.n >= limit {
		return c.n, false, nil
	}
	c.n++
	m.counters[key] = c
	return c.n, true, nil
}

// AcquireSlot implements [Store].
func (m *MemStore) AcquireSlot(_ context.Context, key, id string, limit int, ttl time.Duration) (int, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.gc(now)
	set := m.slots[key]
	if set == nil {
		set = map[string]time.Time{}
		m.slots[key] = set
	}
	for k, exp := range set {
		if !now.Before(exp) {
			delete(set, k)
		}
	}
	if len(set) >= limit {
		return len(set), false, nil
	}
	set[id] = now.Add(ttl)
	return len(set), true, nil
}

// ReleaseSlot implements [Store].
func (m *MemStore) ReleaseSlot(_ context.Context, key, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.slots[key], id)
	return nil
}

// TakeRate implements [Store].
func (m *MemStore) TakeRate(_ context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.gc(now)
	w := m.windows[key]
	i := 0
	for i < len(w) && !w[i].After(now.Add(-window)) {
		i++
	}
	w = w[i:]
	if len(w) >= limit {
		m.windows[key] = w
		if len(w) == 0 {
			return false, window, nil
		}
		return false, w[0].Add(window).Sub(now), nil
	}
	m.windows[key] = append(w, now)
	return true, 0, nil
}

// randUint64 makes ids that must be unique, not secret (slot and rate
// event members).
func randUint64() uint64 { return rand.Uint64() }
