package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/tailscale/hujson"
)

// Quota classes: a signed-in member's groups (the token's --group-claim)
// choose the quotas that apply to them instead of --per-day and
// --in-flight, as a small file says:
//
//	{
//	  "classes": {"heavy": {"perDay": 2000, "inFlight": 16}, "trial": {"perDay": 20}},
//	  "groups": {"research": "heavy", "contractors": "trial"}
//	}
//
// A member in several mapped groups gets the most generous class (the
// largest perDay, 0 meaning none; then the largest inFlight; then the
// first name). A class leaves out what stays the gateway's.

// Class is one quota class.
type Class struct {
	Name string `json:"-"`
	// PerDay and InFlight replace Limits.PerDay and Limits.InFlight for
	// the class's members; nil keeps the gateway's.
	PerDay   *int `json:"perDay"`
	InFlight *int `json:"inFlight"`
}

// Classes maps groups to classes.
type Classes struct {
	classes map[string]*Class
	groups  map[string]string
}

// LoadClasses reads a classes file (JSON, comments and trailing commas
// allowed).
func LoadClasses(path string) (*Classes, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := ParseClasses(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseClasses parses a classes file's text.
func ParseClasses(data []byte) (*Classes, error) {
	std, err := hujson.Standardize(data)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	var f struct {
		Classes map[string]*Class `json:"classes"`
		Groups  map[string]string `json:"groups"`
	}
	dec := json.NewDecoder(bytes.NewReader(std))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("want {\"classes\": {NAME: {\"perDay\": N, \"inFlight\": N}}, \"groups\": {GROUP: NAME}}: %v", err)
	}
	for name, c := range f.Classes {
		if c == nil {
			return nil, fmt.Errorf("class %q: want an object such as {\"perDay\": 200}", name)
		}
		c.Name = name
		if c.PerDay != nil && *c.PerDay < 0 || c.InFlight != nil && *c.InFlight < 1 {
			return nil, fmt.Errorf("class %q: perDay is 0 (no quota) or more, inFlight 1 or more", name)
		}
	}
	for g, name := range f.Groups {
		if f.Classes[name] == nil {
			return nil, fmt.Errorf("group %q names the class %q, which \"classes\" does not define", g, name)
		}
	}
	return &Classes{classes: f.Classes, groups: f.Groups}, nil
}

// For returns the class of a member in groups, or nil when none maps.
func (c *Classes) For(groups []string) *Class {
	if c == nil {
		return nil
	}
	var found []*Class
	for _, g := range groups {
		if name, ok := c.groups[g]; ok {
			found = append(found, c.classes[name])
		}
	}
	if len(found) == 0 {
		return nil
	}
	unlimited := func(p *int) int {
		if p == nil || *p == 0 {
			return int(^uint(0) >> 1)
		}
		return *p
	}
	sort.SliceStable(found, func(i, j int) bool {
		a, b := found[i], found[j]
		if unlimited(a.PerDay) != unlimited(b.PerDay) {
			return unlimited(a.PerDay) > unlimited(b.PerDay)
		}
		if unlimited(a.InFlight) != unlimited(b.InFlight) {
			return unlimited(a.InFlight) > unlimited(b.InFlight)
		}
		return a.Name < b.Name
	})
	return found[0]
}

// apply returns lim with the class's quotas.
func (c *Class) apply(lim Limits) Limits {
	if c == nil {
		return lim
	}
	if c.PerDay != nil {
		lim.PerDay = *c.PerDay
	}
	if c.InFlight != nil {
		lim.InFlight = *c.InFlight
	}
	return lim
}

type classKey struct{}

// withClass returns ctx carrying the member's class for the limiter.
func withClass(ctx context.Context, c *Class) context.Context {
	if c == nil {
		return ctx
	}
	return context.WithValue(ctx, classKey{}, c)
}

func classOf(ctx context.Context) *Class {
	c, _ := ctx.Value(classKey{}).(*Class)
	return c
}
