package gateway

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"
	"strconv"
	"strings"
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
// # What it trusts
//
// Nothing it reads. Whatever was written at a key, by anyone who can reach
// Redis, is bounded before it counts:
//
//   - a value (Get) of another type than a string, or longer than the
//     largest cache entry (8 MiB and a header), reads as absent; Redis
//     checks its type and length, so the value never crosses the wire;
//   - a lock (SetNX) with no expiry or one longer than asked for is cut
//     to the ttl asked for, so it frees itself like any other lock;
//   - a counter (IncrUpTo) that is not a count (not a string of digits)
//     is set to the limit: the quota is spent, never restarted at 0;
//   - slots and rate events of another type are dropped, and those
//     scored in the future (a slot beyond its ttl, an event after now)
//     are removed, so they neither hold a member busy nor make a
//     "retry in" longer than the window.
//
// Each is logged (at most a line a minute of each kind) and is not an
// error: a bad key is not an outage, and the [FailoverStore] in front stays on
// Redis.
//
// A RedisStore returns Redis's errors as they are; put it behind a
// [FailoverStore] so an outage degrades to in-process state.
type RedisStore struct {
	c      *redis.Client
	prefix string
	bad    *rareLog
}

// RedisOptions configures [OpenRedis]. The zero value is ready to use.
type RedisOptions struct {
	// Prefix starts every key, so several gateways can share one Redis.
	// Empty means "dwr:".
	Prefix string
	// Timeout bounds dialling and each command's read and write, so a
	// Redis that stops answering costs a call at most this long before
	// [FailoverStore] takes over. Zero means 250 ms.
	Timeout time.Duration
	// Logf reports bad entries found in Redis (see [RedisStore]); nil
	// means log.Printf.
	Logf func(format string, args ...any)
}

// ErrRedisURL reports a --redis URL that cannot be used. Its message never
// repeats the URL, which may carry a password.
var ErrRedisURL = errors.New("redis URL: want redis://[user:password@]host[:port][/db] or rediss://… (TLS) or unix:///path")

var quietRedis sync.Once

// OpenRedis returns a RedisStore for rawURL (redis://, rediss:// or
// unix://). It does not connect: the first command does, and [RedisStore.Ping]
// checks the server at start. It silences go-redis's own process-wide
// logger, whose lines (one per failed dial) would flood the log during an
// outage that [FailoverStore] reports once.
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
	// [FailoverStore] reports an outage once instead.
	quietRedis.Do(func() { redis.SetLogger(&logging.VoidLogger{}) })
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	return &RedisStore{c: redis.NewClient(o), prefix: opts.Prefix, bad: newRareLog(opts.Logf, time.Minute)}, nil
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

// getScript reads a string of at most ARGV[1] bytes: {0, value}, or {1,
// type} for another type, or {2, length} for a longer string; nil when
// absent.
var getScript = redis.NewScript(`
local t = redis.call('TYPE', KEYS[1])['ok']
if t == 'none' then
  return false
end
if t ~= 'string' then
  return {1, t}
end
local n = redis.call('STRLEN', KEYS[1])
if n > tonumber(ARGV[1]) then
  return {2, n}
end
return {0, redis.call('GET', KEYS[1])}`)

// Get implements [Store]. A value of another type than a string, or
// longer than the largest cache entry, reads as absent (and is logged);
// Redis checks both, so such a value is never sent.
func (r *RedisStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	res, err := getScript.Run(ctx, r.c, []string{r.k(key)}, maxEntryBytes).Slice()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("redis get: %w", err)
	}
	if len(res) != 2 {
		return nil, false, fmt.Errorf("redis get: the script answered %d values, not 2", len(res))
	}
	switch code, _ := res[0].(int64); code {
	case 0:
		v, ok := res[1].(string)
		if !ok {
			return nil, false, fmt.Errorf("redis get: the script answered a %T, not a string", res[1])
		}
		return []byte(v), true, nil
	case 1:
		r.bad.printf("type", "gateway: redis: %s holds a %v, not a string; treated as absent", shortKey(key), res[1])
	default:
		r.bad.printf("size", "gateway: redis: %s holds %v bytes, over the %d a value may have; treated as absent, not read", shortKey(key), res[1], maxEntryBytes)
	}
	return nil, false, nil
}

