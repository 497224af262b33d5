// Command load is the load benchmark of the MCP server (make bench-load): it
// starts the built binary as a child process (`deepseek-web-retrieval mcp`)
// against a mock DeepSeek in this process, drives it over stdio, and prints
// for each scenario the child's peak RSS (getrusage's ru_maxrss after it
// exits, the VmHWM of /proc/PID/status) and how the calls ended:
//
//   - messages: 20 concurrent searches on the Messages backend whose turns
//     pause with 4 MB blocks (each continuation resends everything so far);
//   - flood: a client that writes 100,000 requests without reading its
//     answers, then reads them all;
//   - fetch: 200 concurrent fetches of distinct 4.9 MB pages;
//   - identical: 50 concurrent fetches of one page (the mock counts the
//     requests that reach it).
//
// Targets: peak RSS at most 256 MiB in each, every call answered or refused
// with a clear error, one request for the identical fetches.
//
//	go run ./tests/load -bin bin/deepseek-web-retrieval [-run messages,flood,fetch,identical]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/tests/load/internal/peak"
)

const key = "sk-loadbench0123456789"

func main() {
	bin := flag.String("bin", "bin/deepseek-web-retrieval", "the binary under test")
	run := flag.String("run", "messages,flood,fetch,identical", "scenarios to run, comma-separated")
	flag.Parse()
	scenarios := map[string]func(string) row{
		"messages": messagesScenario, "flood": floodScenario,
		"fetch": fetchScenario, "identical": identicalScenario,
	}
	var rows []row
	failed := false
	for _, name := range strings.Split(*run, ",") {
		f := scenarios[strings.TrimSpace(name)]
		if f == nil {
			fmt.Fprintf(os.Stderr, "load: unknown scenario %q\n", name)
			os.Exit(2)
		}
		r := f(*bin)
		rows = append(rows, r)
		failed = failed || !r.ok
	}
	fmt.Printf("%-10s %10s %9s  %s\n", "scenario", "peak RSS", "time", "completion")
	for _, r := range rows {
		mark := ""
		if !r.ok {
			mark = "  MISSED TARGET"
		}
		fmt.Printf("%-10s %6.0f MiB %8.1fs  %s%s\n", r.name, float64(r.peakKB)/1024, r.elapsed.Seconds(), r.completion, mark)
	}
	if failed {
		os.Exit(1)
	}
}

type row struct {
	name       string
	peakKB     int64
	elapsed    time.Duration
	completion string
	ok         bool
}

// child is the MCP server under test.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
	wmu   sync.Mutex
}

func start(bin string, args ...string) *child {
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	cmd.Env = append(os.Environ(), "DEEPSEEK_API_KEY="+key)
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	check(err)
	out, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	c := &child{cmd: cmd, stdin: in, out: bufio.NewReaderSize(out, 1<<20)}
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"load","version":"1"}}}`)
	c.read()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *child) send(line string) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := io.WriteString(c.stdin, line+"\n")
	check(err)
}

// message is an answer from the server.
type message struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (c *child) read() (message, bool) {
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		return message{}, false
	}
	var m message
	check(json.Unmarshal(line, &m))
	return m, true
}

// finish closes stdin, waits for the exit and returns the peak RSS in KiB.
func (c *child) finish() int64 {
	c.stdin.Close()
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, c.out); close(done) }()
	_ = c.cmd.Wait()
	<-done
	return peak.KB(c.cmd.ProcessState)
}

func toolCall(id int, tool string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	return string(b)
}

// outcome tallies the answers to tool calls.
type outcome struct {
	answered, ok, refused int
	sample                string
}

func (o *outcome) add(m message) {
	o.answered++
	switch {
	case m.Error != nil:
		o.refused++
		o.note("JSON-RPC " + strconv.Itoa(m.Error.Code) + ": " + m.Error.Message)
	case m.Result != nil && m.Result.IsError:
		o.refused++
		if len(m.Result.Content) > 0 {
			o.note(m.Result.Content[0].Text)
		}
	default:
		o.ok++
	}
}

func (o *outcome) note(s string) {
	if o.sample == "" {
		if len(s) > 110 {
			s = s[:110] + "…"
		}
		o.sample = s
	}
}

func (o *outcome) String(n int) string {
	s := fmt.Sprintf("%d/%d answered: %d ok, %d refused", o.answered, n, o.ok, o.refused)
	if o.sample != "" {
		s += " (e.g. " + strconv.Quote(o.sample) + ")"
	}
	return s
}

// clear reports whether every refusal carried a sentence.
func (o *outcome) clear() bool { return o.refused == 0 || o.sample != "" }

// concurrent sends n tool calls at once and reads their n answers.
func concurrent(c *child, n int, call func(i int) string) outcome {
	go func() {
		for i := range n {
			c.send(call(i))
		}
	}()
	var o outcome
	for range n {
		m, ok := c.read()
		if !ok {
			break
		}
		o.add(m)
	}
	return o
}

const target = 256 << 10 // KiB

func messagesScenario(bin string) row {
	const n = 20
	block := strings.Repeat("A", 4<<20)
	var reqs atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"type":"message","role":"assistant","content":[{"type":"server_tool_use","id":"s1","name":"web_search","input":{"query":"q"}},`+
			`{"type":"web_search_tool_result","tool_use_id":"s1","content":[{"type":"web_search_result","url":"https://example.com/%d","title":"T","encrypted_content":"%s","page_age":"2025"}]}],`+
			`"stop_reason":"pause_turn","usage":{"input_tokens":10,"output_tokens":10,"server_tool_use":{"web_search_requests":1}}}`, reqs.Load(), block)
	}))
	defer srv.Close()
	t0 := time.Now()
	c := start(bin, "--search-backend", "messages", "--messages-base-url", srv.URL)
	o := concurrent(c, n, func(i int) string {
		return toolCall(i+1, "deepseek_search", map[string]any{"query": "paused turn " + strconv.Itoa(i)})
	})
	peak := c.finish()
	return row{name: "messages", peakKB: peak, elapsed: time.Since(t0),
		completion: o.String(n) + fmt.Sprintf(", %d requests", reqs.Load()),
		ok:         peak >= 0 && peak <= target && o.answered == n && o.clear()}
}

