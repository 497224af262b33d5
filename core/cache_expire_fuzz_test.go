package core

import (
	"encoding/binary"
	"testing"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core/internal/weburl"

	"github.com/stretchr/testify/require"
)

// FuzzCacheExpire runs one sequence of puts and gets (keys, clock and ttl
// from the input) on two caches: one as is, one made to look at every
// entry on every call, as expire did before it kept soonest. Both must
// hold the same entries, in the same order, and answer alike.
func FuzzCacheExpire(f *testing.F) {
	f.Add([]byte("\x00\x01\x00\x00\x00\x10\x01\x02\x00\x00\x00\x20\x81\x01\x00\x00\x40\x00"))
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x00\x80\x00\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, ops []byte) {
		fast, slow := newCache(), newCache()
		var now int64 = 1_700_000_000_000
		for n := 0; len(ops) >= 6 && n < 100; n++ {
			op, key := ops[0], ops[1]
			step := int64(int16(binary.LittleEndian.Uint16(ops[2:]))) * 10
			ttl := int64(binary.LittleEndian.Uint16(ops[4:])) * 10
			ops = ops[6:]
			if op&0x40 != 0 {
				now = -now // a clock that jumps anywhere
			}
			now += step
			k := cacheKey{text: string(rune('a' + key%8))}
			if op&0x80 == 0 {
				e := func() *cacheEntry {
					e := &cacheEntry{key: k, ttl: ttl, stored: now, used: now, size: int64(key)}
					if op&1 == 0 {
						e.page = &Page{}
					} else {
						e.search = &SearchResult{}
					}
					return e
				}
				fast.put(e(), 1<<20)
				slow.soonest = 0
				slow.put(e(), 1<<20)
			} else {
				a := fast.get(k, now, ttl)
				slow.soonest = 0
				b := slow.get(k, now, ttl)
				if (a == nil) != (b == nil) {
					t.Fatalf("get %q at %d: %v with every entry looked at, %v without", k.text, now, b != nil, a != nil)
				}
			}
			if cacheKeys(slow) != cacheKeys(fast) || slow.bytes != fast.bytes || slow.pages != fast.pages || slow.searches != fast.searches {
				t.Fatalf("after %d ops: %q (%d bytes) with every entry looked at, %q (%d bytes) without", n, cacheKeys(slow), slow.bytes, cacheKeys(fast), fast.bytes)
			}
		}
	})
}

// cacheKeys lists c's keys, most recently used first.
func cacheKeys(c *cache) string {
	keys := ""
	for el := c.lru.Front(); el != nil; el = el.Next() {
		keys += el.Value.(*cacheEntry).key.text
	}
	return keys
}

// FuzzFetchKey checks fetchKey's way for a URL CheckFetchURL returned
// against the parse and print it skips.
func FuzzFetchKey(f *testing.F) {
	for _, s := range urlSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		send, err := CheckFetchURL(raw, nil, nil)
		if err != nil {
			return
		}
		req := Request{URL: "https://api.example/v1/tools/fetch"}
		fast := &operation{url: send, urlChecked: true, request: req}
		slow := &operation{url: send, request: req}
		u, ok := weburl.Parse(send)
		require.True(t, ok, "%q", send)
		require.Equal(t, "fetch https://api.example/v1/tools/fetch "+dedupKey(u), fetchKey(slow).String())
		require.Equal(t, fetchKey(slow), fetchKey(fast), "%q", send)
	})
}
