package gateway

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"
	"time"
)

// A cache entry is how [Cache] keeps an answer in the [Store]:
//
//	"dwr\x01" | expiry (Unix ms, 8 bytes big-endian) | MAC (32 bytes) | answer
//
// MAC is HMAC-SHA256, under a key derived from CacheOptions.Secret, of
// "dwr\x01", the store key's length (4 bytes big-endian) and bytes, the
// expiry and the answer. Binding the key means an entry cannot be moved to
// another key; binding the expiry means an entry copied out and put back
// later, or made to never expire, is refused once its time is up. Whoever
// can write to the store but does not hold the secret can make an entry
// fail, never make one pass: a failed entry is a miss.
const (
	entryMagic  = "dwr\x01"
	entryHeader = len(entryMagic) + 8 + sha256.Size

	// maxAnswerBytes is the largest answer the cache keeps, and with
	// maxEntryBytes the largest value a [RedisStore] reads. The largest
	// answer a tool gives is a fetch at the highest fetchMaxChars,
	// 1,000,000 code points: at most 4,000,000 bytes. A search gives at
	// most 50 results of up to 20,000 code points each (80,000 bytes) plus
	// titles, URLs and notes cut from a response of at most 5 MiB. 8 MiB
	// holds either; an answer beyond it (only a pathological search
	// response could make one) is served but not cached, so the bound
	// never refuses an entry the gateway wrote.
	maxAnswerBytes = 8 << 20
	maxEntryBytes  = entryHeader + maxAnswerBytes

	// entrySkew is how far past its expiry an entry is still accepted:
	// the replica that wrote it may have a clock ahead of the reader's.
	entrySkew = time.Minute
)

// macKeyLabel separates the MAC key from every other use of the secret.
const macKeyLabel = "deepseek-web-retrieval gateway cache entry MAC key v1"

// macKeyOf derives the entries' MAC key from a secret; the secret itself is
// not kept.
func macKeyOf(secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(macKeyLabel))
	return m.Sum(nil)
}

// processSecret is the secret of Caches given none: shared by the Caches of
// this process, known to no other.
var processSecret = sync.OnceValue(func() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return b
})

// entryMAC is the MAC of an entry's fields.
func entryMAC(macKey []byte, key string, expiry []byte, answer []byte) []byte {
	m := hmac.New(sha256.New, macKey)
	m.Write([]byte(entryMagic))
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(key)))
	m.Write(n[:])
	m.Write([]byte(key))
	m.Write(expiry)
	m.Write(answer)
	return m.Sum(nil)
}

// sealEntry makes the entry of answer at key, expiring at expires.
func sealEntry(macKey []byte, key string, answer []byte, expires time.Time) []byte {
	e := make([]byte, entryHeader, entryHeader+len(answer))
	copy(e, entryMagic)
	exp := e[len(entryMagic) : len(entryMagic)+8]
	binary.BigEndian.PutUint64(exp, uint64(expires.UnixMilli()))
	copy(e[len(entryMagic)+8:], entryMAC(macKey, key, exp, answer))
	return append(e, answer...)
}

// entryError says why an entry was refused; kind groups them for the
// log's rate limit.
type entryError struct {
	kind, msg string
}

func (e *entryError) Error() string { return e.msg }

// errEntryMAC is an entry whose MAC does not match: tampered with, moved
// from another key, or written under another secret.
var errEntryMAC error = &entryError{"mac", "failed authentication (tampered with, moved from another key, or written by a replica with another DeepSeek key)"}

// openEntry returns the answer of the entry e at key, checked: its length,
// its format, its MAC, then its expiry against now. The answer shares e's
// memory.
func openEntry(macKey []byte, key string, e []byte, now time.Time) ([]byte, error) {
	switch {
	case len(e) > maxEntryBytes:
		return nil, &entryError{"size", fmt.Sprintf("is %d bytes, over the %d an entry may have", len(e), maxEntryBytes)}
	case len(e) < entryHeader:
		return nil, &entryError{"format", fmt.Sprintf("is %d bytes, shorter than an entry's %d-byte header", len(e), entryHeader)}
	case string(e[:len(entryMagic)]) != entryMagic:
		return nil, &entryError{"format", "is not a cache entry of this gateway version"}
	}
	exp := e[len(entryMagic) : len(entryMagic)+8]
	mac := e[len(entryMagic)+8 : entryHeader]
	answer := e[entryHeader:]
	if !hmac.Equal(mac, entryMAC(macKey, key, exp, answer)) {
		return nil, errEntryMAC
	}
	ms := binary.BigEndian.Uint64(exp)
	if ms > uint64(now.Add(-entrySkew).UnixMilli()) {
		return answer, nil
	}
	return nil, &entryError{"expired", fmt.Sprintf("expired at %s (an old entry put back)", time.UnixMilli(int64(ms)).UTC().Format(time.RFC3339))}
}

// shortKey is key for a log line: a cache or lock key's hash is cut to
// its first 8 digits.
func shortKey(key string) string {
	if len(key) > 10 {
		return key[:10] + "…"
	}
	return key
}