func floodScenario(bin string) row {
	const n = 100_000
	t0 := time.Now()
	c := start(bin)
	var written atomic.Int64
	go func() {
		// One write per request, as a client would; the pipe fills when the
		// server stops reading.
		for i := range n {
			c.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"tools/list"}`)
			written.Add(1)
		}
	}()
	// Write without reading until the writer finishes or stalls for 2 s.
	last, since := int64(-1), time.Now()
	for written.Load() < n && time.Since(since) < 2*time.Second {
		time.Sleep(100 * time.Millisecond)
		if w := written.Load(); w != last {
			last, since = w, time.Now()
		}
	}
	unread := written.Load()
	var o outcome
	deadline := time.Now().Add(3 * time.Minute)
	for o.answered < n && time.Now().Before(deadline) {
		m, ok := c.read()
		if !ok {
			break
		}
		if m.Error != nil {
			o.refused++
			o.note(m.Error.Message)
		} else {
			o.ok++
		}
		o.answered++
	}
	peak := c.finish()
	stalled := "the server read them all"
	if unread < n {
		stalled = fmt.Sprintf("the server stopped reading after %d", unread)
	}
	return row{name: "flood", peakKB: peak, elapsed: time.Since(t0),
		completion: o.String(n) + "; while unread, " + stalled,
		ok:         peak >= 0 && peak <= target && o.answered == n && o.clear()}
}

// pageBody is a fetch answer of about 4.9 MB.
func pageBody(title string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"title":` + strconv.Quote(title) + `,"content":"`)
	line := "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. "
	for b.Len() < 4_900_000 {
		b.WriteString(line)
		b.WriteString(`\n`)
	}
	b.WriteString(`"}`)
	return b.Bytes()
}

func fetchServer(delay time.Duration, reqs *atomic.Int64) *httptest.Server {
	body := pageBody("A long page")
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.Add(1)
		io.Copy(io.Discard, r.Body)
		time.Sleep(delay)
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
}

func fetchScenario(bin string) row {
	const n = 200
	var reqs atomic.Int64
	srv := fetchServer(0, &reqs)
	defer srv.Close()
	t0 := time.Now()
	c := start(bin, "--base-url", srv.URL)
	o := concurrent(c, n, func(i int) string {
		return toolCall(i+1, "deepseek_fetch", map[string]any{"url": "https://example.com/page/" + strconv.Itoa(i)})
	})
	peak := c.finish()
	return row{name: "fetch", peakKB: peak, elapsed: time.Since(t0),
		completion: o.String(n) + fmt.Sprintf(", %d requests", reqs.Load()),
		ok:         peak >= 0 && peak <= target && o.answered == n && o.clear()}
}

func identicalScenario(bin string) row {
	const n = 50
	var reqs atomic.Int64
	srv := fetchServer(500*time.Millisecond, &reqs)
	defer srv.Close()
	t0 := time.Now()
	c := start(bin, "--base-url", srv.URL)
	o := concurrent(c, n, func(i int) string {
		return toolCall(i+1, "deepseek_fetch", map[string]any{"url": "https://example.com/same-page"})
	})
	peak := c.finish()
	return row{name: "identical", peakKB: peak, elapsed: time.Since(t0),
		completion: o.String(n) + fmt.Sprintf(", %d requests reached the mock", reqs.Load()),
		ok:         peak >= 0 && peak <= target && o.answered == n && o.clear() && reqs.Load() == 1}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}
