package mcp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/core"
	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/mcp"
)

// NewServer is the MCP server every host but OpenCode runs: the two tools,
// whose calls go to DeepSeek with the key Getenv reads. Here a client
// connected in memory fetches a page from a stand-in for DeepSeek.
func ExampleNewServer() {
	deepseek := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"title":"Effective Go","content":"Go is a new language."}`)
	}))
	defer deepseek.Close()
	cfg, _, err := core.NewConfig(core.Options{BaseURL: deepseek.URL})
	if err != nil {
		panic(err)
	}
	server := mcp.NewServer(mcp.Options{Config: cfg, Getenv: func(string) string { return "sk-example" }})

	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "example", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		panic(err)
	}
	for _, t := range tools.Tools {
		fmt.Println("tool:", t.Name)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "deepseek_fetch", Arguments: map[string]any{"url": "https://go.dev/doc/effective_go"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Content[0].(*sdk.TextContent).Text)
	// Output:
	// tool: deepseek_fetch
	// tool: deepseek_search
	// # Effective Go
	//
	// Go is a new language.
}
