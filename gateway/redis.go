package gateway

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// RedisStore is the [Store] that replicas share, kept in Redis or Valkey.
// Counters, slots and rate windows change in Lua scripts, so each change is
// atomic across replicas; slots and rate windows read the server's clock
// (TIME), so replicas with skewed clocks still agree. Values are plain
// strings with a PX expiry; locks are SET NX PX.
//
// A RedisStore returns Redis's errors as they are; put it behind a
// [Fallback] so an outage degrades to in-process state.
type RedisStore struct {
	c      *redis.Client
	prefix string
}

// RedisOptions configures [OpenRedis]. The zero value is ready to use.
type RedisOptions struct {
	// Prefix starts every key, so several gateways can share one Redis.
	// Empty means "dwr:".
	Prefix string
	// Timeout bounds dialling and each command's read and write, so a
	// Redis that stops answering costs a call at most this long before
	// [Fallback] takes over. Zero means 250 ms.
	Timeout time.Duration
}

// ErrRedisURL reports a --redis URL that cannot be used. Its message never
// repeats the URL, which may carry a password.
var ErrRedisURL = errors.New("redis URL: want redis://[user:password@]host[:port][/db] or rediss://… (TLS) or unix:///path")

var quietRedis sync.Once

// OpenRedis returns a RedisStore for rawURL (redis://, rediss:// or
// unix://). It does not connect: the first command does, and [RedisStore.Ping]
// checks the server at start. It silences go-redis's own process-wide
// logger, whose lines (one per failed dial) would flood the log during an
// outage that [Fallback] reports once.
func OpenRedis(rawURL string, opts RedisOptions) (*RedisStore, error) {
	o, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, ErrRedisURL
	}
	if opts.Prefix == "" {
		opts.Prefix = "dwr:"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 250 * time.Millisecond
	}
	o.DialTimeout = opts.Timeout
	// A failed dial is retried once, 10 ms later: a Redis that is down
	// costs a call about one dial, not go-redis's five 100 ms retries.
	o.DialerRetries = 1
	o.DialerRetryTimeout = 10 * time.Millisecond
	o.ReadTimeout = opts.Timeout
	o.WriteTimeout = opts.Timeout
	o.PoolTimeout = opts.Timeout
	o.ContextTimeoutEnabled = true
	// One retry heals a pooled connection that a Redis restart closed;
	// more would only delay the fallback.
	o.MaxRetries = 1
	o.DisableIdentity = true
	o.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	// go-redis logs every failed dial through a process-wide logger;
	// [Fallback] reports an outage once instead.
	quietRedis.Do(func() { redis.SetLogger(&logging.VoidLogger{}) })
	return &RedisStore{c: redis.NewClient(o), prefix: opts.Prefix}, nil
}

// Ping checks that the server answers.
func (r *RedisStore) Ping(ctx context.Context) error {
	if err := r.c.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("redis ping: %w", err)
	}
	return nil
}

// Close closes the connections.
func (r *RedisStore) Close() error { return r.c.Close() }

func (r *RedisStore) k(key string) string { return r.prefix + key }

// Get implements [Store].
func (r *RedisStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := r.c.Get(ctx, r.k(key)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("redis get: %w", err)
	}
	return v, true, nil
}

// Set implements [Store].
func (r *RedisStore) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := r.c.Set(ctx, r.k(key), value, ttl).Err(); err != nil {
		return fmt.Errorf("redis set: %w", err)
	}
	return nil
}

// SetNX implements [Store].
func (r *RedisStore) SetNX(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	ok, err := r.c.SetNX(ctx, r.k(key), value, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("redis set nx: %w", err)
	}
	return ok, nil
}

var delIfScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`)

// DelIf implements [Store].
func (r *RedisStore) DelIf(ctx context.Context, key string, value []byte) (bool, error) {
	n, err := delIfScript.Run(ctx, r.c, []string{r.k(key)}, value).Int()
	if err != nil {
		return false, fmt.Errorf("redis del if: %w", err)
	}
	return n == 1, nil
}

var expireIfScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`)

// ExpireIf implements [Store].
func (r *RedisStore) ExpireIf(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	n, err := expireIfScript.Run(ctx, r.c, []string{r.k(key)}, value, ttl.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("redis expire if: %w", err)
	}
	return n == 1, nil
}

var incrUpToScript = redis.NewScript(`
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n >= tonumber(ARGV[1]) then
  return {n, 0}
end
n = redis.call('INCR', KEYS[1])
if n == 1 then
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
end
return {n, 1}`)

// IncrUpTo implements [Store].
func (r *RedisStore) IncrUpTo(ctx context.Context, key string, limit int64, expireAt time.Time) (int64, bool, error) {
	res, err := incrUpToScript.Run(ctx, r.c, []string{r.k(key)}, limit, expireAt.UnixMilli()).Int64Slice()
	if err != nil {
		return 0, false, fmt.Errorf("redis incr up to: %w", err)
	}
	return res[0], res[1] == 1, nil
}

// Slot members score their expiry in server milliseconds.
var acquireSlotScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[2]) then
  return {n, 0}
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {n + 1, 1}`)

// AcquireSlot implements [Store].
func (r *RedisStore) AcquireSlot(ctx context.Context, key, id string, limit int, ttl time.Duration) (int, bool, error) {
	res, err := acquireSlotScript.Run(ctx, r.c, []string{r.k(key)}, id, limit, ttl.Milliseconds()).Int64Slice()
	if err != nil {
		return 0, false, fmt.Errorf("redis acquire slot: %w", err)
	}
	return int(res[0]), res[1] == 1, nil
}

// ReleaseSlot implements [Store].
func (r *RedisStore) ReleaseSlot(ctx context.Context, key, id string) error {
	if err := r.c.ZRem(ctx, r.k(key), id).Err(); err != nil {
		return fmt.Errorf("redis release slot: %w", err)
	}
	return nil
}

// Rate events score their time in server microseconds; ARGV[3] is a
// unique member for this event.
var takeRateScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if oldest[2] == nil then
    return {0, window}
  end
  return {0, tonumber(oldest[2]) + window - now}
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000) + 1000)
return {1, 0}`)

// TakeRate implements [Store].
func (r *RedisStore) TakeRate(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error) {
	id := strconv.FormatUint(randUint64(), 36)
	res, err := takeRateScript.Run(ctx, r.c, []string{r.k(key)}, limit, window.Microseconds(), id).Int64Slice()
	if err != nil {
		return false, 0, fmt.Errorf("redis take rate: %w", err)
	}
	return res[0] == 1, time.Duration(res[1]) * time.Microsecond, nil
}
