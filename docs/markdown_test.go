package docs

// Reading the documentation: the Markdown files, their fenced blocks with the
// annotation before each, their tables and their links.

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// block is one fenced code block.
type block struct {
	file  string // path from the repository root: "docs/gateway.md"
	line  int    // line of the opening fence, from 1
	lang  string // the info string's first word: "sh", "jsonc"
	check string // the annotation before it: "flags" for <!-- check: flags -->
	text  string // the lines between the fences
}

func (b block) String() string { return b.file + ":" + strconv.Itoa(b.line) + " (```" + b.lang + ")" }

var annotation = regexp.MustCompile(`^<!--\s*check:\s*(.*?)\s*-->$`)

// parseBlocks returns the fenced blocks of a Markdown file. A block's
// annotation is an HTML comment `<!-- check: ... -->` on the last non-empty
// line before its fence.
func parseBlocks(file, src string) []block {
	lines := strings.Split(src, "\n")
	var out []block
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "```") {
			continue
		}
		b := block{file: file, line: i + 1}
		if f := strings.Fields(strings.TrimPrefix(l, "```")); len(f) > 0 {
			b.lang = f[0]
		}
		for j := i - 1; j >= 0; j-- {
			if strings.TrimSpace(lines[j]) == "" {
				continue
			}
			if m := annotation.FindStringSubmatch(strings.TrimSpace(lines[j])); m != nil {
				b.check = m[1]
			}
			break
		}
		var body []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			body = append(body, lines[i])
		}
		b.text = strings.Join(body, "\n")
		out = append(out, b)
	}
	return out
}

// prose is a Markdown file with its fenced blocks blanked out.
func prose(src string) string {
	lines := strings.Split(src, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			in = !in
			lines[i] = ""
			continue
		}
		if in {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// docFiles are README.md and docs/*.md, as paths from the repository root.
func docFiles() ([]string, error) {
	files, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	out := []string{"README.md"}
	for _, f := range files {
		out = append(out, filepath.ToSlash(strings.TrimPrefix(f, ".."+string(filepath.Separator))))
	}
	sort.Strings(out[1:])
	return out, nil
}

func readDoc(file string) (string, error) {
	b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(file)))
	return string(b), err
}

var (
	link      = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading   = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
	slugDrop  = regexp.MustCompile(`[^\p{L}\p{N}\- ]`)
	mdLinkTxt = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// slug is GitHub's anchor for a heading: lower case, punctuation dropped,
// spaces as hyphens.
func slug(h string) string {
	h = mdLinkTxt.ReplaceAllString(h, "$1")
	h = strings.ToLower(strings.TrimSpace(h))
	h = slugDrop.ReplaceAllString(h, "")
	return strings.ReplaceAll(h, " ", "-")
}

// anchors are the heading anchors of a Markdown file's prose.
func anchors(src string) map[string]bool {
	out := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(prose(src), -1) {
		out[slug(m[1])] = true
	}
	return out
}

// checkLinks returns a sentence for each relative link of file (whose text
// is src) that names no file, or a heading its target does not have.
func checkLinks(file, src string) []string {
	var bad []string
	for _, m := range link.FindAllStringSubmatch(prose(src), -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		path, frag, _ := strings.Cut(target, "#")
		full := file
		if path != "" {
			full = filepath.ToSlash(filepath.Join(filepath.Dir(file), path))
		}
		text, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(full)))
		if err != nil {
			if _, serr := os.Stat(filepath.Join("..", filepath.FromSlash(full))); serr == nil {
				continue // a directory
			}
			bad = append(bad, file+": link "+target+": no file "+full)
			continue
		}
		if frag != "" && strings.HasSuffix(full, ".md") && !anchors(string(text))[frag] {
			bad = append(bad, file+": link "+target+": "+full+" has no heading #"+frag)
		}
	}
	return bad
}

var optionRow = regexp.MustCompile("^\\| `([^`]+)` \\|")

// optionTableNames are the names in the first column of every table whose
// header's first column is "option".
func optionTableNames(src string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(prose(src), "\n") {
		switch {
		case strings.HasPrefix(l, "| option |"):
			in = true
		case !strings.HasPrefix(l, "|"):
			in = false
		case in:
			if m := optionRow.FindStringSubmatch(l); m != nil {
				out = append(out, m[1])
			}
		}
	}
	return out
}
