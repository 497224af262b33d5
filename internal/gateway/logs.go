package gateway

import (
	"fmt"
	"sync"
	"time"
)

// Log lines that clients or a store's content can cause come at whatever
// pace those send them, so they go through one of two bounded logs:
// refusalLog, for one stream of refusals (401s, foreign Hosts), writes a
// burst per interval and then the count of the rest; rareLog, for kinds
// of trouble (bad cache entries, the connection limit reached), writes one
// line per kind per interval and tells in the next how many it left out.

// The refusal log takes the first refusalBurst of every refusalEvery and
// counts the rest.
const (
	refusalBurst = 5
	refusalEvery = 10 * time.Second
)

// refusalLog writes at most burst lines per interval; the lines beyond are
// counted and reported in one line when the interval ends (or at close).
type refusalLog struct {
	logf  func(format string, args ...any)
	burst int
	every time.Duration

	mu      sync.Mutex
	start   time.Time // of the current interval
	n       int       // lines written in it
	dropped int       // lines not written
	timer   *time.Timer
}

func newRefusalLog(logf func(string, ...any)) *refusalLog {
	return &refusalLog{logf: logf, burst: refusalBurst, every: refusalEvery}
}

// printf logs one refusal, or counts it when the interval's lines are
// spent.
func (l *refusalLog) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if now.Sub(l.start) >= l.every {
		l.reportLocked()
		l.start, l.n = now, 0
	}
	if l.n < l.burst {
		l.n++
		l.logf(format, args...)
		return
	}
	l.dropped++
	if l.timer == nil {
		l.timer = time.AfterFunc(l.start.Add(l.every).Sub(now), l.flush)
	}
}

// flush reports the refusals not logged so far.
func (l *refusalLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reportLocked()
}

func (l *refusalLog) reportLocked() {
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	if l.dropped > 0 {
		l.logf("gateway: %d more refused requests were not logged (at most %d lines every %s)", l.dropped, l.burst, l.every)
		l.dropped = 0
	}
}

// rareLog writes a kind of line at most once per interval, and says in
// the next one how many it left out: a flood of bad entries costs a few
// lines, not one per call.
type rareLog struct {
	logf     func(format string, args ...any)
	interval time.Duration

	mu      sync.Mutex
	last    map[string]time.Time
	dropped map[string]int
}

func newRareLog(logf func(format string, args ...any), interval time.Duration) *rareLog {
	return &rareLog{logf: logf, interval: interval, last: map[string]time.Time{}, dropped: map[string]int{}}
}

// printf writes the line unless a line of kind was written within the
// interval.
func (r *rareLog) printf(kind, format string, args ...any) {
	now := time.Now()
	r.mu.Lock()
	if t, ok := r.last[kind]; ok && now.Sub(t) < r.interval {
		r.dropped[kind]++
		r.mu.Unlock()
		return
	}
	r.last[kind] = now
	dropped := r.dropped[kind]
	delete(r.dropped, kind)
	r.mu.Unlock()
	line := fmt.Sprintf(format, args...)
	if dropped > 0 {
		line += fmt.Sprintf(" (and %d more like it since the last such line)", dropped)
	}
	r.logf("%s", line)
}
