package tool

import (
	"strings"
	"unicode"
)

// titleMax is the most code points of a tool title's subject.
const titleMax = 80

// Title is the title a host shows for a finished call: the tool's name
// and what it worked on, e.g. "deepseek_fetch go.dev/doc/go1.26" or
// "deepseek_search wasi preview 2 status". A URL loses its scheme and a
// lone trailing slash; control characters and runs of white space become
// one space, invalid UTF-8 becomes U+FFFD; a long subject is cut at
// titleMax code points with "…".
func Title(name, subject string) string {
	if name == FetchName {
		for _, scheme := range []string{"https://", "http://"} {
			if len(subject) >= len(scheme) && strings.EqualFold(subject[:len(scheme)], scheme) {
				subject = subject[len(scheme):]
				break
			}
		}
		if strings.Count(subject, "/") == 1 && strings.HasSuffix(subject, "/") {
			subject = strings.TrimSuffix(subject, "/")
		}
	}
	subject = strings.Join(strings.FieldsFunc(strings.ToValidUTF8(subject, "\uFFFD"), func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if r := []rune(subject); len(r) > titleMax {
		subject = string(r[:titleMax-1]) + "…"
	}
	if subject == "" {
		return name
	}
	return name + " " + subject
}
