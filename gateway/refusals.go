package gateway

import (
	"sync"
	"time"
)

// Refusal log lines (401s, say) come at whatever pace clients send
// requests; the log takes the first refusalBurst of every refusalEvery and
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
