package install_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/install"
)

// A host plans init (reading only), the plan is shown to the user, applied,
// and later reversed by uninstall, which gives the user's bytes back.
// toyHost is the host of fakehost_external_test.go: it keeps its config in
// ~/.toy/config.json.
func Example() {
	home, err := os.MkdirTemp("", "install-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(home)
	config := filepath.Join(home, ".toy", "config.json")
	original := "{\n  \"theme\": \"dark\" // mine\n}\n"
	if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
		panic(err)
	}
	if err := os.WriteFile(config, []byte(original), 0o644); err != nil {
		panic(err)
	}
	show := func(p *install.Plan, applied bool) {
		var b strings.Builder
		if err := p.Render(&b, applied); err != nil {
			panic(err)
		}
		fmt.Print(strings.ReplaceAll(b.String(), home, "~"))
	}

	req := install.Request{
		Env:     install.Env{Home: home},
		Binary:  "/opt/bin/deepseek-web-retrieval",
		Options: install.Options{Search: "forced"},
	}
	var host install.Host = toyHost{}
	plan, err := host.PlanInit(req)
	if err != nil {
		panic(err)
	}
	show(plan, false)
	if err := plan.Apply(); err != nil {
		panic(err)
	}

	again, err := host.PlanInit(req)
	if err != nil {
		panic(err)
	}
	fmt.Println("=== init again, empty:", again.Empty())

	undo, err := host.PlanUninstall(req)
	if err != nil {
		panic(err)
	}
	fmt.Println("=== uninstall")
	for _, c := range undo.Changes {
		fmt.Println(c.Op, c.Rel)
	}
	if err := undo.Apply(); err != nil {
		panic(err)
	}
	data, err := os.ReadFile(config)
	if err != nil {
		panic(err)
	}
	fmt.Println("config restored:", string(data) == original)
	ents, err := os.ReadDir(filepath.Dir(config))
	if err != nil {
		panic(err)
	}
	for _, e := range ents {
		fmt.Println("left in ~/.toy:", e.Name())
	}
	// Output:
	// deepseek-web-retrieval init: plan only, nothing has been written.
	//
	//   config dir  ~/.toy
	//   config      config.json
	//   host        toy (config.json)
	//   scope       global
	//
	// Would do:
	//   update  config.json (config, diff below)
	//   create  deepseek-web-retrieval.install.json (install record)
	//
	// --- a/config.json
	// +++ b/config.json
	// @@ -1,3 +1,15 @@
	//  {
	// -  "theme": "dark" // mine
	// +  "theme": "dark", // mine
	// +  "mcpServers": {
	// +    "deepseek-web-retrieval": {
	// +      "command": "/opt/bin/deepseek-web-retrieval",
	// +      "args": [
	// +        "mcp",
	// +        "--search",
	// +        "forced",
	// +        "--fetch",
	// +        "optional"
	// +      ]
	// +    }
	// +  }
	//  }
	//
	// Run the same command with --yes to apply exactly this plan.
	//
	// The MCP server reads the DeepSeek API key from the DEEPSEEK_API_KEY environment variable each time it runs;
	// init never writes the key anywhere. Set it in your shell profile (~/.bashrc, ~/.zshrc, ...):
	//   export DEEPSEEK_API_KEY=...
	// === init again, empty: true
	// === uninstall
	// update config.json
	// delete deepseek-web-retrieval.install.json
	// config restored: true
	// left in ~/.toy: config.json
}

// A patch made at init turns the file back while it holds exactly what
// init wrote, and refuses once the user has changed it.
func ExampleMakePatch() {
	before := []byte("{\n  \"theme\": \"dark\"\n}\n")
	after := []byte("{\n  \"theme\": \"dark\",\n  \"mcpServers\": {}\n}\n")
	p := install.MakePatch(before, after)

	got, ok := p.Reverse(after)
	fmt.Printf("%v %q\n", ok, got)
	_, ok = p.Reverse([]byte("{\n  \"theme\": \"light\",\n  \"mcpServers\": {}\n}\n"))
	fmt.Println(ok)
	// Output:
	// true "{\n  \"theme\": \"dark\"\n}\n"
	// false
}

// Two hosts' plans apply as one unit: when the second fails, the first
// host's files are rolled back too.
func ExampleTx_Apply() {
	home, err := os.MkdirTemp("", "install-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(home)
	work := filepath.Join(home, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		panic(err)
	}
	global := install.Request{Env: install.Env{Home: home, WorkDir: work}, Binary: "/opt/bin/deepseek-web-retrieval"}
	project := global
	project.Scope = install.ScopeProject

	first, err := toyHost{}.PlanInit(global)
	if err != nil {
		panic(err)
	}
	// A plugin tree may not hold subdirectories: Apply fails on it.
	second, err := toyHost{Vendor: []install.TreeFile{{Name: "lib/x.js", Data: []byte("//\n")}}}.PlanInit(project)
	if err != nil {
		panic(err)
	}
	err = install.Tx{Command: "init", Plans: []*install.Plan{first, second}}.Apply()
	fmt.Println(err)
	fmt.Println("global config left:", install.Exists(filepath.Join(home, ".toy")))
	fmt.Println("project config left:", install.Exists(filepath.Join(work, ".toy")))
	// Output:
	// bad file name "lib/x.js" (everything this run wrote was rolled back)
	// global config left: false
	// project config left: false
}
