// Command oidc-provider runs internal/oidctest's OpenID provider for tests
// that are not written in Go (tests/js): it prints "issuer URL" on stdout,
// approves every sign-in as the first user, and stops when stdin closes.
//
//	oidc-provider -audience http://127.0.0.1:8787/mcp alice@example.com bob@example.com
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/deepseek-web-retrieval/deepseek-web-retrieval/internal/oidctest"
)

func main() {
	audience := flag.String("audience", "", "the URL access tokens name in aud")
	flag.Parse()
	if *audience == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: oidc-provider -audience URL EMAIL...")
		os.Exit(2)
	}
	p, err := oidctest.New(*audience, flag.Args()...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oidc-provider:", err)
		os.Exit(1)
	}
	defer p.Close()
	p.SignInAs(flag.Arg(0))
	fmt.Printf("issuer %s\nclient %s\nredirect %s\n", p.URL, oidctest.ClientID, oidctest.RedirectURL)
	_, _ = io.Copy(io.Discard, os.Stdin)
}