// Set implements [Store].
func (r *RedisStore) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := r.c.Set(ctx, r.k(key), value, ttl).Err(); err != nil {
		return fmt.Errorf("redis set: %w", err)
	}
	return nil
}

// setNXScript is SET NX PX that also cuts a held key with no expiry, or
// one longer than ARGV[2] ms, to ARGV[2]: 1 set, 0 held, 2 held and cut.
var setNXScript = redis.NewScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 1
end
local p = redis.call('PTTL', KEYS[1])
if p == -1 or p > tonumber(ARGV[2]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 2
end
return 0`)

// SetNX implements [Store]. A key held with no expiry, or with a longer
// one than ttl, is cut to ttl (and logged): no lock outlives what its
// owner would set.
func (r *RedisStore) SetNX(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	n, err := setNXScript.Run(ctx, r.c, []string{r.k(key)}, value, max(ttl.Milliseconds(), 1)).Int()
	if err != nil {
		return false, fmt.Errorf("redis set nx: %w", err)
	}
	if n == 2 {
		r.bad.printf("lock", "gateway: redis: lock %s had no expiry or a longer one than %s; cut to %s", shortKey(key), ttl, ttl)
	}
	return n == 1, nil
}

var delIfScript = redis.NewScript(`
if redis.call('TYPE', KEYS[1])['ok'] == 'string' and redis.call('GET', KEYS[1]) == ARGV[1] then
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
if redis.call('TYPE', KEYS[1])['ok'] == 'string' and redis.call('GET', KEYS[1]) == ARGV[1] then
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

// incrUpToScript answers {count, added, bad}. A count is a string of at
// most 15 digits (exact in Lua's doubles); anything else is bad: with a
// limit (ARGV[1] > 0) it is set to the limit, to expire at ARGV[2]; a
// read (limit 0) leaves it and answers 0. A count without an expiry gets
// one.
var incrUpToScript = redis.NewScript(`
local limit = tonumber(ARGV[1])
local t = redis.call('TYPE', KEYS[1])['ok']
local n = 0
if t == 'string' then
  local v = redis.call('GET', KEYS[1])
  if string.len(v) <= 15 and string.match(v, '^[0-9]+$') then
    n = tonumber(v)
  else
    t = 'bad'
  end
elseif t ~= 'none' then
  t = 'bad'
end
if t == 'bad' then
  if limit == 0 then
    return {0, 0, 1}
  end
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
  return {limit, 0, 1}
end
if n >= limit then
  if limit > 0 and t == 'string' and redis.call('PTTL', KEYS[1]) == -1 then
    redis.call('PEXPIREAT', KEYS[1], ARGV[2])
  end
  return {n, 0, 0}
end
n = redis.call('INCR', KEYS[1])
if n == 1 or redis.call('PTTL', KEYS[1]) == -1 then
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
end
return {n, 1, 0}`)

// IncrUpTo implements [Store]. A counter that is not a count (another
// type, or a string that is not digits) is logged and, with a limit, set
// to it: the quota reads as spent until the counter expires, rather than
// restarting at 0 or failing the call.
func (r *RedisStore) IncrUpTo(ctx context.Context, key string, limit int64, expireAt time.Time) (int64, bool, error) {
	res, err := incrUpToScript.Run(ctx, r.c, []string{r.k(key)}, limit, expireAt.UnixMilli()).Int64Slice()
	if err != nil {
		return 0, false, fmt.Errorf("redis incr up to: %w", err)
	}
	if len(res) != 3 {
		return 0, false, fmt.Errorf("redis incr up to: the script answered %d values, not 3", len(res))
	}
	if res[2] == 1 {
		fix := fmt.Sprintf("set to the limit, %d, until it expires", limit)
		if limit == 0 {
			fix = "read as 0"
		}
		r.bad.printf("count", "gateway: redis: counter %s held something that is not a count; %s", key, fix)
	}
	return res[0], res[1] == 1, nil
}

// trimLua defines trim(lo, hi) for the scripts over a sorted set of
// scored members (slots, rate events): it drops KEYS[1] when it is not a
// sorted set (answering 1), removes the members scored at most lo (past)
// and those scored after hi (no one of ours puts them there: answering
// 2), and answers 0 otherwise.
const trimLua = `
local function trim(lo, hi)
  local bad = 0
  local ty = redis.call('TYPE', KEYS[1])['ok']
  if ty ~= 'none' and ty ~= 'zset' then
    redis.call('DEL', KEYS[1])
    bad = 1
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', lo)
  if redis.call('ZREMRANGEBYSCORE', KEYS[1], string.format('(%.17g', hi), '+inf') > 0 then
    bad = 2
  end
  return bad
end`

// Slot members score their expiry in server milliseconds. The answer is
// {live slots, added, bad}: bad is 1 when the key was not a sorted set
// (it is dropped), 2 when slots expired later than now + ttl (removed).
var acquireSlotScript = redis.NewScript(trimLua + `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[3])
local bad = trim(now, now + ttl)
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[2]) then
  return {n, 0, bad}
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl)
return {n + 1, 1, bad}`)

// AcquireSlot implements [Store]. A key that is not a sorted set is
// dropped, and slots that would outlive ttl from now are removed (both
// logged): no slot holds a member busy longer than a slot lives.
func (r *RedisStore) AcquireSlot(ctx context.Context, key, id string, limit int, ttl time.Duration) (int, bool, error) {
	res, err := acquireSlotScript.Run(ctx, r.c, []string{r.k(key)}, id, limit, max(ttl.Milliseconds(), 1)).Int64Slice()
	if err != nil {
		return 0, false, fmt.Errorf("redis acquire slot: %w", err)
	}
	if len(res) != 3 {
		return 0, false, fmt.Errorf("redis acquire slot: the script answered %d values, not 3", len(res))
	}
	r.badSet(key, res[2], "slots expiring more than "+ttl.String()+" from now")
	return int(res[0]), res[1] == 1, nil
}

// badSet logs what a slot or rate script found wrong with key's sorted
// set: 1 another type (dropped), 2 members scored out of range (removed).
func (r *RedisStore) badSet(key string, bad int64, what string) {
	switch bad {
	case 1:
		r.bad.printf("set-type", "gateway: redis: %s was not a sorted set; dropped", key)
	case 2:
		r.bad.printf("set-range", "gateway: redis: %s held %s; removed", key, what)
	}
}

var releaseSlotScript = redis.NewScript(`
if redis.call('TYPE', KEYS[1])['ok'] == 'zset' then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0`)

// ReleaseSlot implements [Store].
func (r *RedisStore) ReleaseSlot(ctx context.Context, key, id string) error {
	if err := releaseSlotScript.Run(ctx, r.c, []string{r.k(key)}, id).Err(); err != nil {
		return fmt.Errorf("redis release slot: %w", err)
	}
	return nil
}

// Rate events score their time in server microseconds; ARGV[3] is a
// unique member for this event. The answer is {taken, retry in µs (0 to
// the window), bad}: bad is 1 when the key was not a sorted set (it is
// dropped), 2 when events were scored after now (removed).
var takeRateScript = redis.NewScript(trimLua + `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local window = tonumber(ARGV[2])
local bad = trim(now - window, now)
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local wait = window
  if oldest[2] ~= nil then
    wait = math.min(math.max(tonumber(oldest[2]) + window - now, 0), window)
  end
  return {0, wait, bad}
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.ceil(window / 1000) + 1000)
return {1, 0, bad}`)

// TakeRate implements [Store]. A key that is not a sorted set is dropped,
// and events scored after now are removed (both logged), so retryIn is
// never longer than window.
func (r *RedisStore) TakeRate(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error) {
	id := strconv.FormatUint(randUint64(), 36)
	res, err := takeRateScript.Run(ctx, r.c, []string{r.k(key)}, limit, window.Microseconds(), id).Int64Slice()
	if err != nil {
		return false, 0, fmt.Errorf("redis take rate: %w", err)
	}
	if len(res) != 3 {
		return false, 0, fmt.Errorf("redis take rate: the script answered %d values, not 3", len(res))
	}
	r.badSet(key, res[2], "events in the future")
	retry := min(max(time.Duration(res[1])*time.Microsecond, 0), window)
	return res[0] == 1, retry, nil
}

// maxUsageFields bounds a day's hash that ReadUsage reads: 4,000 members
// each calling both tools, every count set.
const maxUsageFields = 4000 * 2 * len(usageFields)

// usageKeep is how long a day's usage counts stay in Redis.
const usageKeep = 92 * 24 * time.Hour

// usageFields are the counts' names in a day's hash, after "member\ttool\t".
var usageFields = [...]string{"billed", "cached", "coalesced", "refused", "failed"}

func (c *UsageCounts) fields() [len(usageFields)]*int64 {
	return [...]*int64{&c.Billed, &c.Cached, &c.Coalesced, &c.Refused, &c.Failed}
}

// AddUsage adds row's counts to its day's hash (usage:DAY, a field per
// member, tool and count), which expires 92 days after it was last
// written: the [UsageBook] replicas share.
func (r *RedisStore) AddUsage(ctx context.Context, row UsageRow) error {
	key := r.k("usage:" + row.Day)
	_, err := r.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for i, n := range row.fields() {
			if *n != 0 {
				p.HIncrBy(ctx, key, row.Member+"\t"+row.Tool+"\t"+usageFields[i], *n)
			}
		}
		p.Expire(ctx, key, usageKeep)
		return nil
	})
	return err
}

// ReadUsage reads the days from since to today (UTC). A field that is not
// a member, a tool and a known count of digits is skipped: Redis is read,
// not trusted.
func (r *RedisStore) ReadUsage(ctx context.Context, since string) ([]UsageRow, error) {
	from, err := time.Parse(time.DateOnly, since)
	if err != nil {
		return nil, fmt.Errorf("usage since %q: want YYYY-MM-DD", since)
	}
	var rows []UsageRow
	for d := from; !d.After(time.Now().UTC()); d = d.AddDate(0, 0, 1) {
		day := d.Format(time.DateOnly)
		if n, err := r.c.HLen(ctx, r.k("usage:"+day)).Result(); err == nil && n > int64(maxUsageFields) {
			return nil, fmt.Errorf("usage:%s holds %d fields, more than a gateway writes (%d); not read", day, n, maxUsageFields)
		}
		m, err := r.c.HGetAll(ctx, r.k("usage:"+day)).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			if isWrongType(err) {
				continue
			}
			return nil, err
		}
		at := map[[2]string]int{}
		for field, v := range m {
			parts := strings.Split(field, "\t")
			n, err := strconv.ParseInt(v, 10, 64)
			i := slices.Index(usageFields[:], parts[len(parts)-1])
			if len(parts) != 3 || err != nil || n < 0 || i < 0 || CheckMemberName(parts[0]) != nil {
				continue
			}
			k := [2]string{parts[0], parts[1]}
			j, ok := at[k]
			if !ok {
				j = len(rows)
				at[k] = j
				rows = append(rows, UsageRow{Day: day, Member: parts[0], Tool: parts[1]})
			}
			*rows[j].fields()[i] += n
		}
	}
	return rows, nil
}

// isWrongType reports Redis's WRONGTYPE error: a key of another type.
func isWrongType(err error) bool { return strings.HasPrefix(err.Error(), "WRONGTYPE") }
